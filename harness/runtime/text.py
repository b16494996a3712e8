"""Text helpers that reproduce Rust's string semantics where they differ from Python's."""

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
