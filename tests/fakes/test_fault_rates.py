"""Faults at a rate (``fakes.scripting.fault_rates``): a seeded mix placed by call number, the same
for the same seed, each kind near its share, a scripted fault kept, served on every mount."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import RATE_KINDS, FakeProvider, FakeScript, FaultRates, fail
from tests.fakes.conftest import Connect

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
MIX = FaultRates(
    server_error=0.1,
    rate_limit=0.2,
    drop_mid_stream=0.1,
    malformed_json=0.1,
    seed=7,
    status=503,
    retry_after=4,
)


def test_the_same_seed_places_the_same_faults_and_another_seed_others() -> None:
    first = [MIX.kind_for(i) for i in range(500)]
    assert first == [MIX.kind_for(i) for i in range(500)]
    reseeded = FaultRates(server_error=0.1, rate_limit=0.2, seed=8)
    assert [reseeded.kind_for(i) for i in range(500)] != [
        FaultRates(server_error=0.1, rate_limit=0.2, seed=7).kind_for(i) for i in range(500)
    ]


def test_each_kind_takes_about_its_share_of_many_calls() -> None:
    calls = 20_000
    shares = Counter(MIX.kind_for(i) for i in range(calls))
    for kind in RATE_KINDS:
        assert abs(shares[kind] / calls - getattr(MIX, kind)) < 0.01, kind
    assert abs(shares[None] / calls - 0.5) < 0.01


@given(
    st.lists(st.floats(0, 1), min_size=5, max_size=5).filter(lambda r: sum(r) <= 1),
    st.integers(0, 2**63 - 1),
    st.integers(0, 10_000),
)
def test_a_call_only_draws_a_kind_with_a_share(rates: list[float], seed: int, index: int) -> None:
    shares: dict[str, Any] = dict(zip(RATE_KINDS, rates, strict=True))
    mix = FaultRates(**shares, seed=seed)
    kind = mix.kind_for(index)
    assert kind is None or getattr(mix, kind) > 0
    only: dict[str, Any] = {RATE_KINDS[index % 5]: 1.0}
    whole = FaultRates(**only, seed=seed)
    assert whole.kind_for(index) == RATE_KINDS[index % 5]  # rate 1: every call


@pytest.mark.parametrize(
    ("rates", "word"),
    [
        ({"server_error": 0.7, "rate_limit": 0.4}, "sum to at most 1"),
        ({"hang": -0.1}, "hang"),
        ({"hang": float("nan")}, "hang"),
        ({"status": 404}, "5xx"),
    ],
)
def test_rates_out_of_bounds_are_refused(rates: dict[str, float], word: str) -> None:
    with pytest.raises(ValueError, match=word):
        FaultRates(**rates)  # type: ignore[arg-type]


def _statuses(responses: list[httpx.Response]) -> list[str]:
    return [str(r.status_code) for r in responses]


@pytest.mark.anyio
async def test_the_served_faults_are_the_drawn_ones_and_a_scripted_step_keeps_its_own(
    connect: Connect,
) -> None:
    script = FakeScript(steps=(fail("server_error", status=502),), faults=MIX)
    fake = FakeProvider("openai", "m", context_window=1000, script=script)
    client, _ = await connect(fake)
    for index in range(40):
        kind = MIX.kind_for(index) if index else "scripted"
        try:
            response = await client.post("/v1/chat/completions", json=CHAT)
        except httpx.RemoteProtocolError:
            assert kind == "drop_mid_stream", index
            continue
        if kind == "scripted":
            assert response.status_code == 502
        elif kind == "server_error":
            assert response.status_code == 503
        elif kind == "rate_limit":
            assert response.status_code == 429
            assert response.headers["retry-after"] == "4"
        elif kind == "malformed_json":
            assert response.status_code == 200
            with pytest.raises(json.JSONDecodeError):
                json.loads(response.content)
        else:
            assert kind is None, index
            assert response.json()["object"] == "chat.completion"
    faults = [e.fault for e in fake.log.entries()]
    assert faults.count("rate_limit") == sum(MIX.kind_for(i) == "rate_limit" for i in range(1, 40))


@pytest.mark.anyio
async def test_a_drawn_hang_holds_the_call(connect: Connect) -> None:
    mix = FaultRates(hang=1.0, hang_seconds=0.3)
    fake = FakeProvider("openai", "m", context_window=1000, script=FakeScript(faults=mix))
    client, _ = await connect(fake)
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    assert [e.fault for e in fake.log.entries()] == ["hang"]
