"""Hypothesis profiles (a fast default for developers, a thorough one for CI) and the
``fake_serve`` fixture shared by the tests that start ``trimscope fake serve`` processes.

Select with HYPOTHESIS_PROFILE=ci (``.ci/run`` does).
"""

import os
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.fake_serve import stop_all

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def fake_serve() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes started with ``tests.fake_serve.serve_fake``; stopped after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    stop_all(started)
