"""Row fingerprints: what the observer keeps of a row instead of the row, packed at rest.

A session is remembered as the prints of its last request and of the answer to it, never
their text: an idle session holds a few dozen bytes a row. A print carries every fact the
inference reads (role, a 64-bit keyed digest of role and content, the runtime's token
estimate of the row as an older and as a current-turn row, whether it opens a turn, the
tool-call ids it carries or answers as digests, whether it is the breadcrumb), each
measured by the runtime's own rules so that what the observer infers is counted like
what the reference agent reports.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Final, overload

from harness.runtime.carriers import is_prompt_tool_carrier
from harness.runtime.constants import BREADCRUMB
from harness.runtime.estimate import message_tokens
from harness.runtime.hygiene import assistant_tool_call_ids, tool_call_id_of
from harness.runtime.messages import ChatMessage, from_json, to_json
from harness.runtime.turns import is_turn_boundary

_DIGEST_BYTES: Final = 8
_UTF8: Final = ("utf-8", "surrogatepass")
_blake2b = hashlib.blake2b
# Role and content are joined by a byte no UTF-8 text contains, so ("a", "bc") and
# ("ab", "c") never hash alike.
_SEPARATOR: Final = b"\xff"

_ROLES: Final = {role: role for role in ("system", "user", "assistant", "tool")}
_OPENS_TURN: Final = 1
_PLAIN_USER: Final = 2
_BREADCRUMB: Final = 4


def digest(*parts: str) -> int:
    """A 64-bit blake2b digest of ``parts``: equal parts, equal digests; two different
    rows collide with a chance of about 2⁻⁶⁴."""
    joined = _SEPARATOR.join(part.encode("utf-8", "surrogatepass") for part in parts)
    return int.from_bytes(_blake2b(joined, digest_size=_DIGEST_BYTES).digest(), "big")


def _row_digest(role: str, content: str) -> int:
    """``digest(role, content)`` without the generic join (one call a row)."""
    joined = role.encode("utf-8", "surrogatepass") + _SEPARATOR + content.encode(*_UTF8)
    return int.from_bytes(_blake2b(joined, digest_size=_DIGEST_BYTES).digest(), "big")


@dataclass(frozen=True, slots=True)
class RowPrint:
    """One row's fingerprint. ``key`` is ``digest(role, content)``; ``older_tokens`` and
    ``current_tokens`` are the runtime's estimate of the row as an older row and as a row
    of the current user turn (they differ only for tool-result carriers that declare
    images); ``calls`` are digests of the tool-call ids an assistant row carries,
    ``answers`` the digest of the tool-call id a tool row answers (``None``: none)."""

    role: str
    key: int
    older_tokens: int
    current_tokens: int
    flags: int
    calls: tuple[int, ...] = ()
    answers: int | None = None

    @property
    def opens_turn(self) -> bool:
        """``harness.runtime.turns.is_turn_boundary`` of the row."""
        return bool(self.flags & _OPENS_TURN)

    @property
    def plain_user(self) -> bool:
        """A user row that is not a prompt-mode tool carrier: it anchors the current turn
        for the estimate (``harness.runtime.estimate.current_turn_start``)."""
        return bool(self.flags & _PLAIN_USER)

    @property
    def is_breadcrumb(self) -> bool:
        """A user row whose text is the reference's breadcrumb, byte for byte."""
        return bool(self.flags & _BREADCRUMB)

    @property
    def is_system(self) -> bool:
        return self.role == "system"


def identity_text(row: ChatMessage) -> str:
    """The content a row is recognised by. A native tool-call row's arguments are read as
    JSON and written back compactly with sorted keys: runtimes parse the arguments a model
    sent and serialise them again for the next request (LangChain writes ``{"a": 1}`` where
    the model said ``{"a":1}``), and that is the same row, not a new one."""
    content = row.content
    if row.role != "assistant" or not content.startswith("{"):
        return content
    envelope = from_json(content)
    calls = envelope.get("tool_calls") if isinstance(envelope, dict) else None
    if not isinstance(envelope, dict) or not isinstance(calls, list):
        return content
    normalised = [_call_identity(call) for call in calls]
    return to_json({**envelope, "tool_calls": normalised})


