"""Signature parsing: every accepted form, canonical round trips, equality and errors."""

import itertools
import pickle

import pytest
from curvedtrees.limits import MAX_AMBIENT_DIM, MAX_SIGNATURE_COMPONENTS
from curvedtrees.manifolds import Component, Signature


def kinds(sig):
    return [(c.kind, c.dim, c.curvature) for c in sig.components]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("H2 x S2 x E2", [("H", 2, -1.0), ("S", 2, 1.0), ("E", 2, 0.0)]),
        ("H2(-0.5) x S1(2) x E3", [("H", 2, -0.5), ("S", 1, 2.0), ("E", 3, 0.0)]),
        ("(S1)^5 x E1", [("S", 1, 1.0)] * 5 + [("E", 1, 0.0)]),
        ("S2xS1", [("S", 2, 1.0), ("S", 1, 1.0)]),
        ("s2 X s1", [("S", 2, 1.0), ("S", 1, 1.0)]),
        ("  h2 ( -0.5 ) x e1 ", [("H", 2, -0.5), ("E", 1, 0.0)]),
        ("H2 × S2", [("H", 2, -1.0), ("S", 2, 1.0)]),
        ("S1^3", [("S", 1, 1.0)] * 3),
        ("(S1(2))^2", [("S", 1, 2.0)] * 2),
        ("H2(-1e-2)", [("H", 2, -0.01)]),
        ("H2(-.5)", [("H", 2, -0.5)]),
        ("S2(+4)", [("S", 2, 4.0)]),
        ("E2(0)", [("E", 2, 0.0)]),
        ("H16", [("H", 16, -1.0)]),
    ],
)
def test_parse_forms(text, expected):
    assert kinds(Signature.parse(text)) == expected


def test_components_slices_and_dims():
    sig = Signature.parse("H2 x S1(2) x E3")
    assert [c.ambient_dim for c in sig.components] == [3, 2, 3]
    assert [c.slice for c in sig.components] == [slice(0, 3), slice(3, 5), slice(5, 8)]
    assert [c.index for c in sig.components] == [0, 1, 2]
    assert (sig.dim, sig.ambient_dim) == (6, 8)
    assert [c.name for c in sig.components] == ["H2", "S1", "E3"]
    assert sig.components[1].radius == pytest.approx(2**-0.5)
    assert sig.components[2].radius == float("inf")
    assert len(sig) == 3 and sig[0].kind == "H" and [c.kind for c in sig] == ["H", "S", "E"]


@pytest.mark.parametrize(
    "text",
    ["H2 x S2 x E2", "H2(-0.5) x S1(2) x E3", "(S1)^5 x E1", "S2xS1", "H2(-0.3) x S3(1.7)", "E1", "H2(-1e-3)"],
)
def test_canonical_string_round_trips(text):
    sig = Signature.parse(text)
    canonical = str(sig)
    again = Signature.parse(canonical)
    assert again == sig
    assert str(again) == canonical
    assert repr(sig) == f"Signature({canonical!r})"


def test_canonical_form_omits_default_curvatures():
    assert str(Signature.parse("h2(-1) x s2(1.0) x e2(0)")) == "H2 x S2 x E2"
    assert str(Signature.parse("(S1)^2xE1")) == "S1 x S1 x E1"


def test_equality_and_hashing():
    a = Signature.parse("H2 x S2")
    b = Signature.parse("h2(-1.0)xs2")
    c = Signature.parse("S2 x H2")
    d = Signature.parse("H2(-2) x S2")
    assert a == b and hash(a) == hash(b)
    assert a != c and a != d
    assert len({a, b, c, d}) == 3
    # Equal objects must hash equally, so a signature never equals its string form.
    assert a != "H2 x S2" and a == Signature.parse("H2 x S2")
    assert Signature.parse(a) is a
    assert pickle.loads(pickle.dumps(a)) == a


def test_list_of_pairs():
    sig = Signature.parse([(-1.0, 2), (1, 2), (0.0, 2)])
    assert sig == Signature.parse("H2 x S2 x E2")
    assert Signature.parse([(-0.5, 3.0)]) == Signature.parse("H3(-0.5)")
    assert sig.to_pairs() == [(-1.0, 2), (1.0, 2), (0.0, 2)]
    assert Signature.parse(sig.to_pairs()) == sig


