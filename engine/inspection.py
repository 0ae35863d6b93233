"""Model inspection that keeps points on the manifold: permutation importance by component.

scikit-learn's :func:`sklearn.inspection.permutation_importance` shuffles one column at
a time. A point of ``H2`` or ``S2`` is a whole block of columns tied by an equation
(``-x0^2 + x1^2 + x2^2 = -1/|K|``, ``|x| = 1/sqrt K``), so a row with one shuffled
column is no longer a point, and the estimators refuse it
(:class:`curvedtrees.manifolds.OffManifoldError`). Here the unit of permutation is a
signature component instead: all columns of a component move together, so every
permuted row is a point again (each component's block comes from some other row).
"""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import check_scoring
from sklearn.utils import Bunch, check_random_state

from .manifolds.shared import check_int

__all__ = ["component_columns", "permutation_importance"]

_MAX_SEED = np.iinfo(np.int32).max


def component_columns(estimator) -> list[tuple[str, np.ndarray]]:
    """The columns of ``X`` each signature component of a fitted estimator occupies.

    Parameters
    ----------
    estimator : fitted curvedtrees estimator, or a Pipeline ending in one
        Read from ``signature_`` (and, for the Klein wrappers, ``layout_``, whose ball
        input models give an H component ``dim`` columns instead of ``dim + 1``).

    Returns
    -------
    list of (name, columns)
        In signature order: the component's name as in the split planes' names
        (``"H2#0"``: kind and dimension, ``#`` and its index) and its column indices,
        an int64 array.

    Raises
    ------
    ValueError
        An estimator without a fitted signature.

    Examples
    --------
    >>> from curvedtrees import ProductDecisionTreeClassifier, make_classification
    >>> from curvedtrees.inspection import component_columns
    >>> X, y = make_classification("H2 x E1", n_samples=100, random_state=0)
    >>> tree = ProductDecisionTreeClassifier(signature="H2 x E1", max_depth=2).fit(X, y)
    >>> [(name, cols.tolist()) for name, cols in component_columns(tree)]
    [('H2#0', [0, 1, 2]), ('E1#1', [3])]
    """
    final = estimator
    while hasattr(final, "steps") and final.steps:  # a Pipeline: its last step sees the columns
        final = final.steps[-1][1]
    signature = getattr(final, "signature_", None)
    if signature is None:
        raise ValueError(
            f"{type(estimator).__name__} has no fitted signature_: permutation by component needs a fitted "
            "curvedtrees estimator (or a Pipeline whose last step is one); fit it first"
        )
    layout = getattr(final, "layout_", None)
    slices = layout.input_slices if layout is not None else [c.slice for c in signature.components]
    return [
        (f"{c.name}#{c.index}", np.arange(s.start, s.stop, dtype=np.int64))
        for c, s in zip(signature.components, slices, strict=True)
    ]


def _n_rows(X, max_samples, n_samples: int) -> int:
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        if not 1 <= max_samples <= n_samples:
            raise ValueError(f"max_samples={max_samples} must be between 1 and the {n_samples} rows of X")
        return int(max_samples)
    if isinstance(max_samples, numbers.Real) and not isinstance(max_samples, bool) and 0 < max_samples <= 1:
        return max(1, int(max_samples * n_samples))
    raise ValueError(f"max_samples must be an integer in [1, n_samples] or a float in (0, 1], got {max_samples!r}")


def _take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _score(scorer, estimator, X, y, sample_weight):
    if sample_weight is not None:
        return scorer(estimator, X, y, sample_weight=sample_weight)
    return scorer(estimator, X, y)


def _component_scores(estimator, X, y, sample_weight, columns, seed, n_repeats, n_rows, scorer):
    """Scores after each of ``n_repeats`` permutations of one component's block of columns."""
    rng = np.random.RandomState(seed)
    n_samples = X.shape[0]
    scores = []
    for _ in range(n_repeats):
        rows = rng.choice(n_samples, n_rows, replace=False) if n_rows < n_samples else np.arange(n_samples)
        X_rows = _take(X, rows)  # a copy of the rows (fancy indexing), ours to permute
        y_rows = None if y is None else _take(y, rows)
        weight = None if sample_weight is None else sample_weight[rows]
        order = rng.permutation(n_rows)
        if hasattr(X_rows, "iloc"):
            permuted = X_rows.copy()  # pandas may treat a row selection as a view of X
            permuted.iloc[:, columns] = X_rows.iloc[order, columns].to_numpy()
        else:
            permuted = X_rows
            # The whole block moves as one: row r gets another row's point of this component.
            permuted[:, columns] = permuted[order[:, None], columns]
        scores.append(_score(scorer, estimator, permuted, y_rows, weight))
    return scores


def _bunch(baseline: float, scores: list[float], names: list[str], columns) -> Bunch:
    importances = baseline - np.asarray(scores, dtype=np.float64)  # (n_components, n_repeats)
    return Bunch(
        importances_mean=importances.mean(axis=1),
        importances_std=importances.std(axis=1),
        importances=importances,
        component_names=np.asarray(names, dtype=object),
        component_columns=list(columns),
    )


