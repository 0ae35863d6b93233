"""Helpers shared by the Streamlit pages.

Streamlit-facing modules: :mod:`ui.state` (session state and the URL),
:mod:`ui.cache` (results shared by every session, per-session pictures),
:mod:`ui.work` (heavy work budgeted, run in the worker pool, waited for with the
queue in view), :mod:`ui.errors` (friendly error display), :mod:`ui.chrome` (page
setup, sidebar, demos). Pure modules, importable without a running app and
unit-tested directly: :mod:`ui.data` (datasets, recipes, demos), :mod:`ui.uploads`
(reading and checking uploaded files), :mod:`ui.training` (model families, split,
fit, metrics), :mod:`ui.pictures` (region figures for a dataset and a model),
:mod:`ui.jobs` and :mod:`ui.worker_template` (the worker pool), :mod:`ui.transport`
(results from workers, never pickle), :mod:`ui.sandbox` (model files checked in a
limited child).
"""
