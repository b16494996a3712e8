"""``trimscope proxy``: watch your own runtime. A reverse proxy on 127.0.0.1 between an
agent runtime and its provider forwards every request and answer unchanged and has the
wire observer report what the runtime did to each session's history (docs/proxy.md).

Prints the base URL to give the client (stdout, one line) once it accepts connections.
Exit codes: 0 never (it serves until stopped); 1 an output could not be written or the
server could not start; 2 an option is invalid (nothing started); 130 / 143 SIGINT /
SIGTERM stopped it: exchanges in flight were finished (up to 5 s), every finding was
written, ``--metrics-out`` was written and the record closed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from prometheus_client import CollectorRegistry

from harness.cli import proxy_options as o
from harness.cli.envvars import check_telemetry_environment
from harness.cli.options import priced_metrics
from harness.cli.proxy_metrics import ProxyMetrics
from harness.cli.proxy_options import (
    DEFAULT_SESSION_HEADER,
    check_listen,
    check_output_paths,
    check_session_header,
    check_upstream,
    check_wire,
)
from harness.events import EventBus
from harness.exit_codes import ExitCode
from harness.interrupt import StopRequest, stop_on_signals
from harness.pricing.formula import PriceOf
from harness.providers.overflow.classify import extended_is_overflow
from harness.proxy import (
    DEFAULT_UPSTREAM_TIMEOUT_S,
    CassetteRecorder,
    FindingSink,
    JsonlFindings,
    ObservingProxy,
    ProxyServer,
    ProxySettings,
    Sinks,
    Upstream,
)
from harness.proxy.event_sink import EventSink
from harness.telemetry.exposition import MetricsServer, serve_metrics
from harness.telemetry.exposition import write_metrics as write_metrics_file
from harness.telemetry.setup import Telemetry, TelemetryOptions, build_telemetry
from harness.wire import ObserverConfig, WireKind, WireObserver
from harness.wire.observer import DEFAULT_IDLE_S, DEFAULT_MAX_BODY_BYTES


def _say(text: str) -> None:
    typer.echo(f"proxy: {text}", err=True)


def _sinks(registry: CollectorRegistry, outputs: Outputs, telemetry: Telemetry) -> Sinks:
    findings_jsonl, record = outputs.findings_jsonl, outputs.record
    bus = EventBus(observers=telemetry.observers)
    # The events the reference agent emits, source="wire": the dashboards show the runtime.
    chosen: list[FindingSink] = [
        ProxyMetrics(registry),
        EventSink(bus.publish, provider=outputs.provider_name),
    ]
    if findings_jsonl is not None:
        chosen.append(JsonlFindings(findings_jsonl))
    if record is not None:
        record.mkdir(exist_ok=True)  # its parent was checked to exist
        recorder = CassetteRecorder(record)
        _say(f"recording to {recorder.path}")
        chosen.append(recorder)
    return Sinks(chosen, on_error=_say)


def _announcer(upstream: Upstream, wire: WireKind) -> Callable[[str], None]:
    def announce(url: str) -> None:
        _say(f"{url}{upstream.prefix} -> {upstream.base_url} ({wire}); SIGINT or SIGTERM stops")
        typer.echo(url + upstream.prefix)

    return announce


def _finish(
    sinks: Sinks,
    telemetry: Telemetry,
    metrics: tuple[Path | None, MetricsServer | None],
    stop: StopRequest,
) -> int:
    """Close every output; the exit status: the signal's, else 1 when an output failed."""
    metrics_out, metrics_server = metrics
    registry = telemetry.registry
    assert registry is not None  # the proxy always keeps metrics
    if metrics_server is not None:
        metrics_server.close()
    try:
        sinks.close()
    finally:
        if stop.name is not None:
            telemetry.mark_interrupted(stop.name)
        telemetry.shutdown()  # ends spans, flushes exporters, settles pending overflows
        if metrics_out is not None:
            write_metrics_file(registry, metrics_out)
    if stop.exit_code is not None:
        _say(f"stopped by {stop.name}; findings and metrics written")
        return stop.exit_code
    return ExitCode.UNWRITTEN if sinks.failed else 0


