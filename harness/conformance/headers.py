"""``--header NAME:VALUE``: extra request headers for an endpoint behind a gateway (a
tenant, a route, the gateway's own key), bounded, and never shown when they look like
credentials.

A header *looks like auth* when its name is one providers and gateways authenticate
with, or says so (``auth``, ``key``, ``token``, ``secret``...), or its value starts with
an auth scheme (``Bearer``, ``Basic``, ``Token``). Its value is then written nowhere:
not on the terminal, not in the reports, and redacted from every echoed body, as the API
key is. Other values are shown as given (a tenant name is what the reader needs to see).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

MAX_HEADERS: Final = 16
MAX_HEADER_NAME: Final = 128
MAX_HEADER_VALUE: Final = 8192
HIDDEN: Final = "[redacted]"
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP header name (RFC 9110 ``token``)."""
_AUTH_WORDS: Final = (
    "auth", "key", "token", "secret", "cookie", "session", "password", "credential",
    "signature",
)  # fmt: skip
_AUTH_SCHEMES: Final = ("bearer ", "basic ", "token ", "digest ")
SET_BY_THE_CLIENT: Final = frozenset(
    {"host", "content-length", "content-type", "transfer-encoding", "connection"}
)
"""Headers the HTTP client writes itself: one given here would contradict the body."""

Header = tuple[str, str]


def looks_like_auth(name: str, value: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _AUTH_WORDS) or value.lower().startswith(_AUTH_SCHEMES)


def parse_header(text: str) -> Header:
    """``NAME:VALUE`` (spaces around the value dropped); ``ValueError`` names what is
    wrong and never repeats the value."""
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _TOKEN.fullmatch(name) or len(name) > MAX_HEADER_NAME:
        shown = name if _TOKEN.fullmatch(name) and len(name) <= MAX_HEADER_NAME else "(not shown)"
        raise ValueError(
            f"--header: expected NAME:VALUE with NAME an HTTP header name of at most"
            f" {MAX_HEADER_NAME} characters, found {shown!r}"
        )
    if name.lower() in SET_BY_THE_CLIENT:
        raise ValueError(f"--header: {name} is written by the HTTP client, not by an option")
    if not value or len(value) > MAX_HEADER_VALUE or any(c in value for c in "\r\n\0"):
        raise ValueError(
            f"--header {name}: expected a value of 1 to {MAX_HEADER_VALUE} characters on one"
            " line (not shown)"
        )
    return name, value


def parse_headers(texts: Sequence[str]) -> tuple[Header, ...]:
    """Every ``--header``, at most ``MAX_HEADERS`` of them, each name once."""
    if len(texts) > MAX_HEADERS:
        raise ValueError(f"--header: at most {MAX_HEADERS}, found {len(texts)}")
    headers = tuple(parse_header(text) for text in texts)
    names = [name.lower() for name, _ in headers]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"--header: each name once, found {twice[0]!r} twice")
    return headers


def secrets_of(headers: Sequence[Header]) -> tuple[str, ...]:
    """The values no output may carry: each auth-like value, and without its scheme
    (``Bearer k``'s ``k``: what an endpoint quotes back)."""
    found: list[str] = []
    for name, value in headers:
        if looks_like_auth(name, value):
            scheme, _, credential = value.partition(" ")
            bare = credential.strip() if scheme.lower() + " " in _AUTH_SCHEMES else ""
            found += [value, bare] if bare else [value]
    return tuple(found)


def shown(headers: Sequence[Header]) -> str:
    """``X-Tenant: acme, Authorization: [redacted]``."""
    return ", ".join(
        f"{name}: {HIDDEN if looks_like_auth(name, value) else value}" for name, value in headers
    )
