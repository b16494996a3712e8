"""How ``HistoryWindow`` (``bench/history_window.py``) prices a row, as the runtime's
estimate does (``harness.runtime.estimate``), with shortcuts that keep the result exact.

Pricing (spec 5.3). A carrier's cost depends on one positional fact: whether it sits at or
after the last plain (non-carrier) user row of the list it is priced in, the *anchor*. For
a candidate that keeps the body from row ``s`` on, with ``A`` the anchor of the body:

- ``s <= A`` (the anchor is kept): rows before ``A`` are priced *older*, rows from ``A``
  on *current*, and a carrier breadcrumb row is older;
- otherwise no plain user row is left in the body: every kept body row is current, and so
  is a carrier breadcrumb row (a plain-user breadcrumb costs the same either way).

So the window keeps a running sum of every body row's older cost (for carriers that is the
plain byte formula), and a running sum of *current* costs over the *tail*: the rows from
the last plain user row ever appended (or from the first body row, if there was none) to
the end. Anchors only move forward and drops only remove a prefix, so a row before the
tail is never priced current again. Appending a plain user row starts a new tail, which
re-prices every carrier of the previous one as older at no cost. Current carrier costs
(which parse the carrier's declaration) are computed lazily, for tail rows only, when a
query needs them.
"""

from __future__ import annotations

from harness.runtime.carriers import is_prompt_tool_carrier
from harness.runtime.constants import IMAGE_MARKER_PREFIX
from harness.runtime.estimate import message_tokens, row_tokens
from harness.runtime.messages import ChatMessage
from harness.runtime.text import RUST_WHITESPACE, utf8_len

RUST_WHITESPACE_SET = frozenset(RUST_WHITESPACE)


def plain_tokens(content: str) -> int:
    """``plain_message_tokens`` with a shortcut for ASCII text (bytes = characters)."""
    return row_tokens(len(content) if content.isascii() else utf8_len(content))


def is_carrier(role: str, content: str) -> bool:
    return role == "tool" or (role == "user" and is_prompt_tool_carrier(content))


def current_cost(row: ChatMessage) -> int:
    """``message_tokens(row, current_carrier=True)``."""
    if is_carrier(row.role, row.content):
        return message_tokens(row, current_carrier=True)
    return older_cost(row)


def older_cost(row: ChatMessage) -> int:
    """``message_tokens(row, current_carrier=False)``: only image-bearing plain user rows
    differ from the byte formula."""
    role, content = row.role, row.content
    if role == "user" and IMAGE_MARKER_PREFIX in content and not is_prompt_tool_carrier(content):
        return message_tokens(row, current_carrier=False)
    return plain_tokens(content)
