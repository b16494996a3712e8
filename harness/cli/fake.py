"""``trimscope fake serve``: run one fake provider as a real HTTP server.

Binds 127.0.0.1 by default, prints its base URL on stdout (one line, nothing else) once
it accepts connections, and shuts down cleanly (exit status 0) on SIGINT or SIGTERM.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml
from pydantic import TypeAdapter, ValidationError

from fakes import PROVIDER_NAMES, CounterName, FakeProvider, FakeScript, serve_forever
from fakes.mounts import LOOPBACK
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.paths import MAX_PORT, check_host, check_port


def _provider(value: str) -> str:
    if value not in PROVIDER_NAMES:
        raise typer.BadParameter(f"{value!r} is not one of: {', '.join(PROVIDER_NAMES)}")
    return value


def _load_script(path: Path | None) -> FakeScript | None:
    if path is None:
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return TypeAdapter(FakeScript).validate_python(data)
    except (OSError, yaml.YAMLError, ValidationError, ValueError) as error:
        raise typer.BadParameter(f"{path}: {error}", param_hint="--script") from error


def _announce(url: str) -> None:
    typer.echo(url)


def serve(
    provider: Annotated[
        str, typer.Option(help=f"One of: {', '.join(PROVIDER_NAMES)}.", callback=_provider)
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
    script: Annotated[Path | None, typer.Option(help="YAML FakeScript (replies, faults).")] = None,
) -> None:
    """Serve one fake provider until SIGINT or SIGTERM; print its base URL when ready."""
    check_host("--host", host)
    check_port("--port", port, host)
    try:
        fake = FakeProvider(
            provider,
            model,
            context_window=context_window,
            counter=counter,
            script=_load_script(script),
            variant=variant,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--variant") from error
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
