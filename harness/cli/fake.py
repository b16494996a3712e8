"""``trimscope fake serve``: run one fake provider as a real HTTP server.

Binds 127.0.0.1 by default, prints its base URL on stdout (one line, nothing else) once
it accepts connections, and shuts down cleanly (exit status 0) on SIGINT or SIGTERM.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

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


def serve(
    provider: Annotated[
        str | None,
        typer.Option(
            help=f"The provider whose answers it copies: {', '.join(PROVIDER_NAMES)}. "
            f"{FAKES_NOTE} Required unless --replay.",
            callback=_provider,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="The model name the fake answers to. Required unless --replay."),
    ] = None,
    context_window: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_CONTEXT_WINDOW_TOKENS,
            help="The model's window in tokens. Required unless --replay.",
        ),
    ] = None,
    counter: Annotated[CounterName, typer.Option(help="How input tokens are counted.")] = (
        "heuristic"
    ),
    host: Annotated[str, typer.Option(help="Interface to bind.")] = LOOPBACK,
    port: Annotated[int, typer.Option(min=0, max=MAX_PORT, help="0 picks a free port.")] = 0,
    variant: Annotated[str, typer.Option(help="Overflow answer variant.")] = "default",
    script: Annotated[
        Path | None,
        typer.Option(
            help="YAML script: steps and default, as a scenario's fake (scenarios/README.md)."
        ),
    ] = None,
    foreign_history: Annotated[
        ForeignHistory,
        typer.Option(
            help="History the real provider signed (thinking signatures, encrypted "
            "compaction items): opaque accepts it as the real API does, strict refuses it."
        ),
    ] = DEFAULT_FOREIGN_HISTORY,
    caching: Annotated[
        CachePolicyName | None,
        typer.Option(help="Prompt caching rules (none turns it off); default: the provider's."),
    ] = None,
    handling: Annotated[
        Handling,
        typer.Option(
            help="Provider-side context management fields (Anthropic context_management, "
            "Responses truncation): honour them, ignore them (a gateway that drops them) "
            "or reject them."
        ),
    ] = "honour",
    compaction_fails: Annotated[
        bool, typer.Option(help="Provider-side compactions fail (Anthropic compact).")
    ] = False,
    latency_ms: Annotated[
        int,
        typer.Option(min=0, help="Every call waits this long (a step's own latency_ms wins)."),
    ] = 0,
    seconds_per_call: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=MAX_SECONDS_PER_CALL,
            help="The fake's clock for cache lifetimes: call n at n x this (default: real time).",
        ),
    ] = 0.0,
    fault_rate: Annotated[list[str] | None, typer.Option(help=RATE_HELP)] = None,
    seed: Annotated[
        int | None,
        typer.Option(min=0, max=2**63 - 1, help="Where the faults at a rate fall (default 0)."),
    ] = None,
    fault_status: Annotated[
        int, typer.Option(min=500, max=599, help="The status of a server_error at a rate.")
    ] = 500,
    retry_after: Annotated[
        int,
        typer.Option(min=0, max=86_400, help="A rate_limit at a rate's retry-after (seconds)."),
    ] = 1,
    hang_seconds: Annotated[
        float, typer.Option(min=0.0, help="How long a hang at a rate holds the call.")
    ] = 30.0,
    replay: Annotated[
        Path | None,
        typer.Option(
            help="Answer from the proxy's cassettes in this folder (proxy --record) instead "
            "of a fake: requests matched by method, path, query and JSON body; an unmatched "
            "one gets a 404 naming the closest record (docs/fakes-fidelity.md, 'Replay')."
        ),
    ] = None,
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
        app = replay_app(replay)
        if host != LOOPBACK:
            typer.echo(f"warning: binding {host}, not loopback", err=True)
        serve_forever(app, host, port, on_ready=_announce)
        return
    provider, model, context_window = _required(provider, model, context_window)
    try:
        get_counter(counter, model)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--counter") from error
    _within("--latency-ms", latency_ms, limits.latency_ms, "latency_ms")
    _within("--hang-seconds", hang_seconds, limits.fault_seconds, "fault_seconds")
    loaded = _load_script(script, limits) or FakeScript()
    rates = fault_rates(fault_rate, seed, (fault_status, retry_after, hang_seconds), loaded.faults)
    loaded = replace(with_latency(loaded, latency_ms), faults=rates)
    try:
        fake = FakeProvider(
            provider,
            model,
            context_window=context_window,
            counter=counter,
            script=loaded,
            variant=variant,
            caching=caching,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--variant") from error
    fake.provider_side = ProviderSide(handling, compaction_fails, foreign_history=foreign_history)
    if seconds_per_call:
        fake.clock = lambda: fake.calls_taken * seconds_per_call
    if host != LOOPBACK:
        typer.echo(f"warning: binding {host}, not loopback", err=True)
    serve_forever(fake, host, port, on_ready=_announce)


def register(app: typer.Typer) -> None:
    app.add_typer(group(HELP, {"serve": serve}), name="fake")
