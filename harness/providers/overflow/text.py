"""What the ``extended`` overflow classifier reads: one body seen several ways.

Provider answers reach users in many wrappings: the provider's JSON, a gateway envelope that
carries it as an escaped string (sometimes twice), an SDK's repr, a log line, a terminal that
wrapped it mid-word. The rules should not care, so a body becomes:

``raw``       the body with backslash escapes undone (three layers: Gemini inside a gateway
              inside a log) and whitespace collapsed, lower-cased;
``decoded``   every string value of the body parsed as JSON, and of JSON found inside those
              strings (Gemini CLI's ``{"error":{"message":"{\\n \\"error\\": ...``), same form;
``keys``      every (key, value) pair of the decoded JSON, for the structural rules.

``in_prose_quote`` tells a user's own sentence quoting a message (``to avoid "prompt is too
long" errors``) from a provider's JSON string (``"message": "prompt is too long``): the
opening quote of the former follows a word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

_ESCAPE_LAYERS: Final = 3  # Gemini's body, inside a gateway's string, inside a log's JSON
_MAX_DEPTH: Final = 16  # bounds hostile nesting
_MAX_EMBEDDED: Final = 4  # JSON documents parsed out of one string value
_MAX_ATTEMPTS: Final = 8  # opening braces tried per string: parsing is linear, keep it so
_WHITESPACE: Final = re.compile(r"\s+")
_TYPOGRAPHIC: Final = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
_QUOTES: Final = "\"'`"


@dataclass(frozen=True, slots=True)
class BodyViews:
    raw: str
    decoded: str
    keys: tuple[tuple[str, object], ...]


def normalise(text: str) -> str:
    """Lower-cased, typographic quotes made plain, every whitespace run one space."""
    return _WHITESPACE.sub(" ", text.translate(_TYPOGRAPHIC)).strip().lower()


def unescape(text: str) -> str:
    """Undo backslash escaping, layer by layer; a body without escapes comes back as is."""
    for _ in range(_ESCAPE_LAYERS):
        undone = (
            text.replace("\\n", " ").replace("\\t", " ").replace('\\"', '"').replace("\\'", "'")
        )
        undone = undone.replace("\\\\", "\\")
        if undone == text:
            break
        text = undone
    return text


def body_views(body: str) -> BodyViews:
    decoded = _loads(body)
    pairs = tuple(_walk(decoded, 0))
    strings = [v for _, v in pairs if isinstance(v, str)]
    return BodyViews(
        raw=normalise(unescape(body)),
        decoded=normalise(" ".join(strings)),
        keys=tuple((k, v) for k, v in pairs if k is not None),
    )


def in_prose_quote(text: str, start: int) -> bool:
    """Is ``text[start]`` inside a quotation that a sentence of prose opened?

    The opening quote is the last quote character before ``start`` of a kind that occurs an
    odd number of times in the sentence so far (an apostrophe inside a word, as in
    ``model's``, is no quote). Prose opened it when a space parts it from the word before
    (or from that word's comma): ``avoid "``, ``the code ``` ``, ``remaining, ``` ``. A
    string literal's prefix (``b'{``), a JSON string (``": "``), a repr (``message="``), a
    status (``400 "``) or a body's first character open none.
    """
    sentence_start = max(text.rfind(". ", 0, start), text.rfind("\n", 0, start)) + 1
    for quote in _QUOTES:
        marks = [i for i in range(sentence_start, start) if _is_quote(text, i, quote)]
        if len(marks) % 2 == 0:
            continue
        before = text[sentence_start : marks[-1]]
        if before[-1:].isspace() and before.rstrip().removesuffix(",")[-1:].isalpha():
            return True
    return False


def _is_quote(text: str, index: int, quote: str) -> bool:
    if text[index] != quote:
        return False
    return not (
        0 < index < len(text) - 1 and text[index - 1].isalnum() and text[index + 1].isalnum()
    )


def _loads(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _embedded(text: str) -> Iterator[object]:
    """JSON documents inside a string value: a gateway's escaped upstream body."""
    found = attempts = 0
    start = text.find("{")
    end = text.rfind("}")
    while 0 <= start < end and found < _MAX_EMBEDDED and attempts < _MAX_ATTEMPTS:
        attempts += 1
        value = _loads(text[start : end + 1])
        if value is not None:
            found += 1
            yield value
            break  # the outermost document holds the rest
        start = text.find("{", start + 1)


def _walk(value: object, depth: int) -> Iterator[tuple[str | None, object]]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key), item
            yield from _walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield None, item
            yield from _walk(item, depth + 1)
    elif isinstance(value, str) and "{" in value:
        for inner in _embedded(value):
            yield from _walk(inner, depth + 1)
