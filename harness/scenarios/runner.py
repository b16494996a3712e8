"""Run one scenario against in-process fakes and collect what happened."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from harness.agent import DEFAULT_SENDER, Agent, Driver, LegacySession, open_session
from harness.events import Event, Observer, ProviderCallFinished, ProviderCallStarted
from harness.runtime import Chat, ChatMessage, ConversationMessage
from harness.scenarios.environment import Environment, build_environment
from harness.scenarios.schema import ConversationStep, Scenario, UserTurn
from harness.scenarios.wire_watch import wire_findings
from harness.wire import Finding


class EventRecorder:
    """Keeps every event in order (the runner's own observer)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


@dataclass(frozen=True, slots=True)
class TurnRecord:
    index: int
    text: str
    answer: str | None
    error: BaseException | None
    expected_error: str | None


@dataclass
class ScenarioRun:
    scenario: Scenario
    events: list[Event]
    turns: list[TurnRecord]
    requests: list[list[ChatMessage]]
    final_history: list[ChatMessage]
    breadcrumb_flag: bool
    logs: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)
    # What the wire observer reads in the fakes' traffic (``wire_watch``): the findings a
    # proxy in front of the fakes would have written.
    wire_findings: tuple[Finding, ...] = ()


def _expand(
    steps: Sequence[ConversationStep], index: int | None = None
) -> Iterator[ConversationStep]:
    for step in steps:
        if step.repeat is not None:
            for i in range(step.repeat.times):
                yield from _expand(step.repeat.steps, i)
        elif index is not None and step.user is not None:
            turn = step.user if isinstance(step.user, UserTurn) else UserTurn(text=step.user)
            yield step.model_copy(
                update={
                    "user": turn.model_copy(update={"text": turn.text.replace("{i}", str(index))})
                }
            )
        else:
            yield step


def _user_text(turn: UserTurn) -> str:
    markers = "".join(f"\n[IMAGE:{ref}]" for ref in turn.images)
    return turn.text + markers


def _apply_control(driver: Driver, step: ConversationStep) -> None:
    if isinstance(driver, LegacySession) and step.seed is not None:
        # A restored interactive session: the rows as given, no breadcrumb flag.
        driver.history = [ChatMessage(r.role, r.content) for r in step.seed]
        driver.history_has_trim_breadcrumb = False
        return
    if not isinstance(driver, Agent):
        raise TypeError(f"{type(driver).__name__} supports user (and, legacy, seed) steps only")
    if step.switch_model is not None:
        driver.switch_model(step.switch_model.provider, step.switch_model.model)
    elif step.seed is not None:
        driver.seed_conversation_history([ChatMessage(r.role, r.content) for r in step.seed])
    elif step.clear_history:
        driver.clear_history()


def _requests(env: Environment, events: Sequence[Event]) -> list[list[ChatMessage]]:
    """The rows each provider call carried, in call order, as the fake decoded them.

    Every attempt (a rate-limited call is retried) is one ``ProviderCallFinished`` and one
    entry in its fake's log; a call's rows are those of its first attempt."""
    pending = {ref: iter(fake.log.entries()) for ref, fake in env.fakes.items()}
    by_call: dict[str, list[ChatMessage]] = {}
    for event in events:
        if isinstance(event, ProviderCallFinished):
            exchange = next(pending[event.provider], None)
            rows = exchange.rows if exchange is not None else ()
            by_call.setdefault(event.call_id, [ChatMessage(r.role, r.content) for r in rows])
    return [
        by_call.get(event.call_id, []) for event in events if isinstance(event, ProviderCallStarted)
    ]


async def run_scenario(scenario: Scenario, observers: Sequence[Observer] = ()) -> ScenarioRun:
    recorder = EventRecorder()
    env = build_environment(scenario, (recorder, *observers))
    driver = open_session(env.session_spec())
    turns: list[TurnRecord] = []
    try:
        for step in _expand(scenario.conversation):
            if step.user is None:
                _apply_control(driver, step)
                continue
            turn = step.user if isinstance(step.user, UserTurn) else UserTurn(text=step.user)
            text = _user_text(turn)
            try:
                answer = await driver.send(
                    text, model=turn.model, sender=step.sender or DEFAULT_SENDER
                )
                error = None
            except Exception as exc:  # recorded; expectations decide whether it was wanted
                answer, error = None, exc
            turns.append(TurnRecord(len(turns) + 1, text, answer, error, turn.expect_error))
    finally:
        await env.aclose()
    history, flag = driver.provider_rows()
    return ScenarioRun(
        scenario=scenario,
        events=recorder.events,
        turns=turns,
        requests=_requests(env, recorder.events),
        final_history=history,
        breadcrumb_flag=flag,
        logs=list(env.logs),
        wire_findings=wire_findings(
            scenario.id, {ref: fake.log for ref, fake in env.fakes.items()}, recorder.events
        ),
    )


def history_rows(history: Sequence[ConversationMessage]) -> list[ChatMessage]:
    return [m.message for m in history if isinstance(m, Chat)]
