"""Resource limits on untrusted input, in one place.

Signatures, model documents and uploaded tables can come from strangers (a share
link, a model file, an upload), so everything that sizes an allocation is
checked against these numbers *before* anything is allocated, and the error
names the limit. Each number sits far above what the library and the app use
and far below what would exhaust a 2 GB process; the comment says which way it
was chosen. The app (``ui.uploads``, ``ui.data``, ``ui.state``) reads its limits
from here too, so the documentation, the checks and the messages agree.

Two kinds of numbers live here. *Input limits* bound what a request may say (rows,
columns, characters, a signature's size). *Work budgets* bound what a request may
cost once it is accepted: :func:`curvedtrees.costs.estimate_cost` turns a request's
parameters into an estimate of CPU seconds, peak memory and the size of its result,
and :class:`curvedtrees.costs.Budget` compares it with ``MAX_JOB_CPU_SECONDS``,
``MAX_JOB_MEMORY_BYTES`` and ``MAX_RESULT_BYTES`` before anything starts. The app's
worker pool (``ui.jobs``) then enforces the same numbers on the process that does the
work (``RLIMIT_CPU``, ``RLIMIT_AS``), so an estimate that is wrong cannot become a
runaway job. The ``serving`` section sizes the pool, its queue and the model checker.
"""

from __future__ import annotations

