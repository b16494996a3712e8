"""Proof that the wire inference agrees with the reference agent (docs/findings.md,
"Agreement with the reference").

Every scenario of the library is run with the reference agent against the fakes; the rows
each fake received are replayed through the observer (``tests.wire.replay``), and every
``HistoryTrimmed`` the reference announced that the wire can show must be inferred at the
request it shaped, with the same ``kept_turns`` and ``dropped_messages`` (counted as the
wire counts them: see ``expected_dropped``). The trims the wire cannot show are set aside
by the rules in ``observable``, each named after its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import BREADCRUMB, ChatMessage
from harness.runtime.constants import MAX_ITERATIONS_SUMMARY_PROMPT
from harness.runtime.turns import leading_system_count
from harness.scenarios.loader import LoadedScenario, load_all
from harness.wire import Finding
from tests.wire.replay import ReplayedCall, replay, run

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"
SCENARIOS = load_all([LIBRARY])
WIRE_CANNOT_TELL = {
    # A user who types the breadcrumb's exact text as a turn: the reference knows the row
    # is not its breadcrumb by an owner flag the wire does not carry; the wire reads it as
    # the breadcrumb, so it reports that turn's question missing. (Its trims still agree:
    # the trim test holds every scenario of the library, this one included.)
    "breadcrumb-text-typed-by-user-is-a-real-turn",
}
MERGED_AFTER_A_FAILED_TURN = {
    # A turn that failed leaves its user message unanswered, and Anthropic and Gemini merge
    # it with the next turn's into one user row. The wire reads that row as the failed
    # turn's opener rewritten (``user_dropped``), or, once older turns are cut, as a
    # summary standing for them (a compaction the agent never made); it counts the two
    # turns as one, so a cut there has other counts than the reference's. The cut is still
    # inferred at the request it shaped, on a turn boundary, with the breadcrumb.
    "recovery-anthropic-failed-turn-then-good-turns",
    "recovery-gemini-failed-turn-then-good-turns",
    "recovery-anthropic-oversized-turn-fails-then-short-turns-answer",
    "recovery-gemini-oversized-turn-fails-then-short-turns-answer",
}


@dataclass(frozen=True, slots=True)
class Expected:
    """What the wire must show at one request: the reference's trims before it."""

    call: int
    dropped_messages: int
    kept_turns: int
    trims: tuple[HistoryTrimmed, ...]


def observable(calls: Sequence[ReplayedCall], index: int) -> tuple[HistoryTrimmed, ...]:
    """The reference's trims before ``calls[index]`` that shaped the request it sent.

    Set aside, each for its reason: trims before the session's first request (the wire
    has no history to compare with); a reported-usage trim after a turn's last call (the
    agent trims its working copy of that turn, dropped with the turn: nothing trimmed is
    sent); trims before a request whose rows the fake could not read back (a request that
    names provider-side state instead of rows); trims that cut rows the wire never saw (a
    turn that ended before its first request: its user row was never sent); a request
    after the scenario cleared the history (nothing of the previous request but its
    system rows, and no breadcrumb: the trims before it cut a history since cleared);
    a cut where
    the previous request was already cut (the reference re-trims each turn from its whole
    stored history; the wire sees the same rows as before, and nothing new missing)."""
    call = calls[index]
    if index == 0 or not call.rows or _unsent_turn_between(calls, index):
        return ()
    if _repeats_previous_cut(calls[index - 1].rows, call.rows):
        return ()
    if _starts_afresh(calls[index - 1].rows, call.rows):
        return ()
    return tuple(
        trim
        for trim in call.trims
        if not (trim.trigger is TrimTrigger.REPORTED_USAGE and trim.turn_id != call.turn_id)
    )


def _after_breadcrumb(rows: Sequence[ChatMessage]) -> list[ChatMessage] | None:
    """The rows after the system rows and the breadcrumb; ``None`` without a breadcrumb."""
    body = list(rows[leading_system_count(rows) :])
    if not body or not body[0].content.startswith(BREADCRUMB):
        return None
    rest = body[0].content[len(BREADCRUMB) :]  # a wire that merges it with the next row
    return ([ChatMessage("user", rest)] if rest else []) + body[1:]


def _repeats_previous_cut(previous: Sequence[ChatMessage], rows: Sequence[ChatMessage]) -> bool:
    before, after = _after_breadcrumb(previous), _after_breadcrumb(rows)
    return before is not None and after is not None and after[: len(before)] == before


