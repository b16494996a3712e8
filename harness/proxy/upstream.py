"""Where a request to the proxy goes: ``--upstream`` plus the rest of the request's path.

``--upstream`` is the provider's base URL as a client would be given it, path included
(``http://127.0.0.1:8001/v1``). A client may be pointed at the proxy with the same path
(``http://127.0.0.1:P/v1``) or without it (``http://127.0.0.1:P``): a request path that
starts with the upstream's path (on a segment boundary) has it once, so both
``/v1/chat/completions`` and ``/chat/completions`` go to ``.../v1/chat/completions``;
``/v1beta/...`` against an upstream path ``/v1`` is not a match and gets the prefix.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from harness.runtime import HarnessError

SCHEMES = ("http", "https")


class UpstreamError(HarnessError, ValueError):
    """``--upstream`` is not a URL the proxy can forward to; the message says why."""


@dataclass(frozen=True, slots=True)
class Upstream:
    origin: str
    """``scheme://host[:port]``."""
    prefix: str
    """The base URL's path without its trailing slash (``""`` for none), e.g. ``/v1``."""

    @property
    def base_url(self) -> str:
        return self.origin + self.prefix

    def path_for(self, raw_path: str) -> str:
        """The upstream path of a request to the proxy at ``raw_path`` (percent-encoding
        kept as the client sent it)."""
        path = raw_path if raw_path.startswith("/") else "/" + raw_path
        if self.prefix and (path == self.prefix or path.startswith(self.prefix + "/")):
            return path
        return self.prefix + path


def parse_upstream(url: str) -> Upstream:
    """``UpstreamError`` for anything but ``http(s)://host[:port][/path]``: no key in the
    URL (clients send keys in headers, which the proxy forwards), no query, no fragment."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise UpstreamError(f"not a URL ({error})") from None
    if parts.scheme not in SCHEMES:
        raise UpstreamError(f"expected an http:// or https:// URL, found scheme {parts.scheme!r}")
    if not parts.hostname:
        raise UpstreamError("the URL names no host")
    if "@" in parts.netloc:
        raise UpstreamError("the URL carries user info; clients send keys in headers")
    if parts.query or parts.fragment:
        raise UpstreamError("expected a base URL without query or fragment")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    origin = f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")
    return Upstream(origin, parts.path.rstrip("/"))


__all__ = ["Upstream", "UpstreamError", "parse_upstream"]
