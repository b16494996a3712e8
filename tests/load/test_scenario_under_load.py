"""``load --scenario``: the scenario's ``request`` block and each step's ``latency_ms`` are
applied as ``run`` applies them (issue 28: streams were never load-tested, every call
overflowed on "16 + 4096 > 700", and a step's latency gave a 4 ms round trip); what a load
run cannot apply is refused before anything runs, each named ``file:line: key.path``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

import fakes
from harness.cli import app
from harness.events import EventBus
from harness.load import SessionTemplate, build_load_fake
from harness.load.scenario_template import template_from_scenario
from harness.load.session import Samples, SessionFactory
from harness.load.tally import LoadTally
from harness.scenarios.loader import load_scenario

STREAMED = """\
id: streamed-under-load
title: A streamed Anthropic conversation with a small output budget and a slow first answer
rules: ["13"]
request: {stream: true, max_output_tokens: 16}
providers:
  anthropic.main:
    kind: anthropic
    model: claude-test
    context_window: 700
    fake:
      script:
        - {text: "first", latency_ms: 300}
      default: {text: "ok"}
conversation:
  - user: "one"
  - user: "two"
expect: {}
"""


def _template(tmp_path: Path, text: str) -> SessionTemplate:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    template, _ = template_from_scenario(load_scenario(path).scenario, max_texts=10)
    return template


async def _session(template: SessionTemplate, fake: fakes.FakeProvider) -> LoadTally:
    """One session of ``template`` on the fake's real app (in process), its tally."""
    (provider,) = template.providers
    tally, bus = LoadTally(), EventBus()
    bus.subscribe(tally)
    async with httpx.AsyncClient(transport=fakes.asgi_transport(fake)) as http:
        factory = SessionFactory(
            template, {provider.ref: "http://fake"}, http, bus, Samples(), session_prefix="s-"
        )
        await factory.run(0, len(template.user_texts), time.monotonic() + 60)
    return tally


def test_the_request_block_is_sent_streamed_with_its_output_budget(tmp_path: Path) -> None:
    template = _template(tmp_path, STREAMED)
    fake = build_load_fake(template.providers[0], counting=False)
    tally = asyncio.run(_session(template, fake))
    assert dict(tally.calls) == {"ok": 2}  # no overflow on 16 + 4096 > 700
    calls = fake.log.calls()
    assert [c.request_body["stream"] for c in calls] == [True, True]  # type: ignore[index,call-overload]
    assert [c.request_body["max_tokens"] for c in calls] == [16, 16]  # type: ignore[index,call-overload]
    assert all(c.stream_events for c in calls)  # answered as a stream


def test_a_step_latency_delays_that_step_only(tmp_path: Path) -> None:
    template = _template(tmp_path, STREAMED)
    fake = build_load_fake(template.providers[0], counting=False)
    samples = Samples()

    async def run() -> None:
        (provider,) = template.providers
        async with httpx.AsyncClient(transport=fakes.asgi_transport(fake)) as http:
            factory = SessionFactory(
                template, {provider.ref: "http://fake"}, http, EventBus(), samples
            )
            await factory.run(0, 2, time.monotonic() + 60)

    asyncio.run(run())
    assert len(samples.round_trip) == 2
    # the first step's 300 ms (a sleep is never shorter than asked); the second has none
    assert samples.round_trip.greatest >= 0.29 > samples.round_trip.least


REFUSED = """\
id: refused-under-load
title: What a load run cannot apply
rules: ["13"]
hooks:
  - prepend_system: "be brief"
providers:
  openai.main:
    kind: openai
    model: gpt-test
    fake:
      script:
        - {text: "a", when: {contains: "Summarize"}}
      seconds_per_call: 2
conversation:
  - user: "one"
expect: {}
"""


def test_what_load_cannot_apply_is_refused_naming_each(tmp_path: Path) -> None:
    path = tmp_path / "refused.yaml"
    path.write_text(REFUSED, encoding="utf-8")
    result = CliRunner().invoke(app, ["load", "--scenario", str(path), "--quiet"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith(("error", str(path)))]
    assert lines == [
        f"error: {path}:4: hooks: expected no hooks under load, found 1",
        f"{path}:12: providers.openai.main.fake.script[0].when: expected no condition under"
        " load (each session's calls are answered by count), found one",
        f"{path}:13: providers.openai.main.fake.seconds_per_call: expected 0 under load"
        " (the wall clock), found 2",
    ]
