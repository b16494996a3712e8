"""Every body of providers.md section 1, its look-alikes, and what each classifier must say.

``reference`` expectations were derived by reading each body against the reference's ten
substrings (spec 10) over ``"{provider} API error ({status}): {body[:500]}"``, and agree
with the "zeroclaw reliable" column of providers.md 1.4 for every row that table has
(``table_row`` names it). ``extended`` must recognise every overflow and no look-alike.

Shapes: ``http`` (an error status), ``http-200`` (an error body on a 200, OpenRouter),
``stream`` (an in-stream error event's data; status ``None``), ``reply`` (a successful
body whose stop reason says the window was hit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    id: str
    provider: str
    status: int | None
    body: str
    overflow: bool
    reference: bool
    shape: str = "http"
    client_kind: str | None = None
    table_row: str | None = None

    @property
    def extended(self) -> bool:
        return self.overflow


def j(value: object) -> str:
    """Compact JSON, as providers.md 1.4 rendered the bodies."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def openai_error(message: str, code: object, param: object = "messages") -> str:
    return j(
        {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": param,
                "code": code,
            }
        }
    )


OPENAI_MSG = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "150008 tokens. Please reduce the length of the messages."
)
RESPONSES_MSG = (
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)
ANTHROPIC_MSG = "prompt is too long: 200251 tokens > 200000 maximum"
GEMINI_MSG = "The input token count (132478) exceeds the maximum number of tokens allowed (131072)."
OPENROUTER_MSG = (
    "This endpoint's maximum context length is 262000 tokens. However, you requested about "
    "263390 tokens (658 of text input, 732 of tool input, 262000 in the output). Please reduce "
    "the length of either one, or use the context-compression plugin to compress your prompt "
    "automatically."
)
OPENROUTER_BODY = j({"error": {"code": 400, "message": OPENROUTER_MSG, "metadata": {}}})
RESPONSES_STREAM_EVENT = j(
    {
        "type": "error",
        "sequence_number": 2,
        "error": {
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
            "message": RESPONSES_MSG,
            "param": "input",
        },
    }
)
ANTHROPIC_BODY = j(
    {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": ANTHROPIC_MSG},
        "request_id": "req_011CTest",
    }
)
GEMINI_ERROR = {"code": 400, "message": GEMINI_MSG, "status": "INVALID_ARGUMENT"}
LLAMACPP_BODY = j(
    {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 14429,
            "n_ctx": 8192,
        }
    }
)

