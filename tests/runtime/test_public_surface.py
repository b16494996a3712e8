"""Issue 2 and architecture habits 1, 9: the public surface of ``harness.runtime`` — the
names and shapes the issue lists, that every exported name resolves, that functions never
mutate their inputs, and that the core imports only the standard library."""

import ast
import dataclasses
import inspect
import sys
from pathlib import Path

import pytest

from harness import runtime
from harness.runtime import (
    Chat,
    ConversationMessage,
    ModelContextWindow,
    ProviderProfile,
    RuntimeProfile,
    ToolSpec,
    WindowSource,
    append_sender_turn,
    check_capacity,
    compact_sender_history,
    drop_oldest_whole_turn,
    estimate_history_tokens,
    estimate_system_floor_tokens,
    estimate_tool_schema_tokens,
    insert_breadcrumb_deduped,
    insert_conversation_breadcrumb,
    normalize_system_messages,
    remove_orphaned_tool_messages,
    resolve_context_limits,
    resolved_model_context_window_for_route,
    restore_sender_history,
    strip_orphaned_tool_calls_from_assistants,
    trim_conversation_to_recent_turns,
    trim_history,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
    trim_to_reported_budget,
)
from tests.runtime.builders import asst, call, crumb, tool, user
from tests.runtime.builders import sys as system

# Every name issue 2 lists for ``__all__`` (its section "harness.runtime").
ISSUE_NAMES = {
    # messages
    "ChatMessage",
    "ToolCall",
    "ToolResultMessage",
    "Chat",
    "AssistantToolCalls",
    "ToolResults",
    "native_tool_call_row",
    "native_tool_result_row",
    "render_prompt_tool_carrier",
    # turns and breadcrumb
    "BREADCRUMB",
    "is_turn_boundary",
    "insert_breadcrumb_deduped",
    "insert_conversation_breadcrumb",
    # trimmers
    "trim_to_recent_turns",
    "trim_to_recent_turn_count",
    "trim_conversation_to_recent_turns",
    "trim_to_reported_budget",
    "trim_history",
    "drop_oldest_whole_turn",
    # estimates
    "estimate_history_tokens",
    "estimate_system_floor_tokens",
    "ToolSpec",
    "estimate_tool_schema_tokens",
    "IMAGE_TOKEN_ESTIMATE",
    # budget and capacity
    "RuntimeProfile",
    "HistoryPruning",
    "ProviderProfile",
    "WindowSource",
    "ModelContextWindow",
    "resolved_model_context_window_for_route",
    "ResolvedContextLimits",
    "resolve_context_limits",
    "effective_context_budget",
    "effective_max_history_messages",
    "check_capacity",
    "ContextCapacityExceeded",
    # hygiene
    "remove_orphaned_tool_messages",
    "strip_orphaned_tool_calls_from_assistants",
    "normalize_system_messages",
    "truncate_tool_result",
    "truncate_tool_message",
    "is_context_window_exceeded",
    # constants
    "UNCONFIGURED_CONTEXT_WINDOW_FALLBACK",
    "LEGACY_DEFAULT_CONTEXT_BUDGET",
    "DEFAULT_MAX_HISTORY_MESSAGES",
    "DEFAULT_MAX_TOOL_RESULT_CHARS",
    "MAX_CHANNEL_HISTORY",
}


def test_all_exposes_every_name_the_issue_lists() -> None:
    """Issue 2: ``__all__`` exposes these names (it may expose more helpers)."""
    assert ISSUE_NAMES - set(runtime.__all__) == set()


def test_every_name_in_all_resolves() -> None:
    """Architecture habit 9: each exported name exists on the package."""
    missing = [name for name in runtime.__all__ if not hasattr(runtime, name)]
    assert missing == []


def test_all_has_no_duplicates() -> None:
    """Architecture habit 9: ``__all__`` is a list of distinct names."""
    assert len(runtime.__all__) == len(set(runtime.__all__))


def params(function: object) -> list[tuple[str, object]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.default) for p in signature.parameters.values()]


EMPTY = inspect.Parameter.empty


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (insert_breadcrumb_deduped, [("history", EMPTY), ("crumb_present", EMPTY)]),
        (insert_conversation_breadcrumb, [("history", EMPTY)]),
        (
            trim_to_recent_turns,
            [("history", EMPTY), ("budget_tokens", EMPTY), ("crumb_present", False)],
        ),
        (
            trim_to_recent_turn_count,
            [("history", EMPTY), ("max_turns", EMPTY), ("has_leading_breadcrumb", False)],
        ),
        (
            trim_conversation_to_recent_turns,
            [("history", EMPTY), ("max_turns", EMPTY), ("has_leading_breadcrumb", False)],
        ),
        (
            trim_to_reported_budget,
            [
                ("history", EMPTY),
                ("budget_tokens", EMPTY),
                ("reported_input_tokens", EMPTY),
                ("reported_population_estimated", EMPTY),
                ("tool_schema_tokens", EMPTY),
                ("crumb_present", False),
            ],
        ),
        (
            trim_history,
            [("history", EMPTY), ("max_history_turns", EMPTY), ("crumb_present", False)],
        ),
        (drop_oldest_whole_turn, [("history", EMPTY), ("crumb_present", EMPTY)]),
        (
            resolved_model_context_window_for_route,
            [("providers", EMPTY), ("model_provider_ref", EMPTY), ("selected_model", EMPTY)],
        ),
        (resolve_context_limits, [("profile", EMPTY), ("window", EMPTY)]),
        (
            check_capacity,
            [
                ("prepared_messages", EMPTY),
                ("tool_schema_tokens", EMPTY),
                ("model_context_window", EMPTY),
            ],
        ),
    ],
)
def test_signatures_match_the_issue(function: object, expected: list[tuple[str, object]]) -> None:
    """Issue 2: parameter names and defaults as listed."""
    assert params(function) == expected


