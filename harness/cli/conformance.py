"""``trimscope conformance``: probe one provider endpoint and say whether it conforms.

Exit codes: 0 the endpoint conforms; 1 it does not (the reasons are printed); 2 an option
is invalid or the endpoint cannot answer a small request (the error names the provider,
the status and the body). See ``harness.conformance`` for what "conforms" means.
"""

from __future__ import annotations

import asyncio
import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from harness.cli.bounds import (
    MAX_CONFORMANCE_INPUT_TOKENS,
    MAX_CONFORMANCE_REQUESTS,
    MAX_CONTEXT_WINDOW_TOKENS,
)
from harness.cli.paths import check_host, check_outputs, check_url
from harness.cli.provider_lists import CLIENT_KINDS_NOTE
from harness.cli.secrets import split_userinfo
from harness.conformance import (
    DEFAULT_REQUEST_TIMEOUT_S,
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
from harness.conformance.headers import MAX_HEADERS, parse_headers
from harness.conformance.headers import shown as shown_headers
from harness.conformance.runner import Plan
from harness.exit_codes import ExitCode
from harness.progress import tracker
from harness.providers import PROVIDER_KINDS

USERINFO_KEY_VARIABLE = "(key from --base-url)"
"""The name the userinfo key is filed under for ``plan``, which reads keys from a mapping
only; no real environment variable can have this name."""


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(ExitCode.UNUSABLE)


def _write(report: ConformanceReport, json_path: Path | None, md_path: Path | None) -> None:
    if json_path is not None:
        write_atomically(json_path, to_json_text(report))
    if md_path is not None:
        write_atomically(md_path, markdown(report))


PROVIDER = typer.Option(..., help=f"Client kind: {', '.join(PROVIDER_KINDS)}. {CLIENT_KINDS_NOTE}")
BASE_URL = typer.Option(..., help="The endpoint, as the kind's SDK spells it.")
MODEL = typer.Option(..., help="The model name to request.")
API_KEY_ENV = typer.Option(None, help="Environment variable holding the API key (never printed).")
CONTEXT_WINDOW = typer.Option(
    None,
    min=1,
    max=MAX_CONTEXT_WINDOW_TOKENS,
    help="The window you claim the endpoint has, in tokens.",
)
MAX_REQUESTS = typer.Option(
    None, min=1, max=MAX_CONFORMANCE_REQUESTS, help="At most this many requests."
)
MAX_INPUT_TOKENS = typer.Option(
    None,
    min=1,
    max=MAX_CONFORMANCE_INPUT_TOKENS,
    help="At most this many input tokens (default: 16 x the claim, else 256000).",
)
REQUEST_TIMEOUT = typer.Option(
    None,
    min=0.001,
    help=f"Give up on a request after this many seconds ({DEFAULT_REQUEST_TIMEOUT_S:g}).",
)
PROVIDER_SIDE = typer.Option(
    [],
    "--provider-side",
    help="A provider-side context management option the endpoint claims, probed for "
    "honoured, rejected or ignored (repeatable): anthropic: clear_tool_uses, "
    "clear_thinking, compact; openai-responses: truncation, compaction.",
)
JSON_PATH = typer.Option(None, "--json", help="Write the report as JSON.")
MD_PATH = typer.Option(None, "--markdown", help="Write the report as Markdown.")
QUIET = typer.Option(
    False, "--quiet", "-q", help="No progress bar, status or line per request on stderr."
)
PROBE_CACHE = typer.Option(
    False, "--probe-cache", help="Send one request twice, last: does the endpoint cache?"
)
HEADER = typer.Option(
    [],
    "--header",
    help=f"An extra request header NAME:VALUE for a gateway (repeatable, at most"
    f" {MAX_HEADERS}); a value that looks like a credential is never shown.",
)


@dataclass(frozen=True, slots=True)
class ConformanceRequest:
    """``trimscope conformance``'s options, as given (``probe_endpoint`` checks them)."""

    provider: str
    base_url: str
    model: str
    api_key_env: str | None
    context_window: int | None
    max_requests: int | None
    max_input_tokens: int | None
    request_timeout: float | None
    provider_side: tuple[str, ...]
    json_path: Path | None
    md_path: Path | None
    quiet: bool
    probe_cache: bool
    header: tuple[str, ...]


def conformance(
    provider: str = PROVIDER,
    base_url: str = BASE_URL,
    model: str = MODEL,
    api_key_env: str | None = API_KEY_ENV,
    context_window: int | None = CONTEXT_WINDOW,
    max_requests: int | None = MAX_REQUESTS,
    max_input_tokens: int | None = MAX_INPUT_TOKENS,
    request_timeout: float | None = REQUEST_TIMEOUT,
    provider_side: list[str] = PROVIDER_SIDE,
    json_path: Path | None = JSON_PATH,
    md_path: Path | None = MD_PATH,
    quiet: bool = QUIET,
    probe_cache: bool = PROBE_CACHE,
    header: list[str] = HEADER,
) -> None:
    """Probe a provider endpoint at and past its window, within a stated budget."""
    # The parameters are the request's fields, by name (the record is the option list).
    given = dict(locals())  # the options only: nothing else is bound yet
    given.update(provider_side=tuple(provider_side), header=tuple(header))
    raise typer.Exit(probe_endpoint(ConformanceRequest(**given)))


def _options(request: ConformanceRequest, err: Console) -> tuple[ConformanceOptions, Plan]:
    """The options checked and the probe planned, or exit 2 naming what is wrong. A key
    given in ``--base-url`` is taken out of it and never shown."""
    check_outputs({"--json": request.json_path, "--markdown": request.md_path}, {})
    if "@" in request.base_url and "//" not in request.base_url:
        # Not a URL with userinfo we can take apart; never echo it (it may hold a key).
        raise _fail(err, "--base-url: expected an http(s) URL, found a value with '@' (not shown)")
    split = split_userinfo(request.base_url)
    base_url, environ, api_key_env = split.url, dict(os.environ), request.api_key_env
    check_url("--base-url", base_url)
    try:
        headers = parse_headers(list(request.header))
    except ValueError as error:
        raise _fail(err, str(error)) from None
    if split.key is not None:
        if api_key_env is not None:
            raise _fail(err, "give the API key in --base-url or by --api-key-env, not both")
        api_key_env, environ[USERINFO_KEY_VARIABLE] = USERINFO_KEY_VARIABLE, split.key
    options = ConformanceOptions(
        request.provider,
        base_url,
        request.model,
        api_key_env,
        request.context_window,
        request.max_requests,
        request.max_input_tokens,
        request.request_timeout,
        probe_cache=request.probe_cache,
        provider_side=request.provider_side,
        headers=headers,
    )
    try:
        run = plan(options, environ)
    except ConformanceConfigError as error:
        raise _fail(err, str(error)) from None
    # A name that does not resolve is a typo in the input, not an unusable endpoint.
    check_host("--base-url", urllib.parse.urlsplit(base_url).hostname or "")
    return options, run


def probe_endpoint(request: ConformanceRequest) -> int:
    """Check the request, probe the endpoint, print and write the report; the exit code
    (the module docstring's)."""
    err, out = Console(stderr=True), Console()
    options, run = _options(request, err)
    out.print(
        f"conformance: {options.provider} at {options.base_url}, model {options.model}",
        markup=False,
        soft_wrap=True,
    )
    if options.headers:
        shown_line = f"headers: {shown_headers(options.headers)}"
        out.print(shown_line, markup=False, highlight=False, soft_wrap=True)
    line = budget_line(run.budget, run.request_timeout_s)
    out.print(line, markup=False, highlight=False, soft_wrap=True)
    shown = tracker("requests", run.budget.max_requests, quiet=request.quiet)  # the bound

    def progress(text: str) -> None:
        # Each request in words (what is sent, what came back): an endpoint that never
        # answers shows which request it is waiting on. Escaped: endpoint text is not markup.
        shown.note(escape(f"  {text}"))

    try:
        with shown:
            report = asyncio.run(
                run_conformance(
                    run, progress=None if request.quiet else progress, on_request=shown.advance
                )
            )
    except (ConformanceConfigError, EndpointUnusable) as error:
        raise _fail(err, str(error)) from None
    out.print(table(report))
    try:
        _write(report, request.json_path, request.md_path)
    except OSError as error:
        err.print(f"error: cannot write the report: {error}", markup=False, highlight=False)
        return ExitCode.UNWRITTEN
    return report.exit_code


def register(app: typer.Typer) -> None:
    app.command("conformance")(conformance)
