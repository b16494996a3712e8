"""The wire decoders: request and answer bodies of every wire format → the runtime's
canonical rows and what else the observer reads (session hints, provider items and edits,
usage, errors). One module per wire; each module's docstring says what maps to what.

Lenient: a decoder reads what a provider would accept and never checks tool pairing (a
broken pair must decode so the inference can report it). What it cannot read raises
``WireDecodeError`` naming the place and the problem; no other exception leaves.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.wire.decode import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    ollama,
    openai_chat,
    openai_responses,
)
from harness.wire.decode.common import error_answer
from harness.wire.decode.paths import is_generation_request, path_model, path_streams, wire_of
from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError
from harness.wire.model import WireKind

_SUCCESS = range(200, 300)
_BODY_ONLY: dict[WireKind, Callable[[bytes], DecodedRequest]] = {
    "openai_chat": openai_chat.decode_request,
    "openai_responses": openai_responses.decode_request,
    "anthropic": anthropic.decode_request,
    "ollama": ollama.decode_request,
    "cohere": cohere.decode_request,
}
_ANSWERS: dict[WireKind, Callable[..., DecodedAnswer]] = {
    "openai_chat": openai_chat.decode_answer,
    "openai_responses": openai_responses.decode_answer,
    "anthropic": anthropic.decode_answer,
    "gemini": gemini.decode_answer,
    "ollama": ollama.decode_answer,
    "cohere": cohere.decode_answer,
    "bedrock": bedrock.decode_answer,
}


def decode_request(wire: WireKind, path: str, body: bytes) -> DecodedRequest:
    """The rows and hints of one generation request; ``path`` names the model for Gemini
    and Bedrock (and whether they stream). Raises ``WireDecodeError`` only."""
    try:
        if wire == "gemini":
            model, stream = path_model(wire, path), path_streams(wire, path)
            return gemini.decode_request(body, model, stream=stream)
        if wire == "bedrock":
            model, stream = path_model(wire, path), path_streams(wire, path)
            return bedrock.decode_request(body, model, stream=stream)
        return _BODY_ONLY[wire](body)
    except RecursionError:  # re-encoding a deeply nested argument or response object
        raise WireDecodeError("body: JSON nested too deeply") from None


def decode_answer(
    wire: WireKind, status: int | None, body: bytes, *, streamed: bool
) -> DecodedAnswer:
    """What one answer adds and reports. A non-2xx answer is its body as ``error_text``;
    no answer at all (``status`` ``None``) is an empty record. Raises ``WireDecodeError``
    only."""
    if status is None:
        return DecodedAnswer()
    if status not in _SUCCESS:
        return error_answer(body)
    try:
        return _ANSWERS[wire](body, streamed=streamed)
    except RecursionError:
        raise WireDecodeError("body: JSON nested too deeply") from None


__all__ = ["decode_answer", "decode_request", "is_generation_request", "wire_of"]
