"""The ``provider`` counter: a deterministic tokenizer of the fakes' own.

Real providers count with their own tokenizers, which disagree with the runtime's
``ceil(bytes / 4) + 4`` estimate in systematic ways. This tokenizer reproduces those
disagreements, without vocabularies or downloads, so a request the runtime believes fits
can still overflow:

- text is split left to right into pieces by one regular expression:
  an ASCII word with an optional leading space (``" hello"``), a group of up to three
  digits, a run of whitespace, a run of ASCII punctuation, or a single non-ASCII
  character;
- a word of up to 10 letters is **1 token** (longer words ``ceil(len / 4)``), so plain
  English costs about 1 token per word where the estimate charges ~1.4: *fewer*;
- digits cost 1 token per group of three, whitespace runs ``ceil(len / 4)``;
- punctuation runs cost ``ceil(len / 2)``: JSON and code (``{"``, ``":"``, ``});``) cost
  *more* than the estimate;
- every non-ASCII character is 1 token (2 for 4-byte characters such as emoji), where the
  estimate charges 0.5-1: *more*;
- each row adds ``MESSAGE_OVERHEAD`` = 5 framing tokens (start, role, separator, end,
  newline) instead of the estimate's 4, and each request adds ``REPLY_PRIMING`` = 3;
- each loadable ``[IMAGE:<ref>]`` marker in a user row, and each declared image
  attachment of a native tool row, is a flat ``IMAGE_TOKENS`` = 765 (a 1024x1024 image
  in OpenAI's tile pricing), in any turn; marker text is not counted;
- each tool schema costs ``TOOL_OVERHEAD`` = 8 plus its name, description and compact
  JSON parameters tokenized as above.

Appending text never lowers a count: earlier pieces are unchanged and the last piece's
cost does not decrease as it grows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from fakes.counting.estimate import div_ceil, is_prompt_carrier, strip_image_markers
from fakes.rows import Row, ToolSchema, compact_json

MESSAGE_OVERHEAD = 5
REPLY_PRIMING = 3
IMAGE_TOKENS = 765
TOOL_OVERHEAD = 8
SHORT_WORD_LETTERS = 10
ASTRAL_UTF8_BYTES = 4
"""A character outside the Basic Multilingual Plane: 4 bytes in UTF-8, 2 tokens."""

_PIECE = re.compile(
    r"""
      (?P<word>\ ?[A-Za-z]+)
    | (?P<digits>[0-9]{1,3})
    | (?P<space>\s+)
    | (?P<punct>[!-/:-@\[-`{-~]+)
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


def _piece_tokens(kind: str | None, piece: str) -> int:
    if kind == "word":
        letters = len(piece.lstrip(" "))
        return 1 if letters <= SHORT_WORD_LETTERS else div_ceil(letters, 4)
    if kind == "space":
        return div_ceil(len(piece), 4)
    if kind == "punct":
        return div_ceil(len(piece), 2)
    if kind == "other" and len(piece.encode("utf-8", "surrogatepass")) == ASTRAL_UTF8_BYTES:
        return 2
    return 1  # digits group, or one non-ASCII / control character


def tokenize_text(text: str) -> int:
    """Tokens of ``text`` alone, without framing."""
    return sum(_piece_tokens(m.lastgroup, m.group()) for m in _PIECE.finditer(text))


def _declared_images(content: str) -> int:
    try:
        value = json.loads(content)
    except ValueError:
        return 0
    if not isinstance(value, dict) or not isinstance(value.get("attachments"), list):
        return 0
    return sum(1 for a in value["attachments"] if isinstance(a, dict) and a.get("kind") == "image")


def row_tokens(row: Row) -> int:
    if row.role == "user" and not is_prompt_carrier(row.content):
        text, images = strip_image_markers(row.content)
        return tokenize_text(text) + IMAGE_TOKENS * images + MESSAGE_OVERHEAD
    images = _declared_images(row.content) if row.role == "tool" else 0
    return tokenize_text(row.content) + IMAGE_TOKENS * images + MESSAGE_OVERHEAD


def count_rows(rows: Sequence[Row]) -> int:
    if not rows:
        return 0
    return sum(row_tokens(row) for row in rows) + REPLY_PRIMING


def count_tools(tools: Sequence[ToolSchema]) -> int:
    return sum(
        TOOL_OVERHEAD
        + tokenize_text(tool.name)
        + tokenize_text(tool.description)
        + tokenize_text(compact_json(dict(tool.parameters)))
        for tool in tools
    )