def test_trim_records_carry_the_issue_fields_and_are_frozen() -> None:
    """Issue 2 / habit 1: frozen records with at least ``history, dropped_messages,
    dropped_turns, kept_turns, trimmed`` (plus ``tokens_before/after`` for token trims)."""
    common = {"history", "dropped_messages", "dropped_turns", "kept_turns", "trimmed"}
    budget = trim_to_recent_turns([user("a")], 10)
    assert common | {"tokens_before", "tokens_after"} <= {
        f.name for f in dataclasses.fields(budget)
    }
    for record in (
        trim_to_recent_turn_count([user("a")], 1),
        trim_conversation_to_recent_turns([Chat(user("a"))], 1),
        trim_history([user("a")], 1),
    ):
        assert common <= {f.name for f in dataclasses.fields(record)}
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.trimmed = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        budget.trimmed = True  # type: ignore[misc]


def test_hygiene_results_unpack_as_the_issue_tuples() -> None:
    """Issue 2: ``remove_orphaned_tool_messages(history) -> (history, removed,
    orphan_ids)`` and ``strip_orphaned_tool_calls_from_assistants(history) ->
    (history, stripped)``."""
    history, removed, orphan_ids = remove_orphaned_tool_messages([tool("c9"), user("q")])
    assert (history, removed, orphan_ids) == ([user("q")], 1, ("c9",))
    history, stripped = strip_orphaned_tool_calls_from_assistants([user("q"), call("c1")])
    assert (history, stripped) == ([user("q")], 1)


def test_drop_oldest_whole_turn_returns_history_and_count() -> None:
    """Issue 2: ``drop_oldest_whole_turn(history, crumb_present) -> (history, dropped)``."""
    assert drop_oldest_whole_turn([user("1"), user("2")], False) == ([user("2")], 1)


def test_constructor_defaults_match_the_issue() -> None:
    """Issue 2: ``ProviderProfile(model=None, context_window=None)``, ``ToolSpec(name,
    description, parameters)``, ``ModelContextWindow(tokens, source)``."""
    assert ProviderProfile() == ProviderProfile(model=None, context_window=None)
    spec = ToolSpec("n", "d", {"type": "object"})
    assert (spec.name, spec.description, spec.parameters) == ("n", "d", {"type": "object"})
    window = ModelContextWindow(8_000, WindowSource.CONFIGURED)
    assert (window.tokens, window.source) == (8_000, WindowSource.CONFIGURED)


def test_functions_never_mutate_their_inputs() -> None:
    """Issue 2: "functions never mutate their inputs"."""
    rows = [
        system("s"),
        crumb(),
        user("1 " + "x" * 400),
        call("c1", "c2"),
        tool("c1"),
        system("late"),
        tool("orphan"),
        user("2"),
        asst("a"),
        user("3"),
    ]
    snapshot = list(rows)
    conversation: list[ConversationMessage] = [Chat(row) for row in rows]
    conversation_snapshot = list(conversation)
    specs = [ToolSpec("n", "d", {"type": "object"})]
    specs_snapshot = list(specs)
    providers = {"custom": {"large": ProviderProfile("m", 8_000)}}

    trim_to_recent_turns(rows, 10, True)
    trim_to_recent_turn_count(rows, 1, True)
    trim_to_reported_budget(rows, 10, 100, 50, 5, True)
    trim_history(rows, 1, True)
    drop_oldest_whole_turn(rows, True)
    insert_breadcrumb_deduped(rows, False)
    remove_orphaned_tool_messages(rows)
    strip_orphaned_tool_calls_from_assistants(rows)
    normalize_system_messages(rows)
    estimate_history_tokens(rows)
    estimate_system_floor_tokens(rows)
    check_capacity(rows, 0, 1_000_000)
    append_sender_turn(rows, user("4"), 3)
    restore_sender_history(rows)
    compact_sender_history(rows)
    trim_conversation_to_recent_turns(conversation, 1, True)
    insert_conversation_breadcrumb(conversation)
    estimate_tool_schema_tokens(specs)
    resolved_model_context_window_for_route(providers, "custom.large", "m")
    resolve_context_limits(RuntimeProfile(), ModelContextWindow(8_000, WindowSource.CONFIGURED))

    assert rows == snapshot
    assert conversation == conversation_snapshot
    assert specs == specs_snapshot
    assert providers == {"custom": {"large": ProviderProfile("m", 8_000)}}


def test_untouched_results_are_new_lists() -> None:
    """Habit 1: a returned history never aliases the caller's list, so a caller that
    appends to the result cannot change its own input."""
    rows = [user("1"), asst("a")]
    assert trim_to_recent_turns(rows, 0).history is not rows
    assert trim_to_recent_turn_count(rows, 5).history is not rows
    assert insert_breadcrumb_deduped(rows, True) is not rows


ALLOWED_PREFIX = "harness.runtime"
FORBIDDEN_STDLIB = {"logging", "time", "datetime", "random", "secrets", "os", "io", "pathlib"}


def test_runtime_imports_only_the_standard_library_and_does_no_io() -> None:
    """Issue 2 / architecture: pure, stdlib only, no logging, clock, randomness or I/O."""
    offenders = []
    for path in sorted(Path(runtime.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if name.startswith(ALLOWED_PREFIX) or top == "__future__":
                    continue
                if top not in sys.stdlib_module_names or top in FORBIDDEN_STDLIB:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []
