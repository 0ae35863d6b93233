"""Caches of the app: results shared by every session, and per-session pictures.

* **Shared, once per server.** Results that depend only on a public recipe: the dataset
  of a synthetic or built-in recipe (lessons, demos, share links, the Data page's forms),
  a model trained from a recipe on such a dataset, and the region grids of those models.
  They live in one :class:`SharedResults` store, made once per server through
  ``st.cache_resource``: every session reads the *same* object (never a copy per
  session, as ``st.cache_data`` would make), keyed by a content address of the recipe,
  bounded in bytes (:data:`curvedtrees.limits.MAX_SHARED_RESULTS_BYTES`, the least
  recently used dropped first). Nothing derived from a visitor's upload is ever stored
  there. Sessions asking for the same result at once wait for one computation.
* **Per session.** Region grids of a session's own models (uploads, models trained on
  uploaded data): ``st.cache_data(scope="session")``, keyed by the model's id.

Datasets and models are built in the worker pool (:mod:`ui.work`), after their cost is
checked against the work budgets.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

import numpy as np
import streamlit as st
from curvedtrees.limits import MAX_SHARED_RESULTS_BYTES

from ui import work
from ui.pictures import regions_for

__all__ = [
    "SharedResults",
    "dataset",
    "figure",
    "model",
    "model_document",
    "recipe_data",
    "recipe_model",
    "regions",
    "shared",
    "side_model",
]


def nbytes(value, depth: int = 0, seen=None) -> int:
    """The bytes of the NumPy arrays a result holds (records, estimators and containers are searched)."""
    seen = set() if seen is None else seen
    if depth > 6 or id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (_Text, _Figure)):
        return value.size
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v, depth + 1, seen) for v in value)
    if isinstance(value, dict):
        return sum(nbytes(v, depth + 1, seen) for v in value.values())
    if hasattr(value, "__dict__") and type(value).__module__.split(".")[0] in ("ui", "curvedtrees", "sklearn"):
        return sum(nbytes(v, depth + 1, seen) for v in vars(value).values())
    return 0


class SharedResults:
    """A content-addressed store of public results, bounded in bytes, safe for concurrent sessions.

    Parameters
    ----------
    max_bytes : int
        Beyond this, the least recently used entries are dropped (the objects live on as
        long as a session still holds them).
    """

    def __init__(self, max_bytes: int = MAX_SHARED_RESULTS_BYTES):
        self.max_bytes = int(max_bytes)
        self._entries: OrderedDict[str, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[str, threading.Event] = {}
        self.public_models: dict[str, str] = {}  # model_id -> the model's content address

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(size for _, size in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str):
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key][0]

    def put(self, key: str, value, size: int | None = None):
        """Store ``value`` (returns the stored object: an earlier equal entry wins, so sessions share one)."""
        size = nbytes(value) if size is None else int(size)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key][0]
            self._entries[key] = (value, size)
            total = sum(s for _, s in self._entries.values())
            while total > self.max_bytes and len(self._entries) > 1:
                _, (_, dropped) = self._entries.popitem(last=False)
                total -= dropped
        return value

    def get_or_compute(self, key: str, compute, on_wait=None):
        """The entry of ``key``, computing it once however many sessions ask at the same time.

        ``compute()`` runs in the first asker's thread; the others wait for it, calling
        ``on_wait()`` every 0.1 s (their chance to be stopped). If the first asker fails or
        is stopped, a waiting one computes instead.
        """
        while True:
            found = self.get(key)
            if found is not None:
                return found
            with self._lock:
                event = self._computing.get(key)
                mine = event is None
                if mine:
                    event = self._computing[key] = threading.Event()
            if mine:
                try:
                    return self.put(key, compute())
                finally:
                    with self._lock:
                        self._computing.pop(key, None)
                    event.set()
            while not event.wait(0.1):
                if on_wait is not None:
                    on_wait()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.public_models.clear()


@st.cache_resource(show_spinner=False)
def shared() -> SharedResults:
    """The server's one store of public results (a resource: every session gets this same object)."""
    return SharedResults()


def _wait_hook() -> None:
    work.still_wanted()


