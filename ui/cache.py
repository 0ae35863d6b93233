"""Caches of the app, keyed by content hash or id (never by an unhashed array).

* Demos and datasets rebuilt from a recipe are public and deterministic: cached
  for every session, keyed by the recipe text.
* Region grids depend on a session's model: cached per session
  (``scope="session"``), keyed by the model's id and the picture's description.
"""

from __future__ import annotations

import json

import streamlit as st

from ui.data import build_dataset
from ui.pictures import regions_for
from ui.training import train_from_recipe

__all__ = ["recipe_data", "recipe_model", "regions"]


@st.cache_data(show_spinner=False, max_entries=12)
def recipe_data(recipe_text: str):
    """The dataset of a recipe (JSON text; synthetic or built-in sources only)."""
    return build_dataset(json.loads(recipe_text))


@st.cache_data(show_spinner=False, max_entries=12)
def recipe_model(model_text: str, data_hash: str, _data):
    """A model trained from a recipe on the dataset whose content hash is ``data_hash``."""
    return train_from_recipe(_data, json.loads(model_text))


@st.cache_data(show_spinner=False, max_entries=32, scope="session")
def regions(model_key: str, picture_key: tuple, _estimator, _data, _picture):
    """(ViewGrid, RegionGrid) of a picture; ``model_key`` names the model (its id, plus e.g. a split count)."""
    return regions_for(_estimator, _data, _picture)
