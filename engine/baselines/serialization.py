"""JSON state of the baselines for :mod:`curvedtrees.io` (never pickle).

Model files are untrusted, and these models are read by compiled code (libsvm's
predict, numba kernels) and cost, per predicted row, one distance or kernel value per
point they keep. So loading checks every field that prediction reads, and bounds the
cost before anything is predicted:

* parameters: validated like ``fit`` validates them (``_parameter_constraints``, the
  SVC / SVR's own), so ``weights="x"`` or ``n_neighbors=0`` fail at load, naming the
  parameter, instead of at predict ("'str' object is not callable");
* classes: :func:`curvedtrees.io.decode_classes` (int64 / float64 range, finite,
  distinct, at most ``MAX_MODEL_CLASSES``; SVMs at most ``MAX_SVM_CLASSES``);
* kept points (k-NN training points, support vectors): on the manifold, at most
  ``MAX_MODEL_POINTS`` of them and ``MAX_MODEL_POINT_CELLS`` coordinates in all;
* every number a prediction is made of: finite, and the largest output a prediction
  can reach (the largest k-NN target; the sum of the dual coefficients' magnitudes plus
  the intercept, kernel values lying in [0, 1]) at most ``MAX_MODEL_OUTPUT``. Each
  loader lists, field by field, what is checked and what is recomputed.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import ClassifierMixin, clone

from ..io import check_output_bound
from ..limits import MAX_MODEL_POINT_CELLS, MAX_MODEL_POINTS, MAX_SVM_CLASSES
from ..manifolds.signature import Signature
from ._common import _component_weights, _product_manifold
from ._knn import GeodesicKNNClassifier, GeodesicKNNRegressor
from ._perceptron import ProductPerceptronClassifier
from ._svm import ProductSVMClassifier, ProductSVMRegressor
from ._wrappers import (
    AmbientClassifier,
    AmbientRegressor,
    TangentClassifier,
    TangentRegressor,
    _AmbientMixin,
    _TangentMixin,
)


# ------------------------------------------------------------------ serialisation
# JSON state for curvedtrees.io (never pickle).
def _dump_signature_state(model) -> dict:
    from ..io import encode_labels

    state = {"signature": str(model.signature_), "n_features_in": int(model.n_features_in_)}
    if hasattr(model, "classes_"):
        state["classes"] = encode_labels(model.classes_)
    return state


def _load_signature_state(model, state, keys, where="fitted"):
    from ..io import decode_classes

    expected = {"signature", "n_features_in", *keys}
    if isinstance(model, ClassifierMixin):
        expected.add("classes")
    if not isinstance(state, dict) or set(state) != expected:
        raise ValueError(f"{where}: expected the keys {sorted(expected)}")
    if not isinstance(state["signature"], str):
        raise ValueError(f"{where}.signature must be a string")
    try:
        signature = Signature.parse(state["signature"])
    except ValueError as exc:
        raise ValueError(f"{where}.signature: {exc}") from None
    if state["n_features_in"] != signature.ambient_dim:
        raise ValueError(f"{where}: n_features_in must be {signature.ambient_dim} for '{signature}'")
    model.signature_ = signature
    model.n_features_in_ = signature.ambient_dim
    if isinstance(model, ClassifierMixin):
        classes = decode_classes(state["classes"], f"{where}.classes")
        model.classes_ = classes
    return signature


def _params_loader(cls):
    """``load_params`` for ``cls``: the stored parameters validated as ``fit`` validates them."""

    def load(params: dict) -> dict:
        estimator = cls(**params)  # unknown names were refused by curvedtrees.io already
        signature = estimator.signature
        if signature is not None:
            Signature.parse(signature)  # ValueError naming the malformed signature
        weights = getattr(estimator, "component_weights", None)
        if weights is not None and (
            not isinstance(weights, list)
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights)
        ):
            raise ValueError("component_weights must be null or a list of numbers (one per component)")
        if isinstance(estimator, _AmbientMixin | _TangentMixin):
            # The wrapped model's spec: null (the default scikit-learn tree) or an allow-listed
            # tree library's class with its parameters, checked like the Klein wrappers' own.
            from ..klein.serialization import load_estimator_spec

            spec = params.get("estimator")
            if spec is not None and not isinstance(spec, dict):
                raise ValueError("params.estimator must be null or an object with keys class and params")
            return {**params, "estimator": load_estimator_spec(spec, "params.estimator")}
        estimator._validate_params()
        if hasattr(estimator, "_make_svm"):
            estimator._make_svm()._validate_params()  # C, epsilon: the SVC / SVR's own checks
        return params

    return load


def _check_points(points: np.ndarray, signature, where: str) -> np.ndarray:
    """Kept points of a model file: bounded in number and cells, then validated on the manifold."""
    n, width = points.shape
    if n > MAX_MODEL_POINTS or n * width > MAX_MODEL_POINT_CELLS:
        raise ValueError(
            f"{where}: {n:,} points of {width} coordinates; a model file may keep at most {MAX_MODEL_POINTS:,} "
            f"points and {MAX_MODEL_POINT_CELLS:,} coordinates (curvedtrees.limits.MAX_MODEL_POINTS, "
            "MAX_MODEL_POINT_CELLS): every predicted row is compared with each of them"
        )
    return _product_manifold(signature).validate(points, name=where) if n else points


def _dump_wrapper(model):
    from ..klein.serialization import dump_tree_model

    if not hasattr(model, "estimator_"):
        return None
    state = _dump_signature_state(model)
    state["estimator"] = dump_tree_model(model.estimator_)
    return state


def _dump_wrapper_params(model) -> dict:
    from ..klein.serialization import dump_estimator_spec

    params = model.get_params(deep=False)
    return {**params, "estimator": dump_estimator_spec(params["estimator"])}


def _load_wrapper(model, state):
    from ..klein.serialization import load_tree_model

    signature = _load_signature_state(model, state, {"estimator"})
    n_features = signature.ambient_dim if isinstance(model, _AmbientMixin) else signature.dim
    classifier = isinstance(model, ClassifierMixin)
    template = clone(model.estimator) if model.estimator is not None else model._default_estimator()
    n_classes = len(model.classes_) if classifier else None
    fitted = load_tree_model(state["estimator"], template, classifier, n_features, n_classes, "fitted.estimator")
    # The wrapped model's parameters are stored twice (params.estimator and the fitted tree's
    # own): a file whose two copies disagree describes no model that fit could have made.
    if type(fitted) is not type(template) or fitted.get_params(deep=False) != template.get_params(deep=False):
        raise ValueError("fitted.estimator: its class or parameters differ from params.estimator")
    model.estimator_ = fitted


def _dump_knn(model):
    from ..io import encode_array

    if not hasattr(model, "_fit_X"):
        return None
    state = _dump_signature_state(model)
    state["X"] = encode_array(model._fit_X)
    state["y"] = encode_array(model._y)
    return state


def _load_knn(model, state):
    """k-NN state: every field prediction reads.

    ``X`` (the training points): checked (count and cells bounded, on the manifold);
    ``y``: checked (a classifier's encoded labels in ``[0, n_classes)``, a regressor's
    finite targets at most ``MAX_MODEL_OUTPUT``: a prediction is a weighted mean of k
    of them); ``n_samples_fit_``: recomputed (the rows of ``X``), and ``n_neighbors`` (a
    validated parameter) must not exceed it.
    """
    from ..io import decode_array

    signature = _load_signature_state(model, state, {"X", "y"})
    X = decode_array(state["X"], "fitted.X", "float64", 2)
    classifier = isinstance(model, ClassifierMixin)
    y = decode_array(state["y"], "fitted.y", "int64" if classifier else "float64", 1)
    if X.shape[1] != signature.ambient_dim or len(y) != len(X) or len(X) == 0:
        raise ValueError(f"fitted: X must have shape (n, {signature.ambient_dim}) with n >= 1 and y n entries")
    if classifier and (y.min() < 0 or y.max() >= len(model.classes_)):
        raise ValueError("fitted.y: encoded labels out of range")
    if not classifier:
        if not np.all(np.isfinite(y)):
            raise ValueError("fitted.y: the targets must be finite (a prediction averages them)")
        check_output_bound(float(np.abs(y).max()), "fitted.y", "a target")
    if model.n_neighbors > len(X):
        raise ValueError(f"params.n_neighbors is {model.n_neighbors}, more than the {len(X)} stored training points")
    model._fit_X = _check_points(X, signature, "fitted.X")
    model._y = y
    model.n_samples_fit_ = len(X)


def _dump_perceptron(model):
    from ..io import encode_array

    if not hasattr(model, "dual_coef_"):
        return None
    state = _dump_signature_state(model)
    state.update(
        support_vectors=encode_array(model.support_vectors_),
        dual_coef=encode_array(model.dual_coef_),
        normalisers=encode_array(model.normalisers_),
        n_iter=int(model.n_iter_),
    )
    return state


def _load_perceptron(model, state):
    """Perceptron state: every field prediction reads.

    ``support_vectors``: checked (count and cells bounded, on the manifold);
    ``dual_coef`` (``alpha_i y_i``: a mistake count times +-1): checked whole numbers of
    magnitude at most ``n_iter``, none all zero on a kept row, shape (n_support,
    n_problems); ``n_iter``: checked in ``[0, max_iter]``; ``normalisers``: checked
    positive and finite, R² exactly for a spherical component (recomputed from the
    signature and compared), and for the others at least every support vector's squared
    norm on that component (they bound the inner products over the training rows, of
    which the support vectors are some); the component weights: recomputed from the
    parameter.
    """
    from ..io import decode_array

    signature = _load_signature_state(model, state, {"support_vectors", "dual_coef", "normalisers", "n_iter"})
    support = decode_array(state["support_vectors"], "fitted.support_vectors", "float64", 2)
    dual = decode_array(state["dual_coef"], "fitted.dual_coef", "float64", 2)
    normalisers = decode_array(state["normalisers"], "fitted.normalisers", "float64", 1)
    n_problems = 1 if len(model.classes_) == 2 else len(model.classes_)
    if support.shape[1] != signature.ambient_dim or dual.shape != (len(support), n_problems):
        raise ValueError("fitted: support_vectors and dual_coef shapes do not match the signature and classes")
    support = _check_points(support, signature, "fitted.support_vectors")
    n_iter = state["n_iter"]
    if not isinstance(n_iter, int) or isinstance(n_iter, bool) or not 0 <= n_iter <= model.max_iter:
        raise ValueError(f"fitted.n_iter must be an integer in [0, max_iter = {model.max_iter}]")
    if not np.all(np.isfinite(dual)) or np.any(dual != np.round(dual)) or np.any(np.abs(dual) > n_iter):
        raise ValueError(
            f"fitted.dual_coef must hold whole numbers of magnitude at most n_iter = {n_iter} (a mistake count "
            "times +-1 per row and problem)"
        )
    if len(dual) and np.any(~dual.any(axis=1)):
        raise ValueError("fitted.dual_coef: every support vector needs a nonzero coefficient")
    if normalisers.shape != (len(signature),) or not np.all(np.isfinite(normalisers)) or not np.all(normalisers > 0):
        raise ValueError("fitted.normalisers must be one positive finite number per component")
    for c, component in enumerate(signature.components):
        if component.kind == "S":
            if normalisers[c] != component.radius**2:
                raise ValueError(
                    f"fitted.normalisers[{c}] must be {component.radius**2!r}, the squared radius of {component}"
                )
        elif len(support):
            largest = float(np.max(np.sum(support[:, component.slice] ** 2, axis=1)))
            if normalisers[c] < largest * (1.0 - 1e-12):
                raise ValueError(
                    f"fitted.normalisers[{c}] must be at least the largest squared norm of a support vector on "
                    f"{component} ({largest:.6g})"
                )
    model.support_vectors_ = np.ascontiguousarray(support)
    model.dual_coef_ = dual
    model.normalisers_ = normalisers
    model.n_iter_ = n_iter
    model._weights = _component_weights(model.component_weights, signature)


# The SVMs: scikit-learn keeps a fitted SVC / SVR's libsvm model in private attributes
# (_dual_coef_, _intercept_, _n_support, _probA, _probB, _gamma, ...) with no public way to
# load one, so those fields are stored as arrays and set by hand on a new SVC / SVR after
# checks that keep libsvm's compiled predict in bounds. Only the support vectors are
# stored, in ambient coordinates (the product kernel needs them at predict time); the
# loaded SVC is fitted "on the support vectors", so its support_ is 0 .. n_SV - 1 and
# the test kernel has one column per support vector, with the same values in the same
# order as before, hence the same predictions bit for bit.
_SKLEARN_PIN = ">=1.5,<1.11"


def _svm_version_error(action, exc, error):
    import sklearn

    return error(
        f"cannot {action} with scikit-learn {sklearn.__version__}: its SVC / SVR private fitted state is not laid "
        f"out as this code expects ({type(exc).__name__}: {exc}). These models are saved and loaded with "
        f"scikit-learn{_SKLEARN_PIN} (requirements.txt)"
    )


def _dump_svm(model):
    from ..io import encode_array

    if not hasattr(model, "svm_"):
        return None
    svm = model.svm_
    name = type(model).__name__
    try:
        sparse, kernel = bool(svm._sparse), svm.kernel
        fields = {
            "n_support": encode_array(np.asarray(svm._n_support)),
            "dual_coef": encode_array(np.asarray(svm._dual_coef_, dtype=np.float64)),
            "intercept": encode_array(np.asarray(svm._intercept_, dtype=np.float64)),
            "prob_a": encode_array(np.asarray(svm._probA, dtype=np.float64)),
            "prob_b": encode_array(np.asarray(svm._probB, dtype=np.float64)),
            "fit_status": int(svm.fit_status_),
            "n_iter": encode_array(np.atleast_1d(np.asarray(svm.n_iter_))),
        }
        if isinstance(model, ClassifierMixin):
            fields["class_weight"] = encode_array(np.asarray(svm.class_weight_, dtype=np.float64))
    except AttributeError as exc:
        raise _svm_version_error(f"save {name}", exc, TypeError) from None
    if sparse or kernel != "precomputed":
        raise TypeError(f"cannot save {name}: its SVM must be dense with kernel='precomputed'")
    state = _dump_signature_state(model)
    state.update(fields, gamma=float(model.gamma_), support_vectors=encode_array(model.support_vectors_))
    return state


def _load_svm(model, state):
    """SVC / SVR state: every field of the libsvm model that its compiled predict reads.

    Checked: ``support_vectors`` (ours, for the product kernel: count and cells
    bounded, on the manifold); ``n_support`` (one count per class adding up to the
    support vectors: libsvm reads them as offsets; an SVR's total, twice);
    ``dual_coef`` and ``intercept`` (shapes, finite, and the largest decision value
    they can reach at most ``MAX_MODEL_OUTPUT``); ``prob_a`` / ``prob_b`` (empty or one
    finite number per pair of classes); ``fit_status`` (0 or 1); ``n_iter`` and
    ``class_weight`` (shapes, non-negative); ``gamma`` (positive, finite, equal to the
    parameter); the classes (at most ``MAX_SVM_CLASSES``). Recomputed: ``support_``
    (0 .. n_SV - 1), ``shape_fit_`` and ``n_features_in_`` (the kernel's columns), the
    public ``dual_coef_`` / ``intercept_`` (scikit-learn's sign convention),
    ``_effective_probability``, ``_sparse`` (False) and ``_gamma`` (unused with a
    precomputed kernel).
    """
    from ..io import decode_array

    where = "fitted"
    classifier = isinstance(model, ClassifierMixin)
    keys = {"gamma", "support_vectors", "n_support", "dual_coef", "intercept", "prob_a", "prob_b", "fit_status"}
    keys |= {"n_iter", "class_weight"} if classifier else {"n_iter"}
    signature = _load_signature_state(model, state, keys)
    gamma = state["gamma"]
    if not isinstance(gamma, (int, float)) or isinstance(gamma, bool) or not math.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"{where}.gamma must be a positive finite number")
    if not isinstance(model.gamma, str) and float(model.gamma) != float(gamma):
        raise ValueError(f"{where}.gamma must equal the gamma parameter ({model.gamma!r})")
    weights = _component_weights(model.component_weights, signature)
    support_vectors = decode_array(state["support_vectors"], f"{where}.support_vectors", "float64", 2)
    n_sv = support_vectors.shape[0]
    if support_vectors.shape[1] != signature.ambient_dim:
        raise ValueError(f"{where}.support_vectors must have shape (n_support_vectors, {signature.ambient_dim})")
    support_vectors = _check_points(support_vectors, signature, f"{where}.support_vectors")
    if classifier:
        n_classes = len(model.classes_)
        if n_classes < 2:
            raise ValueError(f"{where}.classes: an SVM classifier needs at least two classes")
        if n_classes > MAX_SVM_CLASSES:
            raise ValueError(
                f"{where}.classes: {n_classes:,} classes; an SVM file may have at most {MAX_SVM_CLASSES} "
                "(curvedtrees.limits.MAX_SVM_CLASSES: one-vs-one prediction grows with the square of the classes)"
            )
        n_pairs = n_classes * (n_classes - 1) // 2
        shapes = {
            "n_support": (n_classes,),
            "dual_coef": (n_classes - 1, n_sv),
            "intercept": (n_pairs,),
            "n_iter": (n_pairs,),
            "class_weight": (n_classes,),
        }
    else:
        n_pairs = 1
        shapes = {"n_support": (2,), "dual_coef": (1, n_sv), "intercept": (1,), "n_iter": (1,)}
    arrays = {}
    for key, shape in shapes.items():
        kind = "int64" if key in ("n_support", "n_iter") else "float64"
        arrays[key] = decode_array(state[key], f"{where}.{key}", kind, len(shape))
        if arrays[key].shape != shape:
            raise ValueError(f"{where}.{key} must have shape {shape}, got {arrays[key].shape}")
        if kind == "float64" and not np.all(np.isfinite(arrays[key])):
            raise ValueError(f"{where}.{key} must be finite")
        if np.any(arrays[key] < 0) and key in ("n_support", "n_iter", "class_weight"):
            raise ValueError(f"{where}.{key} must be non-negative")
    n_support = arrays["n_support"]
    # One support vector count per class (libsvm's one-vs-one reads them as offsets); an
    # SVR stores its total, twice.
    if (classifier and n_support.sum() != n_sv) or (not classifier and n_support[0] != n_sv):
        raise ValueError(f"{where}.n_support must add up to the {n_sv} support vectors")
    if not classifier and n_support[1] > n_sv:
        raise ValueError(f"{where}.n_support must not exceed the {n_sv} support vectors")
    prob = [decode_array(state[key], f"{where}.{key}", "float64", 1) for key in ("prob_a", "prob_b")]
    if (
        prob[0].shape != prob[1].shape
        or prob[0].size not in (0, n_pairs)
        or not all(np.isfinite(p).all() for p in prob)
    ):
        raise ValueError(f"{where}.prob_a and prob_b must be empty or {n_pairs} finite numbers each")
    fit_status = state["fit_status"]
    if not isinstance(fit_status, int) or isinstance(fit_status, bool) or fit_status not in (0, 1):
        raise ValueError(f"{where}.fit_status must be 0 or 1")
    # Every decision value is an intercept plus dual coefficients times kernel values in
    # [0, 1]: the largest sum of magnitudes bounds them all.
    with np.errstate(over="ignore"):
        reach = float(np.abs(arrays["dual_coef"]).sum(axis=1).max(initial=0.0) + np.abs(arrays["intercept"]).max())
    check_output_bound(
        reach, f"{where}.dual_coef", "a decision value (the dual coefficients' magnitudes plus the intercept)"
    )

    n_fit = max(1, n_sv)  # scikit-learn needs one kernel column even without support vectors
    svm = model._make_svm()
    dual_coef = np.ascontiguousarray(arrays["dual_coef"])
    intercept = np.ascontiguousarray(arrays["intercept"])
    try:
        svm._sparse = False
        svm.n_features_in_ = n_fit
        svm.shape_fit_ = (n_fit, n_fit)
        svm.support_ = np.arange(n_sv, dtype=np.int32)
        svm.support_vectors_ = np.empty((0, 0), dtype=np.float64)  # a precomputed kernel has none
        svm._n_support = n_support.astype(np.int32)
        svm._dual_coef_ = dual_coef
        svm._intercept_ = intercept
        svm._probA, svm._probB = prob
        svm._gamma = 0.0  # unused with a precomputed kernel
        svm.fit_status_ = state["fit_status"]
        svm._num_iter = arrays["n_iter"].astype(np.int32)
        svm._effective_probability = bool(prob[0].size)
        if classifier:
            svm.classes_ = model.classes_
            svm.class_weight_ = arrays["class_weight"]
            svm.n_iter_ = svm._num_iter
            # The public coefficients of a binary SVC have the opposite sign (scikit-learn's convention).
            flip = -1.0 if n_classes == 2 else 1.0
            svm.dual_coef_ = flip * dual_coef
            svm.intercept_ = flip * intercept
        else:
            svm.n_iter_ = int(svm._num_iter[0])
            svm.dual_coef_ = dual_coef
            svm.intercept_ = intercept.copy()
        svm.predict(np.zeros((1, n_fit)))  # a scikit-learn with other internals fails here, not later
    except (AttributeError, TypeError, KeyError, IndexError) as exc:
        raise _svm_version_error(f"rebuild {type(model).__name__}", exc, ValueError) from None
    model._weights = weights
    model.gamma_ = float(gamma)
    model.svm_ = svm
    model.support_vectors_ = np.ascontiguousarray(support_vectors)
    model._n_fit = n_fit


def _register():
    from ..io import register

    for cls in (AmbientClassifier, AmbientRegressor, TangentClassifier, TangentRegressor):
        register(cls, _dump_wrapper, _load_wrapper, _dump_wrapper_params, _params_loader(cls))
    for cls in (GeodesicKNNClassifier, GeodesicKNNRegressor):
        register(cls, _dump_knn, _load_knn, None, _params_loader(cls))
    register(
        ProductPerceptronClassifier,
        _dump_perceptron,
        _load_perceptron,
        None,
        _params_loader(ProductPerceptronClassifier),
    )
    for cls in (ProductSVMClassifier, ProductSVMRegressor):
        register(cls, _dump_svm, _load_svm, None, _params_loader(cls))


_register()
