"""Token counters a fake model can use: ``heuristic``, ``provider`` and the public
tokenizers (``o200k_base``, ``cl100k_base``, ``llama3``, ``qwen3``, or ``exact``: the one of
the fake's model; ``fakes.counting.exact_counter``).

``heuristic`` is the runtime's estimate (``fakes.counting.estimate``); ``provider`` is the fakes'
own tokenizer (``fakes.counting.tokenizer``). Both count canonical rows plus tool schemas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol, TypeAlias

from fakes.counting import estimate, tokenizer
from fakes.counting.exact_counter import ENCODINGS, exact_counter
from fakes.rows import CanonicalRequest, Row, ToolSchema

CounterName: TypeAlias = Literal[
    "heuristic", "provider", "exact", "o200k_base", "cl100k_base", "llama3", "qwen3"
]
COUNTER_NAMES: tuple[CounterName, ...] = (
    "heuristic",
    "provider",
    "exact",
    "o200k_base",
    "cl100k_base",
    "llama3",
    "qwen3",
)

COUNTER_HEADER: Final = "x-trimscope-fake-counter"
"""Every answer of a fake names the counter behind its token counts, worded by
``counter_label``: a client learns what the fake used, not what it was asked for."""
ESTIMATES: Final = {
    "heuristic": "estimate: bytes/4 + 4 per row, not a real tokenizer",
    "provider": "estimate: the fakes' own tokenizer, not a real one",
}


def counter_label(name: str) -> str:
    """How every summary names the counter ``name`` (a ``TokenCounter.name``, ``exact``
    resolved): ``o200k_base (exact)``, ``heuristic (estimate: ...)``."""
    if name in ENCODINGS:
        return f"{name} (exact)"
    return f"{name} ({ESTIMATES[name]})" if name in ESTIMATES else name


@dataclass(frozen=True, slots=True)
class TokenCount:
    """Input tokens of one request: ``messages`` (rows) + ``tools`` (schemas)."""

    messages: int
    tools: int

    @property
    def total(self) -> int:
        return self.messages + self.tools


class TokenCounter(Protocol):
    @property
    def name(self) -> CounterName: ...

    @property
    def request_priming(self) -> int | None:
        """``p`` when ``count_rows(rows)`` is the sum of ``count_rows((row,))`` over the
        rows less ``p × (len(rows) − 1)`` (each row's own cost, and ``p`` once per
        request), so a count can be made of cached row costs; ``None`` when a row's cost
        depends on the others (the estimate's current turn)."""
        ...

    def count_rows(self, rows: Sequence[Row]) -> int: ...

    def count_tools(self, tools: Sequence[ToolSchema]) -> int: ...

    def count_text(self, text: str) -> int: ...


@dataclass(frozen=True, slots=True)
class HeuristicCounter:
    """The runtime's estimate, byte for byte (docs/contract.md §5)."""

    name: CounterName = "heuristic"

    @property
    def request_priming(self) -> int | None:
        return None  # a row's cost depends on whether it is in the current turn

    def count_rows(self, rows: Sequence[Row]) -> int:
        return estimate.estimate_rows(rows)

    def count_tools(self, tools: Sequence[ToolSchema]) -> int:
        return estimate.estimate_tools(tools)

    def count_text(self, text: str) -> int:
        return estimate.estimate_text(text)


@dataclass(frozen=True, slots=True)
class ProviderCounter:
    """A tokenizer that disagrees with the estimate as real ones do
    (``fakes.counting.tokenizer``)."""

    name: CounterName = "provider"

    @property
    def request_priming(self) -> int | None:
        return tokenizer.REPLY_PRIMING

    def count_rows(self, rows: Sequence[Row]) -> int:
        return tokenizer.count_rows(rows)

    def count_tools(self, tools: Sequence[ToolSchema]) -> int:
        return tokenizer.count_tools(tools)

    def count_text(self, text: str) -> int:
        return tokenizer.tokenize_text(text)


def get_counter(name: CounterName | str, model: str | None = None) -> TokenCounter:
    """The counter ``name``; ``exact`` is the public tokenizer of ``model``."""
    if name == "heuristic":
        return HeuristicCounter()
    if name == "provider":
        return ProviderCounter()
    if name not in COUNTER_NAMES:
        raise ValueError(f"unknown counter {name!r}; expected one of {', '.join(COUNTER_NAMES)}")
    return exact_counter(name, model)


def count_request(counter: TokenCounter, request: CanonicalRequest) -> TokenCount:
    return TokenCount(counter.count_rows(request.rows), counter.count_tools(request.tools))
