"""``trimscope matrix``: the portable battery over several runtimes, as one Markdown table.

Each entry is a runtime and a configuration with the command that starts it (a protocol
adapter, ``docs/sut-protocol.md``). The defaults are the reference (``trimscope sut
reference``) and the field adapters in ``adapters/``, each run with its own venv's python
(``.tools/field-<runtime>``, made by ``scripts/install-field-runtimes.sh``); an entry whose
venv is missing is listed as not installed. The document counts, per invariant, the
judged scenarios that kept and broke it, and quotes for each broken invariant the first
scenario that broke it: the request the runtime sent (its messages, shortened) and the
provider's answer. Nothing in it depends on the clock or the machine, so it can be
regenerated and compared.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fakes.serving.log import Exchange
from harness.interrupt import StopRequest
from harness.scenarios.loader import LoadedScenario
from harness.sut.judge import INVARIANTS
from harness.sut.portable import not_portable
from harness.sut.suite import JudgedSession, SutOutcome, SutSuite, run_sut_suite

FAULTS: Final = ("TIMEOUT", "CRASH", "PROTOCOL")
EXCERPT_CHARS: Final = 100
"""Each message's text in an excerpt is cut to this many characters."""
EXCERPT_MESSAGES: Final = 12
"""An excerpt keeps this many messages of a request: the first and the last ones."""
INSTALL_HINT: Final = "scripts/install-field-runtimes.sh"


@dataclass(frozen=True)
class Entry:
    runtime: str
    config: str
    command: list[str]
    """Relative to the root: the document shows it as run from the repository."""
    missing: str | None = None
    """Why the entry cannot run (its venv is not installed); ``None`` when it can."""


def default_entries(root: Path) -> list[Entry]:
    """The reference, then each field runtime in each of its adapter's configurations."""
    entries = [Entry("trimscope-reference", "default", ["trimscope", "sut", "reference"])]
    field_runtimes = (
        ("langchain", "langchain_trim.py", ("last", "last-start-on-human", "summarization")),
        ("litellm", "litellm_trim.py", ("default",)),
        (
            "pydantic-ai",
            "pydantic_ai_history.py",
            ("keep-recent", "last-message", "openai-compaction", "openai-server-compaction"),
        ),
        ("openai-agents", "openai_agents_session.py", ("session-limit", "responses-compaction")),
        ("google-adk", "adk_compaction.py", ("sliding-window", "token-threshold")),
    )
    for runtime, program, configs in field_runtimes:
        venv = Path(".tools") / f"field-{runtime}"
        installed = (root / venv / ".installed").is_file() and (
            root / venv / "bin" / "python"
        ).is_file()
        missing = None if installed else f"not installed ({venv}: run {INSTALL_HINT})"
        for config in configs:
            command = [str(venv / "bin" / "python"), f"adapters/{program}", "--config", config]
            entries.append(Entry(runtime, config, command, missing))
    return entries


def argv_of(entry: Entry, root: Path) -> list[str]:
    """The command to start: the reference through this python, the others from ``root``."""
    if entry.command[:3] == ["trimscope", "sut", "reference"]:
        beside = Path(sys.executable).with_name("trimscope")  # this install's own script
        program = str(beside) if beside.is_file() else shutil.which("trimscope") or "trimscope"
        return [program, "sut", "reference"]
    program, *rest = entry.command
    return [str(root / program), *(str(root / w) if w.endswith(".py") else w for w in rest)]


@dataclass(frozen=True)
class Failure:
    scenario_id: str
    call: int | str
    detail: str
    sent: str
    answer: str


@dataclass
class Row_:
    entry: Entry
    name: str = ""
    version: str = ""
    judged: int = 0
    skipped: int = 0
    side_requests: int = 0
    passed: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    first: dict[str, Failure] = field(default_factory=dict)


