"""Session state through a few named helpers, and the URL mirror of the main choices.

Dataset, model and view choices live in *non-widget* session-state keys (widget
state is dropped when the user switches pages); each browser session has its
own. The choices that make a view reproducible (dataset recipe, model recipe,
view, reference point, resolution, and the Inspector's tree, replayed splits, node
and explained row) are mirrored into ``st.query_params`` so a link opens the same
view. Uploads are not in a link (their data is not a recipe): a tab's URL carries the
token of its kept copy instead (``?upload=...``, :mod:`ui.kept_uploads`), which only
that tab knows.
"""

from __future__ import annotations

import json

import streamlit as st
from curvedtrees.limits import MAX_ESTIMATORS, MAX_LINK_CHARS, MAX_UPLOAD_ROWS

__all__ = [
    "DATA",
    "LINK_PREFS",
    "MODEL",
    "PREFS",
    "UPLOAD",
    "UPLOAD_PARAM",
    "decode_param",
    "drop",
    "forget_widgets",
    "get",
    "kept_uploads",
    "link_prefs",
    "pref",
    "put",
    "set_pref",
    "sync_url",
    "url_params",
]

_PREFIX = "ct:"
DATA = "data"  # ui.data.DataRecord
MODEL = "model"  # ui.training.ModelRecord
UPLOAD = "upload"  # the table being mapped on the Data page
PREFS = "prefs"  # view choices: view key, reference, resolution, ...


def get(key: str, default=None):
    """Value of a non-widget session key (``default`` when unset)."""
    return st.session_state.get(_PREFIX + key, default)


def put(key: str, value) -> None:
    """Store a non-widget session value."""
    st.session_state[_PREFIX + key] = value


def drop(*keys: str) -> None:
    """Forget session values."""
    for key in keys:
        st.session_state.pop(_PREFIX + key, None)


# Widgets whose value mirrors a preference; forgotten when the preference changes
# from elsewhere (a demo, new data), so that they show the new value.
_PICTURE_PAGES = ("home", "regions", "insp", "data")
_PICTURE_WIDGETS = ("view", "klein", "axes", "ref", "row", "res")
_MODEL_WIDGETS = ("insp_k", "insp_tree", "insp_row", "insp_explain", "regions_tree")


def forget_widgets(picture: bool = True, model: bool = True) -> None:
    """Drop widget state that mirrors preferences, so widgets rebuild from the preferences."""
    names = []
    if picture:
        names += [f"{page}_{widget}" for page in _PICTURE_PAGES for widget in _PICTURE_WIDGETS]
    if model:
        names += list(_MODEL_WIDGETS)
    for name in list(st.session_state.keys()):
        if name in names or any(name.startswith(f"{page}_{w}_") for page in _PICTURE_PAGES for w in ("view", "axes")):
            st.session_state.pop(name, None)


def pref(name: str, default=None):
    """One view preference (kept across pages)."""
    return get(PREFS, {}).get(name, default)


def set_pref(name: str, value) -> None:
    prefs = dict(get(PREFS, {}))
    prefs[name] = value
    put(PREFS, prefs)


# ------------------------------------------------------------------ URL
def encode_param(value) -> str:
    """Compact JSON for the URL."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


# Integer view choices a link may carry, and their bounds: the grid resolution as the
# Regions page's slider allows it (ui.widgets.RESOLUTIONS), a row of the largest
# dataset, a tree of the largest ensemble; the Inspector's replayed split count and node
# (a tree grown on n rows has at most n - 1 splits and 2n - 1 nodes) and its explained
# row. A value outside is ignored (the page's default applies), so that no link asks for
# a grid of a billion cells; the Inspector also checks k and the node against the tree.
_LINK_INTEGERS = {
    "res": (40, 300),
    "row": (0, MAX_UPLOAD_ROWS),
    "tree": (0, MAX_ESTIMATORS),
    "k": (0, MAX_UPLOAD_ROWS),
    "node": (0, 2 * MAX_UPLOAD_ROWS),
    "explain_row": (0, MAX_UPLOAD_ROWS),
}
# The preferences a link carries, in the URL under the same names, and how each is read back.
LINK_PREFS = {"view": str, "ref": str, "row": int, "res": int, "tree": int, "k": int, "node": int, "explain_row": int}
# View keys and reference modes are short ("disk:0:1-2:poincare").
_LINK_TEXT_CHARS = 200


# The URL parameter of a kept upload's token (ui.kept_uploads.valid_token bounds its form).
UPLOAD_PARAM = "upload"


@st.cache_resource(show_spinner=False)
def kept_uploads():
    """The server's one store of kept uploads (:class:`ui.kept_uploads.KeptUploads`)."""
    from ui.kept_uploads import KeptUploads

    return KeptUploads()


