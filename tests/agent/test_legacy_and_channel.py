"""The legacy run path (spec 14) and channel sender caches (spec 12) against a fake."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import httpx

import fakes
from harness.agent import (
    RESEND_NOTICE,
    ChannelOrchestrator,
    LegacySession,
    LoopConfig,
    Route,
    RouteTable,
    SequentialIds,
    TickClock,
)
from harness.events import EventBus, HistoryTrimmed
from harness.providers.plumbing.factory import make_client
from harness.runtime import BREADCRUMB, ChatMessage, ProviderProfile, RuntimeProfile
from harness.runtime.legacy import LEGACY_TRIM_LOG_MESSAGE
from tests.agent.support import Recorder


def _config(profile: RuntimeProfile, fake: fakes.FakeProvider, window: int) -> LoopConfig:
    http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url="http://f")
    client = make_client(
        "openai", client=http, base_url="http://f/v1", api_key="k", provider_name="openai.main"
    )
    routes = RouteTable(
        {"openai": {"main": ProviderProfile("gpt-test", window)}}, Route("openai.main")
    )
    return LoopConfig(profile=profile, routes=routes, clients={"openai.main": client})


def test_legacy_count_trim_logs_only_no_breadcrumb_no_event() -> None:
    """Spec 14 / 3.6: after each turn the count trim keeps max_history_messages turns,
    logs a WARN record, inserts no breadcrumb and emits no HistoryTrimmed."""
    fake = fakes.FakeProvider(
        "openai",
        "gpt-test",
        context_window=10_000,
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    bus, recorder, logs = EventBus(strict=True), Recorder(), []
    bus.subscribe(recorder)
    session = LegacySession(
        _config(RuntimeProfile(max_history_messages=2), fake, 10_000),
        bus=bus,
        clock=TickClock(),
        ids=SequentialIds(),
        session_id="legacy",
        log=lambda message, attrs: logs.append((message, dict(attrs))),
    )
    session.history.append(ChatMessage("system", "sys"))
    for n in range(4):
        asyncio.run(session.run_turn(f"q{n}"))
    assert [r.content for r in session.history] == ["sys", "q2", "ok", "q3", "ok"]
    assert BREADCRUMB not in [r.content for r in session.history]
    assert not [e for e in recorder.events if isinstance(e, HistoryTrimmed)]
    assert [m for m, _ in logs] == [LEGACY_TRIM_LOG_MESSAGE] * 2
    assert logs[0][1] == {
        "messages_before": 7,
        "messages_after": 5,
        "dropped_messages": 2,
        "dropped_turns": 1,
        "kept_turns": 2,
        "max_history_turns": 2,
    }


def test_legacy_outer_recovery_trims_to_nine_tenths_of_the_window() -> None:
    """Spec 17.1 / 19.1: an overflow escaping the tool loop is recovered by the outer loop
    trimming to floor(window * 9 / 10), with a breadcrumb and a log but no event, and the
    turn is retried once. The escape: with max_tool_iterations=1, turn 3's tool call
    exhausts the loop and its tools-free summary request (145 tokens, with a 150-token
    window) overflows; the summary request has no reactive recovery of its own.
    Target floor(150 * 9 / 10) = 135: dropping turn 1 (19 tokens, 2 rows) leaves 126."""
    call = fakes.ScriptedToolCall("echo", {"text": "x"}, "call_1")
    script = fakes.FakeScript(
        steps=(fakes.say("ok"), fakes.say("ok"), fakes.call_tools(call), fakes.fail("overflow")),
        default=fakes.say("after"),
    )
    fake = fakes.FakeProvider("openai", "gpt-test", context_window=10_000, script=script)
    bus, recorder = EventBus(strict=True), Recorder()
    bus.subscribe(recorder)
    logs: list[tuple[str, Mapping[str, object]]] = []
    session = LegacySession(
        _config(RuntimeProfile(max_tool_iterations=1), fake, 150),
        bus=bus,
        clock=TickClock(),
        ids=SequentialIds(),
        session_id="legacy",
        log=lambda m, a: logs.append((m, a)),
    )
    session.history.append(ChatMessage("system", "sys"))
    for text in ("a" * 40, "b" * 40):  # 5 + (14 + 5) per turn
        asyncio.run(session.run_turn(text))
    assert asyncio.run(session.run_turn("c" * 40)) == "after"
    assert logs == [
        (
            "Context overflow: dropped oldest whole turns, retrying the turn",
            {
                "dropped_messages": 2,
                "kept_turns": 3,
                "budget_tokens": 135,
                "model_context_window": 150,
            },
        )
    ]
    assert session.history_has_trim_breadcrumb
    assert session.history[1] == ChatMessage("user", BREADCRUMB)
    assert not [e for e in recorder.events if isinstance(e, HistoryTrimmed)]


def test_channel_cache_is_a_row_fifo_and_zero_means_fifty() -> None:
    """Spec 12: the cap counts rows; 0 means MAX_CHANNEL_HISTORY (50)."""
    fake = fakes.FakeProvider(
        "openai",
        "gpt-test",
        context_window=100_000,
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    channel = ChannelOrchestrator(
        _config(RuntimeProfile(max_history_messages=3), fake, 100_000),
        bus=EventBus(strict=True),
        clock=TickClock(),
        ids=SequentialIds(),
        channel="chat",
    )
    for n in range(3):
        asyncio.run(channel.handle("alice", f"m{n}"))
    assert [r.content for r in channel.caches["alice"]] == ["ok", "m2", "ok"]
    zero = ChannelOrchestrator(
        _config(RuntimeProfile(max_history_messages=0), fake, 100_000),
        bus=EventBus(strict=True),
        clock=TickClock(),
        ids=SequentialIds(),
        channel="chat",
    )
    for n in range(30):
        asyncio.run(zero.handle("bob", f"m{n}"))
    assert len(zero.caches["bob"]) == 50


def test_channel_overflow_compacts_the_cache_and_asks_to_resend() -> None:
    """Spec 9 / 12: on an overflow the sender's cache keeps its last 12 rows, each cut
    to 600 characters plus an ellipsis."""
    # From call 11 on every call overflows: the tool loop recovers until one turn is
    # left, then the error escapes to the channel, which compacts the sender's cache.
    script = fakes.FakeScript(
        steps=tuple(fakes.say("ok") for _ in range(10)), default=fakes.fail("overflow")
    )
    fake = fakes.FakeProvider("openai", "gpt-test", context_window=100_000, script=script)
    channel = ChannelOrchestrator(
        _config(RuntimeProfile(), fake, 100_000),
        bus=EventBus(strict=True),
        clock=TickClock(),
        ids=SequentialIds(),
        channel="chat",
    )
    for n in range(10):
        asyncio.run(channel.handle("carol", f"{n}" + "z" * 700))
    assert asyncio.run(channel.handle("carol", "again")) == RESEND_NOTICE
    cache = channel.caches["carol"]
    assert len(cache) == 12
    assert all(len(r.content) <= 603 for r in cache)
    assert cache[-1].content == "again"
