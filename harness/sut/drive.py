"""Drive one portable scenario's session through a runtime process, turn by turn.

trimscope sends ``open``, each user turn, each tool's result and ``close``; the runtime's
tool calls are answered with the scenario's own tool (``template_tool``: the same output
for the same arguments), so two runs of a scenario get the same results. Every wait is
bounded by the per-operation timeout; a message for another session, an unexpected
``op``, more than ``MAX_TOOL_CALLS_PER_TURN`` tool calls or ``MAX_EVENTS_PER_TURN``
events in a turn is a protocol fault naming the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from fakes import FakeProvider
from harness.agent import Tool, template_tool
from harness.scenarios.schema import ConversationStep, Scenario, UserTurn
from harness.sut.child import RuntimeFault, RuntimeProcess
from harness.sut.judge import Turn
from harness.sut.protocol import (
    Answer,
    Close,
    Event,
    FromRuntime,
    Open,
    Opened,
    ToolCall,
    ToolResult,
    TurnError,
    Unsupported,
    User,
)

MAX_TOOL_CALLS_PER_TURN: Final = 500
MAX_EVENTS_PER_TURN: Final = 1_000


def user_texts(steps: Sequence[ConversationStep], index: int | None = None) -> list[str]:
    """The user turns of a conversation, ``repeat`` expanded (``{i}``: its index), as
    ``harness.scenarios.runner`` expands them."""
    texts: list[str] = []
    for step in steps:
        if step.repeat is not None:
            for i in range(step.repeat.times):
                texts += user_texts(step.repeat.steps, i)
        elif step.user is not None:
            turn = step.user if isinstance(step.user, UserTurn) else UserTurn(text=step.user)
            texts.append(turn.text if index is None else turn.text.replace("{i}", str(index)))
    return texts


@dataclass
class Driven:
    """What happened on the protocol side: turns as they ended, the turn of each of the
    fake's generation requests (in log order), self-reported events."""

    turns: list[Turn] = field(default_factory=list)
    turn_of_call: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    unsupported: str | None = None


class SessionDriver:
    def __init__(
        self, process: RuntimeProcess, scenario: Scenario, fake: FakeProvider, timeout_s: float
    ) -> None:
        self.process = process
        self.scenario = scenario
        self.fake = fake
        self.timeout_s = timeout_s
        self.tools: dict[str, Tool] = {
            t.name: template_tool(
                t.name, t.description, t.parameters, output=t.output, repeat=t.repeat
            )
            for t in scenario.tools
        }
        self.driven = Driven()

    def _fault(self, what: str) -> RuntimeFault:
        return RuntimeFault("PROTOCOL", f"line {self.process.lines_read}: {what}")

    async def _next(self, session: str, waiting_for: str) -> FromRuntime:
        message = await self.process.receive(self.timeout_s, waiting_for)
        other = getattr(message, "session", None)
        if other is None:
            raise self._fault(f"unexpected {message.op} while waiting for {waiting_for}")
        if other != session:
            raise self._fault(f"{message.op} for unknown session {other!r}")
        return message

    async def run(self, opening: Open) -> Driven:
        session = opening.session
        await self.process.send(opening)
        reply = await self._next(session, f"opened for session {session}")
        if isinstance(reply, Unsupported):
            self.driven.unsupported = reply.reason
            return self.driven
        if not isinstance(reply, Opened):
            raise self._fault(f"expected opened or unsupported, found {reply.op}")
        for number, text in enumerate(user_texts(self.scenario.conversation), start=1):
            before = len(self.fake.log.calls())
            await self.process.send(User(session=session, text=text))
            self.driven.turns.append(await self._turn(session, number, text))
            self.driven.turn_of_call += [number] * (len(self.fake.log.calls()) - before)
        await self.process.send(Close(session=session))
        return self.driven

    async def _turn(self, session: str, number: int, text: str) -> Turn:
        tool_calls = events = 0
        while True:
            message = await self._next(session, f"answer to turn {number}")
            if isinstance(message, Answer):
                return Turn(number, text, "answer")
            if isinstance(message, TurnError):
                return Turn(number, text, "error", message.kind, message.message)
            if isinstance(message, Event):
                events += 1
                if events > MAX_EVENTS_PER_TURN:
                    raise self._fault(f"more than {MAX_EVENTS_PER_TURN} events in turn {number}")
                self.driven.events.append(message)
            elif isinstance(message, ToolCall):
                tool_calls += 1
                if tool_calls > MAX_TOOL_CALLS_PER_TURN:
                    limit = MAX_TOOL_CALLS_PER_TURN
                    raise self._fault(f"more than {limit} tool calls in turn {number}")
                await self._answer_tool(message)
            else:
                raise self._fault(f"unexpected {message.op} during turn {number}")

    async def _answer_tool(self, call: ToolCall) -> None:
        tool = self.tools.get(call.name)
        if tool is None:
            raise self._fault(f"tool_call for {call.name!r}, a tool not offered")
        output = await tool.run(call.arguments)
        await self.process.send(ToolResult(session=call.session, id=call.id, content=output.text))
