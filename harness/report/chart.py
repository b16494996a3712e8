"""One session's chart as inline SVG: estimated request tokens per provider call against the
call's budget and the model's window, with trims, capacity refusals, overflows and
recoveries marked (positions as ``harness.report.model`` defines them).

The y axis is linear unless its values span more than ``LOG_RATIO`` (largest over smallest
positive): then it is logarithmic, so a 30-token budget under an 8,000-token window, or
10-token requests under an 8,000-token budget, stay visible. The axis says which.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.report.model import Call, Recovery, Refusal, Session, Trim
from harness.report.svg import el, grouped, nice_step, tokens, void
from harness.runtime.text import counted

WIDTH, HEIGHT = 900, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 70, 34, 40
LOG_RATIO = 10.0
LABEL_GAP = 12.0  # px between the budget and window labels at the right edge
MAX_DOTS = 250  # beyond this many calls, dots would hide the line
MAX_DECADES_WITH_STEPS = 3  # a log axis this short also ticks at 2 and 5 per decade
TRIGGER_COLOURS = {
    "proactive": "#1b9e77",
    "reported_usage": "#7570b3",
    "reactive": "#d95f02",
    "turn_limit": "#e7298a",
    "wire": "#66a61e",  # a trim read from a proxied runtime's requests (its transcript)
}
RECOVERY_OK = "retrying"


@dataclass(frozen=True, slots=True)
class Scale:
    """Maps data to pixels; ``log`` says which kind of y axis this is."""

    x0: float
    x1: float
    y0: float
    y1: float
    log: bool
    calls: int = 0

    def x(self, value: float) -> float:
        span = self.x1 - self.x0
        return LEFT + (value - self.x0) / span * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        if self.log:
            low, high = math.log10(self.y0), math.log10(self.y1)
            fraction = (math.log10(max(value, self.y0)) - low) / (high - low)
        else:
            fraction = (value - self.y0) / (self.y1 - self.y0)
        return HEIGHT - BOTTOM - fraction * (HEIGHT - TOP - BOTTOM)

    def y_ticks(self) -> list[float]:
        if not self.log:
            step = nice_step(self.y1 - self.y0, 5)
            return [i * step for i in range(int(self.y1 // step) + 1)]
        decades = range(round(math.log10(self.y0)), round(math.log10(self.y1)) + 1)
        factors = (1, 2, 5) if len(decades) <= MAX_DECADES_WITH_STEPS else (1,)
        ticks = (f * 10.0**d for d in decades for f in factors)
        return [t for t in ticks if self.y0 <= t <= self.y1]

    def x_ticks(self) -> list[int]:
        """Call numbers, every one up to a dozen calls, then a 1-2-5 step."""
        step = max(1, int(nice_step(self.calls, 12)))
        return list(range(step, self.calls + 1, step))


def scale_for(session: Session) -> Scale:
    calls = session.calls
    small = [c.estimate_tokens for c in calls]
    small += [c.budget_tokens for c in calls if c.budget_tokens is not None]
    small += [r.event.estimate_tokens for r in session.refusals]
    windows = [c.window_tokens for c in calls] + [
        r.event.model_context_window for r in session.refusals
    ]
    values = [*small, *windows]
    top = max([*values, 1])
    low = min([v for v in values if v > 0] or [1])
    positions = [t.position for t in session.trims]
    positions += [r.position for r in session.refusals] + [r.position for r in session.recoveries]
    x1 = max([len(calls), *positions, 0.5]) + 0.5
    if top > LOG_RATIO * low:
        y0 = 10.0 ** math.floor(math.log10(low))
        y1 = 10.0 ** math.ceil(math.log10(top * 1.05))
        return Scale(0.0, x1, y0, y1, log=True, calls=len(calls))
    step = nice_step(top * 1.08, 5)
    return Scale(0.0, x1, 0.0, math.ceil(top * 1.08 / step) * step, log=False, calls=len(calls))


def session_chart(session: Session) -> str:
    """The ``<svg>`` for one session."""
    scale = scale_for(session)
    window = _last(session.calls, lambda c: c.window_tokens)
    budget = _last(session.calls, lambda c: c.budget_tokens)
    parts = [
        _axes(scale),
        _step(session.calls, lambda c: c.window_tokens, scale, "window"),
        _step(session.calls, lambda c: c.budget_tokens, scale, "budget"),
        _labels(window, budget, scale),
        _estimates(session.calls, scale),
        *(_trim(trim, rank, scale) for trim, rank in _ranked(session.trims)),
        *(_refusal(refusal, scale) for refusal in session.refusals),
        *(_recovery(recovery, scale) for recovery in session.recoveries),
    ]
    label = (
        f"Session {session.session_id}: {counted(len(session.calls), 'provider call')}, "
        f"{counted(len(session.trims), 'trim')}, "
        f"{counted(len(session.refusals), 'capacity refusal')}, "
        f"{counted(sum(session.overflow_answers.values()), 'overflow')}"
    )
    return el(
        "svg",
        "".join(parts),
        class_="chart",
        viewBox=f"0 0 {WIDTH} {HEIGHT}",
        role="img",
        aria_label=label,
        preserveAspectRatio="xMidYMid meet",
    )


def _last(calls: Sequence[Call], value: Callable[[Call], int | None]) -> int | None:
    return next((v for v in (value(c) for c in reversed(calls)) if v is not None), None)


def _labels(window: int | None, budget: int | None, scale: Scale) -> str:
    """The last window and budget, named at the right edge; pushed apart when they meet."""
    placed = {
        kind: scale.y(value) + 4.0
        for kind, value in (("window", window), ("budget", budget))
        if value is not None
    }
    if (
        placed.keys() == {"window", "budget"}
        and abs(placed["window"] - placed["budget"]) < LABEL_GAP
    ):
        middle = (placed["window"] + placed["budget"]) / 2
        placed = {"window": middle - LABEL_GAP / 2, "budget": middle + LABEL_GAP / 2}
    values = {"window": window, "budget": budget}
    return "".join(
        el(
            "text",
            f"{kind} {tokens(values[kind])}",
            class_=f"label {kind}",
            x=float(WIDTH - RIGHT + 4),
            y=y,
        )
        for kind, y in placed.items()
    )


def _axes(scale: Scale) -> str:
    left, right = LEFT, WIDTH - RIGHT
    bottom = HEIGHT - BOTTOM
    parts = []
    for tick in scale.y_ticks():
        y = scale.y(tick)
        parts.append(void("line", class_="grid", x1=float(left), x2=float(right), y1=y, y2=y))
        parts.append(el("text", tokens(tick), class_="tick", x=float(left - 6), y=y + 4.0))
    for tick in scale.x_ticks():
        x = scale.x(tick)
        parts.append(void("line", class_="axis", x1=x, x2=x, y1=float(bottom), y2=bottom + 4.0))
        parts.append(el("text", str(tick), class_="tick x", x=x, y=bottom + 17.0))
    parts.append(void("line", class_="axis", x1=float(left), x2=float(right), y1=bottom, y2=bottom))
    parts.append(void("line", class_="axis", x1=float(left), x2=float(left), y1=TOP, y2=bottom))
    y_title = "tokens (log scale)" if scale.log else "tokens"
    parts.append(el("text", y_title, class_="title", x=float(LEFT - 56), y=float(TOP - 14)))
    x_title = "provider call"
    parts.append(el("text", x_title, class_="title x", x=(left + right) / 2, y=HEIGHT - 4.0))
    return el("g", "".join(parts))


def _step(
    calls: Sequence[Call], value: Callable[[Call], int | None], scale: Scale, kind: str
) -> str:
    """A step line, one flat segment per call, broken where the value is unknown."""
    runs: list[list[str]] = []
    previous: int | None = None
    for call in calls:
        current = value(call)
        if current is None:
            previous = None
            continue
        x_from, x_to, y = scale.x(call.index - 0.5), scale.x(call.index + 0.5), scale.y(current)
        if previous is None:
            runs.append([f"M{x_from:.1f},{y:.1f}"])
        else:
            runs[-1].append(f"V{y:.1f}")
        runs[-1].append(f"H{x_to:.1f}")
        previous = current
    if not runs:
        return ""
    return void("path", class_=f"line {kind}", d=" ".join(" ".join(r) for r in runs))


def _estimates(calls: Sequence[Call], scale: Scale) -> str:
    if not calls:
        return ""
    points = " ".join(f"{scale.x(c.index):.1f},{scale.y(c.estimate_tokens):.1f}" for c in calls)
    parts = [void("polyline", class_="line estimate", points=points)]
    for call in calls:
        x, y = scale.x(call.index), scale.y(call.estimate_tokens)
        if call.overflow is not None:
            tip = _call_tip(call)
            parts.append(void("circle", class_="mark overflow", cx=x, cy=y, r=8.0, data_tip=tip))
        if len(calls) <= MAX_DOTS or call.overflow is not None:
            kind = "dot compacted" if call.compacted else "dot"
            parts.append(void("circle", class_=kind, cx=x, cy=y, r=4.0, data_tip=_call_tip(call)))
    return el("g", "".join(parts))


def _call_tip(call: Call) -> str:
    lines = [
        f"call {call.index} ({call.call_id}), turn {call.turn_id or '-'}",
        f"{call.provider} {call.model or ''}".rstrip(),
        f"estimate {grouped(call.estimate_tokens)} tokens"
        + (" (trimmed history)" if call.compacted else ""),
        f"budget {grouped(call.budget_tokens)} · window {grouped(call.window_tokens)}",
        f"outcome {call.outcome or 'unfinished'}"
        + (f", reported input {grouped(call.input_tokens)}" if call.input_tokens else ""),
    ]
    if call.overflow is not None:
        o = call.overflow
        lines.append(
            f"OVERFLOW {o.status_code or '-'} {o.error_type}: reference "
            f"{'recognised' if o.reference_verdict else 'missed'}, extended "
            f"{'recognised' if o.extended_verdict else 'missed'}"
        )
        lines.append(o.message[:300])
    return "\n".join(lines)


def _ranked(trims: Sequence[Trim]) -> list[tuple[Trim, int]]:
    """Each trim with how many earlier trims share its position (to stack markers)."""
    seen: dict[float, int] = {}
    ranked = []
    for trim in trims:
        ranked.append((trim, seen.get(trim.position, 0)))
        seen[trim.position] = seen.get(trim.position, 0) + 1
    return ranked


def _trim(trim: Trim, rank: int, scale: Scale) -> str:
    event = trim.event
    x = scale.x(trim.position)
    colour_class = f"trim {event.trigger.value}"
    top = TOP + 2.0 + 11.0 * rank
    tip = "\n".join(
        [
            f"trim ({event.trigger.value}): {event.reason}",
            f"dropped {counted(event.dropped_messages, 'message')} / "
            f"{counted(event.dropped_turns, 'turn')}, kept {counted(event.kept_turns, 'turn')}",
            f"tokens {grouped(event.tokens_before)} → {grouped(event.tokens_after)}, "
            f"budget {grouped(event.budget_tokens)}",
            f"turn {event.turn_id or '- (seeding)'}",
        ]
    )
    rule = void(
        "line", class_=f"rule {colour_class}", x1=x, x2=x, y1=TOP, y2=float(HEIGHT - BOTTOM)
    )
    marker = void(
        "path",
        class_=f"mark {colour_class}",
        d=f"M{x - 6:.1f},{top:.1f} h12 l-6,9 z",
        data_tip=tip,
    )
    return rule + marker


def _refusal(refusal: Refusal, scale: Scale) -> str:
    event = refusal.event
    x, y = scale.x(refusal.position), scale.y(event.estimate_tokens)
    tip = (
        f"capacity refusal ({event.purpose}): estimate {grouped(event.estimate_tokens)} "
        f"({grouped(event.message_tokens)} messages + {grouped(event.tool_schema_tokens)} "
        f"tool schemas) > window {grouped(event.model_context_window)}\n"
        f"turn {event.turn_id or '-'}: no request was sent"
    )
    rule = void("line", class_="rule refusal", x1=x, x2=x, y1=TOP, y2=float(HEIGHT - BOTTOM))
    cross = void(
        "path",
        class_="mark refusal",
        d=f"M{x - 6:.1f},{y - 6:.1f} l12,12 m0,-12 l-12,12",
        data_tip=tip,
    )
    return rule + cross


def _recovery(recovery: Recovery, scale: Scale) -> str:
    event = recovery.event
    x, y = scale.x(recovery.position), float(HEIGHT - BOTTOM)
    kind = "ok" if event.outcome == RECOVERY_OK else "failed"
    tip = (
        f"recovery after overflow of {event.call_id}: {event.outcome}\n"
        f"estimate {grouped(event.estimate_tokens)}, target budget "
        f"{grouped(event.target_budget_tokens)}, system floor "
        f"{grouped(event.system_floor_tokens)}, route budget "
        f"{grouped(event.route_budget_tokens)}"
    )
    return void(
        "path",
        class_=f"mark recovery {kind}",
        d=f"M{x:.1f},{y - 6:.1f} l6,6 l-6,6 l-6,-6 z",
        data_tip=tip,
    )
