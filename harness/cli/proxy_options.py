"""``trimscope proxy``'s options, its request record, and the option checks, run before
anything listens or opens a file.

Each raises ``typer.BadParameter`` naming the option and the value (exit 2, one line, no
traceback), as ``harness.cli.paths`` does for the other commands.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final

import typer

from harness.cli.paths import MAX_PORT, check_host, check_outputs, check_port
from harness.cli.secrets import split_userinfo
from harness.proxy import UpstreamError, parse_upstream
from harness.proxy.upstream import Upstream
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.wire import WIRE_KINDS, WireKind
from harness.wire.observer import DEFAULT_SESSION_HEADER

MIN_BODY_BYTES: Final = 1024
MAX_BODY_BYTES: Final = 1024 * 1024 * 1024
"""1 GiB: eight times the largest request body any provider accepts today; each
exchange in flight holds up to two copies of this."""
MAX_IDLE_S: Final = 7 * 86_400.0
MAX_UPSTREAM_TIMEOUT_S: Final = 3_600.0
MAX_HEADER_NAME: Final = 128
_TOKEN: Final = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
"""An HTTP header name (RFC 9110 ``token``)."""


UpstreamOption = Annotated[
    str, typer.Option(help="The provider's base URL as a client is given it (…/v1).")
]
WireOption = Annotated[str, typer.Option(help="The wire format: openai_chat, anthropic, …")]
PortOption = Annotated[int, typer.Option(min=0, max=MAX_PORT, help="Port to listen on; 0: free.")]
HostOption = Annotated[str, typer.Option(help="Interface to bind (loopback).")]
AllowRemoteOption = Annotated[
    bool, typer.Option("--allow-remote", help="Allow a --host that is not loopback.")
]
SessionHeaderOption = Annotated[
    str, typer.Option(help="The request header that names the session.")
]
SessionIdleOption = Annotated[
    float, typer.Option(min=1.0, max=MAX_IDLE_S, help="A session idle this long is forgotten.")
]
MaxBodyOption = Annotated[
    int,
    typer.Option(
        min=MIN_BODY_BYTES, max=MAX_BODY_BYTES, help="Bytes of each body kept to observe."
    ),
]
UpstreamTimeoutOption = Annotated[
    float,
    typer.Option(min=0.1, max=MAX_UPSTREAM_TIMEOUT_S, help="Longest upstream silence, then 504."),
]
FindingsOption = Annotated[
    Path | None, typer.Option(help="Append each finding as a JSON line to FILE.")
]
RecordOption = Annotated[
    Path | None, typer.Option(help="Record every exchange (keys redacted) in DIR.")
]
MetricsOutOption = Annotated[Path | None, typer.Option(help="Write the metrics to FILE at exit.")]
ServeMetricsOption = Annotated[
    int | None,
    typer.Option("--serve-metrics", min=0, max=MAX_PORT, help="Serve metrics on 127.0.0.1:PORT."),
]
OtelJsonlOption = Annotated[
    Path | None, typer.Option("--otel-jsonl", help="Write the findings' spans to FILE.")
]
OtlpOption = Annotated[
    bool, typer.Option("--otlp", help="Export the findings' spans by OTLP/HTTP (OTEL_*).")
]
ProviderNameOption = Annotated[
    str | None,
    typer.Option(help="The upstream's name in metrics and spans (default: the wire)."),
]
PricesOption = Annotated[
    Path | None,
    typer.Option("--prices", help="Price table (YAML): cost and cache-loss cost series."),
]
PriceAsOption = Annotated[
    str | None, typer.Option(help="Price every call as this model of --prices.")
]


@dataclass(frozen=True, slots=True)
class ProxyRequest:
    """``trimscope proxy``'s options, as given (``run_proxy`` checks them)."""

    upstream: str
    wire: str
    port: int
    host: str
    allow_remote: bool
    session_header: str
    session_idle_s: float
    max_body_bytes: int
    upstream_timeout_s: float
    findings_jsonl: Path | None
    record: Path | None
    metrics_out: Path | None
    serve_metrics_port: int | None
    otel_jsonl: Path | None
    otlp: bool
    provider_name: str | None
    prices_path: Path | None
    price_as: str | None


def _bad(option: str, value: object, why: str) -> typer.BadParameter:
    return typer.BadParameter(f"{str(value)!r}: {why}", param_hint=f"'{option}'")


def check_upstream(url: str) -> Upstream:
    try:
        return parse_upstream(url)
    except UpstreamError as error:
        shown = split_userinfo(url).url  # a key in the URL is not repeated in the message
        raise _bad("--upstream", shown, str(error)) from None


def check_wire(wire: str) -> WireKind:
    for kind in WIRE_KINDS:
        if wire == kind:
            return kind
    near = difflib.get_close_matches(wire.lower().replace("-", "_"), WIRE_KINDS, n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    raise _bad("--wire", wire, f"{hint}expected one of: {', '.join(WIRE_KINDS)}")


def _is_loopback(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    return all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def check_listen(host: str, port: int, metrics_port: int | None, *, allow_remote: bool) -> None:
    """``--host`` resolves and is loopback (unless ``--allow-remote``: the proxy forwards
    keys, so listening beyond this machine is a choice to state); the ports are free and
    not the same one."""
    check_host("--host", host)
    if not allow_remote and not _is_loopback(host):
        raise _bad("--host", host, "is not a loopback address; pass --allow-remote to bind it")
    check_port("--port", port, host)
    if metrics_port is not None and metrics_port != 0 and metrics_port == port:
        raise _bad("--serve-metrics", metrics_port, "is also --port")
    check_port("--serve-metrics", metrics_port, METRICS_HOST)


def check_session_header(name: str) -> str:
    if len(name) > MAX_HEADER_NAME or not _TOKEN.match(name):
        raise _bad("--session-header", name, f"expected a header name (at most {MAX_HEADER_NAME})")
    return name.lower()


def check_output_paths(
    findings: Path | None, metrics: Path | None, record: Path | None, spans: Path | None = None
) -> None:
    """Outputs are writable where they are, in folders that exist (``harness.cli.paths``:
    a typo in a folder name is an error, not a new folder). ``--record DIR`` itself is
    created if missing, never its parent."""
    check_outputs(
        {"--findings-jsonl": findings, "--metrics-out": metrics, "--otel-jsonl": spans},
        {"--record": record},
    )


__all__ = [
    "DEFAULT_SESSION_HEADER",
    "MAX_BODY_BYTES",
    "MAX_IDLE_S",
    "MAX_UPSTREAM_TIMEOUT_S",
    "MIN_BODY_BYTES",
    "ProxyRequest",
    "check_listen",
    "check_output_paths",
    "check_session_header",
    "check_upstream",
    "check_wire",
]
