"""The SUT protocol, version 1: JSON lines between trimscope and a runtime under test.

trimscope writes one JSON object per line to the runtime's stdin and reads one per line
from its stdout (``docs/sut-protocol.md``; one JSON Schema per message in
``harness/sut/schemas/``, generated from the models here). Every message is strict: an
unknown key, a missing key or a wrong type is a protocol error, except on ``event``,
whose extra fields are the runtime's own (sizes, counts). Anything on stdout that is not
a message of this module is a protocol error naming the line.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from harness.runtime.errors import HarnessError
from harness.sut.wires import Feature
from harness.wire.model import WireKind

PROTOCOL_VERSION: Final = 1
MAX_LINE_BYTES: Final = 1_048_576
"""A line longer than this (1 MiB) is a protocol error: a message is never that big."""
EXCERPT_CHARS: Final = 120
"""How much of an offending line a protocol error quotes."""

ErrorKind: TypeAlias = Literal["overflow", "provider", "internal"]
EventKind: TypeAlias = Literal["trim", "compaction", "recovery", "side_request"]
Text = Annotated[str, Field(max_length=MAX_LINE_BYTES)]
SessionId = Annotated[str, Field(min_length=1, max_length=200)]


class ProtocolError(HarnessError, ValueError):
    """A line that is not a message of the protocol; the text names the line."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --- trimscope -> runtime ---------------------------------------------------------------


class Hello(_Message):
    op: Literal["hello"] = "hello"
    protocol: int = PROTOCOL_VERSION


class Provider(_Message):
    wire: WireKind
    base_url: str
    api_key: str
    model: str


class ToolOffer(_Message):
    name: str
    description: str
    parameters: dict[str, Any]


class Open(_Message):
    op: Literal["open"] = "open"
    session: SessionId
    provider: Provider
    context_window: Annotated[int, Field(gt=0)]
    budget_tokens: Annotated[int, Field(ge=0)] | None
    turn_limit: Annotated[int, Field(ge=0)] | None
    system: str | None
    tools: list[ToolOffer]


class User(_Message):
    op: Literal["user"] = "user"
    session: SessionId
    text: Text


class ToolResult(_Message):
    op: Literal["tool_result"] = "tool_result"
    session: SessionId
    id: str
    content: Text


class Close(_Message):
    op: Literal["close"] = "close"
    session: SessionId


class Bye(_Message):
    op: Literal["bye"] = "bye"


# --- runtime -> trimscope ---------------------------------------------------------------


class RuntimeHello(_Message):
    op: Literal["hello"] = "hello"
    protocol: int
    name: Annotated[str, Field(min_length=1, max_length=200)]
    version: Annotated[str, Field(max_length=200)]
    wires: list[WireKind]
    features: list[Feature]


class Opened(_Message):
    op: Literal["opened"] = "opened"
    session: SessionId


class Unsupported(_Message):
    op: Literal["unsupported"] = "unsupported"
    session: SessionId
    reason: Text


class ToolCall(_Message):
    op: Literal["tool_call"] = "tool_call"
    session: SessionId
    id: str
    name: str
    arguments: dict[str, Any]


class Answer(_Message):
    op: Literal["answer"] = "answer"
    session: SessionId
    text: Text


class TurnError(_Message):
    op: Literal["error"] = "error"
    session: SessionId
    kind: ErrorKind
    message: Text


class Event(_Message):
    """Self-reported; its other fields (``dropped_messages``, ``tokens_after``, ...) are
    the runtime's own and kept as they came. ``side_request`` with an integer ``call``
    announces the session's ``call``-th request as not the conversation's."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)
    op: Literal["event"] = "event"
    session: SessionId
    kind: EventKind


class Log(_Message):
    op: Literal["log"] = "log"
    text: Text


ToRuntime: TypeAlias = Hello | Open | User | ToolResult | Close | Bye
FromRuntime: TypeAlias = (
    RuntimeHello | Opened | Unsupported | ToolCall | Answer | TurnError | Event | Log
)
TO_RUNTIME: Final = (Hello, Open, User, ToolResult, Close, Bye)
FROM_RUNTIME: Final = (RuntimeHello, Opened, Unsupported, ToolCall, Answer, TurnError, Event, Log)

_FROM_RUNTIME = TypeAdapter[FromRuntime](Annotated[FromRuntime, Field(discriminator="op")])
_TO_RUNTIME = TypeAdapter[ToRuntime](Annotated[ToRuntime, Field(discriminator="op")])


def encode(message: ToRuntime | FromRuntime) -> bytes:
    """One line: compact JSON, UTF-8, ``\\n``-terminated (``None`` fields written as null)."""
    return message.model_dump_json().encode("utf-8") + b"\n"


def excerpt(line: bytes) -> str:
    """The start of ``line`` as a readable repr, for error messages."""
    text = line.rstrip(b"\r\n").decode("utf-8", "replace")
    return repr(text[:EXCERPT_CHARS] + ("..." if len(text) > EXCERPT_CHARS else ""))


def _first_problem(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "(message)"
    return f"{where}: {first['msg']}"


def _decode(adapter: TypeAdapter[Any], line: bytes, number: int) -> Any:
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"line {number}: longer than {MAX_LINE_BYTES} bytes")
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f"line {number}: not JSON: {excerpt(line)}") from error
    if not isinstance(value, dict) or not isinstance(value.get("op"), str):
        raise ProtocolError(f"line {number}: not a message (no op): {excerpt(line)}")
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        problem = _first_problem(error)
        raise ProtocolError(f"line {number}: {problem}: {excerpt(line)}") from error


def decode_from_runtime(line: bytes, number: int) -> FromRuntime:
    """The message on stdout line ``number``; ``ProtocolError`` naming it otherwise."""
    message: FromRuntime = _decode(_FROM_RUNTIME, line, number)
    return message


def decode_to_runtime(line: bytes, number: int) -> ToRuntime:
    """The message trimscope sent on line ``number`` (tests and the adapter's checks)."""
    message: ToRuntime = _decode(_TO_RUNTIME, line, number)
    return message


def schema_files() -> dict[str, str]:
    """``harness/sut/schemas/<direction>-<op>.json`` for every message, key-sorted."""
    files: dict[str, str] = {}
    for direction, models in (("to-runtime", TO_RUNTIME), ("from-runtime", FROM_RUNTIME)):
        for model in models:
            op = model.model_fields["op"].default
            schema = {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": f"trimscope-sut-protocol-{PROTOCOL_VERSION}/{direction}-{op}.json",
                **model.model_json_schema(),
            }
            text = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            files[f"{direction}-{op}.json"] = text
    return files
