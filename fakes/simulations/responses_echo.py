"""The request's parameters as an OpenAI Responses response object reports them.

The real response object repeats the request's settings, with the API's defaults for those
not sent (charmbracelet/fantasy ``providertests/testdata/TestOpenAIResponsesCommon/
openai-gpt-4o-mini/tool.yaml`` and ``simple_streaming.yaml``, ``.../openai-gpt-5/
multi_tool_streaming.yaml``, at f6d4d1e): ``background: false``, ``frequency_penalty`` and
``presence_penalty`` 0.0, ``temperature`` and ``top_p`` 1.0, ``top_logprobs`` 0,
``metadata: {}``, ``prompt_cache_retention: "in_memory"``, ``service_tier: "default"``,
``text: {"format": {"type": "text"}, "verbosity": "medium"}``, ``tool_choice: "auto"``,
``truncation: "disabled"``, ``reasoning: {"context", "effort", "summary"}`` (null unless
sent; a gpt-5 model's defaults for what was not sent,
``fakes.wire.openai_responses_reasoning``), the rest null. ``completed_at`` is set once
the response is done; ``billing: {"payer": "developer"}`` comes in the non-streamed body
only (the recorded streams carry none). ``store`` and ``previous_response_id`` are the
request's (``fakes.simulations.responses_store``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakes.rows import JSONValue
from fakes.wire.openai_responses_reasoning import REASONING_DEFAULTS, reasoning_model

DEFAULTS: Mapping[str, JSONValue] = {
    "background": False,
    "frequency_penalty": 0.0,
    "instructions": None,
    "max_output_tokens": None,
    "max_tool_calls": None,
    "metadata": {},
    "moderation": None,
    "parallel_tool_calls": True,
    "presence_penalty": 0.0,
    "prompt_cache_key": None,
    "prompt_cache_retention": "in_memory",
    "safety_identifier": None,
    "service_tier": "default",
    "temperature": 1.0,
    "tool_choice": "auto",
    "tools": [],
    "top_logprobs": 0,
    "top_p": 1.0,
    "truncation": "disabled",
    "user": None,
}
TEXT_DEFAULT: Mapping[str, JSONValue] = {"format": {"type": "text"}, "verbosity": "medium"}
REASONING_KEYS = ("context", "effort", "summary")
BILLING: Mapping[str, JSONValue] = {"payer": "developer"}
DONE = ("completed", "incomplete")


def echo(
    body: Mapping[str, Any], response: dict[str, JSONValue], *, store: bool, streamed: bool
) -> None:
    """Fill ``response`` (in place) with the request's settings, as the API reports them."""
    for key, default in DEFAULTS.items():
        value = body.get(key)
        response[key] = value if value is not None else response.get(key, default)
    text = body.get("text")
    response["text"] = {**TEXT_DEFAULT, **(text if isinstance(text, dict) else {})}
    reasoning = body.get("reasoning")
    sent = reasoning if isinstance(reasoning, dict) else {}
    model = body.get("model")
    reasoned = reasoning_model(model if isinstance(model, str) else "")
    response["reasoning"] = {
        k: sent[k] if sent.get(k) is not None else (REASONING_DEFAULTS[k] if reasoned else None)
        for k in REASONING_KEYS
    }
    previous = body.get("previous_response_id")
    response["previous_response_id"] = previous if isinstance(previous, str) else None
    response["store"] = store
    done = response.get("status") in DONE
    response["completed_at"] = response.get("created_at") if done else None
    if not streamed:
        response["billing"] = dict(BILLING)
