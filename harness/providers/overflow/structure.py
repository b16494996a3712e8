"""A structural overflow rule: a token count set against a smaller limit, in whatever words.

Keyword rules keep missing the next provider's sentence; what every overflow message shares
is its structure: a count of the input (``given: 4545``, ``your messages resulted in 13393
tokens``, ``prompt contains 300000 tokens``) and a limit it exceeds (``less than 4096
tokens``, ``maximum context length is 4097``, ``131072 maximum context length``), within
one sentence or the next (TGI and OpenAI put the count in the sentence after the limit).

Each number takes its role from the nearest cue before it (a limit cue wins a tie, so
``context length 1500`` is a limit) or from a limit word right after it (``131072 maximum``);
``N tokens > M`` makes N the count and M the limit. The rule fires when a count exceeds a
limit in the same window and the window

- speaks of tokens (a byte or character cap is another family);
- names no rate, quota or time unit (``rate``, ``quota``, ``per minute``, ``TPM``): a key's
  or account's token allowance per minute is not a context window;
- is not about the output budget alone (``max_tokens``, ``completion tokens``, ``output
  tokens`` with no input noun): a ``max_tokens`` above the model's output cap is not an
  overflow.

``extended`` asks this rule only when no message shape decided (the rule adds recall, it
never overrides an exclusion or a quotation); ``count_over_limit`` reads the ``raw`` view
(lower-cased, whitespace collapsed) and ``skip`` tells it which positions are quotations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Final, Literal

RULE_NAME: Final = "count-over-limit"
MAX_WINDOWS: Final = 256  # sentence pairs weighed per body: bounds a hostile body
MAX_NUMBERS: Final = 32  # numbers weighed per window
_CONTEXT: Final = 40  # characters before a number searched for its cue

_NUMBER: Final = re.compile(r"(?<![\w.])\d[\d,]*(?![\w.]\d)")
_SENTENCE_BREAK: Final = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_BREAK: Final = re.compile(r"[,;]\s")
_LIMIT_CUE: Final = re.compile(
    r"\b(?:maximum|max|limit|at most|up to|less than|fewer than|no more than|cannot exceed"
    r"|must not exceed|allowed|context (?:length|window|size)|window|n_ctx|max_model_len"
    r"|max_seq_len)\b|<=|≤"
)
_LIMIT_AFTER: Final = re.compile(r"^\s*(?:tokens?\s+)?(?:maximum|max|limit)\b")
_COUNT_CUE: Final = re.compile(
    r"\b(?:given|received|requested|resulted in|got|contains|containing|has|have|provided"
    r"|sent|count|number of tokens|prompt|prompts|input|inputs|messages|request"
    r"|current (?:length|size))\b"
)
# between a count and the limit it exceeds: "202095 tokens > 200000", "(757) exceeded
# maximum context length (512)", "13055>= n_ctx: 4096", "17772) is longer than ... 16384"
_COMPARATIVE: Final = re.compile(
    r"^[^.]{0,60}?(?:>|\bexceed(?:s|ed|ing)?\b|\b(?:longer|greater|larger|more) than\b)"
)
_PLUS: Final = re.compile(r"^\s*\+\s*$")
_TOKENS_AFTER: Final = re.compile(r"^\)?\s*(?:[`'\"]?[a-z_]+[`'\"]?\s+){0,2}tokens?\b")
_TOKENS_BEFORE: Final = re.compile(r"\btokens?(?: count)?(?: of| is)?\s*[:(]?\s*$")
_SPEAKS_OF_WINDOW: Final = re.compile(
    r"(?:\b|_)tokens?\b|\bmodel length\b|\bcontext (?:length|window|size)\b"
)
_ALLOWANCE: Final = re.compile(
    r"\brate\b|quota|\bper (?:second|sec|minute|min|hour|day)\b|\bt[pd]m\b|\brpm\b"
)
_OUTPUT_ONLY: Final = re.compile(
    r"\bmax_(?:new_|completion_|output_)?tokens\b|\b(?:completion|output) tokens?\b"
    r"|\bmaximum tokens\b"
)
_INPUT_NOUN: Final = re.compile(
    r"\b(?:prompt|prompts|input|inputs|messages|context|conversation|history)\b"
)

Role = Literal["count", "limit"]


@dataclass(frozen=True, slots=True)
class _Number:
    value: int
    start: int
    role: Role | None
    of_tokens: bool  # "4096 tokens", "token count (2800010)": the number counts tokens


def count_over_limit(raw: str, skip: Callable[[int], bool] = lambda _: False) -> bool:
    """Does some sentence (with the next) set an input token count above a limit?"""
    sentences = _sentences(raw)
    for index, (start, text) in enumerate(sentences[:MAX_WINDOWS]):
        window = text
        if index + 1 < len(sentences):
            window = f"{text} {sentences[index + 1][1]}"
        if _eligible(window) and _exceeds(window, start, skip):
            return True
    return False


def _sentences(raw: str) -> list[tuple[int, str]]:
    found, start = [], 0
    for match in _SENTENCE_BREAK.finditer(raw):
        found.append((start, raw[start : match.start()]))
        start = match.end()
    found.append((start, raw[start:]))
    return found


def _eligible(window: str) -> bool:
    if not _SPEAKS_OF_WINDOW.search(window) or _ALLOWANCE.search(window):
        return False
    return not (_OUTPUT_ONLY.search(window) and not _INPUT_NOUN.search(window))


def _exceeds(window: str, offset: int, skip: Callable[[int], bool]) -> bool:
    """A count the provider itself compares with a smaller limit (``N > M``, ``N exceeds
    ... M``), or a cued count above a cued limit with one of the two a number of tokens
    (``Limit 30000, Requested 39448`` alone counts nothing in particular)."""
    matches = list(islice(_NUMBER.finditer(window), MAX_NUMBERS))
    if any(not skip(offset + count.start()) for count in _compared(window, matches)):
        return True
    numbers = [_number(window, matches, i) for i in range(len(matches))]
    counts = [n for n in numbers if n.role == "count" and not skip(offset + n.start)]
    limits = [n for n in numbers if n.role == "limit"]
    return any(
        c.value > lim.value and (c.of_tokens or lim.of_tokens) for c in counts for lim in limits
    )


def _value(match: re.Match[str]) -> int:
    return int(match.group().replace(",", ""))


def _compared(window: str, matches: list[re.Match[str]]) -> Iterator[re.Match[str]]:
    """Counts written before a comparative and a smaller number (``a + b > c`` sums)."""
    for i in range(1, len(matches)):
        between = window[matches[i - 1].end() : matches[i].start()]
        if not _COMPARATIVE.match(between) or "less" in between:
            continue
        count = _value(matches[i - 1])
        if i > 1 and _PLUS.match(window[matches[i - 2].end() : matches[i - 1].start()]):
            count += _value(matches[i - 2])
        if count > _value(matches[i]):
            yield matches[i - 1]


def _number(window: str, matches: list[re.Match[str]], i: int) -> _Number:
    match = matches[i]
    before_start = matches[i - 1].end() if i else 0
    before = window[max(before_start, match.start() - _CONTEXT) : match.start()]
    after = window[match.end() : matches[i + 1].start() if i + 1 < len(matches) else None]
    of_tokens = bool(_TOKENS_AFTER.match(after) or _TOKENS_BEFORE.search(before))
    return _Number(_value(match), match.start(), _role(before, after), of_tokens)


def _role(before: str, after: str) -> Role | None:
    """A limit word after the number (``131072 maximum``) or anywhere in its clause makes
    it a limit (``maximum prompt length is 131072``); else a count word makes it a count."""
    if _LIMIT_AFTER.match(after):
        return "limit"
    clause = _CLAUSE_BREAK.split(before)[-1]
    if _LIMIT_CUE.search(clause):
        return "limit"
    return "count" if _COUNT_CUE.search(clause) else None
