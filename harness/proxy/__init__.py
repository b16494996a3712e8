"""The observing proxy: a reverse proxy between an agent runtime and its provider that
forwards everything unchanged and has the wire observer (``harness.wire``) read each
exchange once it is over. ``trimscope proxy`` composes it (docs/proxy.md).

- ``ObservingProxy(settings, observer, sink)``: the starlette app (``harness.proxy.app``);
- ``ProxyServer(proxy, host, port)``: uvicorn serving it (``harness.proxy.server``);
- ``FindingSink``: what is told of every exchange and its findings (``harness.proxy.sinks``),
  with ``JsonlFindings`` (``--findings-jsonl``) and ``CassetteRecorder`` (``--record``);
- ``harness.proxy.names``: the proxy's metric names.
"""

from harness.proxy.app import (
    DEFAULT_UPSTREAM_TIMEOUT_S,
    ERROR_HEADER,
    Observer,
    ObservingProxy,
    ProxySettings,
)
from harness.proxy.record import CassetteRecorder, read_cassette
from harness.proxy.server import AsgiServer, ProxyServer
from harness.proxy.sinks import FindingSink, JsonlFindings, Outcome, Sinks, Traffic
from harness.proxy.upstream import Upstream, UpstreamError, parse_upstream

__all__ = [
    "DEFAULT_UPSTREAM_TIMEOUT_S",
    "ERROR_HEADER",
    "AsgiServer",
    "CassetteRecorder",
    "FindingSink",
    "JsonlFindings",
    "Observer",
    "ObservingProxy",
    "Outcome",
    "ProxyServer",
    "ProxySettings",
    "Sinks",
    "Traffic",
    "Upstream",
    "UpstreamError",
    "parse_upstream",
    "read_cassette",
]
