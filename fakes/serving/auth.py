"""The ``auth`` fault: each provider's real answer to a request with an invalid API key.

The answer does not depend on the request body (a real API checks the key first), only
on the wire format, and for OpenAI on the key sent, which it echoes partly masked. Bodies
as the providers send them, each quoted in a public issue thread:

- OpenAI Chat and Responses, and every OpenAI-compatible fake (their own texts vary and
  are not catalogued): 401, ``invalid_request_error`` / ``invalid_api_key``
  (continuedev/continue#9358). The key is echoed as its first 8 characters, one ``*`` per
  hidden character, and its last 4 (continuedev/continue#10078, #12777, #12651).
- Anthropic: 401 ``authentication_error`` "invalid x-api-key"
  (eyaltoledano/claude-task-master#222, abi/screenshot-to-code#430).
- Gemini: a bad key is a **400** ``INVALID_ARGUMENT`` with reason ``API_KEY_INVALID``,
  not a 401 (cequence-io/openai-scala-client#109, google-gemini/gemini-cli#4690).
- Cohere: 401 ``{"message": "invalid api token"}`` (cohere-ai/cohere-toolkit#857).
- Bedrock: 403 ``UnrecognizedClientException``, "The security token included in the
  request is invalid." (anthropics/claude-code#2260, iann0036/iamlive#58; the JSON body
  awslabs/aws-lex-browser-audio-capture#13).
- Ollama (ollama.com; a local server has no keys): 401 ``{"error": "unauthorized"}``
  (diegosouzapw/OmniRoute#1262, cloudstudio/ollama-laravel#16).
"""

from __future__ import annotations

from collections.abc import Mapping

from fakes.catalogue import WireName
from fakes.rows import JSONValue
from fakes.serving.answer import Answer

OPENAI_KEY_SHOWN_HEAD = 8
OPENAI_KEY_SHOWN_TAIL = 4
_GEMINI_MESSAGE = "API key not valid. Please pass a valid API key."


def masked_key(key: str) -> str:
    """OpenAI's echo of a key: head and tail kept, every hidden character a ``*``. A key
    too short to hide anything is echoed as sent (continuedev/continue#9358 shows "kk")."""
    shown = OPENAI_KEY_SHOWN_HEAD + OPENAI_KEY_SHOWN_TAIL
    if len(key) <= shown:
        return key
    hidden = len(key) - shown
    return key[:OPENAI_KEY_SHOWN_HEAD] + "*" * hidden + key[-OPENAI_KEY_SHOWN_TAIL:]


def _sent_key(headers: Mapping[str, str]) -> str:
    lowered = {k.lower(): v for k, v in headers.items()}
    bearer = lowered.get("authorization", "")
    return bearer.removeprefix("Bearer ").strip() if bearer else lowered.get("api-key", "")


def _openai(key: str) -> JSONValue:
    message = (
        f"Incorrect API key provided: {masked_key(key)}. You can find your API key at"
        " https://platform.openai.com/account/api-keys."
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }


def _gemini() -> JSONValue:
    return {
        "error": {
            "code": 400,
            "message": _GEMINI_MESSAGE,
            "status": "INVALID_ARGUMENT",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": _GEMINI_MESSAGE,
                },
            ],
        }
    }


def auth_answer(wire: WireName, headers: Mapping[str, str]) -> Answer:
    """The answer of an ``auth`` fault in this wire format (``headers``: the request's)."""
    status, body, extra = 401, _openai(_sent_key(headers)), {}
    if wire == "anthropic":
        body = {
            "type": "error",
            "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        }
    elif wire == "gemini":
        status, body = 400, _gemini()
    elif wire == "cohere":
        body = {"message": "invalid api token"}
    elif wire == "bedrock":
        status = 403
        body = {"message": "The security token included in the request is invalid."}
        extra = {"x-amzn-ErrorType": "UnrecognizedClientException"}
    elif wire == "ollama":
        body = {"error": "unauthorized"}
    return Answer(status, body, extra, outcome="fault", fault="auth")
