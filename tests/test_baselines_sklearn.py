"""scikit-learn's estimator compatibility suite on every baseline (signature=None: Euclidean)."""

from curvedtrees.baselines import (
    AmbientClassifier,
    AmbientRegressor,
    GeodesicKNNClassifier,
    GeodesicKNNRegressor,
    ProductPerceptronClassifier,
    ProductSVMClassifier,
    ProductSVMRegressor,
    TangentClassifier,
    TangentRegressor,
)
from sklearn.utils.estimator_checks import parametrize_with_checks

ESTIMATORS = [
    AmbientClassifier(),
    AmbientRegressor(),
    TangentClassifier(),
    TangentRegressor(),
    GeodesicKNNClassifier(),
    GeodesicKNNRegressor(),
    ProductPerceptronClassifier(),
    ProductSVMClassifier(),
    ProductSVMRegressor(),
]


# libsvm stops at tol=1e-3, so a fit with sample_weight=2 and a fit with the row
# repeated agree only to about 1e-3, not the check's 1e-7 (scikit-learn's own SVC and
# SVR fail this check at their default tol too; its test suite tightens tol).
_SVM_WEIGHTS = "libsvm's tol=1e-3 stopping makes weighted and repeated-row fits agree to ~1e-3 only"


def expected_failures(estimator):
    if isinstance(estimator, (ProductSVMClassifier, ProductSVMRegressor)):
        return {"check_sample_weight_equivalence_on_dense_data": _SVM_WEIGHTS}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
