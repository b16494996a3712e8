"""Prompt caching in the fakes: each provider's rules, hand-worked from its published ones.

Every row here is plain ASCII, so a row of ``text_for_tokens(n)`` costs ``n`` tokens
(heuristic counter) and a prompt's prefixes are easy sums. See ``docs/caching.md``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import FakeProvider, FakeScript, UsageReport
from fakes.catalogue import WireName
from fakes.scripting.script import FakeBehaviour
from fakes.simulations.caching import PrefixStore
from fakes.wire.base import RequestContext
from tests.fakes.wire_requests import text_for_tokens as tokens


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def send(
    fake: FakeProvider,
    wire: WireName,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
    path_model: str | None = None,
) -> tuple[int, Any]:
    index, behaviour = fake.take_call()
    ctx = RequestContext(path_model, headers or {}, True)
    answer = fake.answer(fake.wire(wire), json.dumps(body).encode(), ctx, index, behaviour)
    return answer.status, answer.body


def chat(*rows: tuple[str, int], **extra: Any) -> dict[str, Any]:
    messages = [{"role": role, "content": tokens(n)} for role, n in rows]
    return {"model": "m", "messages": messages, **extra}


def cached(body: Any) -> int:
    value: int = body["usage"]["prompt_tokens_details"]["cached_tokens"]
    return value


def openai(clock: Clock | None = None) -> FakeProvider:
    return FakeProvider("openai", "m", context_window=100_000, clock=clock or Clock())


# -- OpenAI: automatic, >= 1024 tokens, hits in steps of 128, about 10 minutes ------------


def test_openai_prompts_under_1024_tokens_are_never_cached() -> None:
    fake = openai()
    for _ in range(2):
        _, body = send(fake, "openai_chat", chat(("system", 900), ("user", 100)))
    assert body["usage"]["prompt_tokens"] == 1000
    assert cached(body) == 0


def test_openai_hit_is_the_live_prefix_rounded_down_to_128_steps_past_1024() -> None:
    fake = openai()
    _, first = send(fake, "openai_chat", chat(("system", 1200), ("user", 100)))
    _, second = send(
        fake, "openai_chat", chat(("system", 1200), ("user", 100), ("assistant", 30), ("user", 40))
    )
    assert cached(first) == 0
    # live prefix: system + first user = 1300 tokens -> 1024 + 2 x 128
    assert cached(second) == 1280
    assert second["usage"]["prompt_tokens"] == 1370


def test_openai_trim_keeps_only_the_system_prefix_cached() -> None:
    fake = openai()
    send(fake, "openai_chat", chat(("system", 1200), ("user", 100), ("assistant", 30)))
    _, trimmed = send(fake, "openai_chat", chat(("system", 1200), ("user", 40)))
    assert cached(trimmed) == 1152  # system 1200 -> 1024 + 1 x 128


def test_openai_cache_expires_after_ten_idle_minutes() -> None:
    clock = Clock()
    fake = openai(clock)
    request = chat(("system", 1200), ("user", 100))
    send(fake, "openai_chat", request)
    clock.now += 599
    assert cached(send(fake, "openai_chat", request)[1]) == 1280
    clock.now += 600  # the hit above refreshed it: 600 s idle from there
    assert cached(send(fake, "openai_chat", request)[1]) == 0


def test_openai_prompt_cache_key_separates_caches() -> None:
    fake = openai()
    send(fake, "openai_chat", chat(("system", 1200), prompt_cache_key="a"))
    _, other = send(fake, "openai_chat", chat(("system", 1200), prompt_cache_key="b"))
    _, same = send(fake, "openai_chat", chat(("system", 1200), prompt_cache_key="a"))
    assert (cached(other), cached(same)) == (0, 1152)


def test_openai_responses_reports_input_tokens_details_cached_tokens() -> None:
    fake = openai()
    body = {"model": "m", "instructions": tokens(1300), "input": "hi"}
    send(fake, "openai_responses", body)
    _, reply = send(fake, "openai_responses", body)
    assert reply["usage"]["input_tokens_details"]["cached_tokens"] == 1280


def test_a_script_that_states_cache_numbers_overrides_the_cache() -> None:
    script = FakeScript(default=FakeBehaviour(usage=UsageReport(cached_tokens=7)))
    fake = FakeProvider("openai", "m", context_window=100_000, script=script, clock=Clock())
    for _ in range(2):
        _, body = send(fake, "openai_chat", chat(("system", 1300)))
    assert cached(body) == 7


def test_caching_none_turns_the_cache_off() -> None:
    fake = FakeProvider("openai", "m", context_window=100_000, caching="none", clock=Clock())
    for _ in range(2):
        _, body = send(fake, "openai_chat", chat(("system", 1300)))
    assert cached(body) == 0


def test_reset_forgets_the_cache() -> None:
    fake = openai()
    send(fake, "openai_chat", chat(("system", 1300)))
    fake.reset()
    assert cached(send(fake, "openai_chat", chat(("system", 1300)))[1]) == 0


# -- Anthropic: explicit breakpoints, at most 4, minimum per model, 5m / 1h ---------------


def marked(n: int, ttl: str | None = None) -> dict[str, Any]:
    control: dict[str, Any] = {"type": "ephemeral"}
    if ttl:
        control["ttl"] = ttl
    return {"type": "text", "text": tokens(n), "cache_control": control}


def messages(system: list[dict[str, Any]], *turns: Any, model: str = "claude-sonnet-4-5") -> Any:
    out = []
    for role, content in turns:
        out.append({"role": role, "content": content})
    return {"model": model, "max_tokens": 16, "system": system, "messages": out}


def usage(body: Any) -> tuple[int, int, int]:
    u = body["usage"]
    return u["input_tokens"], u["cache_creation_input_tokens"], u["cache_read_input_tokens"]


def anthropic(clock: Clock | None = None, model: str = "claude-sonnet-4-5") -> FakeProvider:
    return FakeProvider("anthropic", model, context_window=200_000, clock=clock or Clock())


def test_anthropic_caches_nothing_without_cache_control() -> None:
    fake = anthropic()
    request = messages([{"type": "text", "text": tokens(2000)}], ("user", tokens(50)))
    for _ in range(2):
        _, body = send(fake, "anthropic", request)
    assert usage(body) == (2050, 0, 0)


def test_anthropic_system_breakpoint_writes_then_reads_and_input_excludes_both() -> None:
    fake = anthropic()
    request = messages([marked(2000)], ("user", tokens(50)))
    _, first = send(fake, "anthropic", request)
    _, second = send(fake, "anthropic", request)
    assert usage(first) == (50, 2000, 0)
    assert usage(second) == (50, 0, 2000)


def test_anthropic_moving_breakpoint_reads_the_old_one_and_writes_the_growth() -> None:
    fake = anthropic()
    send(fake, "anthropic", messages([marked(1100)], ("user", [marked(100)])))
    _, body = send(
        fake,
        "anthropic",
        messages(
            [marked(1100)],
            ("user", tokens(100)),
            ("assistant", tokens(30)),
            ("user", [marked(40)]),
        ),
    )
    assert usage(body) == (0, 70, 1200)


def test_anthropic_refuses_a_fifth_breakpoint() -> None:
    fake = anthropic()
    request = messages([marked(10), marked(10), marked(10)], ("user", [marked(5), marked(5)]))
    status, body = send(fake, "anthropic", request)
    assert status == 400
    assert body["error"]["message"] == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )


@pytest.mark.parametrize(
    ("model", "written"),
    [("claude-sonnet-4-5", 2000), ("claude-haiku-4-5", 0), ("claude-3-haiku-20240307", 0)],
)
def test_anthropic_minimum_cacheable_length_depends_on_the_model(model: str, written: int) -> None:
    fake = anthropic(model=model)
    _, body = send(fake, "anthropic", messages([marked(2000)], ("user", "hi"), model=model))
    assert usage(body)[1] == written


@pytest.mark.parametrize(
    ("ttl", "idle", "read"),
    [("5m", 299, 2000), ("5m", 300, 0), ("1h", 3599, 2000), ("1h", 3600, 0)],
)
def test_anthropic_breakpoint_lifetimes(ttl: str, idle: float, read: int) -> None:
    clock = Clock()
    fake = anthropic(clock)
    request = messages([marked(2000, ttl)], ("user", "hi"))
    send(fake, "anthropic", request)
    clock.now += idle
    assert usage(send(fake, "anthropic", request)[1])[2] == read


@pytest.mark.parametrize(("blocks_back", "read"), [(20, 2005), (21, 0)])
def test_anthropic_lookback_reaches_20_blocks_before_a_breakpoint(
    blocks_back: int, read: int
) -> None:
    fake = anthropic()
    plain = [{"type": "text", "text": tokens(2000)}]
    if blocks_back == 20:  # entry after the first user message (boundary 2)
        send(fake, "anthropic", messages(plain, ("user", [marked(5)])))
    else:  # entry after the system prompt (boundary 1)
        send(fake, "anthropic", messages([marked(2000)], ("user", tokens(5))))
    turns = [("assistant" if i % 2 == 0 else "user", tokens(5)) for i in range(19)]
    # system, user, 19 alternating rows, marked user: the breakpoint is at boundary 22
    _, body = send(
        fake, "anthropic", messages(plain, ("user", tokens(5)), *turns, ("user", [marked(5)]))
    )
    assert usage(body)[2] == read


# -- Gemini: implicit, minimum per model, exact hits ---------------------------------------


def gemini_body(*texts: tuple[str, int]) -> dict[str, Any]:
    return {"contents": [{"role": r, "parts": [{"text": tokens(n)}]} for r, n in texts]}


@pytest.mark.parametrize(
    ("model", "first", "hit"), [("gemini-2.5-flash", 2100, 2100), ("gemini-3-pro-preview", 2100, 0)]
)
def test_gemini_implicit_cache_hits_past_the_model_minimum(
    model: str, first: int, hit: int
) -> None:
    fake = FakeProvider("gemini", model, context_window=1_000_000, clock=Clock())
    send(fake, "gemini", gemini_body(("user", first)), path_model=model)
    _, body = send(
        fake, "gemini", gemini_body(("user", first), ("model", 20), ("user", 30)), path_model=model
    )
    assert body["usageMetadata"]["promptTokenCount"] == first + 50
    assert body["usageMetadata"].get("cachedContentTokenCount", 0) == hit


# -- DeepSeek: whole prefix units; a common prefix becomes a unit for later requests ------


def deepseek_usage(body: Any) -> tuple[int, int]:
    u = body["usage"]
    assert u["prompt_cache_hit_tokens"] + u["prompt_cache_miss_tokens"] == u["prompt_tokens"]
    assert u["prompt_tokens_details"]["cached_tokens"] == u["prompt_cache_hit_tokens"]
    return u["prompt_cache_hit_tokens"], u["prompt_cache_miss_tokens"]


def test_deepseek_hits_only_whole_units_and_persists_common_prefixes() -> None:
    fake = FakeProvider("deepseek", "m", context_window=100_000, clock=Clock())
    a, b, c, d = ("system", 100), ("user", 20), ("user", 30), ("user", 40)
    assert deepseek_usage(send(fake, "openai_chat", chat(a, b))[1]) == (0, 120)
    # A + B + C fully matches the unit A + B
    assert deepseek_usage(send(fake, "openai_chat", chat(a, b, ("assistant", 5), c))[1]) == (
        120,
        35,
    )
    fresh = FakeProvider("deepseek", "m", context_window=100_000, clock=Clock())
    send(fresh, "openai_chat", chat(a, b))
    # A + C matches no whole unit, but A is now persisted as one
    assert deepseek_usage(send(fresh, "openai_chat", chat(a, c))[1]) == (0, 130)
    assert deepseek_usage(send(fresh, "openai_chat", chat(a, d))[1]) == (100, 40)


# -- llama.cpp: one slot; the common prefix with the slot's last prompt is reused ----------


def test_llamacpp_reuses_the_slot_prefix_of_any_size_and_reports_cache_n() -> None:
    fake = FakeProvider("llamacpp", "m", context_window=8192, clock=Clock())
    send(fake, "openai_chat", chat(("system", 10), ("user", 20)))
    _, body = send(fake, "openai_chat", chat(("system", 10), ("user", 20), ("user", 7)))
    assert cached(body) == 30
    assert body["timings"]["cache_n"] == 30
    assert body["timings"]["prompt_n"] == 7


def test_llamacpp_slot_holds_only_the_last_prompt() -> None:
    fake = FakeProvider("llamacpp", "m", context_window=8192, clock=Clock())
    send(fake, "openai_chat", chat(("system", 10), ("user", 20)))
    send(fake, "openai_chat", chat(("system", 11)), {"x-trimscope-cache-key": "other"})
    _, body = send(fake, "openai_chat", chat(("system", 10), ("user", 20)))
    assert cached(body) == 0


# -- the store stays bounded -------------------------------------------------------------


def test_store_is_bounded_in_keys_and_entries() -> None:
    store = PrefixStore(max_keys=2, max_entries=3)
    fake = FakeProvider("openai", "m", context_window=100_000, cache_store=store, clock=Clock())
    for key in ("a", "b", "c"):
        rows = [("system", 1100)] + [("user", 10)] * 5
        send(fake, "openai_chat", chat(*rows), {"x-trimscope-cache-key": key})
    assert store.entry_count() == 2 * 3


# -- the invariant: a hit never exceeds what a still-live earlier request shared -----------

ROW_TOKENS = 300
SYSTEM_TOKENS = 1100
LIFETIMES = {"openai": 600.0, "deepseek": 3600.0, "llamacpp": float("inf"), "anthropic": 300.0}


def text(variant: int, n: int) -> str:
    return chr(ord("a") + variant) * ((n - 4) * 4)


def property_body(provider: str, system: int, rows: list[int]) -> tuple[WireName, dict[str, Any]]:
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(len(rows))]
    turns = [{"role": r, "content": text(v, ROW_TOKENS)} for r, v in zip(roles, rows, strict=True)]
    if provider == "anthropic":
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 16,
            "system": text(system, SYSTEM_TOKENS),
            "messages": turns,
            "cache_control": {"type": "ephemeral"},
        }
        return "anthropic", body
    system_row = {"role": "system", "content": text(system, SYSTEM_TOKENS)}
    return "openai_chat", {"model": "claude-sonnet-4-5", "messages": [system_row, *turns]}


def reported_read(wire: WireName, body: Any) -> int:
    if wire == "anthropic":
        value: int = body["usage"]["cache_read_input_tokens"]
        return value
    return cached(body)


def shared_tokens(a: tuple[int, list[int]], b: tuple[int, list[int]]) -> int:
    if a[0] != b[0]:
        return 0
    common = 0
    for x, y in zip(a[1], b[1], strict=False):
        if x != y:
            break
        common += 1
    return SYSTEM_TOKENS + ROW_TOKENS * common


requests = st.lists(
    st.tuples(
        st.integers(0, 1),  # system variant
        st.lists(st.integers(0, 2), min_size=1, max_size=5),  # rows (user first)
        st.sampled_from([0.0, 30.0, 299.0, 301.0, 700.0, 4000.0]),  # idle before sending
        st.sampled_from(["k1", "k2"]),  # cache key
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(provider=st.sampled_from(sorted(LIFETIMES)), sequence=requests)
def test_cached_tokens_never_exceed_the_common_prefix_with_a_live_earlier_request(
    provider: str, sequence: list[tuple[int, list[int], float, str]]
) -> None:
    clock = Clock()
    fake = FakeProvider(provider, "claude-sonnet-4-5", context_window=100_000, clock=clock)
    sent: list[tuple[float, str, tuple[int, list[int]]]] = []
    for system, rows, idle, key in sequence:
        clock.now += idle
        wire, body = property_body(provider, system, rows)
        status, reply = send(fake, wire, body, {"x-trimscope-cache-key": key})
        assert status == 200
        same_cache = [
            shared_tokens(prompt, (system, rows))
            for at, k, prompt in sent
            if (k == key or provider == "llamacpp") and clock.now - at < LIFETIMES[provider]
        ]
        assert reported_read(wire, reply) <= max(same_cache, default=0)
        sent.append((clock.now, key, (system, rows)))
