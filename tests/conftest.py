"""Hypothesis profiles (a fast default for developers, a thorough one for CI), the
``fake_serve`` fixture shared by the tests that start ``trimscope fake serve`` processes,
and a check at the end of the session: every transcript the tests' code wrote under
pytest's temporary folders (``run``, ``load`` and the writers' own tests) matches
``harness/telemetry/transcript.schema.json`` (see ``tests/transcript_schema_check.py``).

Select with HYPOTHESIS_PROFILE=ci (``.ci/run`` does).
"""

import os
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.fake_serve import stop_all
from tests.transcript_schema_check import schema_errors, transcripts_under

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


@pytest.fixture(scope="session", autouse=True)
def every_written_transcript_matches_the_schema(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """After the last test: each transcript written under the session's temporary folders
    validates against the published schema, every line (a failure names file and line)."""
    yield
    root = tmp_path_factory.getbasetemp()
    errors = [error for path in transcripts_under(root) for error in schema_errors(path)]
    assert not errors, "transcripts outside their schema:\n" + "\n".join(errors[:20])
