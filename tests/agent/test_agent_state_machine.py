"""A hypothesis state machine over the agent loop against real fakes (issue 4).

Steps append user turns, tool rounds, route switches and scripted overflows; after every
step: no orphan tool rows in any request sent, at most one breadcrumb (right after the
system prefix), one HistoryTrimmed per trim, every sent request within the served route's
window, and every budget decision equal to ``resolve_context_limits`` for its route.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import hypothesis
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import fakes
from harness.agent import loop
from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    ProviderCallStarted,
    RecoveryAttempted,
    TrimTrigger,
)
from harness.providers import ContextWindowExceeded, ProviderError
from harness.runtime import (
    BREADCRUMB,
    Chat,
    ChatMessage,
    ContextCapacityExceeded,
    OrphanSweep,
    ProviderProfile,
    RuntimeProfile,
    ToolResultMessage,
    ToolResults,
    remove_orphaned_tool_messages,
    resolve_context_limits,
    resolved_model_context_window_for_route,
)
from harness.runtime.hygiene import assistant_tool_call_ids, tool_call_id_of
from tests.agent.support import build_rig

CAP = 3
UNRECOVERABLE = ("only_one_turn_left", "context_floor_exceeds_budget")
PROFILE = RuntimeProfile(max_context_tokens=400, max_history_messages=CAP, max_tool_iterations=4)
ROUTES = {
    "openai.main": ("gpt-test", 2_000),
    "openai.alt": ("gpt-alt", 600),
}


def _rows_ok(rows: list[ChatMessage]) -> None:
    assert remove_orphaned_tool_messages(rows).removed == 0, "an orphan tool row was sent"
    called: set[str] = set()
    answered: set[str] = set()
    for row in rows:
        if row.role == "assistant":
            called.update(assistant_tool_call_ids(row.content) or [])
        elif row.role == "tool":
            answered.add(tool_call_id_of(row.content) or "")
    assert called == answered, "a tool call was sent without its result, or vice versa"
    crumbs = [i for i, row in enumerate(rows) if row.role == "user" and row.content == BREADCRUMB]
    assert len(crumbs) <= 1
    if crumbs:
        assert all(r.role == "system" for r in rows[: crumbs[0]])


class AgentMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.rig = build_rig(
            profile=PROFILE,
            fake_window=1_200,  # the provider's real window is smaller than configured
            configured_window=ROUTES["openai.main"][1],
            extra=[("openai.alt", "gpt-alt", 10_000, ROUTES["openai.alt"][1])],
        )
        self.fakes = {"openai.main": self.rig.fake, **self.rig.extra_fakes}
        self.route = "openai.main"
        self.turns_in_history = 0
        self.seen_events = 0
        self.tolerated: Counter[str] = Counter()

    def _turn(self, text: str, script: fakes.FakeScript) -> None:
        for fake in self.fakes.values():
            fake.reset(script=script)
        before = len(self.rig.recorder.events)
        sent_before = len(self.rig.sent.requests)
        error: Exception | None = None
        try:
            asyncio.run(self.rig.agent.turn(text))
        except (ContextCapacityExceeded, ProviderError) as caught:
            error = caught
        self._check_requests(sent_before)
        self._check_error(error, self.rig.recorder.events[before:])
        self._check_step(before)

    def _check_requests(self, sent_before: int) -> None:
        """Every request the agent sent, answered or rejected, from the agent's side."""
        for _, request in self.rig.sent.requests[sent_before:]:
            _rows_ok(list(request.messages))

    def _check_error(self, error: Exception | None, events: list[Event]) -> None:
        """Only the errors the contract expects end a turn, each counted: a refusal before
        dispatch (spec 8), or an overflow the reactive recovery could not fix (spec 10)."""
        if error is None:
            return
        if isinstance(error, ContextCapacityExceeded):
            kind = "refused_before_dispatch"
        else:
            outcomes = [e.outcome for e in events if isinstance(e, RecoveryAttempted)]
            unfixable = bool(outcomes) and outcomes[-1] in UNRECOVERABLE
            unexpected = f"unexpected {type(error).__name__}: {error}"
            assert isinstance(error, ContextWindowExceeded), unexpected
            assert unfixable, unexpected
            kind = f"overflow_{outcomes[-1]}"
        self.tolerated[kind] += 1
        hypothesis.event(kind)

    def _check_step(self, before: int) -> None:
        for fake in self.fakes.values():
            for exchange in fake.log.entries():
                if exchange.call_index is not None and exchange.rows:
                    _rows_ok([ChatMessage(r.role, r.content) for r in exchange.rows])
        events = self.rig.recorder.events[before:]
        self.turns_in_history += 1
        limit_trims = [
            e
            for e in events
            if isinstance(e, HistoryTrimmed) and e.trigger is TrimTrigger.TURN_LIMIT
        ]
        expected = 1 if self.turns_in_history > CAP else 0
        assert len(limit_trims) == expected, "one turn-limit HistoryTrimmed per trim"
        self.turns_in_history = min(self.turns_in_history, CAP)
        for event in events:
            if isinstance(event, HistoryTrimmed):
                assert event.dropped_turns >= 1
                assert event.dropped_messages >= 1

    @rule(size=st.integers(0, 600))
    def user_turn(self, size: int) -> None:
        self._turn("u" * size, fakes.FakeScript(default=fakes.say("ok " * 20)))

    @rule(calls=st.integers(1, 3), size=st.integers(0, 900))
    def tool_round(self, calls: int, size: int) -> None:
        tool_calls = tuple(
            fakes.ScriptedToolCall("echo", {"text": "t" * size}) for _ in range(calls)
        )
        script = fakes.FakeScript(steps=(fakes.call_tools(*tool_calls),), default=fakes.say("done"))
        self._turn("run tools", script)

    @rule()
    def restore_damaged_history(self) -> None:
        """A restored session whose stored rows lost a tool call (spec 15: session restore
        is a caller of the sweep): the sweep must keep the orphaned result off the wire."""
        self.rig.agent.seed_history(
            [
                Chat(ChatMessage("system", "sys")),
                Chat(ChatMessage("user", "restored")),
                ToolResults((ToolResultMessage("ghost", "stale", "echo"),)),
                Chat(ChatMessage("assistant", "ok")),
            ]
        )
        self.turns_in_history = 1
        self.user_turn(10)

    @rule()
    def switch_route(self) -> None:
        self.route = "openai.alt" if self.route == "openai.main" else "openai.main"
        self.rig.agent.switch_model(self.route, ROUTES[self.route][0])

    @rule(size=st.integers(0, 300))
    def scripted_overflow(self, size: int) -> None:
        script = fakes.FakeScript(steps=(fakes.fail("overflow"),), default=fakes.say("recovered"))
        self._turn("o" * size, script)

    @invariant()
    def sent_requests_fit_their_window_and_budgets_match_the_rules(self) -> None:
        providers = {
            "openai": {
                alias: ProviderProfile(*ROUTES[f"openai.{alias}"]) for alias in ("main", "alt")
            }
        }
        fresh = self.rig.recorder.events[self.seen_events :]
        self.seen_events = len(self.rig.recorder.events)
        for event in fresh:
            if isinstance(event, ProviderCallStarted):
                assert event.estimate_tokens <= event.model_context_window
            if isinstance(event, CapacityChecked) and event.fits:
                assert event.estimate_tokens <= event.model_context_window
            if isinstance(event, BudgetResolved):
                window = resolved_model_context_window_for_route(
                    providers, event.provider, event.model
                )
                limits = resolve_context_limits(PROFILE, window)
                assert event.budget_tokens == limits.context_token_budget
                assert event.model_context_window == limits.model_context_window
                assert event.rule == limits.rule.value

    def teardown(self) -> None:
        asyncio.run(self._close())

    async def _close(self) -> None:
        await self.rig.http.aclose()