__all__ = [
    "JOB_CPU_GRACE",
    "JOB_WORKERS",
    "KEPT_UPLOAD_SECONDS",
    "MAX_AMBIENT_DIM",
    "MAX_ARRAY_ITEMS",
    "MAX_BENCHMARK_SAMPLES",
    "MAX_BENCHMARK_TABLE_BYTES",
    "MAX_BENCHMARK_TEXT_BYTES",
    "MAX_BENCHMARK_TRIALS",
    "MAX_CHECKER_CPU_SECONDS",
    "MAX_CHECKER_MEMORY_MB",
    "MAX_CHECKER_WAIT_SECONDS",
    "MAX_CLASS_LABEL_CHARS",
    "MAX_COV_SCALE",
    "MAX_CSV_FIELD_CHARS",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_DEPTH",
    "MAX_EMBEDDING_DIM",
    "MAX_ESTIMATORS",
    "MAX_GRAPH_BYTES",
    "MAX_GRAPH_EDGES",
    "MAX_GRAPH_FIELD_CHARS",
    "MAX_GRAPH_FILE_NODES",
    "MAX_GRAPH_LABEL_ATTRIBUTES",
    "MAX_GRAPH_NESTING",
    "MAX_GRAPH_NODES",
    "MAX_GRAPH_RECORDS",
    "MAX_JOB_CPU_SECONDS",
    "MAX_JOB_MEMORY_BYTES",
    "MAX_KEPT_UPLOADS",
    "MAX_KEPT_UPLOAD_BYTES",
    "MAX_LINK_CHARS",
    "MAX_LINK_TITLE_CHARS",
    "MAX_MODEL_CLASSES",
    "MAX_MODEL_OUTPUT",
    "MAX_MODEL_POINTS",
    "MAX_MODEL_POINT_CELLS",
    "MAX_PICTURE_CPU_SECONDS",
    "MAX_QUEUED_JOBS",
    "MAX_RESULT_BYTES",
    "MAX_SERVER_MEMORY_BYTES",
    "MAX_SHARED_RESULTS_BYTES",
    "MAX_SIGNATURE_CHARS",
    "MAX_SIGNATURE_COMPONENTS",
    "MAX_SPLIT_FEATURES",
    "MAX_SVM_CLASSES",
    "MAX_SYNTHETIC_CELLS",
    "MAX_SYNTHETIC_CLASSES",
    "MAX_SYNTHETIC_CLUSTERS",
    "MAX_SYNTHETIC_SAMPLES",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_CELLS",
    "MAX_UPLOAD_COLUMNS",
    "MAX_UPLOAD_DECODED_BYTES",
    "MAX_UPLOAD_MB",
    "MAX_UPLOAD_ROWS",
    "MAX_VALUES_BYTES",
    "MODEL_CHECKERS",
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
# Uploads kept on the server so that reloading a tab restores them (ui.kept_uploads): at
# most this many files and bytes in memory, oldest dropped first (ten files at the upload
# limit, or many small tables: a class of 30 uploading their own data), each for a day of
# teaching at most.
MAX_KEPT_UPLOADS = 64
MAX_KEPT_UPLOAD_BYTES = 10 * MAX_UPLOAD_BYTES
KEPT_UPLOAD_SECONDS = 8 * 3600

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

# ------------------------------------------------- synthetic data and built-in datasets
# Synthetic mixtures: the Data page's form offers these bounds, and a recipe from a link
# is held to them (ui.data.check_recipe). 20,000 points train a forest interactively.
MAX_SYNTHETIC_SAMPLES = 20_000
MAX_SYNTHETIC_CLASSES = 20
MAX_SYNTHETIC_CLUSTERS = 200
# The form's spread slider goes to 2; beyond 10 a wrapped normal covers a sphere many times over.
MAX_COV_SCALE = 10.0
# Signatures that a built-in dataset learns an embedding into (graph embeddings, the
# digits VAE): the sum of the components' dimensions, and their number. An epoch
# compares every pair of nodes in every coordinate, so memory grows with nodes^2 x
# dimension (random_tree in H1000 x S1000 x E1000 reached 3.4 GB); the paper's and the
# app's choices have dimension 6 or less, and 32 keeps an epoch of the largest
# built-in graph within the work budget below.
MAX_EMBEDDING_DIM = 32

# ----------------------------------------------------------------------- split planes
# ``pairs="all"`` grows the number of split planes with the square of a component's
# dimension (E300: 45,150 planes), and the values array of
# ``curvedtrees.trees.SplitFeatures.values``, one float64 per plane and row, is the
# largest allocation of a fit (E300 with pairs="all" on 20,000 rows: 6.7 GiB); both
# are checked before anything is allocated. (Also importable from
# ``curvedtrees.trees._features``, where they were first defined.)
MAX_SPLIT_FEATURES = 1_000_000  # plane tables of ~80 MB; also bounds what a model file can make us build
MAX_VALUES_BYTES = 2 * 2**30  # 2 GiB: a quarter of a small machine's memory, for one array

# ----------------------------------------------------------------------- work budgets
# What one request from untrusted input (a share link, a form, an upload, a model file)
# may cost, estimated before it starts (curvedtrees.costs.estimate_cost) and enforced
# on the worker process that does it (ui.jobs). Chosen for a class on a 2-core machine:
# the heaviest demo (32 fully grown trees on 20,000 points of the globe) costs about
# 10 CPU-s; two CPU-minutes admit fits many times larger while one visitor's request
# can hold one of the two cores for at most that long.
MAX_JOB_CPU_SECONDS = 120.0
# The kill limit is this factor above the budget: estimates are calibrated to within
# a factor of about two on this machine (perf/calibrate_costs.py), so an accepted job is
# stopped only when it runs far beyond what was predicted.
JOB_CPU_GRACE = 2.0
# Peak working memory of one job (the split-plane values, a kernel matrix, an
# embedding's pairwise tensors), on top of the worker's own interpreter.
MAX_JOB_MEMORY_BYTES = 2 * 2**30
# What a job may hand back to the server and the server then holds for the session:
# a fitted model or a dataset, in memory. Sessions that share a recipe share its result
# (ui.cache), so this bounds one visitor's share of the server, not a class's.
MAX_RESULT_BYTES = 256 * 2**20
# CPU a picture of a model may take in the server (a region grid of up to 300 x 300
# cells predicted at once): a model whose largest picture would take longer is refused
# when it is trained (k-NN over 15,000 rows predicts slowly). Pictures run on the
# server's request threads, so this is kept short.
MAX_PICTURE_CPU_SECONDS = 20.0

# ---------------------------------------------------------------------------- serving
# Worker processes that run heavy work at a time (fits, embeddings, datasets, graph
# parsing): one per core of the 2-core machine the app is served from; more would
# only share the cores and multiply peak memory.
JOB_WORKERS = 2
# Jobs that may wait for a worker; a request beyond it is refused with "the server is
# busy" (30 students each waiting for one job fit with room to spare).
MAX_QUEUED_JOBS = 100
# Resident memory of the server process (the sessions' datasets, models and pictures)
# above which no new job is started: waiting jobs stay queued until sessions leave and
# their memory returns, and a job whose result would pass it is refused. Chosen under
# the memory of a small class server (8 GB), far above a class's use (a 30-session
# lesson: about 0.6 GB).
MAX_SERVER_MEMORY_BYTES = 3 * 2**30
# Results that depend only on a public recipe (a lesson's or a demo's dataset and models,
# a share link's, their pictures) are kept once per server for every session (ui.cache),
# up to this many bytes; the least recently used go first.
MAX_SHARED_RESULTS_BYTES = 512 * 2**20
# Uploaded model files are checked in a fresh child each (ui.sandbox): at most this
# many at a time (each takes about 3 CPU-s and 300 MB), the others wait in line.
MODEL_CHECKERS = 2
# CPU a check may use (RLIMIT_CPU, so time spent waiting for a core on a busy server is
# not counted against the file), and its address space (RLIMIT_AS) in MiB.
MAX_CHECKER_CPU_SECONDS = 60
MAX_CHECKER_MEMORY_MB = 4096
# How long an upload waits for a free checker before the server says it is busy (and
# not that the file is damaged).
MAX_CHECKER_WAIT_SECONDS = 300.0

# ------------------------------------------------------- what a model file can produce
# Every value a loaded model can output (a prediction, a raw score before a link
# function) is bounded at load, along every path: for an ensemble, the sum over its
# trees of each tree's largest leaf magnitude (times the learning rate, plus the
# baseline), for k-NN the largest target. The fits refuse regression targets beyond
# 1e100 (``curvedtrees.trees``), so 1e120 leaves a factor of 1e20 for sums of leaves
# and shrinkage, and keeps every square of a difference of two outputs (squared
# errors, R²) and sums of billions of them finite; a file whose values could reach
# float64's overflow (1.8e308, then inf and NaN) is refused before any prediction.
MAX_MODEL_OUTPUT = 1e120
# Classes of one classifier file. ``predict_proba`` allocates one float per class and
# predicted row (a picture's 40,000 grid cells at 1,000 classes are 320 MB), and tree
# nodes hold one value per class; no dataset of the project has more than 100.
MAX_MODEL_CLASSES = 1_000
# Characters of one class label in a model file. NumPy stores labels as fixed-width
# text, so the longest label sets the size of every one: 1,000 labels of 1,000
# characters are 4 MB (one label of 100 million characters would have made it 400 GB).
MAX_CLASS_LABEL_CHARS = 1_000


# ------------------------------------------------ models that keep their training points
# Points a model file keeps and compares every predicted row with: a k-NN file's
# training points, a kernel perceptron's or an SVM's support vectors. The app trains
# on at most MAX_UPLOAD_ROWS rows, so no model it makes keeps more; predicting costs
# one product distance or kernel value per kept point and row (a 100,000-point k-NN
# file took over a minute for 1,100 rows on the shared server).
MAX_MODEL_POINTS = MAX_UPLOAD_ROWS
# Points x ambient coordinates of those points: the cost of one predicted row, and
# the same bound as an upload's cells (40 MB as float64).
MAX_MODEL_POINT_CELLS = MAX_UPLOAD_CELLS
# Classes of an SVM classifier file. libsvm's one-vs-one SVC computes one decision
# value per pair of classes for every predicted row (``decision_function`` keeps them
# all: 4,950 pairs at 100 classes, 40 kB a row) and reads every support vector once
# per pair it is in, so predicting grows with the square of the classes (3,000
# classes took over a minute for 1,100 rows).
MAX_SVM_CLASSES = 100


# ---------------------------------------------------------------------- graph files
# Nodes of an uploaded graph's largest connected component: embedding is full-batch
# over all node pairs (an n x n distance matrix per epoch, in torch), so 2,000 nodes
# (4 million pairs) is the most a shared server should be asked for.
MAX_GRAPH_NODES = 2_000
# Node records in a GML or GraphML file (isolated nodes and other components are
# dropped after parsing, so the file may hold more than the component keeps).
MAX_GRAPH_FILE_NODES = 10 * MAX_GRAPH_NODES
# Edges of a graph file (rows of an edge list): keeps parsing and the shortest paths cheap.
MAX_GRAPH_EDGES = 50_000
# Bytes of a graph file: a 50,000-edge list with long string ids is about 2 MB;
# GraphML is wordier (about 80 bytes an edge).
MAX_GRAPH_BYTES = 8 * 1024 * 1024
# Elements of a GraphML file (a node or an edge with its data children, keys,
# descriptions) or key-value records of a GML file, counted by the tokeniser before
# the parser builds anything: the node and edge limits with ten attributes each.
MAX_GRAPH_RECORDS = 10 * (MAX_GRAPH_FILE_NODES + MAX_GRAPH_EDGES)
# Nesting of elements (GraphML) or lists (GML). Real files nest four levels
# (graphml > graph > node > data; graph [ node [ ... ] ]), nested graphs a few more;
# the parsers hold every open level in memory (unclosed GraphML elements) or recurse
# once per level (GML), so deeper input is refused while it is read.
MAX_GRAPH_NESTING = 32
# Characters of one field of an edge list or labels file (a node id or a label).
MAX_GRAPH_FIELD_CHARS = 1_000
# Node attributes of a GML / GraphML file offered as the label (a picker lists them): real
# files have a handful; a file giving every node attributes of its own offers the first ones.
MAX_GRAPH_LABEL_ATTRIBUTES = 32


# -------------------------------------------------------------- the benchmark CLI
# Trials per dataset of one run: the paper's protocol is 100; every trial's seed is
# drawn before the first job starts, so a number like 10**30 would never start.
MAX_BENCHMARK_TRIALS = 10_000
# Points of one generated dataset (--n-samples): the paper's mixtures have 1,000; a
# million rows fit every model of the benchmark in memory, 10**30 would never start.
MAX_BENCHMARK_SAMPLES = 1_000_000
# Bytes of a text file the CLI reads whole (the document of --update-doc, the
# paper's text for --parse-paper, a stored run's parameters): BENCHMARKS.md is about
# 100 kB and the paper's text under 1 MB; 16 MB stops /dev/zero or a wrong path
# from filling memory.
MAX_BENCHMARK_TEXT_BYTES = 16 * 2**20
# Bytes of a trial log or a stored per-trial table: a 100-trial run of every preset
# and model writes a few MB; 1 GB is far above any run and far below memory.
MAX_BENCHMARK_TABLE_BYTES = 2**30
