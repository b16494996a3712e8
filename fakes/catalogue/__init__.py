"""The provider catalogue as data: overflow answers, look-alikes, provider profiles.

``OVERFLOWS`` holds one entry per row (and variant) of providers.md §1, then the wordings
learnt from the public corpus (``corpus_wordings``); ``LOOK_ALIKES``
the errors that look like overflows to a word-matcher but are not; ``PROFILES`` (in
``fakes.profiles``) says which paths and wire formats each provider serves.
"""

from __future__ import annotations

from fakes.catalogue.compatible import COMPATIBLE
from fakes.catalogue.corpus_wordings import CORPUS_WORDINGS
from fakes.catalogue.hosted import HOSTED
from fakes.catalogue.lookalikes import LOOK_ALIKES, LookAlike, look_alike
from fakes.catalogue.model import Delivery, OverflowEntry, Trigger, WireName
from fakes.catalogue.others import OTHERS

OVERFLOWS: tuple[OverflowEntry, ...] = HOSTED + COMPATIBLE + OTHERS + CORPUS_WORDINGS


def overflow_entries(provider: str, wire: WireName | None = None) -> tuple[OverflowEntry, ...]:
    """Every variant a provider has (for one wire format when ``wire`` is given)."""
    return tuple(
        e for e in OVERFLOWS if e.provider == provider and (wire is None or e.wire == wire)
    )


def overflow_entry(provider: str, wire: WireName, variant: str = "default") -> OverflowEntry:
    for entry in OVERFLOWS:
        if (entry.provider, entry.wire, entry.variant) == (provider, wire, variant):
            return entry
    raise KeyError(f"no overflow variant {variant!r} for {provider} ({wire})")


__all__ = [
    "LOOK_ALIKES",
    "OVERFLOWS",
    "Delivery",
    "LookAlike",
    "OverflowEntry",
    "Trigger",
    "WireName",
    "look_alike",
    "overflow_entries",
    "overflow_entry",
]