def test_euclidean_constructor():
    assert Signature.euclidean(4) == Signature.parse("E4")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("H2 x", "empty factor"),
        ("H2 x x S2", "empty factor"),
        ("", "empty signature"),
        ("H2(abc)", "h2(abc)"),
        ("Q2", "q2"),
        ("H", "'h'"),
        ("2H", "2h"),
        ("H2 S2", "h2s2"),
        ("H2,S2", "h2,s2"),
        ("(H2 x S2)^2", "h2xs2"),
        ("H0", "dimension 0"),
        ("(S1)^0", "at least 1"),
        ("H2(1)", "negative curvature"),
        ("S2(-1)", "positive curvature"),
        ("E2(1)", "curvature 0"),
        ("H2(-inf)", "h2(-inf)"),
    ],
)
def test_malformed_strings_name_the_bad_token(text, fragment):
    with pytest.raises(ValueError) as info:
        Signature.parse(text)
    assert fragment in str(info.value).lower()


@pytest.mark.parametrize(
    ("pairs", "fragment"),
    [
        ([(1,)], "entry 1"),
        ([(-1, 2), ("a", 2)], "entry 2"),
        ([(-1, 0)], "positive integer"),
        ([(-1, 2.5)], "positive integer"),
        ([(-1, True)], "positive integer"),
        ([], "at least one component"),
    ],
)
def test_malformed_pairs(pairs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Signature.parse(pairs)


def test_non_signature_types_are_rejected():
    with pytest.raises(TypeError, match="signature must be"):
        Signature.parse(5)


def test_component_validation():
    with pytest.raises(ValueError, match="kind"):
        Component("X", 2, 0.0)
    with pytest.raises(ValueError, match="dimension"):
        Component("E", 0, 0.0)
    with pytest.raises(ValueError, match="finite"):
        Component("H", 2, float("nan"))


# ------------------------------------------------------------------ limits
# Hostile sizes are refused from the text, before anything is expanded. Powers large
# enough to exhaust memory ("(S1)^3000000") are tried in a memory-limited child process
# in tests/test_hostile_inputs.py; these are cheap to get wrong.
@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("(S1)^65", ["'(S1)^65'", "at character 1", "64 components"]),
        ("H2 x S1^100", ["'S1^100'", "at character 6", "64 components"]),
        ("E999999999999999999999", ["has dimension 999999999999999999999", "limit is 4,096"]),
        ("H2 x E10000", ["'E10000'", "at character 6", "limit is 4,096"]),
        ("(S1)^40 x   (E1)^25", ["65 components", "'(E1)^25'", "at character 13", "MAX_SIGNATURE_COMPONENTS"]),
        ("E4000 x H96", ["4,097 ambient coordinates", "'H96'", "at character 9", "MAX_AMBIENT_DIM"]),
        ("(H2000)^3", ["6,003 ambient coordinates", "MAX_AMBIENT_DIM"]),
        ("S1 x " * 500 + "S1", ["too long", "2,502 characters", "2,000"]),
    ],
)
def test_oversized_signatures_are_refused_with_the_limit_and_place(text, fragments):
    with pytest.raises(ValueError) as info:
        Signature.parse(text)
    for fragment in fragments:
        assert fragment in str(info.value)
    assert len(str(info.value)) < 400  # the message quotes the text clipped, not whole


def test_signatures_at_the_limits_are_accepted():
    assert len(Signature.parse(f"(S1)^{MAX_SIGNATURE_COMPONENTS}")) == MAX_SIGNATURE_COMPONENTS
    assert Signature.parse(f"E{MAX_AMBIENT_DIM}").ambient_dim == MAX_AMBIENT_DIM
    assert Signature.parse("(S1)^0064").ambient_dim == 128  # leading zeros are not digits that count
    assert Signature.euclidean(MAX_AMBIENT_DIM).ambient_dim == MAX_AMBIENT_DIM


def test_pairs_and_constructor_obey_the_same_limits():
    with pytest.raises(ValueError, match="65 components"):
        Signature.parse([(1.0, 1)] * 65)
    with pytest.raises(ValueError, match="entry 2 needs 5,000 ambient"):
        Signature.parse([(1.0, 1), (0.0, 5000)])
    with pytest.raises(ValueError, match="MAX_SIGNATURE_COMPONENTS"):
        Signature(("S", 1, 1.0) for _ in itertools.count())  # an endless iterable stops at the limit
    with pytest.raises(ValueError, match="MAX_AMBIENT_DIM"):
        Signature.euclidean(MAX_AMBIENT_DIM + 1)
    with pytest.raises(ValueError, match="component 2 \\(E4096\\)"):
        Signature([("H", 2, -1.0), ("E", 4096, 0.0)])
