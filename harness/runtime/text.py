"""Text helpers that reproduce Rust's string semantics where they differ from Python's,
and the two wordings every message shares (a count and its noun; "did you mean")."""

import difflib
from collections.abc import Collection

# Rust's `char::is_whitespace` (Unicode White_Space). Python's `str.isspace` also treats
# U+001C..U+001F as whitespace, so `str.strip()` would trim rows Rust leaves alone.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def rust_trim(text: str) -> str:
    return text.strip(RUST_WHITESPACE)


def rust_trim_start(text: str) -> str:
    return text.lstrip(RUST_WHITESPACE)


def utf8_len(text: str) -> int:
    """Length in UTF-8 bytes (Rust's `str::len`). ``isascii`` is a flag check in CPython,
    so ASCII text (most code, logs and prose) is measured without encoding it."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def div_ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 call``, ``3 calls``, ``1,204 recoveries``: a count and its noun, agreed (the
    plural is ``noun + "s"`` unless given)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def did_you_mean(word: object, known: Collection[object]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``known``, or ``""``: the one hint
    every closed set of words gives (scenario keys, provider kinds, fakes)."""
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
