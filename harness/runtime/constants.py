"""Every number and fixed string of the reference contract, defined once.

Each name is the reference's own (spec section 18). Other modules import from here;
no literal of this table appears anywhere else in the package.
"""

from typing import Final

BREADCRUMB: Final = "[earlier turns omitted to fit the context window]"
"""Text of the synthetic user row inserted after a trim (locale key ``history-trim-breadcrumb``)."""

TOOL_RESULTS_PREFIX: Final = "[Tool results]"
"""Line 1 of a prompt-mode tool-result carrier; a user row starting with it opens no turn."""

TOOL_ATTACHMENTS_HEADER_PREFIX: Final = "[Tool attachments: "
"""Prefix of line 2 of a declared prompt-mode carrier: ``[Tool attachments: N]``."""

IMAGE_MARKER_PREFIX: Final = "[IMAGE:"

PER_MESSAGE_FRAMING_TOKENS: Final = 4
BYTES_PER_TOKEN: Final = 4
IMAGE_TOKEN_ESTIMATE: Final = 1600

UNCONFIGURED_CONTEXT_WINDOW_FALLBACK: Final = 32_000
LEGACY_DEFAULT_CONTEXT_BUDGET: Final = 32_000

DEFAULT_MAX_HISTORY_MESSAGES: Final = 50
"""Turn-limit default, in whole user turns (0 is authoritative and still keeps the newest turn)."""

MAX_CHANNEL_HISTORY: Final = 50
"""Channel sender cache default, in rows (0 means this default)."""

CHANNEL_OVERFLOW_KEEP_ROWS: Final = 12
CHANNEL_OVERFLOW_ROW_CHARS: Final = 600

DEFAULT_MAX_TOOL_RESULT_CHARS: Final = 50_000
"""Bytes a recorded tool result may keep (0 disables truncation)."""

DEFAULT_MAX_TOOL_ITERATIONS: Final = 10

REACTIVE_RECOVERY_NUMERATOR: Final = 2
REACTIVE_RECOVERY_DENOMINATOR: Final = 3
"""Tool-loop reactive recovery target: floor(estimate * 2 / 3)."""

INTERACTIVE_RECOVERY_NUMERATOR: Final = 9
INTERACTIVE_RECOVERY_DENOMINATOR: Final = 10
"""Legacy interactive outer-loop recovery target: floor(window * 9 / 10)."""

PRUNED_CONTEXT_SEPARATOR: Final = "[context continues]"
"""A user row with this text (after trimming) is a separator, not a turn, to the provider
wrapper's own truncation (``model_provider.rs::is_pruned_context_separator``)."""

REASON_BUDGET: Final = "context token budget exceeded"
REASON_TURN_LIMIT: Final = "history turn limit exceeded"

MAX_ITERATIONS_SUMMARY_PROMPT: Final = (
    "You have reached the maximum number of tool iterations. "
    "Summarize what you have done so far and answer without calling any more tools."
)
"""User prompt of the final tools-free request (the reference's text is elided in the
spec after its first sentence; the second sentence is ours, see docs/decisions.md)."""
