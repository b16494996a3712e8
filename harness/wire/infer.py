"""One call of one session → its findings, and what the session remembers next.

Pure: ``infer_call(memory, call)`` reads the previous call's prints (``Memory``) and this
call's (``Call``) and returns the findings and the new memory; nothing else is kept.
How each kind is defined is the findings contract (``docs/findings.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from harness.runtime.text import counted
from harness.wire.checks import Issue, orphans, system_rows, turn_order, user_dropped
from harness.wire.history import Before, HistoryChange, Prints, Tally, read_change
from harness.wire.model import Finding, FindingKind, WireKind
from harness.wire.prints import RowPrint, estimate_prints, leading_system, pack, shared_prefix

POISON_TURNS: Final = 2
"""Turns that fail one after the other, none succeeding, after an overflow: from this many
on the session is reported poisoned (the overflow's own turn not counted)."""

_FIRST_ERROR_STATUS: Final = 400
_NO_TURN: Final = -1


@dataclass(frozen=True, slots=True)
class Call:
    """One call as the inference reads it: the request's and the answer's prints, the
    upstream status (``None``: no answer), whether it failed and whether the failure is a
    context overflow (the observer's injected classifier decided), the provider's own
    edits and items. ``provider_state``: the request continues a history the provider
    holds (``previous_response_id``, a conversation, a compaction item), so its rows are
    not the whole history: no history, system, user or tool-pair finding is read from
    them."""

    session: str
    call: int
    wire: WireKind
    status: int | None
    request: Prints
    answer: Prints = ()
    failed: bool = False
    overflow: bool = False
    provider_state: bool = False
    provider_edits: tuple[str, ...] = ()
    provider_items: tuple[str, ...] = ()
    truncation_auto: bool = False


@dataclass(frozen=True, slots=True)
class Memory:
    """What a session keeps between calls: prints and counters, never text.

    ``last_ok`` is the last request that succeeded (the prefix a provider could cache) and
    ``last_ok_tokens`` its estimate; ``overflow_tokens`` the estimate of the request that
    overflowed last, until the next request (its retry) is seen; ``failing_turns`` counts
    turns that failed, none succeeding, since an overflow (``None``: no overflow since the
    last success); ``turn`` is the key of the current turn's opening row."""

    before: Before | None = None
    last_ok: Sequence[RowPrint] = ()
    last_ok_tokens: int = 0
    overflow_tokens: int | None = None
    failing_turns: int | None = None
    turn: int = _NO_TURN
    turn_failed: bool = False
    compaction_items: tuple[str, ...] = ()


def is_failure(status: int | None, error_text: str | None) -> bool:
    """No answer, an error status, or an error inside a 2xx answer (a stream's event)."""
    return status is None or status >= _FIRST_ERROR_STATUS or error_text is not None


def infer_call(memory: Memory, call: Call) -> tuple[tuple[Finding, ...], Memory]:
    """The findings of ``call`` given what the session remembered, and the new memory."""
    out = _Stamp(call)
    if memory.before is not None:
        memory = replace(memory, before=memory.before.unpacked())
    crumb, earlier = _leading_crumb(call.request), Tally()
    if not call.provider_state:
        crumb, earlier = _history(out, memory, call)
        out.cache(memory)
    order = turn_order(call.wire, call.request, whole=not call.provider_state)
    out.issues(order, provider=True)
    out.provider(memory)
    tokens = estimate_prints(call.request)
    memory = out.overflow(memory, tokens)
    # At rest the prints are packed; the last successful request shares the columns.
    request, answer = pack(call.request), pack(call.answer if not call.failed else ())
    memory = replace(
        memory,
        before=Before(request, answer, crumb, earlier),
        compaction_items=_compaction_items(call.provider_items),
    )
    if not call.failed:
        memory = replace(memory, last_ok=request, last_ok_tokens=tokens)
    return tuple(out.found), memory


def _history(out: _Stamp, memory: Memory, call: Call) -> tuple[bool, Tally]:
    """What the request's rows say of the history: its change since the previous call,
    its system and user rows, its tool pairs; the owner flag and the tally next."""
    crumb, earlier = _leading_crumb(call.request), Tally()
    appended = call.request
    previous: Sequence[RowPrint] = ()
    if memory.before is not None:
        reading = read_change(memory.before, call.request)
        crumb, appended, earlier = reading.crumb_present, reading.appended, reading.earlier
        if reading.change is not None:
            out.change(reading.change, memory)
        previous = memory.before.request
        out.issues(system_rows(previous, call.request))
    out.issues(user_dropped(previous, call.request, appended))
    out.issues(orphans(call.request), provider=True)
    return crumb, earlier


def _leading_crumb(rows: Prints) -> bool:
    """On a session's first request: a breadcrumb right after the system rows, with rows
    after it, was inserted by a trim the observer did not see (the owner flag is set)."""
    system = leading_system(rows)
    return len(rows) > system + 1 and rows[system].is_breadcrumb


def _compaction_items(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({item for item in items if "compaction" in item}))


def _answered(status: int | None, failed: bool) -> str:
    if status is None:
        return "no answer came"
    if failed:
        return f"the provider rejected it ({status})"
    return f"the provider accepted it silently ({status})"


class _Stamp:
    """Collects one call's findings, each stamped with its session, call and status."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.found: list[Finding] = []

    def new(self, kind: FindingKind, detail: str = "") -> Finding:
        """A finding of this call with no optional field set (``dataclasses.replace``
        sets them)."""
        call = self.call
        return Finding(
            session=call.session, call=call.call, kind=kind, status=call.status, detail=detail
        )

    def add(self, kind: FindingKind, detail: str = "") -> None:
        self.found.append(self.new(kind, detail))

    def issues(self, issues: Sequence[Issue], *, provider: bool = False) -> None:
        suffix = f"; {_answered(self.call.status, self.call.failed)}" if provider else ""
        for kind, detail in issues:
            self.add(kind, detail + suffix)

    def change(self, change: HistoryChange, memory: Memory) -> None:
        detail = f"{change.summary_rows} summary row(s)" if change.kind == "compaction" else ""
        finding = replace(
            self.new(change.kind, detail),
            dropped_messages=change.dropped_messages,
            dropped_turns=change.dropped_turns,
            kept_turns=change.kept_turns,
            tokens_before=change.tokens_before,
            tokens_after=change.tokens_after,
            breadcrumb=change.breadcrumb,
            on_turn_boundary=change.on_turn_boundary,
            cache_loss_tokens=_cache_loss(memory, self.call.request)[1],
        )
        self.found.append(finding)

    def provider(self, memory: Memory) -> None:
        call = self.call
        # One finding per edit, its detail the provider's own name for it (e.g.
        # ``clear_tool_uses_20250919``): the proxy maps it onto the agent's edit events.
        for edit in call.provider_edits:
            self.add("provider_edit", edit)
        if call.truncation_auto:
            self.add("provider_edit", "truncation: auto asked: the provider may cut the input")
        items = _compaction_items(call.provider_items)
        new = [item for item in items if item not in memory.compaction_items]
        if new:
            self.add("compaction", "provider compaction item(s): " + ", ".join(new))

    def cache(self, memory: Memory) -> None:
        shared, loss = _cache_loss(memory, self.call.request)
        if loss:
            detail = f"{shared} leading row(s) of the last successful request still shared"
            finding = replace(
                self.new("cache_break", detail),
                shared_prefix_rows=shared,
                cache_loss_tokens=loss,
                tokens_before=memory.last_ok_tokens,
                tokens_after=memory.last_ok_tokens - loss,
            )
            self.found.append(finding)

    def overflow(self, memory: Memory, tokens: int) -> Memory:
        """Overflow, the retry after one, and the poisoned session; the counters next
        (``tokens``: the request's estimate)."""
        call = self.call
        if memory.overflow_tokens is not None:
            self._retry(memory.overflow_tokens, tokens)
        if call.overflow:
            self.add("overflow", f"the provider's answer is a context overflow ({tokens} tokens)")
        return self._poison(memory, tokens if call.overflow else None)

    def _retry(self, overflowed: int, tokens: int) -> None:
        size = "the same"
        if tokens != overflowed:
            size = "smaller" if tokens < overflowed else "larger"
        fit = "it fit"
        if self.call.failed:
            fit = "it overflowed again" if self.call.overflow else "it failed"
        detail = f"the request after an overflow is {size}; {fit}"
        finding = self.new("overflow_retry", detail)
        self.found.append(replace(finding, tokens_before=overflowed, tokens_after=tokens))

    def _poison(self, memory: Memory, overflow_tokens: int | None) -> Memory:
        call = self.call
        opener = next((p.key for p in reversed(call.request) if p.opens_turn), _NO_TURN)
        new_turn = opener != memory.turn
        failing, turn_failed = memory.failing_turns, memory.turn_failed and not new_turn
        if not call.failed:
            failing, turn_failed = None, False
        elif call.overflow and failing is None:
            failing, turn_failed = 0, True  # the overflow's own turn is not counted
        elif failing is not None and not turn_failed:
            failing, turn_failed = failing + 1, True
            if failing == POISON_TURNS:
                self.add(
                    "poisoned_session",
                    f"{counted(failing, 'turn')} in a row failed after an overflow, none succeeded",
                )
        return replace(
            memory,
            overflow_tokens=overflow_tokens,
            failing_turns=failing,
            turn=opener,
            turn_failed=turn_failed,
        )


def _cache_loss(memory: Memory, request: Prints) -> tuple[int, int]:
    """Rows of the last successful request ``request`` still starts with, and the tokens
    of it no longer shared (``harness.agent.cache_loss``: ``estimate(last) -
    estimate(common leading rows)``; 0 when it is shared whole or nothing succeeded)."""
    last = memory.last_ok
    shared = shared_prefix(last, request)
    if shared == len(last):
        return shared, 0
    return shared, memory.last_ok_tokens - estimate_prints(request[:shared])
