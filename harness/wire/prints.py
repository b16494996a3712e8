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
from typing import Final, NamedTuple, overload

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
_ROLE_PREFIX: Final = {role: role.encode() + _SEPARATOR for role in _ROLES}
_OPENS_TURN: Final = 1
_PLAIN_USER: Final = 2
_BREADCRUMB: Final = 4


def digest(*parts: str) -> int:
    """A 64-bit blake2b digest of ``parts``: equal parts, equal digests; two different
    rows collide with a chance of about 2⁻⁶⁴."""
    joined = _SEPARATOR.join(part.encode("utf-8", "surrogatepass") for part in parts)
    return int.from_bytes(_blake2b(joined, digest_size=_DIGEST_BYTES).digest(), "big")


def _row_digest(role: str, content: str) -> int:
    """``digest(role, content)`` without the generic join (one call a row): the hash is
    fed the role's bytes and separator (kept per known role), then the content's."""
    prefix = _ROLE_PREFIX.get(role)
    if prefix is None:
        prefix = role.encode(*_UTF8) + _SEPARATOR
    hashed = _blake2b(prefix, digest_size=_DIGEST_BYTES)
    hashed.update(content.encode(*_UTF8))
    return int.from_bytes(hashed.digest(), "big")


class RowPrint(NamedTuple):
    """One row's fingerprint. ``key`` is ``digest(role, content)``; ``older_tokens`` and
    ``current_tokens`` are the runtime's estimate of the row as an older row and as a row
    of the current user turn (they differ only for tool-result carriers that declare
    images); ``calls`` are digests of the tool-call ids an assistant row carries,
    ``answers`` the digest of the tool-call id a tool row answers (``None``: none).

    A named tuple, immutable like the frozen dataclass it was: one is made per row of
    every request (and per row of the previous request, unpacked), and a frozen
    dataclass's ``__init__`` sets each of its seven fields through ``object.__setattr__``,
    which cost as much as the rest of the print."""

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


