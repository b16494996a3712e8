"""``trimscope fake serve``: run one fake provider as a real HTTP server.

Binds 127.0.0.1 by default, prints its base URL on stdout (one line, nothing else) once
it accepts connections, and shuts down cleanly (exit status 0) on SIGINT or SIGTERM.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Annotated, TypeAlias

import typer
from rich.console import Console
from starlette.applications import Starlette

from fakes import (
    DEFAULT_FOREIGN_HISTORY,
    PROVIDER_NAMES,
    CounterName,
    FakeProvider,
    FakeScript,
    ForeignHistory,
    Handling,
    ProviderSide,
    get_counter,
    serve_forever,
)
from fakes.serving.mounts import LOOPBACK
from fakes.simulations.caching import CachePolicyName
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.fake_options import (
    MAX_SECONDS_PER_CALL,
    RATE_HELP,
    fault_rates,
    with_latency,
)
from harness.cli.fake_replay import replay_app
from harness.cli.lazy import group
from harness.cli.options import LIMIT, resolve_limits
from harness.cli.paths import MAX_PORT, check_host, check_port
from harness.cli.provider_lists import FAKES_NOTE, unknown_fake
from harness.exit_codes import ExitCode
from harness.scenarios.fake_script import load_fake_script
from harness.scenarios.limits import Limits
from harness.scenarios.loader import ScenarioError

HELP = "Fake LLM providers that fail the way real ones do."


def _provider(value: str | None) -> str | None:
    if value is not None and value not in PROVIDER_NAMES:
        raise typer.BadParameter(unknown_fake(value))
    return value


def _load_script(path: Path | None, limits: Limits) -> FakeScript | None:
    """``--script``: read like a scenario file; every problem is ``file:line: ...``, exit 2."""
    if path is None:
        return None
    try:
        return load_fake_script(path, limits)
    except ScenarioError as error:
        for problem in error.problems:
            typer.echo(problem, err=True)
        typer.echo(f"invalid --script: {len(error.problems)} problem(s)", err=True)
        raise typer.Exit(ExitCode.INVALID) from error


def _within(option: str, value: float, most: float, name: str) -> None:
    if value > most:
        raise typer.BadParameter(
            f"expected at most {most:g} (raise it with --limit {name}=N), found {value:g}",
            param_hint=option,
        )


def _required(provider: str | None, model: str | None, window: int | None) -> tuple[str, str, int]:
    missing = "expected a value (required unless --replay)"
    if provider is None:
        raise typer.BadParameter(missing, param_hint="--provider")
    if model is None:
        raise typer.BadParameter(missing, param_hint="--model")
    if window is None:
        raise typer.BadParameter(missing, param_hint="--context-window")
    return provider, model, window


def _announce(url: str) -> None:
    typer.echo(url)


# The options of `fake serve`, each declared once (its type, bounds and help).
PROVIDER_OPTION: TypeAlias = Annotated[
    str | None,
    typer.Option(
        help=f"The provider whose answers it copies: {', '.join(PROVIDER_NAMES)}. "
        f"{FAKES_NOTE} Required unless --replay.",
        callback=_provider,
    ),
]
MODEL_OPTION: TypeAlias = Annotated[
    str | None,
    typer.Option(help="The model name the fake answers to. Required unless --replay."),
]
CONTEXT_WINDOW_OPTION: TypeAlias = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=MAX_CONTEXT_WINDOW_TOKENS,
        help="The model's window in tokens. Required unless --replay.",
    ),
]
COUNTER_OPTION: TypeAlias = Annotated[
    CounterName, typer.Option(help="How input tokens are counted.")
]
HOST_OPTION: TypeAlias = Annotated[str, typer.Option(help="Interface to bind.")]
PORT_OPTION: TypeAlias = Annotated[
    int, typer.Option(min=0, max=MAX_PORT, help="0 picks a free port.")
]
VARIANT_OPTION: TypeAlias = Annotated[str, typer.Option(help="Overflow answer variant.")]
SCRIPT_OPTION: TypeAlias = Annotated[
    Path | None,
    typer.Option(
        help="YAML script: steps and default, as a scenario's fake (scenarios/README.md)."
    ),
]
FOREIGN_HISTORY_OPTION: TypeAlias = Annotated[
    ForeignHistory,
    typer.Option(
        help="History the real provider signed (thinking signatures, encrypted "
        "compaction items): opaque accepts it as the real API does, strict refuses it."
    ),
]
CACHING_OPTION: TypeAlias = Annotated[
    CachePolicyName | None,
    typer.Option(help="Prompt caching rules (none turns it off); default: the provider's."),
]
HANDLING_OPTION: TypeAlias = Annotated[
    Handling,
    typer.Option(
        help="Provider-side context management fields (Anthropic context_management, "
        "Responses truncation): honour them, ignore them (a gateway that drops them) "
        "or reject them."
    ),
]
COMPACTION_FAILS_OPTION: TypeAlias = Annotated[
    bool, typer.Option(help="Provider-side compactions fail (Anthropic compact).")
]
LATENCY_MS_OPTION: TypeAlias = Annotated[
    int,
    typer.Option(min=0, help="Every call waits this long (a step's own latency_ms wins)."),
]
SECONDS_PER_CALL_OPTION: TypeAlias = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=MAX_SECONDS_PER_CALL,
        help="The fake's clock for cache lifetimes: call n at n x this (default: real time).",
    ),
]
FAULT_RATE_OPTION: TypeAlias = Annotated[list[str] | None, typer.Option(help=RATE_HELP)]
SEED_OPTION: TypeAlias = Annotated[
    int | None,
    typer.Option(min=0, max=2**63 - 1, help="Where the faults at a rate fall (default 0)."),
]
FAULT_STATUS_OPTION: TypeAlias = Annotated[
    int, typer.Option(min=500, max=599, help="The status of a server_error at a rate.")
]
RETRY_AFTER_OPTION: TypeAlias = Annotated[
    int,
    typer.Option(min=0, max=86_400, help="A rate_limit at a rate's retry-after (seconds)."),
]
HANG_SECONDS_OPTION: TypeAlias = Annotated[
    float, typer.Option(min=0.0, help="How long a hang at a rate holds the call.")
]
REPLAY_OPTION: TypeAlias = Annotated[
    Path | None,
    typer.Option(
        help="Answer from the proxy's cassettes in this folder (proxy --record) instead "
        "of a fake: requests matched by method, path, query and JSON body; an unmatched "
        "one gets a 404 naming the closest record (docs/fakes-fidelity.md, 'Replay')."
    ),
]


def serve(
    provider: PROVIDER_OPTION = None,
    model: MODEL_OPTION = None,
    context_window: CONTEXT_WINDOW_OPTION = None,
    counter: COUNTER_OPTION = ("heuristic"),
    host: HOST_OPTION = LOOPBACK,
    port: PORT_OPTION = 0,
    variant: VARIANT_OPTION = "default",
    script: SCRIPT_OPTION = None,
    foreign_history: FOREIGN_HISTORY_OPTION = DEFAULT_FOREIGN_HISTORY,
    caching: CACHING_OPTION = None,
    handling: HANDLING_OPTION = "honour",
    compaction_fails: COMPACTION_FAILS_OPTION = False,
    latency_ms: LATENCY_MS_OPTION = 0,
    seconds_per_call: SECONDS_PER_CALL_OPTION = 0.0,
    fault_rate: FAULT_RATE_OPTION = None,
    seed: SEED_OPTION = None,
    fault_status: FAULT_STATUS_OPTION = 500,
    retry_after: RETRY_AFTER_OPTION = 1,
    hang_seconds: HANG_SECONDS_OPTION = 30.0,
    replay: REPLAY_OPTION = None,
    limit: list[str] | None = LIMIT,
) -> None:
    """Serve one fake provider until SIGINT or SIGTERM; print its base URL when ready."""
    check_host("--host", host)
    check_port("--port", port, host)
    limits = resolve_limits(limit, Console(stderr=True))
    if replay is not None:
        if script is not None or fault_rate:
            hint = "--script" if script is not None else "--fault-rate"
            raise typer.BadParameter(
                "expected no fake's script or faults with --replay", param_hint=hint
            )
        _serve(replay_app(replay), host, port)
        return
    given = dict(locals())
    options = FakeOptions(**{f.name: given[f.name] for f in fields(FakeOptions)})
    _serve(_fake(options, limits), host, port)


@dataclass(frozen=True, slots=True)
class FakeOptions:
    """What ``fake serve`` builds its fake from (every option but the server's own)."""

    provider: str | None
    model: str | None
    context_window: int | None
    counter: CounterName
    variant: str
    script: Path | None
    foreign_history: ForeignHistory
    caching: CachePolicyName | None
    handling: Handling
    compaction_fails: bool
    latency_ms: int
    seconds_per_call: float
    fault_rate: list[str] | None
    seed: int | None
    fault_status: int
    retry_after: int
    hang_seconds: float


def _fake(o: FakeOptions, limits: Limits) -> FakeProvider:
    """The fake the options describe, or exit 2 naming the option that is wrong."""
    provider, model, context_window = _required(o.provider, o.model, o.context_window)
    try:
        get_counter(o.counter, model)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--counter") from error
    _within("--latency-ms", o.latency_ms, limits.latency_ms, "latency_ms")
    _within("--hang-seconds", o.hang_seconds, limits.fault_seconds, "fault_seconds")
    loaded = _load_script(o.script, limits) or FakeScript()
    details = (o.fault_status, o.retry_after, o.hang_seconds)
    rates = fault_rates(o.fault_rate, o.seed, details, loaded.faults)
    loaded = replace(with_latency(loaded, o.latency_ms), faults=rates)
    try:
        fake = FakeProvider(
            provider,
            model,
            context_window=context_window,
            counter=o.counter,
            script=loaded,
            variant=o.variant,
            caching=o.caching,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--variant") from error
    fake.provider_side = ProviderSide(
        o.handling, o.compaction_fails, foreign_history=o.foreign_history
    )
    if o.seconds_per_call:
        per_call = o.seconds_per_call
        fake.clock = lambda: fake.calls_taken * per_call
    return fake


def _serve(app: FakeProvider | Starlette, host: str, port: int) -> None:
    if host != LOOPBACK:
        typer.echo(f"warning: binding {host}, not loopback", err=True)
    serve_forever(app, host, port, on_ready=_announce)


def register(app: typer.Typer) -> None:
    app.add_typer(group(HELP, {"serve": serve}), name="fake")