def _trusted() -> tuple[set, set]:
    """Content addresses of the app's own fixed recipes (demos, lessons): (datasets, (dataset, model) pairs).

    They are not untrusted input and are small, so they are built in the asking thread (once
    per server, then shared) instead of waiting for the worker pool, whose template takes a few
    seconds to start when a server has just started and its first visitor opens a demo.
    """
    if not _TRUSTED[0]:
        from ui.data import DEMOS, check_recipe
        from ui.lessons import LESSONS

        pairs = [(d.data, d.model) for d in DEMOS.values()]
        pairs += [(lesson.data, recipe) for lesson in LESSONS for recipe in lesson.models.values()]
        for data, model in pairs:
            key = work.data_key(check_recipe(data))
            _TRUSTED[0].add(key)
            _TRUSTED[1].add((key, json.dumps(model, sort_keys=True)))
    return _TRUSTED


_TRUSTED: tuple[set, set] = (set(), set())


# ------------------------------------------------------------------ datasets and models
def dataset(recipe: dict, on_progress=None):
    """The dataset of a recipe, built in the worker pool after its cost is checked.

    Synthetic and built-in recipes are public: built once per server and shared. Slow
    built-in datasets (embeddings, the VAE) report their epochs to ``on_progress``.

    Raises
    ------
    ValueError
        A recipe that is malformed, over budget (:class:`curvedtrees.costs.BudgetExceeded`)
        or that failed in the worker (:class:`ui.jobs.JobError`).
    """
    from ui.data import check_recipe, make_record, recipe_cost

    recipe = check_recipe(recipe)
    cost = recipe_cost(recipe)
    key = work.data_key(recipe)

    def build():
        if key in _trusted()[0] and recipe.get("source") == "synthetic":
            from ui.data import build_dataset

            return build_dataset(recipe)  # one of the app's own small recipes: no need to wait for a worker
        if recipe.get("source") == "builtin":
            loaded = work.run(
                "load_dataset",
                recipe["name"],
                dict(recipe.get("params", {})),
                cost=cost,
                what=f"loading {recipe.get('title') or recipe['name']}",
                key=key,
                progress_arg="callback",
                on_progress=on_progress,
            )
            return make_record(loaded, recipe)
        return work.run("build_dataset", recipe, cost=cost, what="sampling the dataset", key=key)

    if recipe.get("source") not in ("synthetic", "builtin"):
        raise ValueError("an uploaded dataset cannot be rebuilt from a link: upload the file again")
    return shared().get_or_compute(key, build, _wait_hook)


def model(data, recipe: dict, on_progress=None):
    """A model trained from ``recipe`` on ``data`` in the worker pool, after its cost is checked.

    On a public dataset the model is public too: trained once per server, shared by
    every session that asks for the same recipe, and its pictures with it. On a
    visitor's own data it is theirs alone.

    Raises
    ------
    ValueError
        A malformed recipe, one over budget, or a failure in the worker.
    """
    from ui.training import normalise_recipe, recipe_cost, train_from_recipe

    given = json.dumps(recipe, sort_keys=True)
    recipe = normalise_recipe(recipe, data.task, data.signature)
    cost = recipe_cost(data, recipe)
    key = work.model_key(data, recipe)
    trusted = work.is_public(data) and (work.data_key(data.recipe), given) in _trusted()[1]

    def train():
        if trusted and cost.cpu_seconds < 0.5:  # a lesson's or a small demo's own model
            return train_from_recipe(data, recipe, on_progress)
        record = work.run(
            "train",
            data,
            recipe,
            cost=cost,
            what="training the model",
            key=key,
            progress_arg="progress",
            on_progress=on_progress,
        )
        work.check_model_record(record, data)
        return record

    return train() if key is None else _shared_model(key, train)


def _shared_model(key: str, train):
    """The public model of ``key``: trained once per server by ``train()``, marked as shared."""
    store = shared()

    def train_shared():
        record = train()
        record.share_key = key
        store.public_models[record.model_id] = key
        return record

    return store.get_or_compute(key, train_shared, _wait_hook)


# A session's own side models (Side by side on its uploaded data) kept for going back to a
# depth already seen: two sides times a few depths, the oldest dropped first.
SESSION_SIDE_MODELS = 8


