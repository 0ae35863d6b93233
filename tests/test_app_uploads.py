"""Uploads on the Data page through AppTest: separators, decimal commas, sizes, counts and the points preview."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from curvedtrees.sampling import make_classification
from streamlit.testing.v1 import AppTest

from ui.uploads import MAX_UPLOAD_BYTES, UPLOADER_MB

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def data_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page("pages/1_Data.py").run()
    assert not at.exception
    return at


def upload(at: AppTest, name: str, payload: bytes) -> AppTest:
    at.file_uploader(key="up_file").set_value((name, payload, "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def h2_rows(sep: str = ",", decimal: str = ".", n: int = 40) -> tuple[bytes, np.ndarray]:
    X, y = make_classification("H2", n_samples=n, n_classes=2, n_clusters=2, cov_scale=0.3, random_state=1)
    lines = [sep.join(["x0", "x1", "x2", "label"])]
    lines += [sep.join([f"{v:.17g}".replace(".", decimal) for v in row] + [f"c{label}"]) for row, label in zip(X, y)]
    return ("\n".join(lines) + "\n").encode(), X


def infos(at: AppTest) -> str:
    return "\n".join(str(i.value) for i in at.info)


def errors(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in at.error)


@pytest.mark.parametrize(
    ("sep", "decimal", "hint"),
    [
        (";", ",", "semicolon-separated values with decimal commas"),
        ("\t", ".", "tab-separated values"),
        ("|", ".", "vertical bar-separated values"),
        (";", ".", "semicolon-separated values (detected"),
    ],
)
def test_separator_and_decimal_comma_are_detected_with_a_hint(sep, decimal, hint):
    payload, X = h2_rows(sep, decimal)
    at = upload(data_page(), "points.csv", payload)
    assert hint in infos(at)
    assert "40 rows, 4 columns" in "\n".join(str(c.value) for c in at.caption)
    at.button(key="up_use").click().run()
    assert not at.exception
    assert np.allclose(at.session_state["ct:data"].X, X)


def test_a_plain_comma_file_gets_no_hint_and_its_points_are_drawn_before_use():
    payload, _ = h2_rows()
    at = upload(data_page(), "points.csv", payload)
    assert "Read as" not in infos(at)
    keys = [chart.proto.id for chart in at.get("plotly_chart")]
    assert any("upload_points" in key for key in keys)  # the uploaded points, beside the current dataset's
    assert "The uploaded points on" in "\n".join(str(c.value) for c in at.caption)


def test_counts_read_as_sentences():
    payload, _ = h2_rows(n=40)
    at = upload(data_page(), "points.csv", payload)
    prefix = next(s.key for s in at.multiselect if s.key.endswith("_cols_0_ambient"))
    at.multiselect(key=prefix).set_value(["x0"]).run()
    assert "needs 3 columns; 1 is selected" in errors(at)


def test_files_over_the_limits_get_our_message_with_the_true_row_count():
    at = upload(data_page(), "big.csv", b"a\n" + b"1\n" * (MAX_UPLOAD_BYTES // 2))
    assert "the limit is 25 MB" in errors(at)
    at = upload(data_page(), "long.csv", b"a,b\n" + b"1,2\n" * 200_000)
    assert "long.csv has 200,000 rows; the limit is 50,000" in errors(at)
    # Streamlit's own limit sits above ours, so files a little over ours reach our check.
    assert at.file_uploader(key="up_file").proto.max_upload_size_mb == UPLOADER_MB > MAX_UPLOAD_BYTES / 2**20
