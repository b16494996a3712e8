"""A route that compacts through ``/responses/compact`` where the proactive trim would run
(``harness.agent.endpoint_compaction``; outside the reference)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fakes
from harness.agent import Agent, LoopConfig, Route, RouteTable, SessionSpec, open_agent
from harness.agent.config import ENDPOINT_COMPACTION_WIRE_TYPE, FALLBACK_CLIENT_TRIM
from harness.agent.endpoint_compaction import compactable, window_tokens
from harness.events import CapacityChecked, EventBus, ProviderCallFinished, ProviderContextEdited
from harness.providers.clients.kept_compactions import KeptWindow
from harness.providers.plumbing.factory import make_client
from harness.runtime import ChatMessage, ProviderProfile, RuntimeProfile, estimate_history_tokens
from tests.agent.support import Recorder

pytestmark = pytest.mark.anyio

REF = "openai-responses.main"
LONG = "x" * 400  # 104 tokens: one answer puts the history over the budget
BUDGET = 100
COMPACT_PATH = "/v1/responses/compact"


@dataclass
class CompactingRig:
    agent: Agent
    fake: fakes.FakeProvider
    recorder: Recorder

    def edits(self) -> list[ProviderContextEdited]:
        return [e for e in self.recorder.events if isinstance(e, ProviderContextEdited)]

    def kinds(self) -> list[str]:
        wanted = {"ProviderContextEdited", "HistoryTrimmed", "ProviderCallFinished"}
        return [type(e).__name__ for e in self.recorder.events if type(e).__name__ in wanted]


class Build(Protocol):
    def __call__(
        self, *, handling: str = ..., window: int = ..., script: fakes.FakeScript | None = ...
    ) -> CompactingRig: ...


def build_rig(
    opened: list[httpx.AsyncClient],
    *,
    handling: str = "honour",
    window: int = 8000,
    script: fakes.FakeScript | None = None,
) -> CompactingRig:
    fake = fakes.FakeProvider("openai", "m", context_window=100_000)
    fake.provider_side = fakes.ProviderSide(handling)  # type: ignore[arg-type]
    default = fakes.FakeScript(default=fakes.FakeBehaviour(fakes.ScriptedReply(LONG)))
    fake.script = script or default
    http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url="http://f")
    opened.append(http)
    client = make_client(
        "openai-responses", client=http, base_url="http://f/v1", api_key="k", provider_name=REF
    )
    bus, recorder = EventBus(strict=True), Recorder()
    bus.subscribe(recorder)
    providers = {"openai-responses": {"main": ProviderProfile("m", window)}}
    config = LoopConfig(
        profile=RuntimeProfile(max_context_tokens=BUDGET),
        routes=RouteTable(providers, Route(REF)),
        clients={REF: client},
        compacting_routes=frozenset({REF}),
    )
    agent = open_agent(SessionSpec(config, bus, "s", system_prompt="sys"))
    return CompactingRig(agent, fake, recorder)


@pytest.fixture
async def rig_factory() -> AsyncIterator[Build]:
    opened: list[httpx.AsyncClient] = []

    def build(
        *, handling: str = "honour", window: int = 8000, script: fakes.FakeScript | None = None
    ) -> CompactingRig:
        return build_rig(opened, handling=handling, window=window, script=script)

    yield build
    for http in opened:
        await http.aclose()


async def test_over_budget_the_route_compacts_instead_of_trimming(rig_factory: Build) -> None:
    rig = rig_factory()
    await rig.agent.turn("first")
    await rig.agent.turn("second")
    [edit] = rig.edits()
    assert (edit.edit, edit.wire_type, edit.compaction, edit.fallback) == (
        "compaction",
        ENDPOINT_COMPACTION_WIRE_TYPE,
        "compacted",
        None,
    )
    assert edit.trigger == "budget_tokens>100"
    # the pass's usage as the endpoint billed it: it read what it was sent, wrote an item
    compact = next(e for e in rig.fake.log.entries() if e.path == COMPACT_PATH)
    billed: Any = compact.response_body
    usage = billed["usage"]
    assert (edit.compaction_input_tokens, edit.compaction_output_tokens) == (
        usage["input_tokens"],
        usage["output_tokens"],
    )
    assert "HistoryTrimmed" not in rig.kinds()
    paths = [e.path for e in rig.fake.log.entries()]
    assert paths == ["/v1/responses", "/v1/responses/compact", "/v1/responses"]
    # the window replaced what it summarised: the model read the summary, not the answer
    assert LONG not in str(rig.fake.log.entries()[-1].rows)


async def test_a_refused_compaction_falls_back_to_the_client_trim(rig_factory: Build) -> None:
    rig = rig_factory(handling="reject")
    await rig.agent.turn("first")
    await rig.agent.turn("second")
    [edit] = rig.edits()
    assert (edit.compaction, edit.fallback) == ("failed", FALLBACK_CLIENT_TRIM)
    compacts = [e.status for e in rig.fake.log.entries() if e.path == "/v1/responses/compact"]
    assert compacts == [404]  # a gateway without provider-side context management
    assert rig.kinds()[-3:] == ["ProviderContextEdited", "HistoryTrimmed", "ProviderCallFinished"]


async def test_a_history_past_the_window_is_trimmed_not_compacted(rig_factory: Build) -> None:
    rig = rig_factory(window=120)  # budget 100 of 120: the second turn's history is past it
    await rig.agent.turn("first")
    await rig.agent.turn("second")
    assert rig.edits() == []
    assert "HistoryTrimmed" in rig.kinds()
    assert all(e.path == "/v1/responses" for e in rig.fake.log.entries())


def test_a_route_whose_client_cannot_compact_is_refused() -> None:
    http = httpx.AsyncClient()
    chat = make_client("openai", client=http, base_url="http://f/v1", api_key="k")
    providers = {"openai": {"main": ProviderProfile("m", 8000)}}
    with pytest.raises(ValueError, match=r"compacting route 'openai\.main': expected a client"):
        LoopConfig(
            profile=RuntimeProfile(),
            routes=RouteTable(providers, Route("openai.main")),
            clients={"openai.main": chat},
            compacting_routes=frozenset({"openai.main"}),
        )


ROLES = st.sampled_from(["system", "user", "assistant"])


@given(st.lists(ROLES, max_size=12))
def test_what_is_compacted_is_everything_before_the_newest_user_message(roles: list[str]) -> None:
    rows = [ChatMessage(role, f"{role} {n}") for n, role in enumerate(roles)]
    prefix = compactable(rows)
    assert rows[: len(prefix)] == prefix
    if prefix:
        assert rows[len(prefix)].role == "user"
        assert all(row.role != "user" for row in rows[len(prefix) + 1 :])
        assert any(row.role != "system" for row in prefix)


SHORT = "x" * 40  # 14 tokens as a row; a user row "turn N" is 6: every turn adds 20


def compact_calls(rig: CompactingRig) -> int:
    return sum(1 for e in rig.fake.log.entries() if e.path == COMPACT_PATH)


async def test_the_route_compacts_again_only_when_what_it_sends_is_over_the_budget(
    rig_factory: Build,
) -> None:
    # sys 5: turns 1-5 send 11..91; turn 6 would send 111 > 100: compacted to u1..u5 30,
    # the item 12 and u6 6 = 48; turns 7 and 8 send 68 and 88; turn 9 would send 108:
    # compacted again, to u1..u8 48, the item 12 and u9 6 = 66. The runtime's history
    # (171 by turn 9) passes the 150-token window, but what is sent never does: no trim,
    # no refusal.
    script = fakes.FakeScript(default=fakes.FakeBehaviour(fakes.ScriptedReply(SHORT)))
    rig = rig_factory(window=150, script=script)
    for n in range(1, 10):
        await rig.agent.turn(f"turn {n}")
    assert compact_calls(rig) == 2  # one per turn from the sixth on before
    assert [e.turn_id for e in rig.edits()] == ["turn-6", "turn-9"]
    assert all(e.compaction == "compacted" for e in rig.edits())
    assert "HistoryTrimmed" not in rig.kinds()
    checks = [e for e in rig.recorder.events if isinstance(e, CapacityChecked)]
    assert [c.message_tokens for c in checks] == [11, 31, 51, 71, 91, 48, 68, 88, 66]
    assert all(c.message_tokens <= BUDGET for c in checks)


async def run_session(answers: list[str]) -> CompactingRig:
    opened: list[httpx.AsyncClient] = []
    steps = tuple(fakes.FakeBehaviour(fakes.ScriptedReply(a)) for a in answers)
    rig = build_rig(opened, script=fakes.FakeScript(steps=steps))
    try:
        for n in range(len(answers)):
            await rig.agent.turn(f"turn {n + 1}")
    finally:
        for http in opened:
            await http.aclose()
    return rig


def row_cost(role: str, text: str) -> int:
    return estimate_history_tokens([ChatMessage(role, text)])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 80), min_size=2, max_size=9))
def test_a_compaction_happens_exactly_when_the_sent_request_would_pass_the_budget(
    sizes: list[int],
) -> None:
    """Whatever the answers' lengths, a turn compacts if and only if the request the route
    would send (the previous request as the provider counted it, its answer and the new
    user message) is over the budget, and what is sent then fits it: at most nine user
    rows (54), an item (12) and a user row stay under 100."""
    answers = ["y" * size for size in sizes]
    rig = asyncio.run(run_session(answers))
    finished = [e for e in rig.recorder.events if isinstance(e, ProviderCallFinished)]
    assert len(finished) == len(answers)  # one call per turn: no trims, no recoveries
    compacted_turns = {e.turn_id for e in rig.edits()}
    assert compact_calls(rig) == len(compacted_turns) == len(rig.edits())
    for n in range(1, len(answers)):
        previous = finished[n - 1].input_tokens
        assert previous is not None
        would_send = (
            previous + row_cost("assistant", answers[n - 1]) + row_cost("user", f"turn {n + 1}")
        )
        assert (finished[n].turn_id in compacted_turns) == (would_send > BUDGET)
    assert all((e.input_tokens or 0) <= BUDGET for e in finished)
    assert "HistoryTrimmed" not in rig.kinds()


def test_the_window_is_sized_by_the_reported_usage_else_by_its_opaque_content() -> None:
    rows = [ChatMessage("user", "tell me"), ChatMessage("assistant", "z" * 200)]
    costs = [row_cost(row.role, row.content) for row in rows]
    item: dict[str, object] = {"type": "compaction", "encrypted_content": "c" * 400}
    user: dict[str, object] = {"type": "message", "role": "user", "content": "tell me"}
    reported = KeptWindow((user, item), rows=2, written_tokens=7)
    # the user row repeated, the 7 tokens written, framed as every row is (4)
    assert window_tokens(reported, rows, costs) == costs[0] + 7 + 4
    unreported = KeptWindow((user, item), rows=2)
    assert window_tokens(unreported, rows, costs) == costs[0] + row_cost("assistant", "c" * 400)


async def test_the_cache_loss_prices_a_compacting_routes_rows_not_what_it_sent(
    rig_factory: Build,
) -> None:
    """A compacting route's capacity check measures what the route sends (the kept window
    and the rows after it); the request remembered for the cache loss of later trims is
    the runtime's rows, so it is priced on those rows. (Handing the check's measure in as
    the rows' estimate once made every later trim's loss that of the compacted request.)"""
    script = fakes.FakeScript(default=fakes.FakeBehaviour(fakes.ScriptedReply(SHORT)))
    rig = rig_factory(window=150, script=script)
    for n in range(1, 7):  # the sixth turn compacts (see the test above)
        await rig.agent.turn(f"turn {n}")
    assert [e.turn_id for e in rig.edits()] == ["turn-6"]
    rows = [ChatMessage("system", "sys")]
    for n in range(1, 7):
        rows.append(ChatMessage("user", f"turn {n}"))
        if n < 6:
            rows.append(ChatMessage("assistant", SHORT))
    last_check = [e for e in rig.recorder.events if isinstance(e, CapacityChecked)][-1]
    assert last_check.message_tokens < estimate_history_tokens(rows)  # 48 sent of 111
    sent = rig.agent.announcer.sent
    # Against an empty history every row of the last request is lost, against the system
    # row alone all but it: the rows' estimate, not the 48 tokens the route sent.
    assert sent.loss(REF, []) == estimate_history_tokens(rows)
    assert sent.loss(REF, rows[:1]) == estimate_history_tokens(rows) - row_cost("system", "sys")
