"""The fake's log as the wire observer's input: its findings for one session.

The exchanges are read back to bytes as ``run`` reads them (``harness.scenarios.
wire_watch.as_wire_exchange``: the request and answer as JSON, a streamed answer as the
events the client received), each under the session's header. Overflow answers are
recognised as the reference's clients recognise them (the ``extended`` classifier).
"""

from __future__ import annotations

from collections.abc import Sequence

from fakes.serving.log import Exchange
from harness.providers.overflow.classify import extended_is_overflow
from harness.scenarios.wire_watch import as_wire_exchange
from harness.wire import ObserverConfig, WireKind, WireObserver
from harness.wire.model import Finding


def findings(wire: WireKind, session: str, exchanges: Sequence[Exchange]) -> list[Finding]:
    """What the observer infers from the session's generation requests, in order
    (``wire`` is the session's; an exchange on another path is not a generation call)."""
    observer = WireObserver(ObserverConfig(is_overflow=extended_is_overflow))
    found: list[Finding] = []
    for exchange in exchanges:
        read = as_wire_exchange(session, exchange)
        if read is not None and read.wire == wire:
            found += observer.observe(read)
    return found