def _call_identity(call: object) -> object:
    if not isinstance(call, dict) or not isinstance(call.get("arguments"), str):
        return call
    parsed = from_json(call["arguments"])
    if parsed is None and call["arguments"].strip() != "null":
        return call  # not JSON: kept verbatim
    return {**call, "arguments": json.dumps(parsed, sort_keys=True, separators=(",", ":"))}


def print_row(row: ChatMessage) -> RowPrint:
    """The fingerprint of one canonical row."""
    role, content = row.role, row.content
    flags = _OPENS_TURN if is_turn_boundary(row) else 0
    calls: tuple[int, ...] = ()
    answers: int | None = None
    older = message_tokens(row, current_carrier=False)
    # The two estimates differ only for tool-result carriers (a tool row, a prompt-mode
    # user carrier): every other row is priced alike wherever it stands.
    current = older
    if role == "user":
        if is_prompt_tool_carrier(content):
            current = message_tokens(row, current_carrier=True)
        else:
            flags |= _PLAIN_USER
        if content == BREADCRUMB:
            flags |= _BREADCRUMB
    elif role == "assistant":
        calls = tuple(digest(call_id) for call_id in assistant_tool_call_ids(content) or ())
    elif role == "tool":
        current = message_tokens(row, current_carrier=True)
        answered = tool_call_id_of(content)
        answers = None if answered is None else digest(answered)
    return RowPrint(
        # Every print of a known role shares one string object: the print keeps no text.
        role=_ROLES.get(role, role),
        key=_row_digest(role, identity_text(row)),
        older_tokens=older,
        current_tokens=current,
        flags=flags,
        calls=calls,
        answers=answers,
    )


_IMAGE_MARKER: Final = re.compile(r"\[IMAGE:[^\]]*\]")


def _images_only(row: ChatMessage) -> bool:
    return (
        row.role == "user"
        and bool(row.content.strip())
        and not _IMAGE_MARKER.sub("", row.content).strip()
    )


def print_rows(rows: Iterable[ChatMessage]) -> tuple[RowPrint, ...]:
    """The prints of ``rows``. A user row that starts with the breadcrumb and goes on is
    two rows: wires that merge consecutive user messages (Anthropic) carry the breadcrumb
    and the turn after it as one message, and the decoders read it back as one row."""
    out: list[RowPrint] = []
    for row in rows:
        if out and out[-1].role == "tool" and _images_only(row):
            # A tool result's images, sent as a user message after it (wires whose tool
            # messages cannot carry images): part of the tool round, not a new turn.
            out.append(replace(print_row(row), flags=0))
            continue
        if row.role == "user" and len(row.content) > len(BREADCRUMB):
            head, rest = row.content[: len(BREADCRUMB)], row.content[len(BREADCRUMB) :]
            if head == BREADCRUMB:
                out += (print_row(ChatMessage("user", head)), print_row(ChatMessage("user", rest)))
                continue
        out.append(print_row(row))
    return tuple(out)


def estimate_prints(prints: Sequence[RowPrint]) -> int:
    """``harness.runtime.estimate_history_tokens`` of the rows these prints stand for:
    rows from the last plain user row on are priced as current-turn rows (all of them
    when there is none), the others as older rows."""
    anchor = 0
    for index in range(len(prints) - 1, -1, -1):
        if prints[index].plain_user:
            anchor = index
            break
    older = sum(p.older_tokens for p in prints[:anchor])
    return older + sum(p.current_tokens for p in prints[anchor:])


def keys_of(prints: Sequence[RowPrint]) -> tuple[int, ...]:
    """The rows' keys (packed prints read them from their column: no row is made)."""
    if isinstance(prints, PackedPrints):
        return prints.keys
    return tuple(p.key for p in prints)


def shared_prefix(first: Sequence[RowPrint], second: Sequence[RowPrint]) -> int:
    """How many leading rows ``first`` and ``second`` share."""
    count = 0
    for mine, theirs in zip(keys_of(first), keys_of(second), strict=False):
        if mine != theirs:
            break
        count += 1
    return count


