"""The llama.cpp fake measured against the real server: the same conformance probes, run
against ``trimscope fake serve --provider llamacpp`` and against the real server at the same
window, give the same report on every verdict.

Where the fake cannot match: it has no tokenizer (its ``provider`` counter imitates one),
so its counts differ from the real ones and the window is compared within a tolerance, not
exactly; it admits a prompt of exactly the window (the real server keeps one position free
to generate: 511 of 512); its replies are scripted text whose output is never cut at the
window. None of these changes a verdict.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from harness.conformance import ConformanceReport, OverflowAnswer
from tests.fake_serve import serve_fake
from tests.real.server import ALIAS, RealServer
from tests.real.test_conformance_real import conform_real

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

KIND = "llamacpp"
WINDOW_AGREEMENT = 0.02
"""The two measured windows agree within 2 %: each is within 1 % of its own limit."""


def _numbers_blanked(text: str) -> str:
    return re.sub(r"\d+", "N", text)


def _shape(answer: OverflowAnswer) -> tuple[object, ...]:
    body = json.loads(answer.excerpt)
    return (
        answer.shape,
        answer.status,
        answer.error_class,
        answer.reference,
        answer.extended,
        sorted(body["error"]),
        _numbers_blanked(body["error"]["message"]),
        body["error"]["type"],
    )


def _usage_fields(report: ConformanceReport) -> list[tuple[str, bool, bool]]:
    return [
        (e.purpose, e.reported_input_tokens is not None, e.output_tokens is not None)
        for e in report.exchanges
        if e.ok
    ]


async def test_fake_and_real_llamacpp_agree_on_every_verdict(
    llama_512: RealServer, fake_serve: list[subprocess.Popen[str]]
) -> None:
    window = llama_512.context
    base = serve_fake(
        fake_serve, "--provider", "llamacpp", "--model", ALIAS,
        "--context-window", str(window), "--counter", "provider",
    )  # fmt: skip
    real = await conform_real(llama_512, KIND, window)
    fake = await conform_real(base, KIND, window)

    assert fake.verdicts() == real.verdicts()
    assert (fake.window.stopped, real.window.stopped) == ("bracketed", "bracketed")
    assert fake.window.measured is not None
    assert real.window.measured is not None
    assert abs(fake.window.measured - real.window.measured) <= WINDOW_AGREEMENT * window
    assert [_shape(a) for a in fake.overflow] == [_shape(a) for a in real.overflow]
    assert [(o.probe, o.outcome, o.status) for o in fake.pairing] == [
        (o.probe, o.outcome, o.status) for o in real.pairing
    ]
    assert [(o.probe, o.outcome) for o in fake.row_shapes] == [
        (o.probe, o.outcome) for o in real.row_shapes
    ]
    assert fake.window.stopped == real.window.stopped
    assert [e.purpose for e in fake.exchanges if e.ok][:5] == [
        e.purpose for e in real.exchanges if e.ok
    ][:5]
    assert all(i and o for _, i, o in _usage_fields(fake) + _usage_fields(real))
    assert (fake.recovery.works, fake.recovery.recoveries) == (
        real.recovery.works,
        real.recovery.recoveries,
    )
