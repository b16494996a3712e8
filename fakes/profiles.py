"""Provider profiles: which paths each fake serves, in which wire format, with which rules.

A profile is data. ``Endpoint.wire`` names a generation endpoint's wire format;
``Endpoint.kind`` names a model-metadata or token-count endpoint (``fakes.serving.discovery``).
Paths are the providers' real ones; ``{model}`` in a path names the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, TypeAlias

from fakes.catalogue import WireName

EndpointKind: TypeAlias = Literal[
    "generate",
    "openai_models",
    "anthropic_models",
    "anthropic_model",
    "anthropic_count_tokens",
    "gemini_models",
    "gemini_model",
    "gemini_count_tokens",
    "ollama_show",
    "ollama_tags",
    "llamacpp_props",
    "llamacpp_slots",
    "openrouter_models",
    "together_models",
    "responses_compact",
    "responses_get",
    "responses_delete",
]


@dataclass(frozen=True, slots=True)
class Endpoint:
    path: str
    kind: EndpointKind = "generate"
    wire: WireName | None = None
    method: str = "POST"
    window_field: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """``output_variant`` is the overflow used when the input fits but input plus the
    requested output does not (Anthropic). ``flavor`` selects a server's reply extras."""

    name: str
    endpoints: tuple[Endpoint, ...]
    default_window: int
    enforce_pairing: bool = True
    checks_model: bool = True
    output_variant: str | None = None
    flavor: str | None = None

    @property
    def wires(self) -> tuple[WireName, ...]:
        return tuple(dict.fromkeys(e.wire for e in self.endpoints if e.wire is not None))


def _chat(path: str = "/v1/chat/completions") -> Endpoint:
    return Endpoint(path, wire="openai_chat")


def _models(path: str = "/v1/models", window_field: str | None = None) -> Endpoint:
    return Endpoint(path, "openai_models", method="GET", window_field=window_field)


def _compatible(
    name: str, window: int, *, enforce_pairing: bool = True, flavor: str | None = None
) -> ProviderProfile:
    return ProviderProfile(
        name, (_chat(), _models()), window, enforce_pairing=enforce_pairing, flavor=flavor
    )


