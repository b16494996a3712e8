"""The words of a provider-side context edit (issue 17), defined once.

Not a rule of the reference: the vocabulary lives here because this is the one package
both the wire clients (``harness.providers``, which decode the edits) and the events
(``harness.events``, which record them) may import; ``harness.events`` re-exports it.
"""

from __future__ import annotations

from enum import StrEnum


class ProviderEditKind(StrEnum):
    """Which edit the provider reports (``ProviderContextEdited.edit``)."""

    CLEAR_TOOL_USES = "clear_tool_uses"
    CLEAR_THINKING = "clear_thinking"
    COMPACTION = "compaction"


class CompactionOutcome(StrEnum):
    """How a provider-side compaction ended (``ProviderContextEdited.compaction``):
    ``failed`` is Anthropic's compaction block with ``content: null`` (the prompt stays
    whole)."""

    COMPACTED = "compacted"
    FAILED = "failed"
