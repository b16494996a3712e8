"""GenAI semantic-convention attributes and values (our own constants), the instrumentation
scope, and span names. Part of ``harness.telemetry.names`` (re-exported there)."""

from __future__ import annotations

from typing import Final

from harness.telemetry.names.wire import SPAN_WIRE_FINDING

# --- instrumentation scope ------------------------------------------------------------------

INSTRUMENTATION_NAME: Final = "trimscope"
SEMCONV_SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.44.0"
"""The semantic-conventions version of opentelemetry-semantic-conventions 0.66b2."""
SERVICE_NAME: Final = "trimscope"

# --- GenAI semantic-convention attributes (our own constants) -------------------------------

GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_PROVIDER_NAME: Final = "gen_ai.provider.name"
GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
GEN_AI_RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
GEN_AI_USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS: Final = "gen_ai.usage.cache_creation.input_tokens"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_TYPE: Final = "gen_ai.tool.type"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOKEN_TYPE: Final = "gen_ai.token.type"
GEN_AI_CONVERSATION_COMPACTED: Final = "gen_ai.conversation.compacted"
"""Newer than 0.66b2 (semantic-conventions-genai PR #162): set only ``true``, on an
inference span whose request used a trimmed history."""
ERROR_TYPE: Final = "error.type"
ERROR_TYPE_OTHER: Final = "_OTHER"
HTTP_RESPONSE_STATUS_CODE: Final = "http.response.status_code"

OPERATION_CHAT: Final = "chat"
OPERATION_INVOKE_AGENT: Final = "invoke_agent"
OPERATION_EXECUTE_TOOL: Final = "execute_tool"
TOOL_TYPE_FUNCTION: Final = "function"
TOKEN_TYPE_INPUT: Final = "input"
TOKEN_TYPE_OUTPUT: Final = "output"

# --- span names -----------------------------------------------------------------------------


def agent_span_name(agent_name: str) -> str:
    """``invoke_agent {gen_ai.agent.name}``: one INTERNAL span per turn."""
    return f"{OPERATION_INVOKE_AGENT} {agent_name}"


def inference_span_name(operation: str, model: str | None) -> str:
    """``{gen_ai.operation.name} {gen_ai.request.model}``, e.g. ``chat gpt-test``."""
    return f"{operation} {model}" if model else operation


def tool_span_name(tool_name: str) -> str:
    """``execute_tool {gen_ai.tool.name}``."""
    return f"{OPERATION_EXECUTE_TOOL} {tool_name}"


SPAN_TRIM: Final = "trimscope.trim"
"""A short span for a trim outside any turn (a seeding trim)."""

OUTSIDE_TURN_SPANS: Final[dict[str, str]] = {
    "HistoryTrimmed": SPAN_TRIM,
    "BudgetResolved": "trimscope.budget",
    "CapacityChecked": "trimscope.capacity",
    "OverflowDetected": "trimscope.overflow",
    "RecoveryAttempted": "trimscope.recovery",
    "ProviderContextEdited": "trimscope.provider_edit",
    "WireFindingObserved": SPAN_WIRE_FINDING,
}
"""Span names for decision events that arrive with no open span to carry them."""
