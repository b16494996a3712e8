"""``trimscope conformance``: probe one provider endpoint and say whether it conforms.

Exit codes: 0 the endpoint conforms; 1 it does not (the reasons are printed); 2 an option
is invalid or the endpoint cannot answer a small request (the error names the provider,
the status and the body). See ``harness.conformance`` for what "conforms" means.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.console import Console

from harness.conformance import (
    DEFAULT_REQUEST_TIMEOUT_S,
    EXIT_UNUSABLE,
    ConformanceConfigError,
    ConformanceOptions,
    ConformanceReport,
    EndpointUnusable,
    budget_line,
    markdown,
    plan,
    run_conformance,
    table,
    to_json_text,
    write_atomically,
)
from harness.providers import PROVIDER_KINDS


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_UNUSABLE)


def _write(report: ConformanceReport, json_path: Path | None, md_path: Path | None) -> None:
    if json_path is not None:
        write_atomically(json_path, to_json_text(report))
    if md_path is not None:
        write_atomically(md_path, markdown(report))


def conformance(
    provider: str = typer.Option(..., help=f"Client kind: {', '.join(PROVIDER_KINDS)}."),
    base_url: str = typer.Option(..., help="The endpoint, as the kind's SDK spells it."),
    model: str = typer.Option(..., help="The model name to request."),
    api_key_env: str | None = typer.Option(
        None, help="Environment variable holding the API key (never printed)."
    ),
    context_window: int | None = typer.Option(
        None, min=1, help="The window you claim the endpoint has, in tokens."
    ),
    max_requests: int | None = typer.Option(None, min=1, help="At most this many requests."),
    max_input_tokens: int | None = typer.Option(
        None, min=1, help="At most this many input tokens (default: 16 x the claim, else 256000)."
    ),
    request_timeout: float | None = typer.Option(
        None,
        min=0.001,
        help=f"Give up on a request after this many seconds ({DEFAULT_REQUEST_TIMEOUT_S:g}).",
    ),
    quiet: bool = typer.Option(False, help="Do not print a line per request on stderr."),
    provider_side: list[str] = typer.Option(
        [],
        "--provider-side",
        help="A provider-side context management option the endpoint claims, probed for "
        "honoured, rejected or ignored (repeatable): anthropic: clear_tool_uses, "
        "clear_thinking, compact; openai-responses: truncation, compaction.",
    ),
    json_path: Path | None = typer.Option(None, "--json", help="Write the report as JSON."),
    md_path: Path | None = typer.Option(None, "--markdown", help="Write the report as Markdown."),
) -> None:
    """Probe a provider endpoint at and past its window, within a stated budget."""
    err, out = Console(stderr=True), Console()
    options = ConformanceOptions(
        provider,
        base_url,
        model,
        api_key_env,
        context_window,
        max_requests,
        max_input_tokens,
        request_timeout,
        provider_side=tuple(provider_side),
    )
    try:
        run = plan(options)
    except ConformanceConfigError as error:
        raise _fail(err, str(error)) from None
    out.print(f"conformance: {provider} at {base_url}, model {model}", markup=False, soft_wrap=True)
    line = budget_line(run.budget, run.request_timeout_s)
    out.print(line, markup=False, highlight=False, soft_wrap=True)

    def progress(text: str) -> None:
        err.print(f"  {text}", markup=False, highlight=False, soft_wrap=True)

    try:
        report = asyncio.run(run_conformance(run, progress=None if quiet else progress))
    except (ConformanceConfigError, EndpointUnusable) as error:
        raise _fail(err, str(error)) from None
    out.print(table(report))
    try:
        _write(report, json_path, md_path)
    except OSError as error:
        raise _fail(err, f"cannot write the report: {error}") from None
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("conformance")(conformance)
