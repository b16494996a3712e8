"""Provider clients per wire format over an injected httpx client, and the classifiers
that turn their answers into replies or typed errors."""

from harness.providers.base import ProviderClient, ProviderReply, ProviderRequest, Usage
from harness.providers.errors import (
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
    render_provider_error,
)

__all__ = [
    "ContextWindowExceeded",
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
    "render_provider_error",
]
