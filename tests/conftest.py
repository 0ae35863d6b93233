"""Shared test configuration, and the helpers of the tests that drive the app through AppTest.

The app tests import the helpers directly (``from conftest import start, assert_clean``):
pytest puts this directory on ``sys.path`` and loads this file once as ``conftest``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import settings

# Under CI, property tests draw the same examples every run, so a submission's result
# does not depend on luck; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def start(page: str | None = None, query: dict | None = None, timeout: float = 90):
    """Run the app's home page, then switch to ``page``, failing on any exception.

    Parameters
    ----------
    page : str, optional
        A page file such as ``"pages/1_Data.py"``; None stays on the home page.
    query : dict, optional
        Link parameters. Without ``page`` they are set before the home page's first run
        (the home page reads them); with ``page`` they are set after it and before the
        switch, so that the page reads them rather than the home page's own link.
    timeout : float
        Seconds each run may take (AppTest's ``default_timeout``).

    Returns
    -------
    streamlit.testing.v1.AppTest
    """
    # Imported here: most test files never start the app, and Streamlit is an extra.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    if page is None:
        _set_query(at, query)
    at.run()
    assert_clean(at)
    if page:
        _set_query(at, query)
        at.switch_page(page).run()
        assert_clean(at)
    return at


def _set_query(at, query: dict | None) -> None:
    for key, value in (query or {}).items():
        at.query_params[key] = value


def assert_clean(at) -> None:
    """The last run raised nothing (the exceptions' texts are the failure message)."""
    assert not at.exception, [e.value for e in at.exception]


def errors(at) -> list[str]:
    """Texts of the ``st.error`` boxes of the last run."""
    return [e.value for e in at.error]


def text(at) -> str:
    """Everything the last run wrote as markdown, captions, info, success and warning boxes."""
    parts = [at.markdown, at.caption, at.info, at.success, at.warning]
    return "\n".join(str(element.value) for group in parts for element in group)


def charts(at) -> list[dict]:
    """The Plotly figures of the last run, as the JSON specs Streamlit sends the browser."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def trace_types(spec: dict) -> set[str]:
    """Trace types of a figure spec (Plotly's default type is scatter)."""
    return {t.get("type", "scatter") for t in spec["data"]}


def param(at, key: str) -> str:
    """One link parameter of the app's URL."""
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value
