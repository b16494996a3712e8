"""Spec 18: the constants, each defined once (architecture habit 7)."""

import ast
from pathlib import Path

from harness import runtime
from harness.runtime import constants

RUNTIME_DIR = Path(runtime.__file__).parent


def test_breadcrumb_text() -> None:
    """Spec 18: breadcrumb text (role user, see test_breadcrumb)."""
    assert constants.BREADCRUMB == "[earlier turns omitted to fit the context window]"


def test_tool_results_prefix_and_attachments_header() -> None:
    """Spec 18: ``[Tool results]``; ``[Tool attachments: N]``."""
    assert constants.TOOL_RESULTS_PREFIX == "[Tool results]"
    assert constants.TOOL_ATTACHMENTS_HEADER_PREFIX + "3]" == "[Tool attachments: 3]"


def test_per_message_framing_is_four_tokens() -> None:
    """Spec 18: per-message framing 4 tokens."""
    assert constants.PER_MESSAGE_FRAMING_TOKENS == 4


def test_four_bytes_per_token() -> None:
    """Spec 18: chars per token: 4 **bytes**, ceil."""
    assert constants.BYTES_PER_TOKEN == 4


def test_image_token_estimate_is_1600() -> None:
    """Spec 5.2 / 18: ``IMAGE_TOKEN_ESTIMATE`` = 1600."""
    assert runtime.IMAGE_TOKEN_ESTIMATE == 1_600


def test_unconfigured_window_fallback_and_legacy_default_budget_are_32000() -> None:
    """Spec 18: both 32,000."""
    assert runtime.UNCONFIGURED_CONTEXT_WINDOW_FALLBACK == 32_000
    assert runtime.LEGACY_DEFAULT_CONTEXT_BUDGET == 32_000


def test_max_history_messages_default_is_50_turns() -> None:
    """Spec 11 / 18: 50 turns."""
    assert runtime.DEFAULT_MAX_HISTORY_MESSAGES == 50


def test_channel_cache_default_is_50_rows() -> None:
    """Spec 12 / 18: 50 rows."""
    assert runtime.MAX_CHANNEL_HISTORY == 50


def test_channel_overflow_compaction_keeps_12_rows_of_600_chars() -> None:
    """Spec 9 / 12: last 12 rows, each cut to 600 characters."""
    assert constants.CHANNEL_OVERFLOW_KEEP_ROWS == 12
    assert constants.CHANNEL_OVERFLOW_ROW_CHARS == 600


def test_max_tool_result_chars_default_is_50000() -> None:
    """Spec 16 / 18: 50,000 bytes."""
    assert runtime.DEFAULT_MAX_TOOL_RESULT_CHARS == 50_000


def test_max_tool_iterations_default_is_10() -> None:
    """Spec 18: 10."""
    assert runtime.DEFAULT_MAX_TOOL_ITERATIONS == 10


def test_reactive_tool_loop_target_is_two_thirds() -> None:
    """Spec 10 / 18: ``floor(estimate * 2 / 3)``."""
    assert (constants.REACTIVE_RECOVERY_NUMERATOR, constants.REACTIVE_RECOVERY_DENOMINATOR) == (
        2,
        3,
    )


def test_interactive_outer_loop_target_is_nine_tenths() -> None:
    """Spec 17.1 / 18: ``floor(window * 9 / 10)``."""
    assert (
        constants.INTERACTIVE_RECOVERY_NUMERATOR,
        constants.INTERACTIVE_RECOVERY_DENOMINATOR,
    ) == (9, 10)


def test_trim_reasons() -> None:
    """Spec 13 / 18: the en-locale reason strings."""
    assert runtime.REASON_BUDGET == "context token budget exceeded"
    assert runtime.REASON_TURN_LIMIT == "history turn limit exceeded"


def test_max_iterations_summary_prompt_starts_with_the_reference_sentence() -> None:
    """Spec 8: the prompt begins "You have reached the maximum number of tool iterations."
    (the rest is elided in the spec)."""
    assert constants.MAX_ITERATIONS_SUMMARY_PROMPT.startswith(
        "You have reached the maximum number of tool iterations. "
    )


def test_each_constant_value_is_defined_only_in_the_constants_module() -> None:
    """Issue 2 / architecture habit 7: "Constants, each defined once": no other module of
    ``harness.runtime`` spells these literals."""
    pinned: set[object] = {
        32_000,
        50_000,
        1_600,
        "[earlier turns omitted to fit the context window]",
        "[Tool results]",
        "[Tool attachments: ",
        "context token budget exceeded",
        "history turn limit exceeded",
    }
    offenders = []
    for path in sorted(RUNTIME_DIR.glob("*.py")):
        if path.name == "constants.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in pinned:
                offenders.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert offenders == []