def _starts_afresh(previous: Sequence[ChatMessage], rows: Sequence[ChatMessage]) -> bool:
    body = rows[leading_system_count(rows) :]
    return _after_breadcrumb(rows) is None and not set(body) & set(previous)


def _unsent_turn_between(calls: Sequence[ReplayedCall], index: int) -> bool:
    """A trim before this request belongs to a turn with no request at all."""
    sent = {call.turn_id for call in calls[: index + 1]}
    return any(trim.turn_id not in sent for trim in calls[index].trims)


def expected_dropped(trims: Sequence[HistoryTrimmed], new_turn: bool, permanent: int) -> int:
    """The wire counts every row of the conversation the request no longer carries, the
    reference counts against its stored history: within a turn both count against the
    previous request; at a new turn the wire also counts the rows the reference's turn
    limit removed for good before (``permanent``). Several trims before one request are
    seen as one cut: the sum of their rows."""
    return sum(t.dropped_messages for t in trims) + (permanent if new_turn else 0)


def expected_kept(last: HistoryTrimmed, call: ReplayedCall, new_turn: bool) -> int:
    """The turns the request carries: the last trim's kept turns, plus a user row
    appended after that trim: the next turn's (the turn limit cuts the stored history at
    the end of a turn, before it is appended) or the max-iterations summary prompt."""
    appended = last.trigger is TrimTrigger.TURN_LIMIT and new_turn
    summary = bool(call.rows) and call.rows[-1].content == MAX_ITERATIONS_SUMMARY_PROMPT
    return last.kept_turns + int(appended) + int(summary)


def expectations(calls: Sequence[ReplayedCall]) -> list[Expected]:
    out: list[Expected] = []
    permanent = 0
    for index, call in enumerate(calls):
        trims = observable(calls, index)
        if trims:
            new_turn = calls[index - 1].turn_id != call.turn_id
            dropped = expected_dropped(trims, new_turn, permanent)
            kept = expected_kept(trims[-1], call, new_turn)
            out.append(Expected(index, dropped, kept, trims))
        if index > 0:  # a cut before the first request cut rows the wire never saw
            permanent += sum(
                t.dropped_messages for t in call.trims if t.trigger is TrimTrigger.TURN_LIMIT
            )
    return out


def disagreements(want: Expected, cuts: Sequence[Finding], scenario: str) -> list[str]:
    """One cut inferred, with the reference's counts, on a turn boundary, the breadcrumb
    sent. A turn-limit trim counts messages of the structured history, where a tool
    round's results are one message and on the wire one row each: its dropped rows are at
    least the messages it counts. A single budget trim (proactive or reactive) has the
    reference's token accounting too, unless the request carries rows the agent's history
    does not (``TOKENS_DIFFER``)."""
    if len(cuts) != 1:
        return [f"{len(cuts)} cuts inferred"]
    cut, problems = cuts[0], []
    if any(t.trigger is TrimTrigger.TURN_LIMIT for t in want.trims):
        if cut.kept_turns != want.kept_turns or (cut.dropped_messages or 0) < want.dropped_messages:
            problems.append("turn-limit counts")
    elif (cut.dropped_messages, cut.kept_turns) != (want.dropped_messages, want.kept_turns):
        problems.append("counts")
    if not (cut.on_turn_boundary and cut.breadcrumb):
        problems.append("not on a turn boundary with the breadcrumb")
    (last,) = want.trims[-1:]
    budget = len(want.trims) == 1 and last.trigger in {TrimTrigger.PROACTIVE, TrimTrigger.REACTIVE}
    tokens = (cut.tokens_before, cut.tokens_after) != (last.tokens_before, last.tokens_after)
    if budget and tokens and scenario not in TOKENS_DIFFER:
        problems.append(f"tokens {cut.tokens_before}/{cut.tokens_after}")
    if scenario in MERGED_AFTER_A_FAILED_TURN:  # the wire's turn count differs, see there
        problems = [p for p in problems if p != "counts" and not p.startswith("tokens")]
    return problems


@cache
def replayed(scenario_id: str) -> list[ReplayedCall]:
    """Each scenario is run and replayed once for both tests."""
    (loaded,) = (s for s in SCENARIOS if s.scenario.id == scenario_id)
    return replay(run(loaded.scenario))


