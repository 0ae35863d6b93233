"""Every tuned constant of the Klein threshold correction, and a switch that turns the tuning off.

The correction finds, for every node of every tree, the gap between the largest value
sent left and the smallest sent right, and (H features) the rows that can be nearest
to a boundary in that gap. Several strategies find the same answer at different
speeds (see ARCHITECTURE.md, "How a Klein wrapper corrects thresholds"); the
constants below choose between them. **None of them can change a threshold, a margin
or a status**: a wrong value costs speed only. ``tests/test_klein.py`` checks this by
comparing every strategy with the plain one (:func:`plain_strategy`).

Each constant says what it decides, the measurement that chose it and what a wrong
value costs. Measurements are from a 2-core machine at n = 10^5 rows, 8 classes (the
Fast-HyperDT paper's mixtures), with
``.venv/bin/python perf/bench_klein.py --signatures H2 H4 H8 H16 "H4 x E2" --repeats 3``
unless a line names another command; "per tree" times are the correction of one tree
by the same kernel with and without the choice. BENCHMARKS.md ("Klein correction: how
the strategies were chosen") keeps the longer story.

Constants read by the compiled kernels travel as one :class:`KernelTuning` record,
built by :func:`kernel_tuning` at each fit from this module's current values: numba's
on-disk cache only watches the file that defines a kernel, so a value compiled in as
a global constant would survive an edit of this file unseen.

Debugging a wrong threshold
---------------------------
``with plain_strategy(): model.fit(X, y)`` (or ``FORCE_PLAIN = True``) corrects every
tree the plain way: each row's leaf by walking it down the tree with the library's own
comparison, then every row of every node taken as a candidate and solved exactly
(:func:`curvedtrees.klein._correct.correct_tree_from_leaves`): no row renumbering,
no sorted scans, no windows, no pruning, one thread. If the plain fit is right and
the tuned one wrong, the bug is in a strategy; setting the constants below to their
"off" values (given with each) narrows it down to one.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

__all__ = ["FORCE_PLAIN", "KernelTuning", "kernel_tuning", "plain_strategy"]

# ----------------------------------------------------------- the debugging switch
# True: every tree takes the plain, exhaustive path (see the module docstring).
FORCE_PLAIN = False


@contextlib.contextmanager
def plain_strategy():
    """Within the block, every Klein correction takes the plain, exhaustive path.

    Process-wide (a module flag), for debugging and tests; restores the previous
    value on exit.
    """
    global FORCE_PLAIN
    previous = FORCE_PLAIN
    FORCE_PLAIN = True
    try:
        yield
    finally:
        FORCE_PLAIN = previous


# ======================================================= read by the compiled kernels
# Routing: which pass a routed node takes (curvedtrees.klein._correct.correct_tree).

# Nodes of at most this many rows compare each row with the library's rule and keep
# every row as a candidate (at most TINY_ROWS**2 / 4 = 64 pairs, checked directly):
# for so few rows that beats computing the node's cutoff, the sides' bounds and the
# pruning. Chosen on fully grown ExtraTrees on H2, 84% of whose nodes hold at most 16
# rows: 16 instead of 4 made a tree's correction 6.5% faster; 8: 3%; 24 and 32: as 16.
# Off: 0. Too large: the pair check grows as TINY_ROWS**2.
TINY_ROWS = 16

# Nodes of at most this many rows (H features) are partitioned first, then each side's
# rows all read x0 without a branch, instead of the single windowed pass. The window
# only narrows as the pass goes and holds most of a small node's rows until the end
# (ExtraTrees, H4 x E2: 40-100% of the rows of nodes under 512 rows, 3-15% at
# 2048-4096, under 2% above 16384); every row in it is a mispredicted branch. Two
# passes against one branch-free pass: ExtraTrees' correction 16-28% faster on H2,
# H4 x E2 and H8. Off: 0 (every node above TINY_ROWS windowed). Too small or large:
# small nodes mispredict, or large ones read every x0 for a window of 2%.
DENSE_ROWS = 4096

# A larger node takes the two passes too when the last windowed pass on its feature (in
# any tree of the model) read x0 for at least this share of its rows: how many rows a
# window holds depends on how far out the data lie more than on the node (~400 rows on
# H4 x E2, ~10,000 on H8, whose points lie some 9 units out). On H8 this made boosted
# trees' correction 12-15% faster and ExtraTrees' 25%; H4 x E2 unchanged. Off: inf
# (windows always), 0 (never windows). Wrong: slower on far-out or near data.
DENSE_WINDOW_SHARE = 0.1

# Rows of a large node the windowed pass reads first, spread through the node, to start
# its window near its final width. Without them, rows renumbered for locality (whose
# order follows their values) kept the window wide: XGBoost on H4 took 1.19x per tree;
# in random order the warm start still saves 5%. Off: 1. Too large: a second read of
# many rows.
WARM_ROWS = 64

# Up to this many (left, right) candidate pairs an H boundary is solved by checking
# every pair (exact, no iteration); above it by the product trees' bisection. The
# measurement that chose it was not recorded; both solvers agree to 1e-12
# (test_pairwise_solver_matches_bisection). Too large: quadratic work per node.
MAX_PAIRS = 256

# Up to this many pairs of kept rows, every pair is checked without pruning the kept
# rows first: for the few rows small nodes keep, cheaper than the pruning's two passes.
# Measurement not recorded. Off: 0 (always prune).
DIRECT_PAIRS = 32

# Far-out components: rows per block of x0 floors is 2 ** FLOOR_SHIFT (each block's
# smallest x0 bounds its rows' x0 from below, narrowing windows of R). 64 keeps the
# floors (1/64 of the x0 column, 12.5 KB at 10^5 rows) in the first-level cache while
# the passes read them at random. Wrong: looser floors, or floors out of cache.
FLOOR_SHIFT = 6

# A component's windows use the block floors when its median floor is at least this
# many times R (measured medians at 10^5 rows: H2 and H4 under 2, H8 50, H16 27,000).
# Below it, the second pass and the floors' reads cost more than they save: XGBoost on
# H4 went from 1.24 to 1.34 ms per tree with floors; LightGBM and HistGradientBoosting
# on H16 without sorted rows from 2.6 to 2.0 ms. Off: inf. (With sorted rows, far-out
# nodes scan from the gap instead: H8 LightGBM's correction took 0.68 s that way
# against 0.87 s with floors.)
FLOOR_PAYS = 10.0

# Sorted scans: rows per block of a feature's sorted order is 2 ** BLOCK_SHIFT (a
# window skips a block whose smallest x0 rules out every row in it). Measurement not
# recorded; 64 matches FLOOR_SHIFT. Wrong: coarser skips, or a larger table.
BLOCK_SHIFT = 6

# The scans' work, in rows routed through one node by correct_tree (about 4 ns), fitted
# by least squares over 1100 XGBoost and LightGBM trees on H2, H4, H4 x E2 and H8:
# WALK_COST per walk (one row's tests on a node's path, 10-14 ns), WINDOW_COST per step
# through an H window (one row against the bound, 5 ns), NODE_COST per scanned node
# (bisection to its threshold, windows' set-up, the boundary's solve: 250-380 ns).
# They scale the scan policies' predictions and the scans' budgets. Wrong: scans
# chosen where routing was cheaper, or the reverse; a scan still gives up past
# routing's cost, so a tree costs at most about twice its best.
WALK_COST = 3.0
WINDOW_COST = 1.2
NODE_COST = 80.0


class KernelTuning(NamedTuple):
    """The constants above that the compiled kernels read, as one record (see :func:`kernel_tuning`)."""

    tiny_rows: int
    dense_rows: int
    dense_window_share: float
    warm_rows: int
    max_pairs: int
    direct_pairs: int
    floor_shift: int
    floor_pays: float
    block_shift: int
    walk_cost: float
    window_cost: float
    node_cost: float


def kernel_tuning() -> KernelTuning:
    """This module's current kernel constants (types fixed, so one compiled version serves every value)."""
    return KernelTuning(
        int(TINY_ROWS),
        int(DENSE_ROWS),
        float(DENSE_WINDOW_SHARE),
        max(1, int(WARM_ROWS)),  # a stride through the node's rows: 0 would divide by zero
        int(MAX_PAIRS),
        int(DIRECT_PAIRS),
        int(FLOOR_SHIFT),
        float(FLOOR_PAYS),
        int(BLOCK_SHIFT),
        float(WALK_COST),
        float(WINDOW_COST),
        float(NODE_COST),
    )


