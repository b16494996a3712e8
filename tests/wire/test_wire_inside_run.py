"""The observer inside ``run`` (``harness.scenarios.wire_watch``): the fakes' traffic, read
from its bytes with the real decoders, shows the same cuts as the replay of the rows the
fakes decoded, scenario by scenario of the library, so the agreement with the reference
agent (``test_agrees_with_reference``) holds for what a proxy would read too.

Where the bytes show more than the rows, the difference is named and checked."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from harness.events import HistoryTrimmed
from harness.scenarios.loader import LoadedScenario
from harness.wire import Finding
from tests.wire.replay import run
from tests.wire.test_agrees_with_reference import SCENARIOS, replayed

CUT_KINDS = {"trim", "compaction"}
PROVIDER_ITEMS = {
    # The requests carry a provider compaction item back: the bytes decode it as a provider
    # item (a compaction with no counts); the fakes' rows render it as summary text rows.
    "provider-anthropic-compaction-reused",
    "provider-openai-responses-compact-endpoint",
    "provider-openai-responses-compact-endpoint-twice",
    "provider-openai-responses-compaction-reused",
}
MISPAIRED = {
    # The compact endpoint's failed exchange shifts the replay's pairing of calls and log
    # entries (its second request reads as empty); the bytes, read in call order with the
    # compact path left out, show the reference's one proactive trim.
    "provider-openai-responses-compact-endpoint-fails",
}
ATTEMPTS = {
    # The provider wrapper retries a call with a halved request: each attempt is a request
    # on the wire (a cut the proxy sees), while the rows replay keeps a call's first attempt.
    "recovery-provider-wrapper-halves-request",
}
RETRIED = {
    # A rate limit the agent retries: each HTTP attempt is a request in the bytes, while
    # the rows replay keeps one call per dispatch, so the bytes number every later call
    # one more. The cuts are the same, in the same order.
    "classifier-anthropic-lookalike-mid-session-trims-nothing",
    "classifier-cohere-lookalike-mid-session-trims-nothing",
    "classifier-gemini-lookalike-mid-session-trims-nothing",
    "classifier-ollama-lookalike-mid-session-trims-nothing",
    "classifier-openai-lookalike-mid-session-trims-nothing",
}
Cut = tuple[int, str, int | None, int | None]


def _cuts(findings: Sequence[Finding]) -> list[Cut]:
    return [
        (f.call, f.kind, f.dropped_messages, f.kept_turns) for f in findings if f.kind in CUT_KINDS
    ]


def _both(loaded: LoadedScenario) -> tuple[list[Finding], list[Finding]]:
    from_bytes = list(run(loaded.scenario).wire_findings)
    from_rows = [f for call in replayed(loaded.scenario.id) for f in call.findings]
    return from_bytes, from_rows


@pytest.mark.parametrize(
    "loaded",
    [s for s in SCENARIOS if s.scenario.id not in PROVIDER_ITEMS | ATTEMPTS | MISPAIRED | RETRIED],
    ids=lambda s: s.scenario.id,
)
def test_the_fakes_bytes_show_the_cuts_their_rows_show(loaded: LoadedScenario) -> None:
    from_bytes, from_rows = _both(loaded)
    assert _cuts(from_bytes) == _cuts(from_rows)


@pytest.mark.parametrize(
    "loaded", [s for s in SCENARIOS if s.scenario.id in PROVIDER_ITEMS], ids=lambda s: s.scenario.id
)
def test_a_provider_compaction_item_is_read_from_the_bytes_as_a_provider_item(
    loaded: LoadedScenario,
) -> None:
    from_bytes, from_rows = _both(loaded)
    items = [f for f in from_bytes if f.kind == "compaction"]
    assert items, "the compaction item the requests carry back was not seen"
    assert all(f.detail.startswith("provider compaction item") for f in items)
    assert all(f.dropped_messages is None for f in items)
    # every other cut of the bytes is one the rows show too
    others = [c for c in _cuts(from_bytes) if c[1] == "trim"]
    assert set(others) <= set(_cuts(from_rows))


@pytest.mark.parametrize(
    "loaded", [s for s in SCENARIOS if s.scenario.id in ATTEMPTS], ids=lambda s: s.scenario.id
)
def test_a_retried_attempt_with_fewer_rows_is_a_cut_on_the_wire(loaded: LoadedScenario) -> None:
    from_bytes, from_rows = _both(loaded)
    assert _cuts(from_rows) == []
    trims = [f for f in from_bytes if f.kind == "trim"]
    assert trims
    assert all(f.on_turn_boundary and (f.dropped_messages or 0) > 0 for f in trims)


@pytest.mark.parametrize(
    "loaded", [s for s in SCENARIOS if s.scenario.id in MISPAIRED], ids=lambda s: s.scenario.id
)
def test_where_the_replay_mispairs_the_bytes_show_the_reference_trims(
    loaded: LoadedScenario,
) -> None:
    result = run(loaded.scenario)
    announced = [
        (e.dropped_messages, e.kept_turns) for e in result.events if isinstance(e, HistoryTrimmed)
    ]
    seen = [(f.dropped_messages, f.kept_turns) for f in result.wire_findings if f.kind == "trim"]
    assert seen == announced


@pytest.mark.parametrize(
    "loaded", [s for s in SCENARIOS if s.scenario.id in RETRIED], ids=lambda s: s.scenario.id
)
def test_after_a_retried_rate_limit_the_bytes_show_the_same_cuts_one_call_later(
    loaded: LoadedScenario,
) -> None:
    from_bytes, from_rows = _cuts_of(*_both(loaded))
    assert from_rows, "the scenario trims after its rate limit"
    assert [c[1:] for c in from_bytes] == [c[1:] for c in from_rows]
    assert [c[0] for c in from_bytes] == [c[0] + 1 for c in from_rows]


def _cuts_of(*findings: Sequence[Finding]) -> tuple[list[Cut], ...]:
    return tuple(_cuts(f) for f in findings)
