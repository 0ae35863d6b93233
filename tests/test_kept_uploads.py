"""An upload survives a reload of its tab: a server-side copy under a token in that tab's URL only.

The store (``ui.kept_uploads``) is bounded in size, count and time, reachable by its
token alone; the app restores from it through AppTest runs standing in for a reload of
the same tab (its URL's token), another visitor's session (no token) and a stale link.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_clean, start, text
from curvedtrees.limits import KEPT_UPLOAD_SECONDS, MAX_KEPT_UPLOADS, MAX_UPLOAD_BYTES
from curvedtrees.sampling import make_classification

from ui.kept_uploads import GONE_TEXT, KeptUploads, restore_record, valid_token

MAPPING = {
    "label": "label",
    "task": "classification",
    "components": [{"model": "ambient", "columns": ["x0", "x1", "x2"]}],
}


def h2_table(n: int = 40, seed: int = 1) -> tuple[bytes, np.ndarray]:
    X, y = make_classification("H2", n_samples=n, n_classes=2, n_clusters=2, cov_scale=0.3, random_state=seed)
    lines = ["x0,x1,x2,label"] + [",".join([*(f"{v:.17g}" for v in row), f"c{label}"]) for row, label in zip(X, y)]
    return ("\n".join(lines) + "\n").encode(), X


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


# ------------------------------------------------------------------ the store
def test_a_token_is_unguessable_and_reaches_its_upload_only():
    store = KeptUploads()
    raw, _ = h2_table()
    token = store.keep(raw, "points.csv", "H2", MAPPING, "classification")
    other = store.keep(raw, "points.csv", "H2", MAPPING, "classification")
    assert token != other and len(token) >= 32 and valid_token(token)  # 24 random bytes, URL-safe
    kept = store.get(token)
    assert kept.raw == raw and kept.name == "points.csv"
    assert store.get(token[:-1] + ("A" if token[-1] != "A" else "B")) is None  # a near miss finds nothing
    for bad in (None, "", "x" * 65, "../../etc/passwd", token + "'", 7):
        assert store.get(bad) is None
    # No way to list what is kept: the store holds hashes of tokens, and offers no iteration.
    assert not hasattr(store, "__iter__") and token not in repr(vars(store))


def test_kept_uploads_expire_and_are_bounded_in_count_and_bytes():
    clock = Clock()
    store = KeptUploads(max_count=3, max_bytes=1000, ttl=60, clock=clock)
    tokens = [store.keep(b"x" * 100, f"f{k}.csv", "H2", MAPPING, "classification") for k in range(4)]
    assert len(store) == 3 and store.get(tokens[0]) is None and store.get(tokens[3]) is not None  # oldest out
    big = store.keep(b"y" * 950, "big.csv", "H2", MAPPING, "classification")
    assert store.get(big) is not None and len(store) == 1  # bytes: the others made room
    clock.now = 59.0
    assert store.get(big) is not None
    clock.now = 60.0
    assert store.get(big) is None and len(store) == 0
    with pytest.raises(ValueError, match="over the upload limit"):
        KeptUploads().keep(b"z" * (MAX_UPLOAD_BYTES + 1), "huge.csv", "H2", MAPPING, "classification")
    assert MAX_KEPT_UPLOADS >= 30 and KEPT_UPLOAD_SECONDS >= 3600  # a class, for a lesson's length


def test_a_kept_upload_is_read_again_through_the_same_checks():
    raw, X = h2_table()
    store = KeptUploads()
    token = store.keep(raw, "points.csv", "H2", MAPPING, "classification")
    record = restore_record(store.get(token), token)
    assert np.allclose(record.X, X) and record.recipe["kept"] == token and record.title == "points.csv"
    # A file that no longer passes says why (here: bytes that are not the table they claim to be).
    spoiled = store.keep(b"\x80\x04\x95 not a table", "points.npy", "H2", MAPPING, "classification")
    with pytest.raises(ValueError):
        restore_record(store.get(spoiled), spoiled)


# ------------------------------------------------------------------ the app: reload, another session, a stale link
def _use_upload(raw: bytes):
    at = start("pages/1_Data.py")
    at.file_uploader(key="up_file").set_value(("points.csv", raw, "text/csv"))
    at.run()
    assert_clean(at)
    at.checkbox(key="up_train").uncheck()
    at.button(key="up_use").click().run()
    assert_clean(at)
    return at


def test_a_reload_with_the_token_restores_the_upload_and_another_session_cannot_reach_it():
    raw, X = h2_table(seed=3)
    at = _use_upload(raw)
    assert np.allclose(at.session_state["ct:data"].X, X)
    token = at.query_params["upload"]
    token = token[0] if isinstance(token, list) else token
    assert valid_token(token)
    assert "data" not in at.query_params  # the upload is not in the link; its token is
    # "Use this dataset" leads on: to training and to the regions.
    links = {link.proto.label: link.proto.page for link in at.get("page_link")}
    assert links["Train a model on it"] == "Train" and links["See its decision regions"] == "Regions"

    reloaded = start(query={"upload": token})  # the same tab reloaded: a new session with the tab's URL
    assert np.allclose(reloaded.session_state["ct:data"].X, X)
    assert reloaded.session_state["ct:data"].title == "points.csv"

    stranger = start()  # another session, without the token: the default demo, nothing of the upload
    assert stranger.session_state["ct:data"].recipe["source"] == "synthetic"
    assert "points.csv" not in text(stranger) and "upload" not in stranger.query_params


@pytest.mark.parametrize("token", ["A" * 32, "not a token!", "x" * 300])
def test_a_wrong_or_stale_token_says_so_plainly_and_opens_the_demo(token):
    at = start(query={"upload": token})
    assert any(GONE_TEXT in str(w.value) for w in at.warning)
    assert at.session_state["ct:data"].recipe["source"] == "synthetic"
    assert not at.exception


def test_an_expired_token_says_so_plainly_too(monkeypatch):
    from ui import state

    raw, _ = h2_table(seed=5)
    at = _use_upload(raw)
    token = at.query_params["upload"]
    token = token[0] if isinstance(token, list) else token
    store = state.kept_uploads()  # the server's one store (a resource shared by the sessions of this process)
    later = store.clock() + KEPT_UPLOAD_SECONDS
    monkeypatch.setattr(store, "clock", lambda: later)
    reloaded = start(query={"upload": token})
    assert any(GONE_TEXT in str(w.value) for w in reloaded.warning)
    assert reloaded.session_state["ct:data"].recipe["source"] == "synthetic"