def _short(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _message_line(message: Any) -> str:
    if not isinstance(message, dict):
        return _short(json.dumps(message))
    shown: dict[str, Any] = {"role": message.get("role") or message.get("type")}
    if isinstance(message.get("parts"), list):  # Gemini: text, calls and responses as parts
        return json.dumps({**shown, "parts": _gemini_parts(message["parts"])}, ensure_ascii=False)
    if message.get("call_id"):  # Responses: a function_call or its output
        shown["call_id"] = message["call_id"]
        shown.update({k: _short(str(message[k])) for k in ("name", "output") if k in message})
    content = message.get("content")
    if isinstance(content, list):  # parts: their text, joined
        content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    if content:
        shown["content"] = _short(str(content))
    if message.get("tool_calls"):
        shown["tool_calls"] = [
            f"{c.get('id')} {c.get('function', {}).get('name')}" for c in message["tool_calls"]
        ]
    if message.get("tool_call_id"):
        shown["tool_call_id"] = message["tool_call_id"]
    return json.dumps(shown, ensure_ascii=False)


def _gemini_parts(parts: list[Any]) -> list[str]:
    shown = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            shown.append(_short(part["text"]))
        for kind in ("functionCall", "functionResponse"):
            if isinstance(part.get(kind), dict):
                shown.append(f"{kind} {part[kind].get('name')}")
    return shown


def request_excerpt(exchange: Exchange) -> str:
    """The request's messages (or ``input``/``contents``), one line each, shortened."""
    body = exchange.request_body
    messages: Any = None
    if isinstance(body, dict):
        for key in ("messages", "input", "contents"):
            if isinstance(body.get(key), list):
                messages = body[key]
                break
    if messages is None:
        return _short(json.dumps(body, ensure_ascii=False), 400)
    lines = [_message_line(m) for m in messages]
    if len(lines) > EXCERPT_MESSAGES:
        half = EXCERPT_MESSAGES // 2
        cut = len(lines) - 2 * half
        lines = [*lines[:half], f"... {cut} more messages ...", *lines[-half:]]
    return "\n".join(lines)


def answer_excerpt(exchange: Exchange) -> str:
    body = json.dumps(exchange.response_body, ensure_ascii=False)
    return f"HTTP {exchange.status}: {_short(body, 300)}"


def _tally(row: Row_, outcomes: Sequence[SutOutcome], sent: dict[str, list[Exchange]]) -> None:
    for name in (*INVARIANTS, *FAULTS):
        row.passed.setdefault(name, 0)
        row.failed.setdefault(name, 0)
    for outcome in outcomes:
        if outcome.verdict == "SKIP":
            row.skipped += 1
            continue
        if outcome.verdict in FAULTS:
            row.failed[outcome.verdict] += 1
            row.first.setdefault(
                outcome.verdict, Failure(outcome.scenario_id, "-", outcome.detail, "", "")
            )
            continue
        row.judged += 1
        row.side_requests += outcome.side_requests
        broken = {v.invariant: v for v in reversed(outcome.violations)}  # the first of each
        for invariant in INVARIANTS:
            if invariant not in broken:
                row.passed[invariant] += 1
                continue
            row.failed[invariant] += 1
            violation = broken[invariant]
            exchanges = sent.get(outcome.scenario_id, [])
            number = violation.call or 0
            exchange = exchanges[number - 1] if 0 < number <= len(exchanges) else None
            row.first.setdefault(
                invariant,
                Failure(
                    outcome.scenario_id,
                    number or "-",
                    violation.detail,
                    request_excerpt(exchange) if exchange else "",
                    answer_excerpt(exchange) if exchange else "",
                ),
            )


def run_entry(
    entry: Entry,
    root: Path,
    loaded: Sequence[LoadedScenario],
    *,
    op_timeout_s: float,
    scenario_timeout_s: float,
    stop: StopRequest,
) -> Row_:
    row = Row_(entry)
    if entry.missing is not None:
        return row
    sent: dict[str, list[Exchange]] = {}

    def keep_requests(session: JudgedSession) -> None:  # to quote the failing ones
        sent[session.item.scenario.id] = list(session.exchanges)

    suite = SutSuite(
        argv_of(entry, root),
        op_timeout_s=op_timeout_s,
        scenario_timeout_s=scenario_timeout_s,
        observers=[keep_requests],
        references=None,  # the matrix compares runtimes by the invariants only
    )
    outcomes = run_sut_suite(suite, loaded, lambda _: None, stop)
    if suite.hello is not None:
        row.name, row.version = suite.hello.name, suite.hello.version
    _tally(row, outcomes, sent)
    return row


def portable_scenarios(loaded: Sequence[LoadedScenario]) -> list[LoadedScenario]:
    return [item for item in loaded if not_portable(item.scenario) is None]


def _cell(row: Row_, name: str) -> str:
    passed, failed = row.passed.get(name, 0), row.failed.get(name, 0)
    if name in FAULTS:
        return f"**{failed}**" if failed else "0"
    return f"{passed}/**{failed}**" if failed else f"{passed}/0"


def _introduction(scenarios: int) -> list[str]:
    """What the document is and how to read its cells."""
    return [
        "Generated by `trimscope matrix` (do not edit by hand; a test regenerates it and"
        " compares). Each runtime runs the portable scenarios of the library"
        f" ({scenarios}) over the SUT protocol (`docs/sut-protocol.md`) against trimscope's"
        " fakes; a scenario it cannot take (another wire, a feature it lacks) is skipped.",
        "An invariant's cell is `kept/broken` over the judged scenarios (PASS or FAIL);"
        " `timeout`, `crash` and `protocol` count scenarios with that verdict. A field"
        " adapter manages history with its runtime's own means, configured as its docs"
        " write them (each adapter's docstring, `adapters/`), and adds no recovery: an"
        " overflow ends the turn with `error`. LangChain and LiteLLM trim to"
        " `budget_tokens` (or, without one, to the whole window); the others declare no"
        " `budget` feature, so scenarios with a budget are skipped for them.",
        "`side requests` counts the judged scenarios' requests that were not the"
        ' conversation (a summariser\'s: `docs/sut-protocol.md`, "Side requests"); they are'
        " checked for `tool_pairing`, `within_window` and `wire_order` only.",
    ]


def render(rows: Sequence[Row_], scenarios: int) -> str:
    """The document: the table, then each broken invariant's first failing scenario."""
    columns = [*INVARIANTS, *(f.lower() for f in FAULTS)]
    out = [
        "# Runtime matrix",
        "",
        *_introduction(scenarios),
        "",
        "| runtime | configuration | version | judged | skipped | side requests | "
        + " | ".join(columns)
        + " |",
        "| --- | --- | --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in columns) + " |",
    ]
    for row in rows:
        entry = row.entry
        if entry.missing is not None:
            blanks = " | ".join("-" for _ in columns)
            out.append(
                f"| {entry.runtime} | {entry.config} | {entry.missing} | - | - | - | {blanks} |"
            )
            continue
        cells = " | ".join(_cell(row, name) for name in (*INVARIANTS, *FAULTS))
        out.append(
            f"| {entry.runtime} | {entry.config} | {row.version} | {row.judged} |"
            f" {row.skipped} | {row.side_requests} | {cells} |"
        )
    out += ["", "Commands (from the repository's root):", ""]
    out += [f"- {r.entry.runtime} / {r.entry.config}: `{' '.join(r.entry.command)}`" for r in rows]
    out += ["", "## First failure of each broken invariant", ""]
    any_failure = False
    for row in rows:
        for name in (*INVARIANTS, *FAULTS):
            failure = row.first.get(name)
            if failure is None:
                continue
            any_failure = True
            out += [
                f"### {row.entry.runtime} / {row.entry.config}: `{name.lower()}`",
                "",
                f"First in `{failure.scenario_id}` (call {failure.call}): {failure.detail}",
                "",
            ]
            if failure.sent:
                out += ["Sent (messages, shortened):", "", "```", failure.sent, "```", ""]
                out += [f"Answer: `{failure.answer}`", ""]
    if not any_failure:
        out += ["None.", ""]
    return "\n".join(out)