def leading_system(prints: Sequence[RowPrint]) -> int:
    """How many system rows lead (``harness.runtime.turns.leading_system_count``)."""
    count = 0
    for row in prints:
        if not row.is_system:
            break
        count += 1
    return count


# At rest: a session's prints as columns of fixed-size numbers instead of one object a
# row. An idle session keeps its last request's and answer's prints until its next call;
# as ``RowPrint`` objects they cost over a hundred bytes a row, as columns about twenty
# (an 8-byte key, two 4-byte token counts, a flag byte and a role byte), plus 8 bytes a
# tool-call id for the rows that carry or answer one.

_ROLE_ORDER: Final = tuple(_ROLES)
_CODES: Final = {role: code for code, role in enumerate(_ROLE_ORDER)}
_OTHER: Final = 255
_TOKEN_LIMIT: Final = 2**32
_ANSWERS: Final = 0x80
"""Flag bit of a packed row: it answers a tool call (its id's digest is in ``_answers``)."""


class PackedPrints(Sequence[RowPrint]):
    """The prints of one request (or answer), packed; equal in content to ``prints``."""

    __slots__ = (
        "_answers",
        "_answers_before",
        "_call_ends",
        "_calls",
        "_current",
        "_flags",
        "_keys",
        "_older",
        "_rare",
        "_roles",
    )

    def __init__(self, prints: Sequence[RowPrint]) -> None:
        self._keys = array("Q", [p.key for p in prints])
        # Token counts past 4 bytes (16 GiB of text in one row) are kept whole as rare.
        self._older = array("I", [min(p.older_tokens, _TOKEN_LIMIT - 1) for p in prints])
        self._current = array("I", [min(p.current_tokens, _TOKEN_LIMIT - 1) for p in prints])
        self._flags = bytes(p.flags | (_ANSWERS if p.answers is not None else 0) for p in prints)
        self._roles = bytes(_CODES.get(p.role, _OTHER) for p in prints)
        self._answers = array("Q", [p.answers for p in prints if p.answers is not None])
        # How many rows before each answer one (none kept when no row answers a call).
        before = array("I", accumulate((p.answers is not None for p in prints), initial=0))
        self._answers_before = before if self._answers else None
        self._calls = array("Q", [call for p in prints for call in p.calls])
        # Where each row's calls end in ``_calls`` (none kept when no row carries a call).
        ends = array("I", accumulate(len(p.calls) for p in prints))
        self._call_ends = ends if self._calls else None
        rare = {
            index: p
            for index, p in enumerate(prints)
            if p.role not in _CODES or max(p.older_tokens, p.current_tokens) >= _TOKEN_LIMIT
        }
        self._rare = rare or None  # rows of an unknown role or outsized: kept whole

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> RowPrint: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[RowPrint, ...]: ...
    def __getitem__(self, index: int | slice) -> RowPrint | tuple[RowPrint, ...]:
        if isinstance(index, slice):
            return tuple(self._row(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._row(index)

    def __iter__(self) -> Iterator[RowPrint]:
        return (self._row(i) for i in range(len(self)))

    def _row(self, index: int) -> RowPrint:
        if self._rare is not None and index in self._rare:
            return self._rare[index]
        flags = self._flags[index]
        answers = None
        if flags & _ANSWERS and self._answers_before is not None:
            answers = self._answers[self._answers_before[index]]
        calls: tuple[int, ...] = ()
        if self._call_ends is not None:
            start = self._call_ends[index - 1] if index else 0
            calls = tuple(self._calls[start : self._call_ends[index]])
        return RowPrint(
            role=_ROLE_ORDER[self._roles[index]],
            key=self._keys[index],
            older_tokens=self._older[index],
            current_tokens=self._current[index],
            flags=flags & ~_ANSWERS,
            calls=calls,
            answers=answers,
        )

    @property
    def keys(self) -> tuple[int, ...]:
        return tuple(self._keys)


def pack(prints: Sequence[RowPrint]) -> PackedPrints:
    return prints if isinstance(prints, PackedPrints) else PackedPrints(prints)