# fmt: off
OVERFLOWS: tuple[Case, ...] = (
    Case("openai-chat", "openai", 400, openai_error(OPENAI_MSG, "context_length_exceeded"),
         True, True, client_kind="openai", table_row="openai-chat"),
    Case("openai-chat-requested", "openai", 400, openai_error(
        "This model's maximum context length is 4097 tokens. However, you requested 4104 tokens "
        "(3104 in the messages, 1000 in the completion). Please reduce the length of the "
        "messages or completion.", "context_length_exceeded"), True, True, client_kind="openai"),
    Case("openai-chat-functions", "openai", 400, openai_error(
        "This model's maximum context length is 8192 tokens. However, your messages resulted in "
        "8213 tokens (6683 in the messages, 730 in the functions, and 800 in the completion). "
        "Please reduce the length of the messages or functions.", "context_length_exceeded"),
        True, True, client_kind="openai"),
    Case("openai-responses", "openai-responses", 400,
         openai_error(RESPONSES_MSG, "context_length_exceeded", "input"), True, True,
         client_kind="openai-responses", table_row="openai-responses"),
    Case("openai-responses-stream", "openai-responses", None, RESPONSES_STREAM_EVENT, True, True,
         shape="stream", client_kind="openai-responses"),
    Case("azure", "azure", 400, openai_error(OPENAI_MSG, "context_length_exceeded"), True, True,
         client_kind="azure"),
    Case("azure-configured-limit", "azure", 400, j({"error": {
        "message": "Input tokens exceed the configured limit of 272000 tokens. Your messages "
        "resulted in 509178 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages"}}), True, False, client_kind="azure"),
    Case("anthropic", "anthropic", 400, ANTHROPIC_BODY, True, True, client_kind="anthropic",
         table_row="anthropic"),
    Case("anthropic-input-plus-max-tokens", "anthropic", 400, j({"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
        "decrease input length or `max_tokens` and try again"}}), True, False,
        client_kind="anthropic", table_row="anthropic-input-max-tokens"),
    Case("anthropic-stop-reason", "anthropic", 200, j({
        "id": "msg_01", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "partial"}], "model": "claude-test",
        "stop_reason": "model_context_window_exceeded", "stop_sequence": None,
        "usage": {"input_tokens": 199000, "output_tokens": 1000}}), True, False, shape="reply",
        client_kind="anthropic"),
    Case("gemini", "gemini", 400, j({"error": GEMINI_ERROR}), True, False,
         client_kind="gemini", table_row="gemini"),
    Case("gemini-list", "gemini", 400, j([{"error": {**GEMINI_ERROR, "errors": [
        {"message": GEMINI_MSG, "domain": "global", "reason": "badRequest"}]}}]), True, False,
        client_kind="gemini"),
    Case("bedrock", "bedrock", 400, j({"message": "Input is too long for requested model."}),
         True, True, table_row="bedrock"),
    Case("bedrock-converse", "bedrock", 400, j({"message": "The model returned the following "
         "errors: Input is too long for requested model."}), True, True),
    Case("bedrock-claude", "bedrock", 400, j({"message": "The model returned the following "
         "errors: prompt is too long: 200049 tokens > 200000 maximum"}), True, True),
    Case("bedrock-stream", "bedrock", None, j({"validationException": {
        "message": "Input is too long for requested model."}}), True, True, shape="stream"),
    Case("mistral", "mistral", 400, j({
        "object": "error", "message": "Prompt contains 150004 tokens and 0 draft tokens, too "
        "large for model with 131072 maximum context length", "type":
        "invalid_request_invalid_args", "param": None, "code": "3051"}), True, True,
        client_kind="mistral", table_row="mistral"),
    Case("groq", "groq", 400, openai_error("Please reduce the length of the messages or "
         "completion.", "context_length_exceeded"), True, False, client_kind="groq",
         table_row="groq"),
    Case("groq-no-code", "groq", 400, j({"error": {
        "message": "Please reduce the length of the messages or completion.",
        "type": "invalid_request_error", "param": "messages"}}), True, False, client_kind="groq"),
    Case("deepseek", "deepseek", 400, openai_error(
        "This model's maximum context length is 131072 tokens. However, you requested 131134 "
        "tokens (122942 in the messages, 8192 in the completion). Please reduce the length of "
        "the messages or completion.", "invalid_request_error", None), True, True,
        client_kind="deepseek", table_row="deepseek"),
    Case("openrouter", "openrouter", 400, OPENROUTER_BODY, True, True, client_kind="openrouter",
         table_row="openrouter"),
    Case("openrouter-200", "openrouter", 200, OPENROUTER_BODY, True, True, shape="http-200",
         client_kind="openrouter"),
    Case("openrouter-middle-out", "openrouter", 400, j({"error": {"code": 400, "message":
        "This endpoint's maximum context length is 8192 tokens. However, you requested about "
        "9000 tokens. Please reduce the length of either one, or use the \"middle-out\" "
        "transform to compress your prompt automatically."}}), True, True,
        client_kind="openrouter"),
    Case("openrouter-wrapped-upstream", "openrouter", 400, j({"error": {
        "code": 400, "message": "Provider returned error",
        "metadata": {"raw": ANTHROPIC_BODY, "provider_name": "Anthropic"}}}), True, True,
        client_kind="openrouter"),
    Case("ollama-400", "ollama", 400, j({"error": "prompt too long; exceeded max context "
         "length by 4 tokens"}), True, False, client_kind="ollama", table_row="ollama-400"),
    Case("vllm", "vllm", 400, j({
        "object": "error", "message": "This model's maximum context length is 16384 tokens. "
        "However, you requested 122946 tokens (112946 in the messages, 10000 in the "
        "completion). Please reduce the length of the messages or completion.",
        "type": "BadRequestError", "param": None, "code": 400}), True, True, client_kind="vllm",
        table_row="vllm"),
    Case("vllm-input-tokens", "vllm", 400, j({
        "object": "error", "message": "This model's maximum context length is 16384 tokens. "
        "However, your request has 20000 input tokens. Please reduce the length of the input "
        "messages.", "type": "BadRequestError", "param": None, "code": 400}), True, True,
        client_kind="vllm"),
    Case("llamacpp", "llamacpp", 400, LLAMACPP_BODY, True, True, client_kind="llamacpp",
         table_row="llama.cpp"),
    Case("llamacpp-500", "llamacpp", 500, LLAMACPP_BODY, True, True, client_kind="llamacpp"),
    Case("llamacpp-counts", "llamacpp", 400, j({"error": {"code": 400, "message":
        "request (8968 tokens) exceeds the available context size (8448 tokens), try "
        "increasing it", "type": "exceed_context_size_error"}}), True, True,
        client_kind="llamacpp"),
    Case("lmstudio", "lmstudio", 400, j({"error": "Trying to keep the first 10136 tokens when "
         "context the overflows. However, the model is loaded with context length of only "
         "7866 tokens, which is not enough."}), True, False, client_kind="lmstudio",
         table_row="lm-studio"),
    Case("lmstudio-keep", "lmstudio", 400, j({"error": "tokens to keep from the initial prompt "
         "is greater than the context length"}), True, False, client_kind="lmstudio"),
    Case("together", "together", 400, j({"error": {"message": "The input (516368 tokens) is "
         "longer than the model's context length (262144 tokens).",
         "type": "invalid_request_error"}}), True, False, client_kind="together",
         table_row="together"),
    Case("together-tgi", "together", 422, j({"error": "Input validation error: `inputs` tokens "
         "+ `max_new_tokens` must be <= 65537. Given: 79993 `inputs` tokens and 1024 "
         "`max_new_tokens`", "error_type": "validation"}), True, False, client_kind="together"),
    Case("cohere", "cohere", 400, j({"id": "bda42bf8-0000", "message": "too many tokens: size "
         "limit exceeded by 19296 tokens. Try using shorter or fewer inputs. The limit for this "
         "model is 132000 tokens."}), True, True, client_kind="cohere", table_row="cohere"),
    Case("cohere-v1", "cohere", 400, j({"message": "too many tokens: total number of tokens "
         "(prompt and prediction) cannot exceed 2048 - received 6354"}), True, True,
         client_kind="cohere"),
    Case("xai", "xai", 400, j({"code": "Client specified an invalid argument", "error":
         "This model's maximum prompt length is 131072 but the request contains 537812 "
         "tokens."}), True, False, client_kind="xai", table_row="xai"),
    Case("kimi", "kimi", 400, j({"error": {"message": "Your request exceeded model token limit: "
         "262144 (requested: 300000)", "type": "invalid_request_error"}}), True, False),
    Case("minimax", "minimax", 400, j({"base_resp": {"status_code": 1039, "status_msg":
         "invalid params, context window exceeds limit"}}), True, False),
    Case("zai", "zai", 400, j({"error": {"code": "model_context_window_exceeded"}}), True, False),
    Case("zhipu", "zhipu", 400, j({"code": "1261", "message": "Prompt exceeds max length"}),
         True, True),
    Case("dashscope", "dashscope", 400, j({"code": "InvalidParameter", "message":
         "Range of input length should be [1, 129024]"}), True, False),
    Case("fastchat", "fastchat", 400, j({"object": "error", "message": "This model's maximum "
         "context length is 2048 tokens. However, you requested 2100 tokens. Please reduce the "
         "length of the messages.", "code": 40303}), True, True),
    # The reference reads only the first 500 characters of the body.
    Case("phrase-after-500-chars", "openai", 400, j({"error": {
        "metadata": {"trace": "x" * 600}, "message": OPENAI_MSG,
        "code": "context_length_exceeded"}}), True, False, client_kind="openai"),
)

