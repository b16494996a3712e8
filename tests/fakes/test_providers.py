"""The done-when check for every provider and wire format, over real connections: a small
request gets a normal answer with accurate usage, an over-window one the provider's answer."""

from __future__ import annotations

import httpx
import pytest

from fakes import PROFILES, overflow_entry
from fakes.catalogue import WireName
from tests.fakes.conftest import MODEL, WINDOW, Pool
from tests.fakes.wire_requests import (
    path_for,
    reply_text,
    reported_input_tokens,
    text_for_tokens,
    user_request,
)

CASES = [(p.name, wire) for p in PROFILES for wire in p.wires]


@pytest.mark.parametrize(("provider", "wire"), CASES, ids=[f"{p}-{w}" for p, w in CASES])
def test_small_request_normal_answer_large_request_overflow(
    provider: str, wire: WireName, pool: Pool
) -> None:
    fake, base = pool(provider)
    url = base + path_for(fake.profile, wire, MODEL)
    small = httpx.post(url, json=user_request(wire, MODEL, text_for_tokens(100)), timeout=10.0)
    assert small.status_code == 200
    assert reported_input_tokens(wire, small.json()) == 100
    assert reply_text(wire, small.json()) == "This is a fake reply."
    entry = overflow_entry(provider, wire)
    large = httpx.post(
        url, json=user_request(wire, MODEL, text_for_tokens(1200), max_tokens=16), timeout=10.0
    )
    assert large.status_code == entry.status
    if entry.delivery == "error" and entry.status == 200:  # an error body with a 200
        assert "error" in large.json()
    elif entry.delivery in ("truncate", "silent"):
        expected = WINDOW if entry.delivery == "truncate" else 1200
        assert reported_input_tokens(wire, large.json()) == expected
    assert fake.log.calls()[0].outcome == "reply"
