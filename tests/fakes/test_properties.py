"""Invariants of the decision core, over many sizes, windows, providers and counters."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from fakes import PROFILES, FakeProvider, overflow_entry
from fakes.catalogue.rejections import RESPONSES_MIN_OUTPUT_TOKENS
from fakes.engine_rules import exceeds
from fakes.rows import CanonicalRequest, Row
from fakes.scripting.script import FakeBehaviour
from fakes.wire.base import RequestContext
from tests.fakes.wire_requests import user_request

CASES = [(p.name, wire) for p in PROFILES for wire in p.wires]


@given(
    case=st.sampled_from(CASES),
    counter=st.sampled_from(["heuristic", "provider"]),
    text=st.text(st.sampled_from('ab {}"é上 \n,.:0123'), max_size=400),
    window=st.integers(5, 300),
    max_tokens=st.none() | st.integers(1, 200),
)
def test_overflow_answer_iff_the_request_is_over_the_window(
    case: tuple[str, str], counter: str, text: str, window: int, max_tokens: int | None
) -> None:
    provider, wire_name = case
    if wire_name == "openai_responses" and max_tokens is not None:  # the API's minimum
        max_tokens = max(max_tokens, RESPONSES_MIN_OUTPUT_TOKENS)
    fake = FakeProvider(provider, "m", context_window=window, counter=counter)
    wire = fake.wire(wire_name)  # type: ignore[arg-type]
    body = user_request(wire_name, "m", text, max_tokens=max_tokens)  # type: ignore[arg-type]
    answer = fake.answer(wire, json.dumps(body).encode(), RequestContext("m"), 0, FakeBehaviour())
    request = CanonicalRequest(
        "m",
        (Row("user", text),),
        max_output_tokens=max_tokens or (16 if wire_name == "anthropic" else None),
    )
    total = fake.count(request).total
    completion = request.max_output_tokens or 0
    entry = overflow_entry(provider, wire_name)  # type: ignore[arg-type]
    over = exceeds(entry, total, completion, window) or (
        fake.profile.output_variant is not None and total + completion > window
    )
    assert answer.tokens is not None
    assert answer.tokens.total == total
    assert (answer.outcome != "reply") == over
    if over and entry.delivery == "error":
        assert answer.status == entry.status


@given(st.integers(0, 2_000), st.integers(1, 2_000))
def test_truncated_usage_never_exceeds_the_window(size: int, window: int) -> None:
    fake = FakeProvider("ollama", "m", context_window=window)
    body = {"model": "m", "stream": False, "messages": [{"role": "user", "content": "a" * size}]}
    answer = fake.answer(
        fake.wire("ollama"), json.dumps(body).encode(), RequestContext(), 0, FakeBehaviour()
    )
    assert answer.status == 200
    assert isinstance(answer.body, dict)
    assert answer.body["prompt_eval_count"] == min(-(-size // 4) + 4, window)