_new_print: Final = tuple.__new__
"""``_new_print(RowPrint, fields)``: a print from its seven fields in order, without the
named tuple's Python-level ``__new__``."""


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
        ids = assistant_tool_call_ids(content)
        if ids:
            calls = tuple(digest(call_id) for call_id in ids)
    elif role == "tool":
        current = message_tokens(row, current_carrier=True)
        answered = tool_call_id_of(content)
        answers = None if answered is None else digest(answered)
    # Every print of a known role shares one string object: the print keeps no text.
    key = _row_digest(role, identity_text(row))
    return _new_print(
        RowPrint, (_ROLES.get(role, role), key, older, current, flags, calls, answers)
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
            out.append(print_row(row)._replace(flags=0))
            continue
        content = row.content
        if row.role == "user" and len(content) > len(BREADCRUMB) and content.startswith(BREADCRUMB):
            rest = content[len(BREADCRUMB) :]
            out += (
                print_row(ChatMessage("user", BREADCRUMB)),
                print_row(ChatMessage("user", rest)),
            )
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
# as ``RowPrint`` objects they cost over a hundred bytes a row, as columns about eleven:
# an 8-byte key, a 2-byte token count (4 bytes past 65,535 tokens; the current-turn count
# beside it only when some row's differs) and one byte of role and flags; a row that
# carries tool calls adds a byte for their count and 8 bytes a call, a row that answers
# one 8 bytes. The columns are few objects: each array or bytes object costs its header
# (about 64 bytes) whatever it holds, so columns a request has no use for are not made.

_ROLE_ORDER: Final = tuple(_ROLES)
_CODES: Final = {role: code for code, role in enumerate(_ROLE_ORDER)}
_ROLE_SHIFT: Final = 4
_FLAG_BITS: Final = 0x07
_ANSWERS: Final = 0x08
"""Meta bit of a packed row: it answers a tool call (its id's digest is in the answers)."""
_ANSWER_COUNTS: Final = bytes(int(bool(b & _ANSWERS)) for b in range(256))
"""``bytes.translate`` table: each meta byte to 1 when its row answers a call, else 0."""
_TOKEN_CODES: Final = ("H", "I")
_MAX_CALLS: Final = 255


class PackedPrints(Sequence[RowPrint]):
    """The prints of one request (or answer), packed; equal in content to ``prints``.

    ``_tokens`` holds the older estimates, then the current-turn ones when any differs;
    ``_meta`` a byte a row (role code, flags, the answers bit); ``_extra`` is ``None``
    unless a row carries or answers a tool call or must be kept whole: then the answered
    ids' digests, the calls' digests, each row's call count, and the rows kept whole
    (an unknown role, or an estimate past 4 bytes)."""

    __slots__ = ("_extra", "_keys", "_meta", "_tokens")

    _tokens: array[int]
    _extra: tuple[array[int], array[int], bytes, dict[int, RowPrint]] | None

    def __init__(self, prints: Sequence[RowPrint]) -> None:
        self._keys = array("Q", [p.key for p in prints])
        older = [p.older_tokens for p in prints]
        current = [p.current_tokens for p in prints]
        rare: dict[int, RowPrint] = {}
        try:
            self._tokens = _token_column(older if older == current else older + current)
        except OverflowError:  # an estimate past 4 bytes (16 GiB of text in one row)
            rare = {i: p for i, p in enumerate(prints) if max(older[i], current[i]) >> 32}
            older = [0 if i in rare else n for i, n in enumerate(older)]
            current = [0 if i in rare else n for i, n in enumerate(current)]
            self._tokens = _token_column(older if older == current else older + current)
        self._meta = bytes(
            p.flags
            | (_ANSWERS if p.answers is not None else 0)
            | (_CODES.get(p.role, 0) << _ROLE_SHIFT)
            for p in prints
        )
        rare.update((i, p) for i, p in enumerate(prints) if p.role not in _CODES)
        answers = [p.answers for p in prints if p.answers is not None]
        calls = [call for p in prints for call in p.calls]
        rare.update((i, p) for i, p in enumerate(prints) if len(p.calls) > _MAX_CALLS)
        self._extra = None
        if answers or calls or rare:
            counts = bytes(0 if i in rare else len(p.calls) for i, p in enumerate(prints))
            calls = [c for i, p in enumerate(prints) if i not in rare for c in p.calls]
            self._extra = (array("Q", answers), array("Q", calls), counts, rare)

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> RowPrint: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[RowPrint, ...]: ...
    def __getitem__(self, index: int | slice) -> RowPrint | tuple[RowPrint, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return tuple(self._rows(start, stop))
            return tuple(self[i] for i in range(start, stop, step))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return next(self._rows(index, index + 1))

    def __iter__(self) -> Iterator[RowPrint]:
        return self._rows(0, len(self))

    def _rows(self, start: int, stop: int) -> Iterator[RowPrint]:
        """Rows ``start`` to ``stop``, read in order: where a row's call ids and answered id
        stand follows from the rows before it."""
        count, tokens, meta, keys = len(self), self._tokens, self._meta, self._keys
        extra = self._extra
        shift = count if len(tokens) > count else 0
        if extra is None:
            for index in range(start, stop):
                code = meta[index]
                role = _ROLE_ORDER[code >> _ROLE_SHIFT]
                older, current = tokens[index], tokens[index + shift]
                fields = (role, keys[index], older, current, code & _FLAG_BITS, (), None)
                yield _new_print(RowPrint, fields)
            return
        answers, calls, counts, rare = extra
        answered = sum(meta[:start].translate(_ANSWER_COUNTS))
        called = sum(counts[:start])
        for index in range(start, stop):
            code, taken = meta[index], counts[index]
            answer = None
            if code & _ANSWERS:
                answer = answers[answered]
                answered += 1
            if index in rare:
                yield rare[index]
            else:
                role = _ROLE_ORDER[code >> _ROLE_SHIFT]
                older, current = tokens[index], tokens[index + shift]
                ids = tuple(calls[called : called + taken])
                full = (role, keys[index], older, current, code & _FLAG_BITS, ids, answer)
                yield _new_print(RowPrint, full)
            called += taken

    @property
    def keys(self) -> tuple[int, ...]:
        return tuple(self._keys)


def _token_column(counts: list[int]) -> array[int]:
    """The counts in the narrowest array that holds them (``OverflowError``: one is past
    4 bytes)."""
    try:
        return array(_TOKEN_CODES[0], counts)
    except OverflowError:
        return array(_TOKEN_CODES[1], counts)


def pack(prints: Sequence[RowPrint]) -> PackedPrints:
    return prints if isinstance(prints, PackedPrints) else PackedPrints(prints)
