"""Provider clients per wire format over an injected httpx client, and the classifiers
that turn their answers into replies or typed errors.

``make_client(kind, client=..., base_url=..., api_key=...)`` builds the client for a
catalogue kind (``PROVIDER_KINDS``); every client's ``complete(ProviderRequest)`` returns a
``ProviderReply`` or raises a ``ProviderError`` subclass. ``Classifier`` names the two
overflow classifiers of spec 19.10 (``reference``, ``extended``; ``extended`` is the
default); ``classify_overflow`` gives both verdicts for any ``(provider, status, body)``.
"""

from harness.providers.clients.anthropic import AnthropicClient
from harness.providers.clients.cohere import CohereClient
from harness.providers.clients.gemini import GeminiClient
from harness.providers.clients.ollama import OllamaClient
from harness.providers.clients.openai_chat import AzureOpenAIChatClient, OpenAIChatClient
from harness.providers.clients.openai_responses import OpenAIResponsesClient
from harness.providers.overflow.classify import (
    DEFAULT_CLASSIFIER,
    Classifier,
    OverflowClassifier,
    classify_overflow,
    extended_is_overflow,
    is_context_window_stop,
    reference_is_overflow,
)
from harness.providers.overflow.errors import (
    ContextWindowExceeded,
    OverflowVerdicts,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
    render_provider_error,
)
from harness.providers.overflow.failures import failure_error, parse_retry_after
from harness.providers.plumbing.base import ProviderClient, ProviderReply, ProviderRequest, Usage
from harness.providers.plumbing.factory import CLIENT_CLASSES, PROVIDER_KINDS, make_client
from harness.providers.plumbing.transport import HttpProviderClient

__all__ = [
    "CLIENT_CLASSES",
    "DEFAULT_CLASSIFIER",
    "PROVIDER_KINDS",
    "AnthropicClient",
    "AzureOpenAIChatClient",
    "Classifier",
    "CohereClient",
    "ContextWindowExceeded",
    "GeminiClient",
    "HttpProviderClient",
    "OllamaClient",
    "OpenAIChatClient",
    "OpenAIResponsesClient",
    "OverflowClassifier",
    "OverflowVerdicts",
    "ProviderClient",
    "ProviderError",
    "ProviderProtocolError",
    "ProviderReply",
    "ProviderRequest",
    "ProviderRequestRejected",
    "ProviderServerError",
    "ProviderTimeout",
    "RateLimited",
    "Usage",
    "classify_overflow",
    "extended_is_overflow",
    "failure_error",
    "is_context_window_stop",
    "make_client",
    "parse_retry_after",
    "reference_is_overflow",
    "render_provider_error",
]