def permutation_importance(
    estimator,
    X,
    y,
    *,
    scoring=None,
    n_repeats=5,
    random_state=None,
    n_jobs=None,
    sample_weight=None,
    max_samples=1.0,
):
    """Permutation importance of each signature component (scikit-learn's contract, by component).

    scikit-learn's :func:`sklearn.inspection.permutation_importance` with whole
    manifold components in place of single columns: for each component, the rows'
    blocks of that component's columns are shuffled together ``n_repeats`` times, and
    the importance is the drop of the score from its value on the unshuffled data. A
    shuffled row keeps its other components and takes another row's point of this
    one, so it stays on the manifold (shuffling one column would move it off, and the
    estimators refuse such rows with :class:`curvedtrees.manifolds.OffManifoldError`).

    Parameters
    ----------
    estimator : fitted curvedtrees estimator, or a Pipeline ending in one
        Its components are read from ``signature_`` (see :func:`component_columns`).
    X : ndarray or DataFrame of shape (n_samples, n_features_in_)
        The rows the estimator was fitted on or held-out rows, in its input model.
    y : array-like of shape (n_samples,) or None
    scoring : str, callable, list, tuple, dict or None, default=None
        As in scikit-learn: None is the estimator's ``score``; several metrics (a list,
        tuple or dict) give a dict of results, one per metric name.
    n_repeats : int, default=5
        Permutations per component.
    random_state : int, RandomState instance or None, default=None
        Draws one seed per component (and from it the permuted rows), so the result
        does not depend on ``n_jobs``.
    n_jobs : int or None, default=None
        Components scored in parallel threads (joblib; the estimators' compiled
        prediction releases the GIL).
    sample_weight : array-like of shape (n_samples,), optional
        Passed to the scorer.
    max_samples : int or float, default=1.0
        Rows drawn (without replacement) for each repeat: an integer count or a
        fraction of ``n_samples``. The baseline score uses every row, as scikit-learn's.

    Returns
    -------
    result : Bunch or dict of Bunch
        ``importances_mean``, ``importances_std`` (shape (n_components,)) and
        ``importances`` (shape (n_components, n_repeats)), one row per signature
        component in signature order, as scikit-learn's per column; plus
        ``component_names`` (``"H2#0"``, ...) and ``component_columns`` (the column
        indices of each). A dict of these, by metric name, for several metrics.

    Raises
    ------
    ValueError
        ``n_repeats`` below 1, a bad ``max_samples``, rows of ``X`` and ``y`` that
        differ in number, or an estimator without a fitted signature.

    Examples
    --------
    >>> from curvedtrees import ProductRandomForestClassifier, make_classification
    >>> from curvedtrees.inspection import permutation_importance
    >>> X, _ = make_classification("H2 x S2", n_samples=300, random_state=0)
    >>> y = (X[:, 4] > 0).astype(int)  # decided by the sphere alone
    >>> forest = ProductRandomForestClassifier(10, signature="H2 x S2", random_state=0).fit(X, y)
    >>> result = permutation_importance(forest, X, y, n_repeats=3, random_state=0)
    >>> list(result.component_names), result.importances.shape
    (['H2#0', 'S2#1'], (2, 3))
    >>> bool(result.importances_mean[1] > result.importances_mean[0])
    True
    """
    n_repeats = check_int(n_repeats, "n_repeats", 1)
    components = component_columns(estimator)
    if not hasattr(X, "iloc"):
        X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features), got shape {X.shape}")
    n_samples = X.shape[0]
    width = sum(len(cols) for _, cols in components)
    if X.shape[1] != width:
        raise ValueError(f"X has {X.shape[1]} columns, but the estimator's components occupy {width}")
    if y is not None:
        y = y if hasattr(y, "iloc") else np.asarray(y)
        if len(y) != n_samples:
            raise ValueError(f"X has {n_samples} rows but y has {len(y)}")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        if sample_weight.shape != (n_samples,):
            raise ValueError(f"sample_weight must have shape ({n_samples},), got {sample_weight.shape}")
    n_rows = _n_rows(X, max_samples, n_samples)
    scorer = check_scoring(estimator, scoring=scoring)
    baseline = _score(scorer, estimator, X, y, sample_weight)
    rng = check_random_state(random_state)
    seeds = rng.randint(_MAX_SEED, size=len(components))
    scores = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_component_scores)(estimator, X, y, sample_weight, cols, int(seed), int(n_repeats), n_rows, scorer)
        for (_, cols), seed in zip(components, seeds, strict=True)
    )
    names = [name for name, _ in components]
    columns = [cols for _, cols in components]
    if isinstance(baseline, dict):
        return {
            metric: _bunch(baseline[metric], [[s[metric] for s in per] for per in scores], names, columns)
            for metric in baseline
        }
    return _bunch(baseline, scores, names, columns)