# ============================================================ read by the Python side
# Which trees are scanned whole, which subtrees, and whether the rows are renumbered
# (curvedtrees.klein._backends). Read at each fit.

# Whole-tree scans. A scan's work is modelled as k * sum_v 1 / share_v (share_v: node
# v's share of the tree's rows); each model starts from SCAN_COST_PRIOR for k and learns
# it from its own scans (a running mean of log k, weight SCAN_COST_LEARNING per scan).
# Measured k (XGBoost): about 13 on H2, 30 on H4 x E2, 200 on H8. A tree is scanned when
# the prediction is at most SCAN_PAYS of routing's work. Learning in work units, not
# seconds: on a shared machine timings are too noisy (a trial that learned seconds
# scanned a third fewer XGBoost trees on H2: 0.43 s against 0.30 s). Off: SCAN_PAYS = 0.
SCAN_COST_PRIOR = 10.0
SCAN_COST_LEARNING = 0.25
SCAN_PAYS = 0.5
# Trees whose sum_v 1 / share_v exceeds this share of routing's rows are always routed
# (deep trees, nodes of a handful of rows). Measurement not recorded. Off: 0.
SCAN_MAX_INVERSE = 0.5

# Subtree scans inside routed trees, under a policy of their own: deeper nodes' rows lie
# less often next to their thresholds, so a subtree's k is larger (about 70 on H2 and
# H4, 1000 on H8, XGBoost and LightGBM); one k for both scanned fewer whole trees
# (LightGBM on H2: 25% more work). Descendants' rows are estimated from the library's
# node weights (XGBoost's hessians are off by 3x either way for a tenth of its nodes),
# so the bar is lower: simulated on XGBoost, H4, the work was 37% below routing with
# 0.35, and scans gave up three times as often with 0.5. Off: SUBTREE_PAYS = 0.
SUBTREE_COST_PRIOR = 20.0
SUBTREE_PAYS = 0.35

