"""``trimscope conformance`` against a real llama.cpp server (512-token context), as each
client kind that can speak to it; every verdict is the one the server's behaviour deserves.

What the server does (``fakes.catalogue.captured.LLAMACPP_BUILD``): it refuses a prompt of
512 tokens or more with ``400 exceed_context_size_error`` on every route, streamed or not;
it accepts orphaned tool results and unanswered tool calls (it renders the chat template
without checking pairing); it accepts both tool-call row shapes; it reports usage.
So: as ``llamacpp`` (whose lenience is documented) it conforms; as ``openai``,
``anthropic`` and ``openai-responses`` it fails exactly one check, tool pairing, because
those APIs enforce it and this endpoint does not.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fakes.catalogue.captured import LLAMACPP_LOADING
from fakes.scripting.templates import render
from harness.conformance import ConformanceOptions, ConformanceReport, plan, run_conformance
from tests.conformance.support import Sleeps
from tests.real.server import ALIAS, RealServer, require_installed, running, wait_listening
from tests.real.test_captured_bodies import compact

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

PROMPT_LIMIT = 511
"""llama.cpp refuses a prompt of ``n_ctx`` tokens or more: 511 is the largest that fits."""
BASE_PATH = {"llamacpp": "/v1", "openai": "/v1", "openai-responses": "/v1", "anthropic": ""}
ACCEPTABLE = {"pass", "n/a"}


async def conform_real(
    server: RealServer | str, kind: str, claim: int | None, sleeps: Sleeps | None = None
) -> ConformanceReport:
    """Conformance as ``kind`` against a server (or a server's root URL)."""
    root = server if isinstance(server, str) else server.url
    options = ConformanceOptions(kind, root + BASE_PATH[kind], ALIAS, None, claim)
    if sleeps is None:
        return await run_conformance(plan(options, {}))
    return await run_conformance(plan(options, {}), sleep=sleeps)


def _settled_at_the_real_limit(report: ConformanceReport) -> None:
    assert report.window.stopped == "bracketed", report.window
    assert report.window.measured is not None
    assert abs(report.window.measured - PROMPT_LIMIT) <= 0.02 * PROMPT_LIMIT


async def test_llamacpp_kind_conforms_and_the_window_settles_in_the_default_budget(
    llama_512: RealServer,
) -> None:
    report = await conform_real(llama_512, "llamacpp", llama_512.context)
    _settled_at_the_real_limit(report)
    assert report.conforms, report.reasons
    assert report.verdicts()["tool_pairing"] == "pass"
    assert "documented for llamacpp" in report.check("tool_pairing").finding
    assert [o.outcome for o in report.pairing] == ["accepted", "accepted"]
    assert [o.outcome for o in report.row_shapes] == ["accepted", "accepted"]
    answer = report.overflow[0]
    assert (answer.shape, answer.status, answer.extended) == ("http_error", 400, True)
    assert '"type":"exceed_context_size_error"' in answer.excerpt
    assert report.recovery.works


@pytest.mark.parametrize("kind", ["openai", "anthropic", "openai-responses"])
async def test_as_a_pairing_enforcing_kind_only_tool_pairing_fails(
    kind: str, llama_512: RealServer
) -> None:
    report = await conform_real(llama_512, kind, llama_512.context)
    _settled_at_the_real_limit(report)
    failing = {n for n, v in report.verdicts().items() if v not in ACCEPTABLE}
    assert failing == {"tool_pairing"}, report.reasons
    assert report.check("tool_pairing").finding.startswith("not enforced")
    assert report.check("row_shapes").verdict == "pass"
    # Streamed wires send one streamed request past the window: a 400 before the stream.
    streamed = [a for a in report.overflow if a.streamed]
    assert [(a.shape, a.status) for a in streamed] == (
        [("http_error", 400)] if kind != "openai" else []
    )
    assert report.estimate_ratio is not None
    assert report.estimate_ratio.samples >= 5


async def test_a_wrong_claim_fails_for_the_window_reason_only(llama_512: RealServer) -> None:
    report = await conform_real(llama_512, "llamacpp", 2048)
    assert {n for n, v in report.verdicts().items() if v not in ACCEPTABLE} == {"window"}
    assert report.check("window").finding.startswith("declared 2048 but the endpoint holds ≈ 5")
    _settled_at_the_real_limit(report)


class RealSleeps(Sleeps):
    """Records each wait and really waits: the model loads meanwhile."""

    async def __call__(self, seconds: float) -> None:
        await super().__call__(seconds)
        await asyncio.sleep(seconds)


async def test_a_server_still_loading_its_model_is_waited_for(tmp_path: Path) -> None:
    found = require_installed()
    with running(found, 512, tmp_path, healthy=False) as server:
        if wait_listening(server) != 503:
            pytest.skip("the model loaded before the first answer: no 503 to wait out")
        sleeps = RealSleeps()
        report = await conform_real(server, "llamacpp", 512, sleeps)
    assert sleeps.waits, "the small request met at least one 503"
    first = report.exchanges[0]
    assert (first.purpose, first.status) == ("small", 503)
    assert first.excerpt == compact(render(LLAMACPP_LOADING, {}))  # the captured body
    assert report.conforms, report.reasons
