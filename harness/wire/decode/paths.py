"""Which requests are generation calls, and what a path says about them (the model of
Gemini and Bedrock, whether they stream).

Only ``POST`` to a wire's generation path is a generation call; model listings, token
counting (``/v1/messages/count_tokens``, ``:countTokens``), ``/v1/responses/compact``,
``GET /v1/responses/{id}``, health and metrics paths are not. Paths are matched by their
ending, so prefixes (``/openai/deployments/{name}``, ``/api/v1``, a gateway's mount)
and query strings (``?alt=sse``, ``?api-version=``) do not matter.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Final

from harness.wire.model import WIRE_KINDS, WireKind

_GEMINI: Final = re.compile(
    r"/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)$"
)
_BEDROCK: Final = re.compile(r"/model/(?P<model>[^/]+)/(?P<method>converse-stream|converse)$")
_ENDINGS: Final[dict[WireKind, tuple[str, ...]]] = {
    "openai_chat": ("/chat/completions",),
    "openai_responses": ("/responses",),
    "anthropic": ("/messages",),
    "ollama": ("/api/chat",),
    "cohere": ("/v2/chat",),
}


def bare_path(path: str) -> str:
    """The path without its query string or fragment, and without a trailing slash."""
    return urllib.parse.urlsplit(path).path.rstrip("/")


def is_generation_request(wire: WireKind, method: str, path: str) -> bool:
    """Whether ``method path`` is a generation call of ``wire`` (module doc)."""
    if method.upper() != "POST":
        return False
    bare = bare_path(path)
    if wire == "gemini":
        return _GEMINI.search(bare) is not None
    if wire == "bedrock":
        return _BEDROCK.search(bare) is not None
    return bare.endswith(_ENDINGS[wire])


def wire_of(method: str, path: str) -> WireKind | None:
    """The wire format whose generation call ``method path`` is (``None``: none), for a
    reader that sees several wires' traffic (the fakes' logs, a load run's client)."""
    return next((w for w in WIRE_KINDS if is_generation_request(w, method, path)), None)


def path_model(wire: WireKind, path: str) -> str | None:
    """The model a Gemini or Bedrock path names (percent-decoded), else ``None``."""
    pattern = _GEMINI if wire == "gemini" else _BEDROCK if wire == "bedrock" else None
    found = pattern.search(bare_path(path)) if pattern is not None else None
    return urllib.parse.unquote(found["model"]) if found is not None else None


def path_streams(wire: WireKind, path: str) -> bool:
    """Whether the path itself asks for a stream (Gemini's ``:streamGenerateContent``,
    Bedrock's ``/converse-stream``); other wires say so in the body."""
    pattern = _GEMINI if wire == "gemini" else _BEDROCK if wire == "bedrock" else None
    found = pattern.search(bare_path(path)) if pattern is not None else None
    return found is not None and found["method"] in ("streamGenerateContent", "converse-stream")
