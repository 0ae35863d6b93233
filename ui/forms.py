"""The app's one way to draw a form: a signature box and fields from ``ParamInfo`` records.

The Data page (built-in datasets), the Train page (model hyperparameters) and the
Embeddings page (graph embeddings) all describe their parameters with
:class:`curvedtrees.datasets.ParamInfo` and draw them here, so a parameter looks and
behaves the same wherever it appears. Values are checked by ``ParamInfo.coerce`` where
they are used, not here: a form only collects.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st
from curvedtrees.datasets import ParamInfo
from curvedtrees.manifolds import Signature

from ui.text import plural

__all__ = ["SIGNATURE_HELP", "choice_text", "param_fields", "signature_box"]

SIGNATURE_HELP = (
    "Components joined by x: H (hyperbolic), S (sphere), E (Euclidean) with a dimension, optional curvature in "
    "parentheses and powers, e.g. 'H2 x S2 x E2', 'H2(-0.5) x S1', '(S1)^3'."
)


def signature_box(label: str, key: str, default: str, help: str = SIGNATURE_HELP, describe: bool = True):
    """A signature text box whose parse error appears right under it.

    Parameters
    ----------
    label, key, default : str
        The widget's label, session key and initial text.
    help : str
        Tooltip.
    describe : bool
        Show what the signature means (components, dimension, ambient width) under the box.

    Returns
    -------
    Signature or None
        None while the text does not parse (the message is shown).
    """
    text = st.text_input(label, value=default, key=key, help=help)
    try:
        signature = Signature.parse(text)
    except (TypeError, ValueError) as exc:
        st.error(str(exc), icon=":material/edit:")
        return None
    if describe:
        st.caption(
            f"✓ `{signature}`: {plural(len(signature.components), 'component')}, dimension {signature.dim}, "
            f"{plural(signature.ambient_dim, 'ambient coordinate')} per row."
        )
    return signature


def choice_text(choice) -> str:
    """How a choice reads in a form: booleans (scikit-learn's early_stopping) as on / off."""
    return ("on" if choice else "off") if isinstance(choice, bool) else str(choice)


def _label(spec: ParamInfo) -> str:
    return spec.label or spec.name.replace("_", " ").capitalize()


def _field(spec: ParamInfo, value, key: str, disabled: bool):
    """One widget for ``spec`` showing ``value``; returns what the user chose."""
    label = _label(spec)
    if spec.kind == "bool":
        return st.checkbox(label, value=bool(value), help=spec.help, key=key, disabled=disabled)
    if spec.kind == "choice":
        choices = list(spec.choices)
        shown = spec.none_choice if value is None and spec.none_choice is not None else value
        return st.selectbox(
            label,
            choices,
            index=choices.index(shown) if shown in choices else 0,
            help=spec.help,
            key=key,
            disabled=disabled,
            format_func=choice_text,
        )
    if spec.kind == "signature":
        return st.text_input(label, value=str(value), help=spec.help, key=key, disabled=disabled)
    if spec.kind in ("int", "seed", "optional_int"):
        low = int(spec.min) if spec.min is not None else 0
        high = int(spec.max) if spec.max is not None else 2**31 - 1
        shown = min(max(int(value or 0), low), high)  # None ("no limit" or a fresh seed) shows as 0
        return int(
            st.number_input(
                label, low, high, shown, step=int(spec.step or 1), help=spec.help, key=key, disabled=disabled
            )
        )
    low = float(spec.min) if spec.min is not None else None
    high = float(spec.max) if spec.max is not None else None
    return float(
        st.number_input(
            label,
            low,
            high,
            float(value or 0.0),
            step=float(spec.step or 0.01),
            format="%g",
            help=spec.help,
            key=key,
            disabled=disabled,
        )
    )


def param_fields(
    specs: Iterable[ParamInfo],
    *,
    key_prefix: str,
    values: dict | None = None,
    columns: int = 3,
    disabled: Iterable[str] = (),
) -> dict:
    """Draw one field per parameter in a grid and return ``{name: chosen value}``.

    Parameters
    ----------
    specs : iterable of ParamInfo
        The parameters, in the order to show them.
    key_prefix : str
        Session keys are ``key_prefix + name`` (so two forms never share a widget).
    values : dict, optional
        Values to show instead of the defaults (a previous recipe).
    columns : int
        Fields per row.
    disabled : iterable of str
        Names of fields shown but not editable.
    """
    values = values or {}
    disabled = set(disabled)
    specs = list(specs)
    chosen = {}
    cells = st.columns(columns)
    for k, spec in enumerate(specs):
        with cells[k % columns]:
            chosen[spec.name] = _field(
                spec, values.get(spec.name, spec.default), key_prefix + spec.name, spec.name in disabled
            )
    return chosen
