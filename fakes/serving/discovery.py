"""Model-metadata and token-count endpoints: where real providers expose the window.

providers.md §2, "Window discovery": Anthropic ``/v1/models`` (``max_input_tokens``),
Gemini ``models.get`` (``inputTokenLimit``), OpenRouter ``/api/v1/models``
(``context_length`` = the advertised maximum, ``top_provider.context_length`` = the window
the fake enforces), Ollama ``/api/show`` (``model_info["<arch>.context_length"]`` = the
advertised maximum, ``parameters`` ``num_ctx`` = the enforced window), llama.cpp
``/props`` and ``/slots`` (``n_ctx``). OpenAI's ``/v1/models`` carries no window; vLLM,
Groq and Mistral add theirs under their own field names.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from fakes.engine import FakeProvider
from fakes.fake_model import FakeModel
from fakes.profiles import Endpoint, EndpointKind
from fakes.rows import JSONValue
from fakes.serving.responses_routes import delete_response, get_response
from fakes.simulations.responses_compact import compact_response
from fakes.wire.base import RequestContext

Handler = Callable[[FakeProvider, Endpoint, "DiscoveryRequest"], tuple[int, JSONValue]]
_CREATED = "2025-01-01T00:00:00Z"


class DiscoveryRequest:
    """What a discovery handler sees: the model in the path, the raw body, the headers
    and the path's parameters (``response_id``)."""

    def __init__(
        self,
        path_model: str | None,
        body: bytes,
        headers: dict[str, str],
        params: dict[str, str] | None = None,
    ) -> None:
        self.path_model = path_model
        self.body = body
        self.headers = headers
        self.params = params or {}


def _openai_models(
    fake: FakeProvider, endpoint: Endpoint, _: DiscoveryRequest
) -> tuple[int, JSONValue]:
    entry: dict[str, JSONValue] = {
        "id": fake.model.name,
        "object": "model",
        "created": 0,
        "owned_by": fake.profile.name,
    }
    if endpoint.window_field:
        entry[endpoint.window_field] = fake.model.context_window
    return 200, {"object": "list", "data": [entry]}


def _anthropic_model(model: FakeModel) -> JSONValue:
    return {
        "type": "model",
        "id": model.name,
        "display_name": model.name,
        "created_at": _CREATED,
        "max_input_tokens": model.context_window,
        "max_tokens": model.max_output_tokens,
    }


def _anthropic_models(
    fake: FakeProvider, _: Endpoint, __: DiscoveryRequest
) -> tuple[int, JSONValue]:
    return 200, {
        "data": [_anthropic_model(fake.model)],
        "has_more": False,
        "first_id": fake.model.name,
        "last_id": fake.model.name,
    }


def _anthropic_one(
    fake: FakeProvider, _: Endpoint, request: DiscoveryRequest
) -> tuple[int, JSONValue]:
    if request.path_model != fake.model.name:
        error = fake.wire("anthropic").unknown_model(str(request.path_model))
        return error.status, error.body
    return 200, _anthropic_model(fake.model)


def _gemini_model(model: FakeModel) -> JSONValue:
    return {
        "name": f"models/{model.name}",
        "version": "001",
        "displayName": model.name,
        "description": "A fake model.",
        "inputTokenLimit": model.context_window,
        "outputTokenLimit": model.max_output_tokens,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    }


def _gemini_models(fake: FakeProvider, _: Endpoint, __: DiscoveryRequest) -> tuple[int, JSONValue]:
    return 200, {"models": [_gemini_model(fake.model)]}


def _gemini_one(
    fake: FakeProvider, _: Endpoint, request: DiscoveryRequest
) -> tuple[int, JSONValue]:
    if request.path_model != fake.model.name:
        error = fake.wire("gemini").unknown_model(str(request.path_model))
        return error.status, error.body
    return 200, _gemini_model(fake.model)


def _count(
    fake: FakeProvider, wire_name: Any, request: DiscoveryRequest
) -> tuple[int, int | JSONValue]:
    wire = fake.wire(wire_name)
    ctx = RequestContext(request.path_model, request.headers, fake.profile.enforce_pairing)
    decoded = fake.decode(wire, request.body, ctx)
    if decoded.request is None:
        assert decoded.rejection is not None
        return decoded.rejection.status, decoded.rejection.body
    return 200, fake.count(decoded.request).total


def _anthropic_count(
    fake: FakeProvider, _: Endpoint, request: DiscoveryRequest
) -> tuple[int, JSONValue]:
    status, value = _count(fake, "anthropic", request)
    if status != HTTPStatus.OK:
        return status, value
    return status, {"input_tokens": value, **_original_tokens(fake, request)}


