"""What the report counts as an overflow, and how its counts reconcile.

Two things are easy to confuse. An *overflow answer* is a provider attempt that ended
``overflow`` (``ProviderCallFinished``): the client's classifier (extended by default)
typed the answer a context overflow. An ``OverflowDetected`` event is recorded when
*either* classifier (reference or extended) calls an error an overflow, so it also
records errors that are not one. Each event is therefore one of:

- ``recognised``: on an attempt that ended ``overflow`` (an overflow answer);
- ``look_alike``: on an attempt that ended otherwise, the extended classifier saying no
  (a throttle or rate limit only the reference's substrings call an overflow);
- ``missed``: on an attempt that ended otherwise though the extended classifier says
  overflow (a client set to the reference classifier, which missed it);
- ``unmatched``: tied to no recorded call (a wire finding of the proxy).

Events = recognised + look-alikes + missed + unmatched; overflow answers = recognised +
unannounced (an answer no event was recorded for: the legacy agent's outer recovery
records none). The calls table counts each call once, by its last attempt, so a call
whose overflow the wrapper's truncation answered before it succeeded counts ``ok`` there
and one overflow answer here. Measured on the bundled library (113 transcripts): 47
events = 45 recognised + 2 look-alikes (the Bedrock throttle); 46 answers = 45 + 1
unannounced; 44 calls ending overflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from harness.events import CallOutcome, OverflowDetected

OverflowKind: TypeAlias = Literal["recognised", "look_alike", "missed", "unmatched"]
KIND_LABELS: Final[dict[OverflowKind, str]] = {
    "recognised": "recognised overflows",
    "look_alike": "look-alikes",
    "missed": "missed by the client's classifier",
    "unmatched": "not tied to a call",
}


def overflow_kind(event: OverflowDetected, attempt_outcome: str | None) -> OverflowKind:
    """``event``'s kind given the outcome of the attempt it was recorded after (``None``:
    no call of the session has its id)."""
    if attempt_outcome is None:
        return "unmatched"
    if attempt_outcome == CallOutcome.OVERFLOW:
        return "recognised"
    return "missed" if event.extended_verdict else "look_alike"


@dataclass(frozen=True, slots=True)
class OverflowCounts:
    answers: int
    """Attempts that ended ``overflow``."""
    recognised: int = 0
    look_alike: int = 0
    missed: int = 0
    unmatched: int = 0

    @property
    def unannounced(self) -> int:
        return max(0, self.answers - self.recognised)

    @property
    def events(self) -> int:
        return self.recognised + self.look_alike + self.missed + self.unmatched

    def of(self, kind: OverflowKind) -> int:
        value: int = getattr(self, kind)
        return value


def overflow_counts(answers: int, kinds: Sequence[OverflowKind]) -> OverflowCounts:
    return OverflowCounts(
        answers=answers,
        recognised=kinds.count("recognised"),
        look_alike=kinds.count("look_alike"),
        missed=kinds.count("missed"),
        unmatched=kinds.count("unmatched"),
    )


def reconciliation(counts: OverflowCounts, calls_ending_overflow: int) -> str:
    """One sentence: what the overflow figures count and how they add up."""
    parts = [f"{counts.recognised:,} {KIND_LABELS['recognised']}"]
    parts += [
        f"{counts.of(kind):,} {KIND_LABELS[kind]}"
        for kind in ("look_alike", "missed", "unmatched")
        if counts.of(kind)
    ]
    text = (
        f"Overflows: {counts.answers:,} overflow answer(s) (provider attempts that ended"
        f" overflow); {counts.events:,} error(s) a classifier called an overflow"
        f" = {' + '.join(parts)}."
    )
    if counts.unannounced:
        text += (
            f" {counts.unannounced:,} overflow answer(s) recorded no classifier event"
            " (the legacy agent's outer recovery, for one, records none)."
        )
    if counts.look_alike:
        text += (
            " A look-alike is another error (a throttle, a rate limit) that only the"
            " reference's substrings call an overflow; its call is not an overflow."
        )
    if calls_ending_overflow != counts.answers:
        text += (
            f" {calls_ending_overflow:,} call(s) ended overflow (the calls table counts"
            " each call once, by its last attempt)."
        )
    return text
