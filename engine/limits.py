"""Resource limits on untrusted input, in one place.

Signatures, model documents and uploaded tables can come from strangers (a share
link, a model file, an upload), so everything that sizes an allocation is
checked against these numbers *before* anything is allocated, and the error
names the limit. Each number sits far above what the library and the app use
and far below what would exhaust a 2 GB process; the comment says which way it
was chosen. The app (``ui.uploads``, ``ui.data``, ``ui.state``) reads its limits
from here too, so the documentation, the checks and the messages agree.
"""

from __future__ import annotations

__all__ = [
    "MAX_AMBIENT_DIM",
    "MAX_ARRAY_ITEMS",
    "MAX_CSV_FIELD_CHARS",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_DEPTH",
    "MAX_ESTIMATORS",
    "MAX_LINK_CHARS",
    "MAX_LINK_TITLE_CHARS",
    "MAX_SIGNATURE_CHARS",
    "MAX_SIGNATURE_COMPONENTS",
    "MAX_SYNTHETIC_CELLS",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_CELLS",
    "MAX_UPLOAD_COLUMNS",
    "MAX_UPLOAD_DECODED_BYTES",
    "MAX_UPLOAD_MB",
    "MAX_UPLOAD_ROWS",
]

# ---------------------------------------------------------------- signatures
# Components of one signature. The paper's products have at most a handful; the
# project's widest datasets are (S1)^k neuron recordings with k around 10. Each
# component costs a Python object and a slice per row operation, so 64 keeps
# parsing and every per-component loop instant while allowing products far
# wider than any in use.
MAX_SIGNATURE_COMPONENTS = 64
# Ambient coordinates of one row (sum over components). Estimators default to
# ``E<n_features>`` for plain feature tables, so the bound must admit common
# wide tables (CIFAR's 32 x 32 x 3 = 3,072 pixels); 4,096 does, and a single
# row stays 32 KB. Data volume is bounded separately (rows, cells), never by this.
MAX_AMBIENT_DIM = 4_096
# Characters of a signature string: 64 components written with explicit
# curvatures ("H4096(-0.123456789) x ") take about 1,500; a longer text is not a
# signature, and refusing it first keeps the parser's work bounded.
MAX_SIGNATURE_CHARS = 2_000

# ------------------------------------------------------------ model documents
# Bytes of a model document given to ``curvedtrees.io.loads``. A 20-tree forest
# grown without a depth limit on 20,000 rows is 29 MB of JSON; 256 MB admits
# models several times larger, and ``loads`` peaks at 1.5-3.5x the document on
# top of the text itself (perf/bench_io.py, hostile documents included), so the
# worst case stays under about 1 GB.
MAX_DOCUMENT_BYTES = 256 * 2**20
# Items in one array of a document (float64: 8 bytes each, so 400 MB at most).
MAX_ARRAY_ITEMS = 50_000_000
# Nesting of objects and lists in a document. Real documents (a forest of
# wrapped library models) nest fewer than 16 levels; deeper input is refused
# before any validator walks it.
MAX_DOCUMENT_DEPTH = 64
# Trees (or other sub-estimators) in one ensemble of a document.
MAX_ESTIMATORS = 10_000

# ------------------------------------------------------------------- uploads
# Bytes of an uploaded file (the app's documented limit). Streamlit's own
# uploader limit is set above it so that our message, not a generic one, explains.
MAX_UPLOAD_MB = 25
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 2**20
# Rows of an uploaded table: what a tree trains on interactively in a few seconds.
MAX_UPLOAD_ROWS = 50_000
# Columns of an uploaded table: above any signature's coordinates plus labels in
# practice, and it keeps the column-mapping widgets usable.
MAX_UPLOAD_COLUMNS = 500
# Cells (rows x columns) of an uploaded table: 50,000 rows of 100 numbers, 40 MB
# as float64. A 25 MB text file holds fewer numbers than this, so the bound bites
# only on compressed NumPy archives, whose size says nothing about their content.
MAX_UPLOAD_CELLS = 5_000_000
# Bytes that the arrays of one NumPy upload may occupy once decompressed: the
# cells as float64 plus a label column of 50,000 strings of 64 characters
# (UTF-32, 12.8 MB). Checked on the zip members' declared sizes before reading.
MAX_UPLOAD_DECODED_BYTES = MAX_UPLOAD_CELLS * 8 + MAX_UPLOAD_ROWS * 64 * 4
# Characters of one CSV field: far above any number or label, and it stops the
# csv module from buffering a whole file as one quoted field.
MAX_CSV_FIELD_CHARS = 100_000

# ---------------------------------------------------------------- share links
# Characters of one query parameter of a share link (a dataset or model recipe
# is about 200; browsers and proxies cut URLs near 8,000).
MAX_LINK_CHARS = 4_000
# Characters of a dataset title carried by a link.
MAX_LINK_TITLE_CHARS = 120
# Cells (n_samples x ambient coordinates) of a synthetic mixture, which a link
# can ask for: the Data page's largest default (20,000 points on H2 x S2 x E2,
# 160,000 cells) many times over, and 16 MB as float64, so that a page view
# never allocates gigabytes however the link is written.
MAX_SYNTHETIC_CELLS = 2_000_000