def proxy(
    upstream: o.UpstreamOption,
    wire: o.WireOption,
    port: o.PortOption,
    host: o.HostOption = "127.0.0.1",
    allow_remote: o.AllowRemoteOption = False,
    session_header: o.SessionHeaderOption = DEFAULT_SESSION_HEADER,
    session_idle_s: o.SessionIdleOption = DEFAULT_IDLE_S,
    max_body_bytes: o.MaxBodyOption = DEFAULT_MAX_BODY_BYTES,
    upstream_timeout_s: o.UpstreamTimeoutOption = DEFAULT_UPSTREAM_TIMEOUT_S,
    findings_jsonl: o.FindingsOption = None,
    record: o.RecordOption = None,
    metrics_out: o.MetricsOutOption = None,
    serve_metrics_port: o.ServeMetricsOption = None,
    otel_jsonl: o.OtelJsonlOption = None,
    otlp: o.OtlpOption = False,
    provider_name: o.ProviderNameOption = None,
    prices_path: o.PricesOption = None,
    price_as: o.PriceAsOption = None,
) -> None:
    """Forward a runtime's provider calls unchanged and report what it did to its history.

    Give the client the URL printed on stdout instead of the provider's: with --upstream
    http://HOST:PORT/v1, a request to the proxy's /v1/chat/completions (or to
    /chat/completions) goes to http://HOST:PORT/v1/chat/completions. Keys in headers or
    ?key= are forwarded and never written anywhere. Each session is named by
    --session-header. SIGINT or SIGTERM stops it (exit 130 / 143) with every output
    written. See docs/proxy.md.
    """
    # The parameters are the request's fields, by name (the record is the option list).
    raise typer.Exit(run_proxy(o.ProxyRequest(**locals())))


def run_proxy(request: o.ProxyRequest) -> int:
    """Check every option (nothing listens, and no file is opened, before all are valid),
    then serve until a signal; the exit code (the module docstring's)."""
    parsed = check_upstream(request.upstream)
    kind = check_wire(request.wire)
    host, port = request.host, request.port
    check_listen(host, port, request.serve_metrics_port, allow_remote=request.allow_remote)
    header = check_session_header(request.session_header)
    check_output_paths(
        request.findings_jsonl, request.metrics_out, request.record, request.otel_jsonl
    )
    tracing = request.otel_jsonl is not None or request.otlp
    check_telemetry_environment(tracing=tracing, otlp=request.otlp)
    metrics_wanted = request.metrics_out is not None or request.serve_metrics_port is not None
    price_of = priced_metrics(request.prices_path, request.price_as, metrics_wanted)
    observer = WireObserver(
        ObserverConfig(
            session_header=header,
            idle_s=request.session_idle_s,
            max_body_bytes=request.max_body_bytes,
            is_overflow=extended_is_overflow,
        )
    )
    settings = ProxySettings(parsed, kind, request.max_body_bytes, request.upstream_timeout_s)
    outputs = Outputs(
        request.findings_jsonl,
        request.record,
        request.metrics_out,
        request.serve_metrics_port,
        request.otel_jsonl,
        request.otlp,
        request.provider_name,
        price_of,
    )
    return _serve(settings, observer, (host, port), outputs)


@dataclass(frozen=True, slots=True)
class Outputs:
    findings_jsonl: Path | None
    record: Path | None
    metrics_out: Path | None
    serve_metrics_port: int | None
    otel_jsonl: Path | None = None
    otlp: bool = False
    provider_name: str | None = None
    price_of: PriceOf | None = None


def _to_ns(at: float) -> int:
    """Event stamps (``time.time()``, the event sink's clock) as span times: a call's span
    starts when the request arrived, though its events are published at its end."""
    return int(at * 1e9)


def _serve(
    settings: ProxySettings, observer: WireObserver, listen: tuple[str, int], outputs: Outputs
) -> int:
    """Serve until a signal; every output closed or written on the way out; the exit code."""
    registry = CollectorRegistry()  # the proxy's own, never the global one
    telemetry = build_telemetry(
        TelemetryOptions(
            otel_jsonl=outputs.otel_jsonl,
            otlp=outputs.otlp,
            registry=registry,
            price_of=outputs.price_of,
            clock_to_ns=_to_ns,
        )
    )
    sinks = _sinks(registry, outputs, telemetry)
    try:
        server = ProxyServer(ObservingProxy(settings, observer, sinks), *listen)
    except OSError as error:  # taken since it was checked free
        sinks.close()
        telemetry.shutdown()
        _say(f"cannot listen on {listen[0]}:{listen[1]}: {error.strerror}")
        return ExitCode.UNWRITTEN
    metrics_server = None
    if outputs.serve_metrics_port is not None:
        metrics_server = serve_metrics(registry, outputs.serve_metrics_port)
        _say(f"metrics: {metrics_server.url}")
    stop = StopRequest()
    try:
        with stop_on_signals(stop):
            server.serve(on_ready=_announcer(settings.upstream, settings.wire))
    finally:
        code = _finish(sinks, telemetry, (outputs.metrics_out, metrics_server), stop)
    if not server.started and stop.exit_code is None:
        _say("the server did not start")
        return ExitCode.UNWRITTEN
    return code


def _one_line_paragraphs(text: str) -> str:
    """The help renderer keeps a docstring's line breaks: one line per paragraph."""
    return "\n\n".join(" ".join(part.split()) for part in text.split("\n\n"))


def register(app: typer.Typer) -> None:
    app.command("proxy", help=_one_line_paragraphs(proxy.__doc__ or ""))(proxy)
