"""A literal port of the reference's probe-per-turn budget trim (spec 3.1), for comparison.

Quadratic on purpose: it re-estimates every probe from scratch, exactly as the reference
does, so property tests can check that the linear implementation gives identical results.
"""

from __future__ import annotations

from harness.runtime import ChatMessage, TrimResult, estimate_history_tokens, is_turn_boundary


def reference_trim_to_recent_turns(
    history: list[ChatMessage], budget: int, crumb_present: bool = False
) -> TrimResult:
    tokens_before = estimate_history_tokens(history)
    leading = 0
    while leading < len(history) and history[leading].role == "system":
        leading += 1
    offset = 1 if crumb_present and len(history) > leading else 0
    prefix, body = history[: leading + offset], history[leading + offset :]
    boundaries = [i for i, row in enumerate(body) if is_turn_boundary(row)]
    total = len(boundaries)
    untouched = TrimResult(list(history), 0, 0, total, tokens_before, tokens_before, False)
    if budget == 0 or tokens_before <= budget or len(boundaries) <= 1:
        return untouched
    start = 0
    for b in boundaries[:-1]:
        start = next(x for x in boundaries if x > b)
        if estimate_history_tokens(prefix + body[start:]) <= budget:
            break
    kept = prefix + body[start:]
    dropped_turns = sum(1 for b in boundaries if b < start)
    return TrimResult(
        kept,
        start,
        dropped_turns,
        total - dropped_turns,
        tokens_before,
        estimate_history_tokens(kept),
        True,
    )
