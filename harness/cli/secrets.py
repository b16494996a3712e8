"""An API key written into ``--base-url`` (``https://user:KEY@host/v1``) is taken out of the
URL before anything prints, logs, records or sends that URL.

httpx would send such userinfo as HTTP Basic credentials, which no provider here accepts,
and every message that quotes the endpoint would quote the key. So the key becomes the
run's API key (sent as the wire's own auth header, as ``--api-key-env`` would) and the
URL goes on without it.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SplitURL:
    url: str
    """The URL without userinfo."""
    key: str | None
    """The password of the userinfo, else its user name; ``None`` without userinfo."""

    def __repr__(self) -> str:
        return f"SplitURL(url={self.url!r}, key={'<hidden>' if self.key else None})"


def split_userinfo(url: str) -> SplitURL:
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return SplitURL(url, None)
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    key = urllib.parse.unquote(password or user) or None
    return SplitURL(urllib.parse.urlunsplit(parts._replace(netloc=hostport)), key)


__all__ = ["SplitURL", "split_userinfo"]
