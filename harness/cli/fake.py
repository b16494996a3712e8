"""``trimscope fake serve``: run one fake provider as a real HTTP server.

Binds 127.0.0.1 by default, prints its base URL on stdout (one line, nothing else) once
it accepts connections, and shuts down cleanly (exit status 0) on SIGINT or SIGTERM.
"""

from __future__ import annotations

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
    ProviderSide,
    serve_forever,
)
from fakes.serving.mounts import LOOPBACK
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.paths import MAX_PORT, check_host, check_port
from harness.cli.provider_lists import FAKES_NOTE, unknown_fake
from harness.cli.validate import EXIT_INVALID, LIMIT, resolve_limits
from harness.scenarios.fake_script import load_fake_script
from harness.scenarios.limits import Limits
from harness.scenarios.loader import ScenarioError


def _provider(value: str) -> str:
    if value not in PROVIDER_NAMES:
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
        raise typer.Exit(EXIT_INVALID) from error


def _announce(url: str) -> None:
    typer.echo(url)


def serve(
    provider: Annotated[
        str,
        typer.Option(
            help=f"The provider whose answers it copies: {', '.join(PROVIDER_NAMES)}. {FAKES_NOTE}",
            callback=_provider,
        ),
    ],
    model: Annotated[str, typer.Option(help="The model name the fake answers to.")],
    context_window: Annotated[
        int,
        typer.Option(min=1, max=MAX_CONTEXT_WINDOW_TOKENS, help="The model's window in tokens."),
    ],
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
    limit: list[str] | None = LIMIT,
) -> None:
    """Serve one fake provider until SIGINT or SIGTERM; print its base URL when ready."""
    check_host("--host", host)
    check_port("--port", port, host)
    limits = resolve_limits(limit, Console(stderr=True))
    try:
        fake = FakeProvider(
            provider,
            model,
            context_window=context_window,
            counter=counter,
            script=_load_script(script, limits),
            variant=variant,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--variant") from error
    fake.provider_side = ProviderSide(foreign_history=foreign_history)
    if host != LOOPBACK:
        typer.echo(f"warning: binding {host}, not loopback", err=True)
    serve_forever(fake, host, port, on_ready=_announce)


def register(app: typer.Typer) -> None:
    fake_app = typer.Typer(
        no_args_is_help=True,
        add_completion=False,
        help="Fake LLM providers that fail the way real ones do.",
    )
    fake_app.command("serve")(serve)
    app.add_typer(fake_app, name="fake")
