"""Compare a run with its scenario's expectations; every failure is a readable diff."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallStarted,
    RecoveryAttempted,
    event_kind,
)
from harness.runtime import ChatMessage, HarnessError
from harness.scenarios.expect_spec import (
    CountsSpec,
    EventExpectation,
    Expectations,
    LogSpec,
    RowSpec,
)
from harness.scenarios.runner import ScenarioRun


class ExpectationFailed(HarnessError):
    def __init__(self, scenario_id: str, failures: Sequence[str]) -> None:
        self.failures = tuple(failures)
        super().__init__(f"{scenario_id}: " + "\n".join(self.failures))


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_fields(event: Event) -> dict[str, object]:
    fields: dict[str, object] = {"kind": event_kind(event)}
    fields.update({name: _plain(getattr(event, name)) for name in event.__dataclass_fields__})
    return fields


def _matches(event: Event, wanted: Mapping[str, Any]) -> bool:
    fields = event_fields(event)
    return all(fields.get(key, _MISSING) == value for key, value in wanted.items())


_MISSING = object()


def _show(items: Sequence[Mapping[str, object]]) -> list[str]:
    return [json.dumps(item, sort_keys=True, default=str) for item in items]


def _diff(label: str, expected: Sequence[str], actual: Sequence[str]) -> str:
    lines = difflib.unified_diff(
        list(expected), list(actual), f"expected {label}", f"actual {label}", lineterm=""
    )
    return "\n".join(lines)


def check_events(spec: EventExpectation, events: Sequence[Event]) -> list[str]:
    kinds = set(spec.kinds or {item["kind"] for item in spec.items if "kind" in item})
    relevant = [e for e in events if event_kind(e) in kinds]
    # Show actual events through the keys the expectation names, so diffs stay readable.
    shown = {key for item in spec.items for key in item} | {"kind"}
    actual = [{k: v for k, v in event_fields(e).items() if k in shown} for e in relevant]
    if spec.mode == "set":
        missing = [w for w in spec.items if not any(_matches(e, w) for e in relevant)]
        return [f"events: no event matches {json.dumps(w, default=str)}" for w in missing]
    if spec.mode == "exact":
        if len(relevant) == len(spec.items) and all(
            _matches(e, w) for e, w in zip(relevant, spec.items, strict=True)
        ):
            return []
        return ["events differ:\n" + _diff("events", _show(spec.items), _show(actual))]
    position = 0
    for wanted in spec.items:
        while position < len(relevant) and not _matches(relevant[position], wanted):
            position += 1
        if position == len(relevant):
            return [
                f"events: {json.dumps(wanted, default=str)} not found in order; events were:\n"
                + "\n".join(_show(actual))
            ]
        position += 1
    return []


def run_counts(run: ScenarioRun) -> dict[str, object]:
    """The counts the reporter shows and ``counts`` expectations compare."""
    events = run.events
    trims = [e for e in events if isinstance(e, HistoryTrimmed)]
    return {
        "trims": dict(Counter(e.trigger.value for e in trims)),
        "trims_total": len(trims),
        "provider_calls": sum(isinstance(e, ProviderCallStarted) for e in events),
        "recoveries": sum(isinstance(e, RecoveryAttempted) and e.trimmed for e in events),
        "capacity_refusals": sum(isinstance(e, CapacityChecked) and not e.fits for e in events),
        "budget_decisions": sum(isinstance(e, BudgetResolved) for e in events),
        "overflows": sum(isinstance(e, OverflowDetected) for e in events),
        "events": dict(Counter(event_kind(e) for e in events)),
    }


def check_counts(spec: CountsSpec, run: ScenarioRun) -> list[str]:
    actual = run_counts(run)
    failures = []
    for key, wanted in spec.model_dump(exclude_none=True).items():
        got = actual[key]
        if isinstance(wanted, dict) and isinstance(got, dict):
            got = {k: got.get(k, 0) for k in wanted}
        if got != wanted:
            failures.append(f"counts.{key}: expected {wanted}, found {got}")
    return failures


def _rows_text(rows: Sequence[ChatMessage] | Sequence[RowSpec]) -> list[str]:
    return [f"{r.role}: {json.dumps(r.content, ensure_ascii=False)}" for r in rows]


def check_rows(label: str, expected: Sequence[RowSpec], actual: Sequence[ChatMessage]) -> list[str]:
    want, got = _rows_text(expected), _rows_text(actual)
    return [] if want == got else [f"{label} differ:\n" + _diff(label, want, got)]


def check_turn_errors(run: ScenarioRun, expect: Expectations) -> list[str]:
    failures = []
    for turn in run.turns:
        got = type(turn.error).__name__ if turn.error else None
        wanted = turn.expected_error
        # `error:` without `turn:` allows that error in any turn (it must occur once).
        if expect.error is not None and (
            expect.error.turn == turn.index
            or (expect.error.turn is None and got == expect.error.type)
        ):
            wanted = expect.error.type
        if got != wanted:
            detail = f": {turn.error}" if turn.error else ""
            failures.append(f"turn {turn.index}: expected error {wanted}, got {got}{detail}")
    if expect.error is not None and expect.error.turn is None:
        errors = [t.error for t in run.turns if t.error is not None]
        if not any(type(e).__name__ == expect.error.type for e in errors):
            failures.append(f"error: expected a {expect.error.type} in some turn; none raised")
    if expect.error is not None and expect.error.message_contains:
        texts = " | ".join(str(t.error) for t in run.turns if t.error is not None)
        if expect.error.message_contains not in texts:
            failures.append(f"error: message should contain {expect.error.message_contains!r}")
    return failures


def check_logs(
    expected: Sequence[str | LogSpec], actual: Sequence[tuple[str, Mapping[str, object]]]
) -> list[str]:
    """Messages in order; for ``{message, attributes}`` entries, the named attributes too."""
    want = [e if isinstance(e, str) else e.message for e in expected]
    got = [message for message, _ in actual]
    if want != got:
        return ["logs differ:\n" + _diff("logs", want, got)]
    failures = []
    for index, (entry, (_, attributes)) in enumerate(zip(expected, actual, strict=True)):
        if isinstance(entry, str):
            continue
        wrong = {
            k: attributes.get(k) for k, v in entry.attributes.items() if attributes.get(k) != v
        }
        if wrong:
            failures.append(
                f"log {index + 1} ({entry.message!r}): expected {entry.attributes}, found {wrong}"
            )
    return failures


def check(run: ScenarioRun) -> list[str]:
    expect = run.scenario.expect
    failures = check_turn_errors(run, expect)
    if expect.events is not None:
        failures += check_events(expect.events, run.events)
    if expect.counts is not None:
        failures += check_counts(expect.counts, run)
    for call, rows in sorted(expect.requests.items()):
        actual = run.requests[call - 1] if call <= len(run.requests) else []
        failures += check_rows(f"request {call} rows", rows, actual)
    for call, roles in sorted(expect.request_roles.items()):
        actual_roles = [r.role for r in run.requests[call - 1]] if call <= len(run.requests) else []
        if actual_roles != roles:
            failures.append(f"request {call} roles: expected {roles}, found {actual_roles}")
    if expect.final_history is not None:
        failures += check_rows("final history", expect.final_history, run.final_history)
    if expect.final_history_length is not None and expect.final_history_length != len(
        run.final_history
    ):
        failures.append(
            f"final history length: expected {expect.final_history_length},"
            f" found {len(run.final_history)}"
        )
    if expect.breadcrumb_flag is not None and expect.breadcrumb_flag != run.breadcrumb_flag:
        failures.append(f"breadcrumb flag: expected {expect.breadcrumb_flag}")
    if expect.answers is not None:
        answers = [t.answer for t in run.turns]
        if answers != expect.answers:
            failures.append(f"answers: expected {expect.answers}, found {answers}")
    if expect.logs is not None:
        failures += check_logs(expect.logs, run.logs)
    return failures
