"""Commands imported only when they run, so ``trimscope --help`` and ``trimscope validate``
start without importing OpenTelemetry, Prometheus, uvicorn or Locust.

Every command module registers its commands one way: its commands are module-level
functions (options in, a request record built, the package doing the work called), and
its ``register(app)`` only adds them: ``app.command(NAME)(function)`` for a command,
``app.add_typer(group(HELP, {NAME: function, ...}), name=NAME)`` for a group. The root
group lists the commands with the one-line help below, and imports a command's module
when it is resolved for running (or for its own ``--help``). A test checks that the lines
here equal the commands' own short help, so the two cannot drift.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from typing import Any, Final

import typer

# typer 0.29 (pinned) carries its own copy of click; its parser raises this one.
from typer._click.exceptions import NoSuchOption
from typer.core import TyperCommand, TyperGroup

COMMANDS: Final[dict[str, tuple[str, str]]] = {
    # name: (module defining it, the one-line help shown by ``trimscope --help``)
    "run": (
        "harness.cli.run",
        "Run scenarios against in-process fakes and check what must happen.",
    ),
    "validate": ("harness.cli.validate", "Validate scenario files without running them."),
    "conformance": (
        "harness.cli.conformance",
        "Probe a provider endpoint at and past its window, within a stated budget.",
    ),
    "load": (
        "harness.cli.load",
        "Run agent sessions against real fake servers (127.0.0.1) and summarise them.",
    ),
    "report": (
        "harness.cli.report",
        "Turn transcripts into one self-contained HTML report.",
    ),
    "proxy": (
        "harness.cli.proxy",
        "Forward a runtime's provider calls unchanged and report what it did to its history.",
    ),
    "fake": ("harness.cli.fake", "Fake LLM providers that fail the way real ones do."),
    "sut": (
        "harness.cli.sut",
        "Runtimes under test over the SUT protocol (docs/sut-protocol.md).",
    ),
    "matrix": (
        "harness.cli.matrix",
        "Run the portable scenarios through several runtimes; write the matrix.",
    ),
    "dashboards": ("harness.cli.dashboards", "Grafana dashboards and Prometheus alerts as code."),
    "scenarios": (
        "harness.cli.scenarios_cmd",
        "Generated files of the scenario library: its JSON Schema and rule index.",
    ),
}


ARGV_KEY: Final = "trimscope.argv"


def group(help_text: str, commands: Mapping[str, Callable[..., None]]) -> typer.Typer:
    """A command group (``fake``, ``sut``, ...) of module-level command functions."""
    made = typer.Typer(no_args_is_help=True, add_completion=False, help=help_text)
    for name, function in commands.items():
        made.command(name)(function)
    return made


def found_value(opts: list[str], argv: list[str]) -> str | None:
    """The value last given to an option spelled ``opts`` in ``argv`` (click keeps the last
    one), as ``--opt VALUE`` or ``--opt=VALUE``; ``None`` when it is not there."""
    value = None
    for index, word in enumerate(argv):
        for opt in opts:
            if word == opt and index + 1 < len(argv):
                value = argv[index + 1]
            elif word.startswith(opt + "="):
                value = word[len(opt) + 1 :]
    return value


def name_the_value(error: typer.BadParameter, argv: list[str]) -> None:
    """Typer's range and type messages ("Input should be less than or equal to 65535") name
    the option but not what was given; the input contract wants both."""
    opts = list(getattr(error.param, "opts", []) or [])
    value = found_value(opts, argv) if opts else None
    if value is not None and repr(value) not in error.message:
        error.message = f"{error.message.rstrip('.')}; found {value!r}"


def narrow(error: NoSuchOption) -> None:
    """The parser offers up to three close options (``--junit``: "--junit-xml, --quiet,
    --sut"); a typo wants the one it was meant to be: the options it begins (all of
    them), else the single closest."""
    close = list(error.possibilities or [])
    typed = error.option_name
    begun = [option for option in close if option.startswith(typed)]
    if begun or not close:
        error.possibilities = begun
        return

    def likeness(option: str) -> float:
        # without the dashes, and against the option's first word too: "--junt" is
        # "junit" mistyped (not "--sut", which shares more of its dashes)
        bare = option.lstrip("-")
        return max(
            difflib.SequenceMatcher(None, typed.lstrip("-"), word).ratio()
            for word in (bare, bare.split("-")[0])
        )

    error.possibilities = [max(close, key=likeness)]


def refuse_empty(argv: list[str]) -> None:
    """No option or argument of trimscope means anything when empty, and some would mean
    something else: an empty path is the current folder (``--transcript ""`` would write
    into it). So an empty word is an input error, named by the word before it."""
    for index, word in enumerate(argv):
        if word == "" or (word.startswith("--") and word.endswith("=")):
            named = word.rstrip("=") or (argv[index - 1] if index else "argument")
            raise typer.BadParameter(
                "expected a value, found an empty string", param_hint=f"'{named}'"
            )


def load_command(name: str) -> TyperCommand | TyperGroup:
    """Import ``name``'s module and build its command (a group for ``fake``, ...)."""
    module = importlib.import_module(COMMANDS[name][0])
    holder = typer.Typer(add_completion=False)

    @holder.callback()
    def _holder() -> None:
        """Forces a group, so every module's commands are found by name."""

    module.register(holder)
    group = typer.main.get_command(holder)
    if not isinstance(group, TyperGroup):
        raise TypeError(f"{COMMANDS[name][0]} registered no command group")
    command = group.commands[name]
    if not isinstance(command, TyperCommand | TyperGroup):
        raise TypeError(f"{COMMANDS[name][0]} registered no command {name!r}")
    return command


class LazyGroup(TyperGroup):
    """The root group. Its ``commands`` are stand-ins carrying the name and one-line help
    (enough for the help listing and typo suggestions); resolving a command to run it
    imports the real one."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, (_, short_help) in COMMANDS.items():
            self.commands[name] = TyperCommand(name, short_help=short_help)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[ARGV_KEY] = list(args)  # the raw words, for ``found_value``
        refuse_empty(args)
        result: list[str] = super().parse_args(ctx, args)
        return result

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as error:
            name_the_value(error, ctx.meta.get(ARGV_KEY, []))
            raise
        except NoSuchOption as error:
            narrow(error)
            raise

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name in COMMANDS:
            return name, load_command(name), rest
        return name, command, rest


__all__ = [
    "COMMANDS",
    "LazyGroup",
    "found_value",
    "group",
    "load_command",
    "name_the_value",
    "narrow",
    "refuse_empty",
]
