"""``trimscope run`` until the scenario runner lands: trim a generated session with the
reference rules and print what each trimmer decides."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from harness.runtime import (
    LEGACY_DEFAULT_CONTEXT_BUDGET,
    ChatMessage,
    ToolCall,
    estimate_history_tokens,
    native_tool_call_row,
    native_tool_result_row,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
)


def _session(turns: int) -> list[ChatMessage]:
    rows = [ChatMessage("system", "You are a careful agent.")]
    for n in range(turns):
        rows.append(ChatMessage("user", f"turn {n}: please inspect file_{n}.txt " + "x" * 400))
        call = ToolCall(f"call_{n}", "read_file", f'{{"path":"file_{n}.txt"}}')
        rows.append(native_tool_call_row(None, [call]))
        rows.append(native_tool_result_row(call.id, "line\n" * 300))
        rows.append(ChatMessage("assistant", f"file_{n}.txt has 300 lines."))
    return rows


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(turns: int = typer.Option(120, help="Turns in the generated session.")) -> None:
        """Trim a generated tool-heavy session with the reference rules."""
        history = _session(turns)
        table = Table(title=f"A {turns}-turn session, {estimate_history_tokens(history)} tokens")
        for column in ("trimmer", "limit", "dropped msgs", "dropped turns", "kept turns", "after"):
            table.add_column(column)
        budget = trim_to_recent_turns(history, LEGACY_DEFAULT_CONTEXT_BUDGET)
        table.add_row(
            "token budget",
            str(LEGACY_DEFAULT_CONTEXT_BUDGET),
            str(budget.dropped_messages),
            str(budget.dropped_turns),
            str(budget.kept_turns),
            f"{budget.tokens_after} tokens",
        )
        count = trim_to_recent_turn_count(history, 50)
        table.add_row(
            "turn limit",
            "50 turns",
            str(count.dropped_messages),
            str(count.dropped_turns),
            str(count.kept_turns),
            f"{len(count.history)} rows",
        )
        Console().print(table)
