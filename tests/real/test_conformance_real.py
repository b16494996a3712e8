"""``trimscope conformance`` against a real llama.cpp server (512-token context), as each
client kind that can speak to it; every verdict is the one the server's behaviour deserves."""

from __future__ import annotations

import pytest

from harness.conformance import ConformanceOptions, ConformanceReport, plan, run_conformance
from tests.real.server import ALIAS, RealServer

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

PROMPT_LIMIT = 511
"""llama.cpp refuses a prompt of ``n_ctx`` tokens or more: 511 is the largest that fits."""
BASE_PATH = {"llamacpp": "/v1", "openai": "/v1", "openai-responses": "/v1", "anthropic": ""}


async def _conform(server: RealServer, kind: str, claim: int | None) -> ConformanceReport:
    options = ConformanceOptions(kind, server.url + BASE_PATH[kind], ALIAS, None, claim)
    return await run_conformance(plan(options, {}))


async def test_llamacpp_kind_conforms_and_the_window_settles_in_the_default_budget(
    llama_512: RealServer,
) -> None:
    report = await _conform(llama_512, "llamacpp", llama_512.context)
    assert report.window.stopped == "bracketed", report.window
    assert report.window.measured is not None
    assert abs(report.window.measured - PROMPT_LIMIT) <= 0.02 * PROMPT_LIMIT
    assert report.conforms, report.reasons
