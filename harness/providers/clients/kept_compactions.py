"""Compaction blocks and items kept on the wire side and sent back on later requests.

Anthropic's compaction edit answers with a ``compaction`` block at the head of the
assistant content; the API drops every message before the newest such block it is sent,
and reads the block as its summary. The runtime's canonical history has no place for the
block (and the reference rules must not change), so the route's client keeps it here,
anchored to the messages it summarised (the request that was compacted), and puts it
back at the head of the next assistant message whenever a later request still starts with
exactly those messages. If the runtime trimmed that prefix the anchor no longer matches
and the block is not sent: the provider then compacts again if it must.

OpenAI Responses (in-request ``context_management`` compaction) answers with a
``compaction`` output item; its compaction guide chains by appending the output items to
the input and allows dropping every item before the newest compaction item
(developers.openai.com/api/docs/guides/compaction). ``resend_items`` does both: the kept
item, then what followed its anchor.

Anchors compare messages without ``cache_control`` (the breakpoints move from request to
request). At most ``KEPT_COMPACTIONS`` anchors are kept per client, least recently used
out first: a client can serve several conversations at once (load runs).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from harness.providers.plumbing.wirejson import JsonObject, as_list, as_object

KEPT_COMPACTIONS: Final = 16
COMPACTION_TYPE: Final = "compaction"

Anchor = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeptWindow:
    """What replaces the first ``rows`` runtime rows of a request (``None``: not known,
    an in-request compaction's block) and the tokens the provider reported for what it
    wrote (``None``: not reported)."""

    window: tuple[JsonObject, ...]
    rows: int | None = None
    written_tokens: int | None = None


def _plain(value: object) -> object:
    """``value`` without ``cache_control`` keys, at any depth."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def anchor_of(messages: Sequence[object]) -> Anchor:
    return tuple(json.dumps(_plain(m), sort_keys=True) for m in messages)


def summary_block(blocks: Sequence[JsonObject]) -> JsonObject | None:
    """The compaction block (Anthropic ``content``) or item (Responses
    ``encrypted_content``) that carries a summary; a failed one (``content: null``) is
    nothing to keep."""
    for block in blocks:
        summary = block.get("content", block.get("encrypted_content"))
        if block.get("type") == COMPACTION_TYPE and isinstance(summary, str):
            return dict(block)
    return None


class KeptCompactions:
    """The compaction blocks one client got back, by the messages they summarised."""

    def __init__(self, limit: int = KEPT_COMPACTIONS) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self.limit = limit
        self._kept: OrderedDict[Anchor, KeptWindow] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def keep(self, sent: Sequence[object], blocks: Sequence[JsonObject]) -> None:
        """Remember the summary block of an answer to ``sent`` (the runtime's messages,
        before any kept block was put back)."""
        block = summary_block(blocks)
        if block is not None:
            self.keep_window(sent, (block,))

    def keep_window(
        self,
        sent: Sequence[object],
        window: Sequence[JsonObject],
        *,
        rows: int | None = None,
        written_tokens: int | None = None,
    ) -> None:
        """Remember ``window`` as what replaces ``sent`` (a ``/responses/compact`` answer's
        whole output, with the runtime rows ``sent`` encoded and the tokens it wrote; one
        block or item otherwise)."""
        anchor = anchor_of(sent)
        self._kept.pop(anchor, None)
        kept = tuple(dict(item) for item in window)
        self._kept[anchor] = KeptWindow(kept, rows, written_tokens)
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)

    def _match(self, messages: Sequence[object]) -> Anchor | None:
        """The longest kept anchor that ``messages`` extends."""
        current = anchor_of(messages)
        best: Anchor | None = None
        for anchor in self._kept:
            longer = best is None or len(anchor) > len(best)
            if longer and len(anchor) < len(current) and current[: len(anchor)] == anchor:
                best = anchor
        if best is not None:
            self._kept.move_to_end(best)
        return best

    def kept_for(self, items: Sequence[object]) -> KeptWindow | None:
        """The window ``resend_items`` would put in place of the head of ``items``."""
        best = self._match(items)
        return None if best is None else self._kept[best]

    def resend_items(self, items: list[object]) -> list[object]:
        """Responses: the newest matching window, then the items after its anchor."""
        best = self._match(items)
        return items if best is None else [*self._kept[best].window, *items[len(best) :]]

    def resend(self, messages: list[object]) -> list[object]:
        """Anthropic: ``messages`` with the newest matching block at the head of the
        message after its anchor (a new assistant message if that one is not the
        assistant's)."""
        best = self._match(messages)
        if best is None:
            return messages
        block, at = self._kept[best].window[0], len(best)
        following = as_object(messages[at])
        if following is not None and following.get("role") == "assistant":
            content = following.get("content")
            rest = as_list(content) if isinstance(content, list) else None
            if rest is None:
                rest = [{"type": "text", "text": content}] if isinstance(content, str) else []
            resent: object = {**following, "content": [block, *rest]}
            return [*messages[:at], resent, *messages[at + 1 :]]
        inserted: JsonObject = {"role": "assistant", "content": [block]}
        return [*messages[:at], inserted, *messages[at:]]
