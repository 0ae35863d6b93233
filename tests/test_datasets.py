"""Dataset loaders: shapes, points on the manifold, reproducibility, registry, messages."""

from __future__ import annotations

import datetime
import socket
import sys

import numpy as np
import pytest
from curvedtrees.datasets import (
    TEMPERATURE_ATTRIBUTION,
    Dataset,
    get_dataset_info,
    is_land,
    list_datasets,
    load_city_temperatures,
    load_dataset,
    load_el_nino,
    load_landmasses,
    load_neuron,
    load_traffic,
)
from curvedtrees.datasets.geo import LAND_MASK_PATH
from curvedtrees.manifolds import ProductManifold, Signature

FAST = ["landmasses", "city_temperatures", "neuron", "traffic", "el_nino"]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test here runs with outgoing connections refused."""

    def refuse(*args, **kwargs):
        raise OSError("network access is blocked in the dataset tests")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _load(name, seed=None):
    info = get_dataset_info(name)
    params = {"random_state": seed} if any(p.name == "random_state" for p in info.parameters) else {}
    return load_dataset(name, **params)


@pytest.mark.parametrize("name", FAST)
def test_fast_loaders_shapes_and_points_on_manifold(name):
    data = _load(name, seed=0)
    assert isinstance(data, Dataset)
    assert data.X.dtype == np.float64
    assert data.X.shape == (data.n_samples, data.signature.ambient_dim)
    assert data.y.shape == (data.n_samples,)
    ok, reason = ProductManifold(data.signature).check_point(data.X, explain=True)
    assert ok, reason
    assert data.task == get_dataset_info(name).task
    assert data.description and data.provenance
    if data.feature_names is not None:
        assert len(data.feature_names) == data.X.shape[1]


@pytest.mark.parametrize("name", ["landmasses", "neuron", "traffic"])
def test_random_loaders_are_reproducible(name):
    a, b, c = _load(name, seed=3), _load(name, seed=3), _load(name, seed=4)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def test_registry_describes_every_parameter():
    infos = list_datasets()
    names = [i.name for i in infos]
    assert len(set(names)) == len(names)
    assert set(FAST) <= set(names)
    assert {"karate_club", "les_miserables", "random_tree", "sbm", "link_prediction", "digits_latents"} <= set(names)
    for info in infos:
        Signature.parse(info.signature)
        assert info.title and info.summary and info.category
        assert info.available() == (True, "")
        for param in info.parameters:
            assert param.help
            assert param.validate(param.default, info.name) == param.default or param.kind == "signature"


def test_load_dataset_rejects_bad_parameters():
    with pytest.raises(ValueError, match="no parameter 'n_points'"):
        load_dataset("landmasses", n_points=10)
    with pytest.raises(ValueError, match=r"'n_samples'.*must be between"):
        load_dataset("landmasses", n_samples=0)
    with pytest.raises(ValueError, match="True or False"):
        load_dataset("landmasses", antarctica_as_water="yes")
    with pytest.raises(ValueError, match="unknown dataset 'moon'"):
        load_dataset("moon")
    with pytest.raises(ValueError, match="must be one of"):
        load_dataset("neuron", label="bursting")


def test_dataset_rejects_points_off_the_manifold():
    X = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    with pytest.raises(ValueError, match="row 1"):
        Dataset(X=X, y=np.zeros(2), signature="S2", task="regression", name="bad", description="", provenance="")
    with pytest.raises(ValueError, match="task"):
        Dataset(X=X[:1], y=np.zeros(1), signature="S2", task="clustering", name="bad", description="", provenance="")
    with pytest.raises(ValueError, match="y has shape"):
        Dataset(X=X[:1], y=np.zeros(2), signature="S2", task="regression", name="bad", description="", provenance="")


# ---------------------------------------------------------------- landmasses
def test_land_mask_asset_is_small_and_pickle_free():
    assert LAND_MASK_PATH.stat().st_size < 2 * 1024 * 1024
    with np.load(LAND_MASK_PATH, allow_pickle=False) as data:
        assert tuple(data["shape"]) == (3600, 7200)


def test_is_land_at_known_places():
    lat = np.array([48.86, 40.71, -33.87, 0.0, 30.0, -45.0, -80.0, 90.0])
    lon = np.array([2.35, -74.0, 151.2, -30.0, -40.0, -120.0, 0.0, 0.0])
    # Paris, New York, Sydney are land; mid-Atlantic, North Atlantic, South Pacific
    # are water; inland Antarctica is land; the North Pole is sea ice on water.
    expected = [True, True, True, False, False, False, True, False]
    assert is_land(lat, lon).tolist() == expected
    with pytest.raises(ValueError, match="latitudes"):
        is_land([91.0], [0.0])


def test_landmasses_full_grid_fraction_and_antarctica_switch():
    full = load_landmasses(n_samples=100 * 100, n_grid=100, random_state=0)
    # The GLOBE mask gives 33% land on an equal-angle grid (it over-weights the poles).
    assert 0.30 < full.y.mean() < 0.36
    south = full.extra["lat"] < -60
    assert full.y[south].mean() > 0.5
    paper = load_landmasses(n_samples=100 * 100, n_grid=100, antarctica_as_water=True, random_state=0)
    assert paper.y[south].sum() == 0
    np.testing.assert_array_equal(paper.y[~south], full.y[~south])
    # Latitude/longitude in extra agree with the points on the sphere.
    np.testing.assert_allclose(np.degrees(np.arcsin(full.X[:, 2])), full.extra["lat"], atol=1e-9)


def test_landmasses_never_import_global_land_mask(monkeypatch):
    monkeypatch.setitem(sys.modules, "global_land_mask", None)  # any import would now fail
    data = load_landmasses(n_samples=50, random_state=1)
    assert data.n_samples == 50


def test_landmasses_rejects_too_many_samples():
    with pytest.raises(ValueError, match="n_samples"):
        load_landmasses(n_samples=101, n_grid=10)


# ---------------------------------------------------------------- temperatures
def test_city_temperatures_content_groups_and_attribution():
    data = load_city_temperatures()
    assert data.X.shape == (270 * 12, 5)
    assert str(data.signature) == "S2 x S1"
    assert TEMPERATURE_ATTRIBUTION == "Temperature data (c) GeoRank.place, CC-BY-4.0, derived from CHELSA v2.1"
    assert TEMPERATURE_ATTRIBUTION in data.provenance
    lisbon_january = (data.extra["city"] == "Lisbon") & (data.extra["month"] == 0)
    assert data.y[lisbon_january].tolist() == [11.4]
    # Month m sits at angle 2 pi m / 12 on S1.
    angles = np.arctan2(data.X[:, 4], data.X[:, 3]) % (2 * np.pi)
    np.testing.assert_allclose(angles, 2 * np.pi * data.extra["month"] / 12, atol=1e-12)
    train, test = data.split_indices(test_size=0.25, random_state=0)
    assert not set(data.groups[train]) & set(data.groups[test])
    assert len(np.unique(data.groups)) == 270


def test_city_subset_is_reproducible():
    a = load_city_temperatures(n_cities=20, random_state=5)
    b = load_city_temperatures(n_cities=20, random_state=5)
    assert a.n_samples == 240
    np.testing.assert_array_equal(a.X, b.X)


def test_missing_optional_packages_give_pip_hints(monkeypatch):
    monkeypatch.setitem(sys.modules, "world_temperature_data", None)
    with pytest.raises(ImportError, match=r"'world_temperature_data'.*pip install 'curvedtrees\[datasets\]'"):
        load_city_temperatures()
    monkeypatch.setitem(sys.modules, "statsmodels", None)
    with pytest.raises(ImportError, match=r"'statsmodels'.*pip install 'curvedtrees\[datasets\]'"):
        load_el_nino()
    assert get_dataset_info("city_temperatures").available() == (False, "pip install 'curvedtrees[datasets]'")
    monkeypatch.setitem(sys.modules, "networkx", None)
    from curvedtrees.datasets import load_graph

    with pytest.raises(ImportError, match=r"'networkx'.*pip install 'curvedtrees\[datasets\]'"):
        load_graph("karate_club")


# ---------------------------------------------------------------- periodic
def test_neuron_labels_and_features():
    balanced = load_neuron(n_samples=1000, n_frequencies=5, random_state=0)
    assert str(balanced.signature) == " x ".join(["S1"] * 5)
    assert 0.4 < balanced.y.mean() < 0.6
    spiking = load_neuron(n_samples=1000, n_frequencies=5, label="spiking", random_state=0)
    assert 0.0 < spiking.y.mean() < 0.2
    np.testing.assert_array_equal(spiking.y, spiking.extra["v_mV"] > -50)
    # Feature k is the angle 2 pi t f_k.
    t = balanced.extra["t_ms"] / 1000.0
    f0 = balanced.extra["frequencies_hz"][0]
    np.testing.assert_allclose(balanced.X[:, 0], np.cos(2 * np.pi * t * f0), atol=1e-9)


def test_traffic_calendar_features():
    data = load_traffic(n_samples=300, random_state=0)
    stamps = data.extra["timestamp"].astype("datetime64[m]").astype(datetime.datetime)
    weekday = np.array([s.weekday() for s in stamps])
    hour = np.array([s.hour for s in stamps])
    np.testing.assert_allclose(data.X[:, 3], np.cos(2 * np.pi * weekday / 7), atol=1e-12)
    np.testing.assert_allclose(data.X[:, 5], np.cos(2 * np.pi * hour / 24), atol=1e-12)
    assert set(np.unique(data.X[:, 0])) <= {1.0, 2.0, 3.0, 4.0}
    assert np.all(data.y >= 0)


def test_el_nino():
    data = load_el_nino()
    assert data.X.shape == (61 * 12, 3)
    assert data.X[0, 0] == 1950 and data.y[0] == pytest.approx(23.11)
    assert 18 < data.y.min() and data.y.max() < 30


# ---------------------------------------------------------------- splitting
def test_split_uses_test_mask_then_stratifies():
    X = np.tile([[1.0, 0.0]], (20, 1))
    y = np.array([0, 1] * 10)
    mask = np.zeros(20, dtype=bool)
    mask[:4] = True
    data = Dataset(
        X=X, y=y, signature="S1", task="classification", name="t", description="", provenance="", test_mask=mask
    )
    train, test = data.split_indices(test_size=0.5, random_state=0)
    assert test.tolist() == [0, 1, 2, 3] and len(train) == 16
    plain = Dataset(X=X, y=y, signature="S1", task="classification", name="t", description="", provenance="")
    _, _, y_train, y_test = plain.split(test_size=0.5, random_state=0)
    assert y_train.mean() == 0.5 and y_test.mean() == 0.5


@pytest.mark.parametrize("name", ["random_tree", "karate_club", "link_prediction", "digits_latents"])
def test_learned_signatures_of_built_in_datasets_are_bounded_before_any_work(name):
    # random_tree in H1000 x S1000 x E1000 once reached 3.4 GB (issue 27): the registry refuses it first.
    from curvedtrees.limits import MAX_EMBEDDING_DIM

    spec = next(p for p in get_dataset_info(name).parameters if p.name == "signature")
    assert spec.max == MAX_EMBEDDING_DIM
    with pytest.raises(ValueError, match="H1000 x S1000 x E1000 has dimension 3,000; at most 32"):
        load_dataset(name, signature="H1000 x S1000 x E1000")
