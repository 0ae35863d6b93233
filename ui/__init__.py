"""Helpers shared by the Streamlit pages.

Streamlit-facing modules: :mod:`ui.state` (session state and the URL),
:mod:`ui.cache` (caches keyed by content hash or id), :mod:`ui.errors`
(friendly error display), :mod:`ui.chrome` (page setup, sidebar, demos).
Pure modules, importable without a running app and unit-tested directly:
:mod:`ui.data` (datasets, recipes, demos), :mod:`ui.uploads` (reading and
checking uploaded files), :mod:`ui.training` (model families, split, fit,
metrics), :mod:`ui.pictures` (region figures for a dataset and a model).
"""
