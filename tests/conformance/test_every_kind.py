"""Every client kind of ``harness.providers.plumbing.factory.PROVIDER_KINDS`` against its fake over
real loopback HTTP, with the fake's default overflow answer and a correct window claim.

The default fakes conform, except the two Ollama kinds: classic Ollama truncates an
over-window prompt silently (HTTP 200), so there is no overflow to recognise or recover from.
"""

from __future__ import annotations

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import LENIENT_PAIRING_KINDS, STREAMING_KINDS, WINDOW_TOLERANCE
from harness.providers import PROVIDER_KINDS
from tests.conformance.support import ALL_PASS, conform

pytestmark = pytest.mark.anyio

WINDOWS = (1000, 2000, 3000, 4000)
SILENT_TRUNCATION_KINDS = frozenset({"ollama", "ollama-openai"})
UNCHECKED_PAIRING_KINDS = LENIENT_PAIRING_KINDS | {"cohere"}
"""Fakes that accept orphaned pairs; their only errors are overflows, so no look-alike
candidate is ever seen."""


def _expected(kind: str) -> dict[str, str]:
    expected = dict(ALL_PASS)
    if kind in UNCHECKED_PAIRING_KINDS:
        expected["look_alike"] = "n/a"
    if kind in SILENT_TRUNCATION_KINDS:
        expected |= {
            "overflow_recognised": "fail",
            "overflow_shape": "n/a",
            "silent_truncation": "fail",
            "recovery": "fail",
        }
    return expected


@pytest.mark.parametrize(
    ("kind", "window"), [(k, WINDOWS[i % 4]) for i, k in enumerate(PROVIDER_KINDS)]
)
async def test_default_fake_of_every_kind(
    kind: str, window: int, fake_server: FakeServerFactory
) -> None:
    result = await conform(fake_server, kind, window)
    report = result.report
    assert report.verdicts() == _expected(kind), report.reasons
    assert report.exit_code == (1 if kind in SILENT_TRUNCATION_KINDS else 0)
    assert report.window.measured is not None
    assert abs(report.window.measured - window) <= WINDOW_TOLERANCE * window
    assert report.spent.requests == len(result.fake.log.calls())


@pytest.mark.parametrize("kind", sorted(STREAMING_KINDS))
async def test_streaming_kinds_also_send_a_streamed_overflow(
    kind: str, fake_server: FakeServerFactory
) -> None:
    variant = "in_stream" if kind == "anthropic" else "default"
    result = await conform(fake_server, kind, 2000, variant=variant)
    shapes = [(a.shape, a.streamed, a.extended) for a in result.report.overflow]
    assert shapes == [("http_error", False, True), ("in_stream_error", True, True)]
    assert result.report.conforms