# Each example runs real HTTP round trips: fewer, shorter runs than the profile's default.
AgentMachine.TestCase.settings = settings(
    max_examples=max(10, settings().max_examples // 4),
    stateful_step_count=12,
)
TestAgentMachine = AgentMachine.TestCase


def test_orphan_invariant_fires_when_the_sweep_is_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deliberately broken run: the preflight sweep turned off through its test-only
    seam lets a restored history's orphaned tool result reach the wire, and the machine's
    check must fail on the request the fake rejected (issue 14: it could not fire)."""
    monkeypatch.setattr(loop, "sweep_orphans", lambda rows: OrphanSweep(list(rows), 0, ()))
    machine = AgentMachine()
    try:
        with pytest.raises(AssertionError, match="an orphan tool row was sent"):
            machine.restore_damaged_history()
    finally:
        machine.teardown()


def test_same_run_passes_with_the_sweep() -> None:
    machine = AgentMachine()
    try:
        machine.restore_damaged_history()
        assert machine.rig.sent.requests, "the restored turn sent its request"
    finally:
        machine.teardown()


def test_unexpected_provider_errors_are_not_tolerated() -> None:
    """A provider error the contract does not expect (here a server error) fails the
    step, where every ``ProviderError`` used to be suppressed."""
    machine = AgentMachine()
    try:
        script = fakes.FakeScript(default=fakes.fail("server_error"))
        with pytest.raises(AssertionError, match="unexpected ProviderServerError"):
            machine._turn("hello", script)
    finally:
        machine.teardown()
