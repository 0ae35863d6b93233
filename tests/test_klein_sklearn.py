"""scikit-learn's estimator compatibility suite on the Klein wrappers (signature=None: Euclidean)."""

from curvedtrees.klein import KleinTreeClassifier, KleinTreeRegressor
from sklearn.ensemble import RandomForestRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks


def expected_failures(estimator):
    if isinstance(estimator.estimator, RandomForestRegressor):
        # A bootstrap drawn with weights as probabilities differs from one drawn over
        # repeated rows; scikit-learn's own RandomForestRegressor fails this check too.
        return {"check_sample_weight_equivalence_on_dense_data": "the wrapped forest's bootstrap is random in weights"}
    return {}


@parametrize_with_checks(
    [
        KleinTreeClassifier(),
        KleinTreeRegressor(),
        KleinTreeClassifier("extra_trees"),
        KleinTreeRegressor(RandomForestRegressor(n_estimators=5, random_state=0)),
    ],
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
