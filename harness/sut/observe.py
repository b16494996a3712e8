"""The fake's log as the wire observer's input: its findings for one session.

The observer (``harness.wire``) reads bytes as they travelled; a fake's ``Exchange`` keeps
the decoded request body, so it is written back as JSON (the same content: the observer
decodes rows, not bytes' spacing). Each exchange carries the session header the observer
groups by. Overflow answers are recognised as the reference's clients recognise them
(the ``extended`` classifier).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from fakes.log import Exchange
from harness.providers.classify import extended_is_overflow
from harness.wire import ObserverConfig, WireExchange, WireKind, WireObserver
from harness.wire.model import Finding


def _body(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def findings(wire: WireKind, session: str, exchanges: Sequence[Exchange]) -> list[Finding]:
    """What the observer infers from the session's generation requests, in order."""
    config = ObserverConfig(is_overflow=extended_is_overflow)
    observer = WireObserver(config)
    found: list[Finding] = []
    for exchange in exchanges:
        headers = {k.lower(): v for k, v in exchange.request_headers.items()}
        headers[config.session_header] = session
        found += observer.observe(
            WireExchange(
                wire=wire,
                method=exchange.method,
                path=exchange.path,
                request_headers=headers,
                request_body=_body(exchange.request_body),
                status=exchange.status,
                response_headers=dict(exchange.response_headers),
                response_body=_body(exchange.response_body),
                streamed=bool(exchange.stream_events),
            )
        )
    return found