NEGATIVES: tuple[Case, ...] = (
    Case("bedrock-throttle", "bedrock", 429, j({"message": "Too many tokens, please wait "
         "before trying again."}), False, True, table_row="bedrock-throttle"),
    Case("bedrock-throttle-stream", "bedrock", None, j({"throttlingException": {"message":
         "Too many tokens, please wait before trying again."}}), False, True, shape="stream"),
    Case("proxy-rate-limit", "openai", 429, j({"error": {"message": "Rate limit reached: token "
         "limit exceeded for this minute", "type": "requests"}}), False, True,
         client_kind="openai"),
    Case("openai-rate-limit", "openai", 429, j({"error": {"message": "Rate limit reached for "
         "gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Used 29000, "
         "Requested 2000. Please try again in 2s.", "type": "tokens", "param": None,
         "code": "rate_limit_exceeded"}}), False, False, client_kind="openai"),
    Case("string-above-max-length", "openai-responses", 400, j({"error": {"message":
         "Invalid 'input[2].output': string too long. Expected a string with maximum length "
         "10485760, but got a string with length 12000000 instead.",
         "type": "invalid_request_error", "param": "input[2].output",
         "code": "string_above_max_length"}}), False, False, client_kind="openai-responses"),
    Case("groq-max-completion-tokens", "groq", 400, j({"error": {"message":
         "`max_completion_tokens` must be less than or equal to `40960`, the maximum value for "
         "`max_completion_tokens` is less than the `context_window` for this model",
         "type": "invalid_request_error", "param": "max_completion_tokens"}}), False, False,
         client_kind="groq"),
    Case("insufficient-quota", "openai", 429, j({"error": {"message": "You exceeded your "
         "current quota, please check your plan and billing details.", "type":
         "insufficient_quota", "param": None, "code": "insufficient_quota"}}), False, False,
         client_kind="openai"),
    Case("anthropic-rate-limit", "anthropic", 429, j({"type": "error", "error": {
        "type": "rate_limit_error", "message": "Number of request tokens has exceeded your "
        "per-minute rate limit"}}), False, False, client_kind="anthropic"),
    Case("anthropic-request-too-large", "anthropic", 413, j({"type": "error", "error": {
        "type": "request_too_large", "message": "Request exceeds the maximum allowed number of "
        "bytes."}}), False, False, client_kind="anthropic"),
)

# Overflows no body-reading classifier can see: Cerebras answers 400/413 with no body, and
# a 413 alone is also Anthropic's byte-size limit. Both classifiers say no; documented.
UNRECOGNISABLE: tuple[Case, ...] = (
    Case("cerebras-no-body", "cerebras", 413, "", True, False),
)

ALL_CASES: tuple[Case, ...] = OVERFLOWS + NEGATIVES

# providers.md 1.4, column "zeroclaw reliable", verbatim.
TABLE_1_4_REFERENCE: dict[str, bool] = {
    "openai-chat": True,
    "openai-responses": True,
    "anthropic": True,
    "anthropic-input-max-tokens": False,
    "gemini": False,
    "bedrock": True,
    "mistral": True,
    "groq": False,
    "deepseek": True,
    "openrouter": True,
    "xai": False,
    "together": False,
    "cohere": True,
    "vllm": True,
    "llama.cpp": True,
    "ollama-400": False,
    "lm-studio": False,
    "bedrock-throttle": True,
}