PROFILES: tuple[ProviderProfile, ...] = (
    ProviderProfile(
        "openai",
        (
            _chat(),
            Endpoint("/v1/responses", wire="openai_responses"),
            Endpoint("/v1/responses/compact", "responses_compact"),
            Endpoint("/v1/responses/{response_id}", "responses_get", method="GET"),
            Endpoint("/v1/responses/{response_id}", "responses_delete", method="DELETE"),
            _models(),
        ),
        128_000,
        flavor="openai_api",  # OpenAI's own extras (fakes.wire.openai_chat_extras)
    ),
    ProviderProfile(
        "azure",
        (
            _chat("/openai/deployments/{model}/chat/completions"),
            _chat("/openai/v1/chat/completions"),
        ),
        128_000,
        flavor="azure",  # OpenAI's extras and Azure's content filter results
    ),
    ProviderProfile(
        "anthropic",
        (
            Endpoint("/v1/messages", wire="anthropic"),
            Endpoint("/v1/messages/count_tokens", "anthropic_count_tokens"),
            Endpoint("/v1/models", "anthropic_models", method="GET"),
            Endpoint("/v1/models/{model}", "anthropic_model", method="GET"),
        ),
        200_000,
        output_variant="max_tokens",
    ),
    ProviderProfile(
        "gemini",
        (
            Endpoint("/v1beta/models/{model}:generateContent", wire="gemini"),
            Endpoint("/v1beta/models/{model}:streamGenerateContent", wire="gemini"),
            Endpoint("/v1beta/models/{model}:countTokens", "gemini_count_tokens"),
            Endpoint("/v1beta/models/{model}", "gemini_model", method="GET"),
            Endpoint("/v1beta/models", "gemini_models", method="GET"),
        ),
        1_048_576,
    ),
    ProviderProfile("bedrock", (Endpoint("/model/{model}/converse", wire="bedrock"),), 200_000),
    ProviderProfile(
        "ollama",
        (
            Endpoint("/api/chat", wire="ollama"),
            _chat(),
            Endpoint("/api/show", "ollama_show"),
            Endpoint("/api/tags", "ollama_tags", method="GET"),
            _models(),
        ),
        4096,
        enforce_pairing=False,
        flavor="ollama",  # its OpenAI mode's answers (fakes.wire.openai_chat_servers)
    ),
    ProviderProfile(
        "openrouter",
        (
            _chat("/api/v1/chat/completions"),
            Endpoint("/api/v1/models", "openrouter_models", method="GET"),
        ),
        262_000,
        flavor="openrouter",  # its SSE comments and 429 (fakes.wire.openai_chat_extras)
    ),
    ProviderProfile(
        "vllm", (_chat(), _models(window_field="max_model_len")), 16_384, enforce_pairing=False
    ),
    ProviderProfile(
        "llamacpp",
        (
            _chat(),
            _chat("/chat/completions"),
            _models(),
            Endpoint("/props", "llamacpp_props", method="GET"),
            Endpoint("/slots", "llamacpp_slots", method="GET"),
        ),
        8192,
        enforce_pairing=False,
        checks_model=False,
        flavor="llamacpp",
    ),
    ProviderProfile(
        "deepseek",
        (_chat("/chat/completions"), _chat(), _models("/models")),
        131_072,
        flavor="deepseek",
    ),
    ProviderProfile(
        "groq",
        (
            _chat("/openai/v1/chat/completions"),
            _models("/openai/v1/models", window_field="context_window"),
        ),
        131_072,
        flavor="groq",  # x_groq, timed usage (fakes.wire.openai_chat_servers)
    ),
    ProviderProfile(
        "mistral",
        (_chat(), _models(window_field="max_context_length")),
        131_072,
        flavor="mistral",
    ),
    ProviderProfile(
        "together", (_chat(), Endpoint("/v1/models", "together_models", method="GET")), 262_144
    ),
    _compatible("xai", 131_072, flavor="xai"),
    ProviderProfile("cohere", (Endpoint("/v2/chat", wire="cohere"),), 132_000),
    _compatible("lmstudio", 8192, enforce_pairing=False),
    _compatible("kimi", 262_144),
    _compatible("fastchat", 2048, enforce_pairing=False),
    ProviderProfile("zhipu", (_chat("/api/paas/v4/chat/completions"),), 128_000),
    ProviderProfile("zai", (_chat("/api/paas/v4/chat/completions"),), 128_000, flavor="zai"),
    ProviderProfile("dashscope", (_chat("/compatible-mode/v1/chat/completions"),), 129_024),
    _compatible("cerebras", 131_072, flavor="cerebras"),
)
PROVIDER_NAMES: tuple[str, ...] = tuple(p.name for p in PROFILES)


def profile(name: str) -> ProviderProfile:
    for candidate in PROFILES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"unknown provider {name!r}; known: {', '.join(PROVIDER_NAMES)}")


SDK_ENDPOINTS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        # How each client kind (as harness.providers names them) reaches a fake: the fake
        # profile that serves it, and the base-URL path its SDK convention puts before the
        # endpoint paths (OpenAI-style SDKs include the version segment).
        "openai": ("openai", "/v1"),
        "openai-responses": ("openai", "/v1"),
        "azure": ("azure", "/openai/v1"),
        "anthropic": ("anthropic", ""),
        "gemini": ("gemini", ""),
        "mistral": ("mistral", "/v1"),
        "groq": ("groq", "/openai/v1"),
        "deepseek": ("deepseek", ""),
        "openrouter": ("openrouter", "/api/v1"),
        "ollama": ("ollama", ""),
        "ollama-openai": ("ollama", "/v1"),
        "vllm": ("vllm", "/v1"),
        "llamacpp": ("llamacpp", "/v1"),
        "lmstudio": ("lmstudio", "/v1"),
        "together": ("together", "/v1"),
        "cohere": ("cohere", ""),
        "xai": ("xai", "/v1"),
    }
)
