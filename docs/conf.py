"""Sphinx configuration of the curvedtrees documentation site.

Built by ``make docs`` with warnings as errors (``-W --keep-going``) and no network at
all: no intersphinx, no CDN (plotly.js is copied from the installed plotly package and
loaded only by the pages that hold a Plotly figure), every gallery script executed.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import curvedtrees
from numpydoc.xref import DEFAULT_LINKS
from sphinx_gallery.sorting import ExplicitOrder

DOCS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS_DIR / "_ext"))

# Examples draw with matplotlib off screen; nothing opens a window during a build.
os.environ.setdefault("MPLBACKEND", "Agg")

project = "curvedtrees"
author = "The curvedtrees authors"
copyright = "the curvedtrees authors, MIT licence"
release = curvedtrees.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "plotly_figures",
]

templates_path = ["_templates"]
# examples/ holds the gallery's sources (scripts and GALLERY_HEADER.rst); sphinx-gallery
# writes the pages Sphinx reads into auto_examples/.
exclude_patterns = ["_build", "**.ipynb_checkpoints", "examples"]
root_doc = "index"
default_role = "code"  # `x` in prose is inline code, as in Markdown, never a silent cross-reference

# ----------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc docstrings carry the types and shapes
# numpydoc renders the Parameters / Attributes sections; the class templates list the
# methods themselves, so numpydoc's own member tables (and their toctree) stay off.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# Types in Parameters / Attributes become cross-references: the package's records link to
# their pages, and words such as ``n_iter_`` (a fitted attribute named in a shape) are
# written as code instead of being read as reST link targets.
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    name: f"{module}.{name}"
    for module, names in {
        "curvedtrees.manifolds": ["Signature", "Component", "ProductManifold", "Hyperbolic", "Spherical", "Euclidean"],
        "curvedtrees.trees": ["Tree", "SplitFeatures"],
        "curvedtrees.boosting": ["PlaneBins"],
        "curvedtrees.sampling": ["Mixture"],
        "curvedtrees.datasets": ["Dataset", "DatasetInfo", "ParamInfo", "GraphData"],
        "curvedtrees.embeddings": ["EmbeddingResult"],
        "curvedtrees.benchmarks": ["ModelSpec", "DatasetSpec", "BenchmarkData", "Preset"],
        "curvedtrees.viz": [
            "View",
            "ViewGrid",
            "RegionGrid",
            "PointLayer",
            "BoundaryCurve",
            "Replay",
            "PrunedTree",
            "EdgeCuts",
        ],
    }.items()
    for name in names
}
# numpydoc's default aliases (int, None, array-like, ...) point at the Python and NumPy
# inventories, which an offline build does not load (no intersphinx): those words stay
# plain text instead of rendering as unresolved "python:int".
numpydoc_xref_aliases.update({word: word for word in DEFAULT_LINKS})
# Words of a type description that name nothing to link to.
numpydoc_xref_ignore = {
    "of",
    "or",
    "and",
    "shape",
    "default",
    "optional",
    "instance",
    "like",
    "array-like",
    "array",
    "ndarray",
    "int",
    "float",
    "bool",
    "str",
    "dict",
    "list",
    "tuple",
    "None",
    "callable",
    "object",
    "sequence",
    "iterable",
    "generator",
    "mapping",
    "path",
    "bytes",
    "DataFrame",
    "Series",
    "RandomState",
    "Generator",
    "estimator",
    "scalar",
    "number",
    "sparse",
    "matrix",
    "set",
} | set(DEFAULT_LINKS)

# ----------------------------------------------------------------------- gallery
sphinx_gallery_conf = {
    "examples_dirs": ["examples"],
    "gallery_dirs": ["auto_examples"],
    # Every script in examples/ is executed at build time, not only plot_*.py.
    "filename_pattern": r"\.py$",
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    # The last expression of a block is shown: a Plotly figure by its HTML (plotly.js
    # from the site itself, see _ext/plotly_figures.py), a DataFrame as a table.
    "capture_repr": ("_repr_html_", "__repr__"),
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib", "plotly_figures.reset_renderer"),
    "remove_config_comments": True,
    "subsection_order": ExplicitOrder(["examples/basics", "examples/models", "examples/data", "examples/benchmarks"]),
    "within_subsection_order": "ExampleTitleSortKey",
    "download_all_examples": False,
    "show_signature": False,
    "min_reported_time": 1,
    # The timing page's table pulls jQuery and DataTables from CDNs: not on an offline site.
    "write_computation_times": False,
    # Generated pages link each function back to the examples that use it.
    "doc_module": ("curvedtrees",),
    "backreferences_dir": "api/generated/backreferences",
    "inspect_global_variables": False,
    "matplotlib_animations": False,
    "image_srcset": [],
    "thumbnail_size": (320, 224),
}


# A type such as ``ndarray of shape (n_trees_per_iteration_,)`` names a fitted attribute;
# reST would read ``n_trees_per_iteration_`` as a link target and fail the build. The
# trailing underscore of a name in a "name : type" line is escaped before numpydoc runs.
_TYPE_LINE = re.compile(r"^(\s*[\w*, ]+ : )(.*)$")
_ATTRIBUTE_NAME = re.compile(r"\b([A-Za-z]\w*?)_(?=\W|$)")


def _escape_attribute_names_in_types(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match and "`" not in match.group(2):
            lines[i] = match.group(1) + _ATTRIBUTE_NAME.sub(r"\1\\_", match.group(2))


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    # Members inherited from scikit-learn (get_params, score, set_output, the generated
    # set_fit_request, ...) are documented by scikit-learn; their docstrings point into
    # scikit-learn's own user guide, which this site does not hold.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    defined_in = getattr(getattr(obj, "fget", obj), "__module__", None) or ""
    if defined_in.startswith("sklearn."):
        return True
    return None


def setup(app):
    # numpydoc handles the same event at the default priority (500): run first.
    app.connect("autodoc-process-docstring", _escape_attribute_names_in_types, priority=400)
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)


# -------------------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"curvedtrees {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_prev_next": True,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 5,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
    # The sidebar lists a section's pages, not every API page under them (which made
    # each of the 180 API pages carry the whole reference's table of contents).
    "navigation_depth": 2,
    "show_nav_level": 1,
    "collapse_navigation": True,
}
html_static_path = ["_static"]
html_css_files = ["curvedtrees.css"]
# The site is small and self-contained: no page sources copied, no "show source" links.
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
