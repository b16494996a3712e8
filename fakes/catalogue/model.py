"""Types and shared templates of the overflow catalogue.

One ``OverflowEntry`` per row (and variant) of providers.md §1. Bodies are templates
(``fakes.scripting.templates``) filled with the request's numbers:

``window``      the model's context window
``input``       input tokens (``messages`` + ``tools``) as the fake counted them
``messages``    tokens of the rows; ``tools`` tokens of the tool schemas
``completion``  the requested output budget (``max_tokens`` & co., 0 when absent)
``requested``   ``input + completion``
``excess``      how far the trigger quantity is over the window
``model``, ``request_id``, ``uuid``

``trigger`` says what is compared with the window: ``input`` or ``input_plus_output``.
``delivery`` is ``error`` (the status and body), ``truncate`` (200, the prompt silently
cut to the window, usage reports the cut size: Ollama) or ``silent`` (200, usage reports
the real, over-window size: z.ai). ``stream_event`` is the SSE ``error`` event sent after
a 200 when the request streams (OpenAI Responses); without it a streaming request gets
the plain error. ``inferred`` marks shapes the catalogue did not capture byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeAlias

from fakes.scripting.templates import Template

WireName: TypeAlias = Literal[
    "openai_chat", "openai_responses", "anthropic", "gemini", "ollama", "cohere", "bedrock"
]
Trigger: TypeAlias = Literal["input", "input_plus_output"]
Delivery: TypeAlias = Literal["error", "truncate", "silent", "stop"]


@dataclass(frozen=True, slots=True)
class OverflowEntry:
    provider: str
    wire: WireName
    variant: str
    status: int
    body: Template
    match: str
    source: str
    headers: Mapping[str, str] = field(default_factory=dict)
    trigger: Trigger = "input"
    delivery: Delivery = "error"
    stream_event: Template = None
    inferred: bool = False


OPENAI_HEADERS = MappingProxyType({"x-request-id": "{request_id}"})
ANTHROPIC_HEADERS = MappingProxyType({"request-id": "{request_id}"})
BEDROCK_HEADERS = MappingProxyType(
    {"x-amzn-ErrorType": "ValidationException", "x-amzn-RequestId": "{uuid}"}
)
MAX_CTX = "This model's maximum context length is {window} tokens. "
REQUESTED = (
    "However, you requested {requested} tokens ({input} in the messages, "
    "{completion} in the completion). Please reduce the length of the messages or completion."
)
RESPONSES_TEXT = (
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)


def openai_error(message: str, param: str | None, code: str | None) -> Template:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def gemini_error(message: str) -> Template:
    return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}


GEMINI_TEXT = (
    "The input token count ({input}) exceeds the maximum number of tokens allowed ({window})."
)
OPENROUTER_TEXT = (
    "This endpoint's maximum context length is {window} tokens. However, you requested about "
    "{requested} tokens ({messages} of text input, {tools} of tool input, {completion} in the "
    "output). Please reduce the length of either one, or use the context-compression plugin "
    "to compress your prompt automatically."
)
OLLAMA_TEXT = "prompt too long; exceeded max context length by {excess} tokens"


def openrouter_error(message: str) -> Template:
    return {"error": {"code": 400, "message": message, "metadata": {"provider_name": None}}}
