"""What the trimming-speed stages of ``python -m bench`` share: the report, the seed, the
budget every stage trims to, and how often a size is measured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.runtime import ChatMessage, estimate_history_tokens

SIZES = (1_000, 10_000, 100_000)
REPEATS = {1_000: 25, 10_000: 9, 100_000: 5}
MAX_SECONDS_A = 10.0  # per size, all engines together: stop repeating past this
SEED = 7


def budget_for(history: Sequence[ChatMessage]) -> int:
    """Two thirds of the estimate (the reference's reactive-recovery target, spec 10): a
    third of the history has to go."""
    return estimate_history_tokens(history) * 2 // 3


def repeats(size: int) -> int:
    return REPEATS.get(size, 5)


@dataclass
class Report:
    lines: list[str]

    def say(self, text: str = "") -> None:
        self.lines.append(text)
        print(text, flush=True)
