"""Serve the fake a client kind talks to, run a conformance check against it, and read
the verdicts back."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import httpx

from fakes import FakeProvider, FakeScript, ProviderSide
from fakes.pytest_plugin import FakeServerFactory, RunningFake
from harness.conformance import ConformanceOptions, ConformanceReport, plan, run_conformance
from harness.events import Observer
from harness.scenarios.environment import FAKE_FOR_KIND

MODEL = "conformance-model"
KEY_ENV = "TRIMSCOPE_TEST_CONFORMANCE_KEY"
ALL_PASS = {
    "small_request": "pass",
    "tool_pairing": "pass",
    "row_shapes": "pass",
    "window": "pass",
    "overflow_recognised": "pass",
    "overflow_shape": "pass",
    "silent_truncation": "pass",
    "look_alike": "pass",
    "recovery": "pass",
    "provider_side": "n/a",  # no provider-side option claimed
}


@dataclass
class Sleeps:
    """An injected ``sleep`` that records the waits instead of waiting."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@dataclass(frozen=True)
class Conformed:
    report: ConformanceReport
    running: RunningFake
    base_url: str
    sleeps: Sleeps

    @property
    def fake(self) -> FakeProvider:
        return self.running.fake


def serve(
    servers: FakeServerFactory,
    kind: str,
    window: int,
    *,
    variant: str = "default",
    script: FakeScript | None = None,
    counter: str = "heuristic",
    side: ProviderSide | None = None,
) -> tuple[RunningFake, str]:
    """The fake for ``kind`` on 127.0.0.1 and the base URL the kind's client expects."""
    profile, path = FAKE_FOR_KIND[kind]
    fake = FakeProvider(
        profile, MODEL, context_window=window, counter=counter, script=script, variant=variant
    )
    if side is not None:
        fake.provider_side = side
    running = servers.serve(fake)
    return running, running.base_url + path


def options(
    kind: str,
    base_url: str,
    *,
    declared: int | None,
    api_key_env: str | None = None,
    max_requests: int | None = None,
    max_input_tokens: int | None = None,
    provider_side: tuple[str, ...] = (),
) -> ConformanceOptions:
    return ConformanceOptions(
        kind,
        base_url,
        MODEL,
        api_key_env,
        declared,
        max_requests,
        max_input_tokens,
        provider_side=provider_side,
    )


async def conform(
    servers: FakeServerFactory,
    kind: str,
    window: int,
    *,
    declared: int | Literal["real"] | None = "real",
    variant: str = "default",
    script: FakeScript | None = None,
    counter: str = "heuristic",
    max_requests: int | None = None,
    max_input_tokens: int | None = None,
    environ: Mapping[str, str] | None = None,
    observers: Sequence[Observer] = (),
    probe_cache: bool = False,
    provider_side: tuple[str, ...] = (),
    side: ProviderSide | None = None,
) -> Conformed:
    """Serve, then run; by default the claim is the fake's real window."""
    running, base_url = serve(
        servers, kind, window, variant=variant, script=script, counter=counter, side=side
    )
    claim = window if declared == "real" else declared
    chosen = options(
        kind,
        base_url,
        declared=claim,
        api_key_env=KEY_ENV if environ else None,
        max_requests=max_requests,
        max_input_tokens=max_input_tokens,
        provider_side=provider_side,
    )
    sleeps = Sleeps()
    chosen = dataclasses.replace(chosen, probe_cache=probe_cache)
    report = await run_conformance(plan(chosen, environ or {}), sleep=sleeps, observers=observers)
    return Conformed(report, running, base_url, sleeps)


def failing(report: ConformanceReport) -> set[str]:
    return {name for name, verdict in report.verdicts().items() if verdict == "fail"}


def key_echoing_endpoint(
    show: Callable[[str], str],
) -> Callable[[httpx.Request], httpx.Response]:
    """An OpenAI-shaped endpoint (for ``httpx.MockTransport``) that quotes the API key back
    in every error, as ``show`` spells it (whole, as some gateways do; partly masked, as
    OpenAI's 401 does): a refused tool pairing, an overflow past 4,000 characters."""

    def answer(request: httpx.Request) -> httpx.Response:
        shown = show(request.headers["authorization"].removeprefix("Bearer "))
        body = json.loads(request.content)
        text = " ".join(str(m.get("content")) for m in body["messages"])
        if any(m["role"] == "tool" or m.get("tool_calls") for m in body["messages"]):
            return httpx.Response(400, json={"error": {"message": f"bad pairing, key {shown}"}})
        if len(text) > 4000:
            message = f"This model's maximum context length is 1000 tokens (key {shown})"
            return httpx.Response(400, json={"error": {"message": message}})
        usage = {"prompt_tokens": len(text) // 4 + 10, "completion_tokens": 1}
        choice = {"message": {"role": "assistant", "content": "OK"}, "finish_reason": "stop"}
        return httpx.Response(200, json={"choices": [choice], "usage": usage})

    return answer