# Work allowed to a routed node's scan for candidates from the sorted rows, per row of
# the node (a row routed through one node): about what the branch-free pass it replaces
# costs beyond the plain partition, so a scan that gives up at most doubles the node's
# cost. Reasoned, not measured. Off: 0.
SCAN_WORK_PER_ROW = 1.0

# Largest sorted-rows table made (bytes; it grows as n_features ** 2, 8.8 MB for H4 x E2
# at 10^5 rows): beyond it no tree is scanned. A memory bound, not a speed measurement.
SORTED_ROWS_MAX_BYTES = 64 * 2**20

# Renumbering rows along a Z-order curve (curvedtrees.klein._rows) pays where a tree
# level's arrays (each feature and x0 column) overflow a core's second-level cache:
# one tree's correction took 0.84x on H4 (3.8 MB in all), 0.60-0.85x on H8, 0.98x on H2
# (2.4 MB), so it is used above RENUMBER_BYTES. It costs about 45 ns per value copied
# (30-45 ms at 10^5 rows) against about 2 ns saved per row routed through a node, so it
# is used only when the routing (rows times log2 of the leaves, over the trees) is at
# least RENUMBER_VISITS values' worth (ExtraTrees on H16, 60 nodes a tree: not used).
# Off: RENUMBER_BYTES = inf.
RENUMBER_BYTES = 3 * 2**20
RENUMBER_VISITS = 22.0

# Rows of the strided sample whose quantiles cut each feature into the Z-order curve's
# codes. Measurement not recorded; 4096 resolves the 2 ** 12 codes the key allows.
LOCALITY_SAMPLE_ROWS = 4096
