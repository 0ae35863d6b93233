"""Shared test configuration."""

import os

from hypothesis import settings

# Under CI, property tests draw the same examples every run, so a submission's result
# does not depend on luck; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
