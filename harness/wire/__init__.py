"""The wire observer: request and answer bodies of every wire format → rows → what changed
between a session's requests (trims, compactions, broken pairs, dropped system or user
rows, overflows, cache loss), as frozen findings. Pure like ``harness.runtime``: stdlib and
the runtime only, no I/O, clock injected.
"""

from harness.wire.decode import decode_answer, decode_request, is_generation_request, wire_of
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError
from harness.wire.model import (
    FINDING_KINDS,
    WIRE_KINDS,
    Finding,
    FindingKind,
    WireExchange,
    WireKind,
)
from harness.wire.observer import (
    Decoders,
    ObservedCall,
    ObserverConfig,
    OverflowClassifier,
    WireObserver,
)
from harness.wire.prints import RowPrint, print_rows

__all__ = [
    "FINDING_KINDS",
    "WIRE_KINDS",
    "DecodedAnswer",
    "DecodedRequest",
    "Decoders",
    "Finding",
    "FindingKind",
    "ObservedCall",
    "ObserverConfig",
    "OverflowClassifier",
    "RowPrint",
    "WireDecodeError",
    "WireExchange",
    "WireKind",
    "WireObserver",
    "decode_answer",
    "decode_request",
    "is_generation_request",
    "print_rows",
    "wire_of",
]