def side_model(data, recipe: dict):
    """One side of the Side by side page, trained in the worker pool after its cost is checked.

    On a public dataset the side model is trained once per server and shared, like
    :func:`model`'s; on a visitor's own data it is kept in their session only (the last
    :data:`SESSION_SIDE_MODELS`), so moving a depth slider back redraws without training.

    Raises
    ------
    ValueError
        A malformed side recipe, one over budget, or a failure in the worker.
    """
    from ui.side_by_side import side_cost, side_recipe_text

    text = side_recipe_text(recipe.get("kind"), recipe.get("max_depth"))
    checked = json.loads(text)
    cost = side_cost(data, checked)
    key = work.model_key(data, {"side": checked})

    def train():
        record = work.run("train_side", data, checked, cost=cost, what="training the model", key=key)
        work.check_model_record(record, data)
        return record

    if key is not None:
        return _shared_model(key, train)
    own = st.session_state.setdefault("ct:side_models", OrderedDict())
    mine = (data.hash, text)
    if mine not in own:
        own[mine] = train()
        while len(own) > SESSION_SIDE_MODELS:
            own.popitem(last=False)
    own.move_to_end(mine)
    return own[mine]


def model_document(record) -> str:
    """The model's :func:`curvedtrees.io.dumps` document (what the Train page offers for download).

    A shared model's document is made once per server; a session's own model keeps its
    document in its session (one, the latest). Raises TypeError for a model that cannot
    be saved.
    """
    from curvedtrees import io as model_io

    saved = st.session_state.get("ct:model_json", {})
    if record.model_id not in saved:
        if record.share_key is not None:
            key = f"document:{record.share_key}"
            text = shared().get_or_compute(key, lambda: _Text(model_io.dumps(record.estimator)), _wait_hook).text
        else:
            text = model_io.dumps(record.estimator)
        # The session keeps the latest document (for a shared model, the shared text itself, not a copy).
        saved = {record.model_id: text}
        st.session_state["ct:model_json"] = saved
    return saved[record.model_id]


class _Text:
    """A text in the shared store (its size is its length)."""

    def __init__(self, text: str):
        self.text = text
        self.size = len(text)


def recipe_data(recipe_text: str):
    """The dataset of a recipe (JSON text; synthetic or built-in sources only), shared by every session."""
    return dataset(json.loads(recipe_text))


def recipe_model(model_text: str, data_hash: str, _data):
    """A model trained from a recipe on the dataset whose content hash is ``data_hash``."""
    return model(_data, json.loads(model_text))


# ------------------------------------------------------------------ pictures
@st.cache_data(show_spinner=False, max_entries=32, scope="session")
def _session_regions(model_key: str, picture_key: tuple, _estimator, _data, _picture):
    return regions_for(_estimator, _data, _picture)


def regions(model_key: str, picture_key: tuple, _estimator, _data, _picture):
    """(ViewGrid, RegionGrid) of a picture; ``model_key`` names the model (its id, plus e.g. a split count).

    A public model's pictures (lessons, demos, links) are computed once per server and
    shared; any other model's are cached in its session only.
    """
    store = shared()
    base, _, suffix = model_key.partition(":")
    public = store.public_models.get(base)
    if public is None or not work.is_public(_data):
        return _session_regions(model_key, picture_key, _estimator, _data, _picture)
    key = f"regions:{public}:{suffix}:{json.dumps(picture_key, default=str)}"
    return store.get_or_compute(key, lambda: regions_for(_estimator, _data, _picture), _wait_hook)


def figure(model_key: str | None, picture_key: tuple, options: dict, data, build):
    """A picture's Plotly figure: ``build()``, shared by every session when the model and data are public.

    A figure is read-only once drawn (``st.plotly_chart`` serialises it; exports copy it),
    so sessions of a lesson or a demo draw the same object instead of each building
    their own (about 40 ms a picture). ``options`` are the figure's keyword arguments
    that vary (layers, styles, framing; objects derived from the model, such as a pruned
    tree, are named by ``model_key``). Any other model's figure is built afresh.
    """
    store = shared()
    base, _, suffix = (model_key or "").partition(":")
    public = store.public_models.get(base) if model_key else None
    if public is None or not work.is_public(data):
        return build()
    described = json.dumps(sorted((k, repr(v)) for k, v in options.items() if k not in ("tree", "replay")), default=str)
    key = f"figure:{public}:{suffix}:{json.dumps(picture_key, default=str)}:{described}"

    def made():
        fig = build()
        return _Figure(fig, nbytes(fig.to_plotly_json()) + 64 * 2**10)

    return store.get_or_compute(key, made, _wait_hook).figure


class _Figure:
    """A figure in the shared store, with its size (its arrays, plus its dictionaries)."""

    def __init__(self, fig, size: int):
        self.figure, self.size = fig, size
