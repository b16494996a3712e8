"""A route that compacts through ``/responses/compact`` where the proactive trim would run
(``harness.agent.endpoint_compaction``; outside the reference)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fakes
from harness.agent import Agent, LoopConfig, Route, RouteTable, SessionSpec, open_agent
from harness.agent.config import ENDPOINT_COMPACTION_WIRE_TYPE, FALLBACK_CLIENT_TRIM
from harness.agent.endpoint_compaction import compactable
from harness.events import EventBus, ProviderContextEdited
from harness.providers.factory import make_client
from harness.runtime import ChatMessage, ProviderProfile, RuntimeProfile
from tests.agent.support import Recorder

pytestmark = pytest.mark.anyio

REF = "openai-responses.main"
LONG = "x" * 400  # 104 tokens: one answer puts the history over the budget


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
    def __call__(self, *, handling: str = ..., window: int = ...) -> CompactingRig: ...


@pytest.fixture
async def rig_factory() -> AsyncIterator[Build]:
    opened: list[httpx.AsyncClient] = []

    def build(*, handling: str = "honour", window: int = 8000) -> CompactingRig:
        fake = fakes.FakeProvider("openai", "m", context_window=100_000)
        fake.provider_side = fakes.ProviderSide(handling)  # type: ignore[arg-type]
        fake.script = fakes.FakeScript(default=fakes.FakeBehaviour(fakes.ScriptedReply(LONG)))
        http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url="http://f")
        opened.append(http)
        client = make_client(
            "openai-responses", client=http, base_url="http://f/v1", api_key="k", provider_name=REF
        )
        bus, recorder = EventBus(strict=True), Recorder()
        bus.subscribe(recorder)
        providers = {"openai-responses": {"main": ProviderProfile("m", window)}}
        config = LoopConfig(
            profile=RuntimeProfile(max_context_tokens=100),
            routes=RouteTable(providers, Route(REF)),
            clients={REF: client},
            compacting_routes=frozenset({REF}),
        )
        agent = open_agent(SessionSpec(config, bus, "s", system_prompt="sys"))
        return CompactingRig(agent, fake, recorder)

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
