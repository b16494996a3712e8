"""The reference's budget trim ported literally (spec 3.1): one full estimate per probe.

Every probe ``prefix + body[start:]`` is built and re-estimated from scratch, so the cost is
(turns dropped) x (history length): quadratic when a large share of a long history has to
go. ``harness.runtime.trim_to_recent_turns`` gives the same results in linear time.

The one literal port of the reference in the repository: the benchmark times it, and the
property tests (``tests/runtime/test_trim_properties.py``) compare the runtime with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.runtime import ChatMessage, TrimResult, estimate_history_tokens, is_turn_boundary


def naive_trim_to_recent_turns(
    history: Sequence[ChatMessage], budget_tokens: int, crumb_present: bool = False
) -> TrimResult:
    rows = list(history)
    # 1. The estimate of the whole input.
    tokens_before = estimate_history_tokens(rows)
    # 2. Leading system rows, the flagged breadcrumb, the body.
    leading = 0
    while leading < len(rows) and rows[leading].role == "system":
        leading += 1
    crumb_offset = 1 if crumb_present and len(rows) > leading else 0
    prefix, body = rows[: leading + crumb_offset], rows[leading + crumb_offset :]
    # 3. Turns in the body.
    boundaries = [i for i, row in enumerate(body) if is_turn_boundary(row)]
    total_turns = len(boundaries)
    untouched = TrimResult(rows, 0, 0, total_turns, tokens_before, tokens_before, False)
    # 4., 5. Nothing to do.
    if budget_tokens == 0 or tokens_before <= budget_tokens or len(boundaries) <= 1:
        return untouched
    # 6. Probe each next boundary, oldest first; stop at the first probe that fits.
    start = boundaries[-1]
    for position in range(len(boundaries) - 1):
        start = boundaries[position + 1]
        probe = prefix + body[start:]
        if estimate_history_tokens(probe) <= budget_tokens:
            break
    # 7. The output and its record.
    kept = prefix + body[start:]
    dropped_turns = sum(1 for b in boundaries if b < start)
    return TrimResult(
        history=kept,
        dropped_messages=start,
        dropped_turns=dropped_turns,
        kept_turns=total_turns - dropped_turns,
        tokens_before=tokens_before,
        tokens_after=estimate_history_tokens(kept),
        trimmed=True,
    )