def decode_param(text: str, what: str) -> dict:
    """Parse a JSON object from the URL (ValueError with a readable reason).

    The text's length is checked before it is parsed (curvedtrees.limits.MAX_LINK_CHARS).
    """
    if len(text) > MAX_LINK_CHARS:
        raise ValueError(f"the link's {what} is too long ({len(text):,} characters; the limit is {MAX_LINK_CHARS:,})")
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ValueError(f"the link's {what} is not readable") from None
    if not isinstance(value, dict):
        raise ValueError(f"the link's {what} is not a description")
    return value


def _raw_params() -> dict:
    return {k: st.query_params.get(k) for k in st.query_params.keys()}


def _in_bounds(name: str, value: str) -> bool:
    if name in _LINK_INTEGERS:
        low, high = _LINK_INTEGERS[name]
        # At most 7 digits: int() of a long digit string costs time, and none is in bounds.
        return len(value) <= 7 and value.lstrip("-").isdigit() and low <= int(value) <= high
    if name in ("view", "ref"):
        return len(value) <= _LINK_TEXT_CHARS
    if name == UPLOAD_PARAM:
        from ui.kept_uploads import valid_token

        return valid_token(value)
    return True


def link_prefs(params: dict | None = None) -> dict:
    """The view preferences a link carries (:data:`LINK_PREFS`), typed; values out of bounds left out."""
    params = url_params() if params is None else params
    prefs = {}
    for name, cast in LINK_PREFS.items():
        if params.get(name) is not None and _in_bounds(name, params[name]):
            try:
                prefs[name] = cast(params[name])
            except ValueError:
                pass
    return prefs


def url_params() -> dict:
    """The link's query parameters as plain strings, view choices out of bounds left out.

    ``data`` and ``model`` are returned as they are; :func:`decode_param` bounds them.
    """
    return {k: v for k, v in _raw_params().items() if v is not None and _in_bounds(k, v)}


def sync_url() -> None:
    """Write the shareable choices into the URL (only keys whose value changed)."""
    data = get(DATA)
    model = get(MODEL)
    wanted: dict[str, str] = {}
    kept = data.recipe.get("kept") if data is not None and data.recipe.get("source") == "upload" else None
    if data is not None and data.recipe.get("source") in ("synthetic", "builtin"):
        # The title goes along, so that a shared "Karate Club" is not named by its loader's key.
        wanted["data"] = encode_param(data.recipe)
    elif kept:
        wanted[UPLOAD_PARAM] = kept  # this tab's kept upload: a reload restores it (ui.kept_uploads)
    if (wanted.get("data") or kept) and model is not None and model.source == "trained":
        wanted["model"] = encode_param(model.recipe)
    prefs = get(PREFS, {})
    for name in LINK_PREFS:
        if prefs.get(name) is not None:
            wanted[name] = str(prefs[name])
    current = _raw_params()
    if current.get("lecture") == "1":
        wanted["lecture"] = "1"  # lecture mode (ui.chrome.lecture_mode) lasts until the user leaves it
    for key in list(current):
        if key not in wanted:
            del st.query_params[key]
    for key, value in wanted.items():
        if current.get(key) != value:
            st.query_params[key] = value
