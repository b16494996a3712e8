"""Spec 10 / decision 19.10: the ``reference`` overflow classifier — ten lower-cased
substrings, one shared list, no status or error codes."""

import pytest

from harness.runtime import is_context_window_exceeded
from harness.runtime.overflow import CONTEXT_WINDOW_EXCEEDED_HINTS

TEN_HINTS = (
    "exceeds the context window",
    "exceeds the available context size",
    "context window of this model",
    "maximum context length",
    "context length exceeded",
    "too many tokens",
    "token limit exceeded",
    "prompt is too long",
    "input is too long",
    "prompt exceeds max length",
)


def test_the_list_is_exactly_the_ten_reference_substrings() -> None:
    """Spec 10: exactly these ten, one shared list for all providers."""
    assert tuple(CONTEXT_WINDOW_EXCEEDED_HINTS) == TEN_HINTS


@pytest.mark.parametrize("hint", TEN_HINTS)
def test_each_reference_substring_matches(hint: str) -> None:
    """Spec 10: any of the substrings in the rendered error text matches."""
    assert is_context_window_exceeded(f"provider error: {hint} (request id 42)")


def test_matching_is_case_insensitive() -> None:
    """Spec 10: the error text is lower-cased before the check."""
    assert is_context_window_exceeded("Prompt Is Too Long: 210000 tokens > 200000 maximum")
    assert is_context_window_exceeded("THIS MODEL'S MAXIMUM CONTEXT LENGTH IS 8192 TOKENS")


def test_context_length_exceeded_with_underscores_does_not_match() -> None:
    """Spec 10: no error codes are inspected: ``context_length_exceeded`` does not match."""
    assert not is_context_window_exceeded('{"error":{"code":"context_length_exceeded"}}')


def test_status_codes_are_not_inspected() -> None:
    """Spec 10: no HTTP status codes: a bare 413 or 400 is not an overflow."""
    assert not is_context_window_exceeded("HTTP 413 Payload Too Large")
    assert not is_context_window_exceeded("400 Bad Request: request_too_large")


def test_aggregate_wrapper_text_does_not_match() -> None:
    """Spec 17.10: the wrapper's aggregate message contains no hint phrase."""
    assert not is_context_window_exceeded(
        "All model providers/models failed after 3 failure event(s). Last error: timeout"
    )


def test_near_misses_do_not_match() -> None:
    """Spec 10: substrings must appear as written."""
    assert not is_context_window_exceeded("context window exceeded")
    assert not is_context_window_exceeded("the prompt was too long")
    assert not is_context_window_exceeded("")