def inferred(call: ReplayedCall) -> list[Finding]:
    return [f for f in call.findings if f.kind in {"trim", "compaction"}]


def _trim_disagreements(loaded: LoadedScenario) -> list[str]:
    calls = replayed(loaded.scenario.id)
    problems = []
    for want in expectations(calls):
        got = inferred(calls[want.call])
        wrong = disagreements(want, got, loaded.scenario.id)
        if wrong:
            triggers = [t.trigger.value for t in want.trims]
            problems.append(
                f"call {want.call}: reference {triggers} dropped {want.dropped_messages} "
                f"kept {want.kept_turns} turns; wire {[f.to_json() for f in got]}: {wrong}"
            )
    return problems


@pytest.mark.parametrize("loaded", SCENARIOS, ids=[s.scenario.id for s in SCENARIOS])
def test_every_observable_reference_trim_is_inferred_alike(loaded: LoadedScenario) -> None:
    """Each request the reference shaped by trims shows one cut with its counts."""
    assert _trim_disagreements(loaded) == []


TOKENS_DIFFER = {
    # The request carries the max-iterations summary prompt, appended after the trim.
    "recovery-consumes-tool-iteration",
    # The request carries a tool result's images as a user message (the wire's way to
    # send them), a row the agent's history does not have.
    "budget-proactive-vision-route-mid-turn",
    # The request carried tool results cleared client-side; the agent's history keeps
    # them whole and counts them so.
    "provider-and-client-trim-together",
}
UNANNOUNCED_CUTS = {
    # The provider compacts: its compaction item stands for the older rows in the next
    # request, a cut the agent makes no trim of.
    "provider-anthropic-compaction-reused",
    "provider-openai-responses-compaction-reused",
}


@pytest.mark.parametrize(
    "loaded",
    [
        s
        for s in SCENARIOS
        if s.scenario.driver == "agent"
        and s.scenario.id not in UNANNOUNCED_CUTS | MERGED_AFTER_A_FAILED_TURN
    ],
    ids=lambda s: s.scenario.id,
)
def test_no_cut_is_inferred_where_the_reference_agent_announced_none(
    loaded: LoadedScenario,
) -> None:
    """The other way round: the agent announces every trim it makes, so a request shaped
    by none shows no cut. (The legacy and channel drivers cut without a ``HistoryTrimmed``:
    the legacy count trim logs only, the channel's sender cache drops rows first in, first
    out; there the wire's findings are the only report.)"""
    calls = replayed(loaded.scenario.id)
    unannounced = [call.index for call in calls if inferred(call) and not call.trims]
    assert unannounced == []


PROVIDER_STATE = {
    # Requests that continue provider-held state (a compaction item, a Responses
    # compaction): the fakes' rows stand in the provider's summary, which the replay cannot
    # mark as provider state (the decoders do, from the body); their rows look cut.
    "provider-anthropic-compaction-reused",
    "provider-openai-responses-compact-endpoint",
    "provider-openai-responses-compact-endpoint-fails",
    "provider-openai-responses-compact-endpoint-twice",
    "provider-openai-responses-compaction-reused",
}
BROKEN = {"orphan_tool_result", "orphan_tool_call", "turn_order"}
MISSING = {"system_dropped", "system_changed", "user_dropped"}


@pytest.mark.parametrize("loaded", SCENARIOS, ids=[s.scenario.id for s in SCENARIOS])
def test_the_reference_agents_requests_are_well_formed_on_their_wire(
    loaded: LoadedScenario,
) -> None:
    """The reference keeps tool pairs whole, the order each wire wants, its system rows
    and the current turn's user row: no such finding on its requests, each read as its
    provider's wire (the user's own breadcrumb-typed turn and provider-held state set
    aside, see ``WIRE_CANNOT_TELL`` and ``PROVIDER_STATE``)."""
    calls = replayed(loaded.scenario.id)
    wanted = BROKEN | MISSING
    if loaded.scenario.id in WIRE_CANNOT_TELL:
        wanted = BROKEN
    if loaded.scenario.id in MERGED_AFTER_A_FAILED_TURN:
        wanted = BROKEN | MISSING - {"user_dropped"}
    if loaded.scenario.id in PROVIDER_STATE:  # a summary block may stand first
        wanted = BROKEN - {"turn_order"}
    found = [(c.index, f.kind, f.detail) for c in calls for f in c.findings if f.kind in wanted]
    assert found == []
