"""Which headers cross the proxy, and the secrets none of its outputs may carry.

Hop-by-hop headers (RFC 9110 7.6.1) describe one connection, not the message: they are
dropped both ways, with any header the ``connection`` header names. ``host`` is the
upstream's (httpx sets it from the URL). Everything else is forwarded as sent, auth
headers included; but what the proxy hands on (to the observer, the sinks, the record)
has the auth headers' values replaced by ``[redacted]``, and any echo of a key in a body,
whole or partly masked, scrubbed.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Final

RawHeaders = list[tuple[bytes, bytes]]

HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
SECRET_HEADERS: Final = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key"})
SECRET_QUERY_KEYS: Final = frozenset({"key", "api_key", "api-key"})
REDACTED: Final = "[redacted]"
_REDACTED_BYTES: Final = REDACTED.encode()
MIN_SECRET_CHARS: Final = 4
"""Shorter values are not scrubbed from bodies: replacing every ``abc`` would garble them."""
_MASKED: Final = re.compile(rb"([A-Za-z0-9_\-]*)\*{3,}([A-Za-z0-9_\-]*)")
"""A key echoed partly masked: OpenAI's 401 quotes its first 8 and last 4 characters
around asterisks (``fakes/serving/auth.py``)."""
_SCHEMES: Final = ("bearer ", "basic ", "token ")


def _dropped(raw: Iterable[tuple[bytes, bytes]]) -> frozenset[bytes]:
    named = set(HOP_BY_HOP)
    for name, value in raw:
        if name.lower() == b"connection":
            named.update(part.strip().lower() for part in value.split(b","))
    return frozenset(named)


def forward_request_headers(raw: Iterable[tuple[bytes, bytes]]) -> RawHeaders:
    """The client's headers for the upstream: hop-by-hop ones and ``host`` dropped."""
    pairs = list(raw)
    dropped = _dropped(pairs) | {b"host"}
    return [(name, value) for name, value in pairs if name.lower() not in dropped]


def forward_response_headers(raw: Iterable[tuple[bytes, bytes]]) -> RawHeaders:
    """The upstream's headers for the client: hop-by-hop ones dropped (the server frames
    the body itself), repeated ones (``set-cookie``) kept as repeated."""
    pairs = list(raw)
    dropped = _dropped(pairs)
    return [(name.lower(), value) for name, value in pairs if name.lower() not in dropped]


def redacted_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """Lower-cased names → values (repeats joined by ``, ``), auth values redacted."""
    out: dict[str, str] = {}
    for name_bytes, value_bytes in raw:
        name = name_bytes.decode("latin-1").lower()
        value = REDACTED if name in SECRET_HEADERS else value_bytes.decode("latin-1")
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def secret_values(
    raw: Iterable[tuple[bytes, bytes]], query: Mapping[str, list[str]]
) -> tuple[bytes, ...]:
    """The keys one request carries (auth header values, with and without their scheme,
    and ``?key=``), long ones first so a key is scrubbed before its suffix could be."""
    found: set[bytes] = set()
    for name, value in raw:
        if name.decode("latin-1").lower() in SECRET_HEADERS:
            text = value.decode("latin-1").strip()
            found.add(text.encode("latin-1"))
            lowered = text.lower()
            for scheme in _SCHEMES:
                if lowered.startswith(scheme):
                    found.add(text[len(scheme) :].strip().encode("latin-1"))
    for key, values in query.items():
        if key.lower() in SECRET_QUERY_KEYS:
            found.update(v.encode() for v in values)
    usable = (s for s in found if len(s) >= MIN_SECRET_CHARS)
    return tuple(sorted(usable, key=len, reverse=True))


def scrub(body: bytes, secrets: tuple[bytes, ...]) -> bytes:
    """``body`` with every secret, and every partly masked echo of one, redacted."""
    if not secrets or not body:
        return body
    for secret in secrets:
        if secret in body:
            body = body.replace(secret, _REDACTED_BYTES)
    if b"***" not in body:
        return body

    def masked(match: re.Match[bytes]) -> bytes:
        head, tail = match.group(1), match.group(2)
        if (head or tail) and any(s.startswith(head) and s.endswith(tail) for s in secrets):
            return _REDACTED_BYTES
        return match.group(0)

    return _MASKED.sub(masked, body)


def scrub_text(text: str, secrets: tuple[bytes, ...]) -> str:
    if not secrets:
        return text
    return scrub(text.encode(), secrets).decode(errors="replace")


def redacted_query(query_string: bytes) -> str:
    """The query as sent, with the values of key parameters redacted."""
    if not query_string:
        return ""
    pairs = urllib.parse.parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    kept = [(k, REDACTED if k.lower() in SECRET_QUERY_KEYS else v) for k, v in pairs]
    return urllib.parse.urlencode(kept)


__all__ = [
    "HOP_BY_HOP",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_QUERY_KEYS",
    "RawHeaders",
    "forward_request_headers",
    "forward_response_headers",
    "redacted_headers",
    "redacted_query",
    "scrub",
    "scrub_text",
    "secret_values",
]
