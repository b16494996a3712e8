"""Does the endpoint cache prompts? The same request sent twice, and what usage says.

Sent last, after the checks that decide conformance, so it never takes their budget. Its
size is ``CACHE_PROBE_TOKENS`` (above OpenAI's and Claude Sonnet's 1,024-token minimum and
Gemini 2.5's 2,048, see ``docs/caching.md``), at most half the largest request the window
search saw accepted. Caching is reported, never required: the check is ``pass`` when the
repeat reports cache reads and ``n/a`` otherwise. An Anthropic endpoint caches only blocks
marked ``cache_control``, which the probe's client does not place: its ``n/a`` says so.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Final

from harness.conformance.budget import BudgetExhausted
from harness.conformance.probes import Prober, Sent
from harness.conformance.report import Check, Verdict
from harness.conformance.window import WindowSearch
from harness.providers import Usage

CACHE_PROBE_TOKENS: Final = 2100
CACHE_PROBE_SHARE_OF_WINDOW: Final = 0.5
TITLE: Final = "Prompt caching (information)"


async def probe_cache(prober: Prober, search: WindowSearch | None) -> tuple[Sent, Sent] | None:
    """The same sized request twice; ``None`` when the budget cannot pay for both."""
    size = CACHE_PROBE_TOKENS
    if search is not None and search.lower_bound is not None:
        size = min(size, int(search.lower_bound * CACHE_PROBE_SHARE_OF_WINDOW))
    try:
        first = await prober.sized(size, purpose="prompt_cache")
        second = await prober.sized(size, purpose="prompt_cache_repeat")
    except BudgetExhausted:
        return None
    return first, second


def usage_fields(usage: Usage) -> list[str]:
    """The usage record's fields the endpoint filled in."""
    return [f.name for f in fields(usage) if getattr(usage, f.name) is not None]


def prompt_cache(pair: tuple[Sent, Sent] | None, kind: str) -> Check:
    if pair is None:
        return Check("prompt_cache", TITLE, Verdict.NOT_APPLICABLE, "not probed: budget")
    first, second = pair
    if first.reply is None or second.reply is None:
        error = first.error or second.error
        found = f"not answered ({error.error_type if error else 'no reply'})"
        return Check("prompt_cache", TITLE, Verdict.NOT_APPLICABLE, found)
    usage = second.reply.usage
    filled = ", ".join(usage_fields(usage)) or "none"
    read = usage.cache_read_input_tokens or 0
    if read > 0:
        finding = (
            f"caches: the repeat of a {second.estimate}-token request read {read} tokens"
            f" from the cache; usage fields filled: {filled}"
        )
        return Check("prompt_cache", TITLE, Verdict.PASS, finding)
    why = " (Anthropic caches only blocks marked cache_control)" if kind == "anthropic" else ""
    finding = f"no cache reads reported on the repeat{why}; usage fields filled: {filled}"
    return Check("prompt_cache", TITLE, Verdict.NOT_APPLICABLE, finding)
