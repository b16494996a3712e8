"""``--probe-cache``: the same request twice, last; whether the endpoint caches, and which
usage fields it fills. Informational: it never decides conformance."""

from __future__ import annotations

import pytest

from fakes.pytest_plugin import FakeServerFactory
from tests.conformance.support import conform

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("kind", "window", "verdict"),
    [
        # probe = half the measured window: 2000 tokens from 4000, 1000 tokens from 2000
        ("openai", 4000, "pass"),  # >= 1024 tokens: cached, read in 128-token steps
        ("openai", 2000, "n/a"),  # under OpenAI's 1024-token minimum
        ("llamacpp", 2000, "pass"),  # the slot reuses any prefix
        ("anthropic", 4000, "n/a"),  # only blocks marked cache_control are cached
    ],
)
async def test_the_repeat_says_whether_the_endpoint_caches(
    kind: str, window: int, verdict: str, fake_server: FakeServerFactory
) -> None:
    report = (await conform(fake_server, kind, window, probe_cache=True)).report
    check = report.check("prompt_cache")
    assert check.verdict == verdict, check.finding
    assert report.conforms  # information only
    assert "usage fields filled: input_tokens, output_tokens" in check.finding
    if kind == "anthropic":
        assert "cache_control" in check.finding


async def test_without_the_option_nothing_is_sent_or_reported(
    fake_server: FakeServerFactory,
) -> None:
    report = (await conform(fake_server, "openai", 4000)).report
    assert "prompt_cache" not in report.verdicts()
    assert not [e for e in report.exchanges if e.purpose.startswith("prompt_cache")]
