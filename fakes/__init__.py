"""Fake LLM providers that speak the real wire formats (never imports ``harness``).

Build a fake, then reach it in process, through respx, or over a real socket::

    fake = FakeProvider("openai", "gpt-test", context_window=1000)
    async with asgi_client(fake) as client: ...
    with FakeServer(fake) as server: httpx.post(server.base_url + "/v1/chat/completions", ...)

``fake.log`` records every request, the tokens counted and the answer.

The ways to reach a fake (``fakes.serving.mounts``: respx, httpx transports, uvicorn) are imported
on first use (PEP 562): code that only reads the catalogue or builds a fake, such as the
scenario loader, then does not pay for respx and httpx.
"""

import typing as _typing  # private: the package's public names are its __all__

from fakes.catalogue import (
    LOOK_ALIKES,
    OVERFLOWS,
    LookAlike,
    OverflowEntry,
    look_alike,
    overflow_entries,
    overflow_entry,
)
from fakes.counting.counters import (
    COUNTER_HEADER,
    COUNTER_NAMES,
    CounterName,
    HeuristicCounter,
    ProviderCounter,
    TokenCount,
    TokenCounter,
    counter_label,
    get_counter,
)
from fakes.engine import FakeProvider
from fakes.fake_model import FakeModel
from fakes.profiles import (
    PROFILES,
    PROVIDER_NAMES,
    SDK_ENDPOINTS,
    Endpoint,
    ProviderProfile,
    profile,
)
from fakes.rows import CanonicalRequest, Row, ToolSchema
from fakes.scripting.fault_rates import RATE_KINDS, FaultRates
from fakes.scripting.script import (
    FakeBehaviour,
    FakeScript,
    Fault,
    ScriptedReply,
    ScriptedToolCall,
    StepCondition,
    UsageReport,
    call_tools,
    fail,
    say,
)
from fakes.serving.answer import StreamDropped
from fakes.serving.app import build_app
from fakes.serving.log import Exchange, RequestLog
from fakes.simulations.provider_side import (
    DEFAULT_FOREIGN_HISTORY,
    FOREIGN_HISTORIES,
    HANDLINGS,
    ForeignHistory,
    Handling,
    ProviderSide,
)

if _typing.TYPE_CHECKING:
    from fakes.serving.mounts import (
        FakeServer,
        FakeTransport,
        asgi_client,
        asgi_transport,
        mount_respx,
        serve_forever,
    )

_MOUNTS = frozenset(
    {"FakeServer", "FakeTransport", "asgi_client", "asgi_transport", "mount_respx", "serve_forever"}
)


def __getattr__(name: str) -> _typing.Any:
    if name not in _MOUNTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from fakes.serving import mounts  # noqa: PLC0415 - the point: imported on first use

    value = getattr(mounts, name)
    globals()[name] = value  # later lookups skip this function
    return value


__all__ = [
    "COUNTER_HEADER",
    "COUNTER_NAMES",
    "DEFAULT_FOREIGN_HISTORY",
    "FOREIGN_HISTORIES",
    "HANDLINGS",
    "LOOK_ALIKES",
    "OVERFLOWS",
    "PROFILES",
    "PROVIDER_NAMES",
    "RATE_KINDS",
    "SDK_ENDPOINTS",
    "CanonicalRequest",
    "CounterName",
    "Endpoint",
    "Exchange",
    "FakeBehaviour",
    "FakeModel",
    "FakeProvider",
    "FakeScript",
    "FakeServer",
    "FakeTransport",
    "Fault",
    "FaultRates",
    "ForeignHistory",
    "Handling",
    "HeuristicCounter",
    "LookAlike",
    "OverflowEntry",
    "ProviderCounter",
    "ProviderProfile",
    "ProviderSide",
    "RequestLog",
    "Row",
    "ScriptedReply",
    "ScriptedToolCall",
    "StepCondition",
    "StreamDropped",
    "TokenCount",
    "TokenCounter",
    "ToolSchema",
    "UsageReport",
    "asgi_client",
    "asgi_transport",
    "build_app",
    "call_tools",
    "counter_label",
    "fail",
    "get_counter",
    "look_alike",
    "mount_respx",
    "overflow_entries",
    "overflow_entry",
    "profile",
    "say",
    "serve_forever",
]