def _original_tokens(fake: FakeProvider, request: DiscoveryRequest) -> dict[str, JSONValue]:
    """With ``context_management``, the count is of the edited prompt and the count before
    the edits is reported beside it (``BetaCountTokensContextManagementResponse``)."""
    ctx = RequestContext(request.path_model, request.headers, fake.profile.enforce_pairing)
    outcome = fake.decode(fake.wire("anthropic"), request.body, ctx).edited
    edits = outcome.anthropic if outcome else None
    if edits is None or not edits.requested:
        return {}
    return {"context_management": {"original_input_tokens": edits.original_tokens}}


def _gemini_count(
    fake: FakeProvider, _: Endpoint, request: DiscoveryRequest
) -> tuple[int, JSONValue]:
    status, value = _count(fake, "gemini", request)
    if status != HTTPStatus.OK:
        return status, value
    return 200, {
        "totalTokens": value,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": value}],
    }


def _ollama_details() -> JSONValue:
    return {
        "format": "gguf",
        "family": "llama",
        "families": ["llama"],
        "parameter_size": "8B",
        "quantization_level": "Q4_K_M",
    }


def _ollama_show(fake: FakeProvider, _: Endpoint, __: DiscoveryRequest) -> tuple[int, JSONValue]:
    model = fake.model
    return 200, {
        "modelfile": f"FROM {model.name}\nPARAMETER num_ctx {model.context_window}\n",
        "parameters": f"num_ctx                        {model.context_window}",
        "template": "{{ .Prompt }}",
        "details": _ollama_details(),
        "model_info": {
            "general.architecture": "llama",
            "llama.context_length": model.listed_window,
        },
        "capabilities": ["completion", "tools"],
        "modified_at": _CREATED,
    }


def _ollama_tags(fake: FakeProvider, _: Endpoint, __: DiscoveryRequest) -> tuple[int, JSONValue]:
    name = fake.model.name
    return 200, {
        "models": [
            {
                "name": name,
                "model": name,
                "modified_at": _CREATED,
                "size": 0,
                "digest": "sha256:fake",
                "details": _ollama_details(),
            }
        ]
    }


def _llamacpp_props(fake: FakeProvider, _: Endpoint, __: DiscoveryRequest) -> tuple[int, JSONValue]:
    return 200, {
        "default_generation_settings": {
            "id": 0,
            "id_task": -1,
            "n_ctx": fake.model.context_window,
            "is_processing": False,
            "params": {"n_predict": -1},
        },
        "total_slots": 1,
        "model_path": f"/models/{fake.model.name}.gguf",
        "chat_template": "",
        "build_info": "fake",
    }


def _llamacpp_slots(fake: FakeProvider, _: Endpoint, __: DiscoveryRequest) -> tuple[int, JSONValue]:
    return 200, [
        {"id": 0, "id_task": -1, "n_ctx": fake.model.context_window, "is_processing": False}
    ]


def _openrouter_models(
    fake: FakeProvider, _: Endpoint, __: DiscoveryRequest
) -> tuple[int, JSONValue]:
    model = fake.model
    return 200, {
        "data": [
            {
                "id": model.name,
                "name": model.name,
                "created": 0,
                "context_length": model.listed_window,
                "top_provider": {
                    "context_length": model.context_window,
                    "max_completion_tokens": model.max_output_tokens,
                    "is_moderated": False,
                },
                "pricing": {"prompt": "0", "completion": "0"},
            }
        ]
    }


def _together_models(
    fake: FakeProvider, _: Endpoint, __: DiscoveryRequest
) -> tuple[int, JSONValue]:
    return 200, [
        {
            "id": fake.model.name,
            "object": "model",
            "type": "chat",
            "context_length": fake.model.context_window,
        }
    ]


HANDLERS: dict[EndpointKind, Handler] = {
    "openai_models": _openai_models,
    "anthropic_models": _anthropic_models,
    "anthropic_model": _anthropic_one,
    "anthropic_count_tokens": _anthropic_count,
    "gemini_models": _gemini_models,
    "gemini_model": _gemini_one,
    "gemini_count_tokens": _gemini_count,
    "ollama_show": _ollama_show,
    "ollama_tags": _ollama_tags,
    "llamacpp_props": _llamacpp_props,
    "llamacpp_slots": _llamacpp_slots,
    "openrouter_models": _openrouter_models,
    "responses_compact": compact_response,
    "responses_get": get_response,
    "responses_delete": delete_response,
    "together_models": _together_models,
}
