"""The observer's calls one by one: what is ignored or unobservable, overflows and what
follows them, cache breaks, provider edits, broken pairs and wire orders."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.agent.cache_loss import SentRequests
from harness.runtime import ChatMessage, ToolCall
from harness.runtime.messages import native_tool_call_row, native_tool_result_row
from harness.wire import (
    DecodedAnswer,
    DecodedRequest,
    Decoders,
    ObserverConfig,
    WireDecodeError,
    WireKind,
    WireObserver,
)
from tests.wire.strategies import Conversation, conversations
from tests.wire.support import exchange, feed, kinds, only

S = ChatMessage("system", "sys")
U = [ChatMessage("user", f"question {i}") for i in range(6)]
A = [ChatMessage("assistant", f"answer {i}") for i in range(6)]
CALL = native_tool_call_row(None, [ToolCall("t1", "lookup", "{}")])
RESULT = native_tool_result_row("t1", "found")


def overflow_on_413(provider: str, status: int | None, body: str) -> bool:
    return status == 413 or "context_length_exceeded" in body


class ReadsAnything:
    """Decoders over a tiny test format: the body's lines are user rows."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.fail = fail

    def request(self, wire: WireKind, path: str, body: bytes, /) -> DecodedRequest:
        if self.fail is not None:
            raise self.fail
        if body.startswith(b"{"):
            raise WireDecodeError("not the wire's format")
        rows = tuple(ChatMessage("user", line) for line in body.decode().splitlines())
        return DecodedRequest(model="m", rows=rows)

    def answer(
        self, wire: WireKind, status: int, body: bytes, /, *, streamed: bool
    ) -> DecodedAnswer:
        if body == b"garbled":
            raise WireDecodeError("not the wire's format")
        return DecodedAnswer(rows=(ChatMessage("assistant", body.decode()),))

    def generation(self, wire: WireKind, method: str, path: str, /) -> bool:
        return path.endswith("/chat/completions")

    def decoders(self) -> Decoders:
        return Decoders(self.request, self.answer, self.generation)


def observer_reading(fail: Exception | None = None, **config: object) -> WireObserver:
    return WireObserver(ObserverConfig(**config), ReadsAnything(fail).decoders())  # type: ignore[arg-type]


def test_a_non_generation_path_is_ignored() -> None:
    observer = observer_reading()
    assert observer.observe(exchange(path="/v1/models", body=b"hi")) == ()
    assert (observer.session_count, observer.unobservable_count) == (0, 0)


def test_a_body_over_the_limit_is_one_unobservable_finding_counted() -> None:
    observer = observer_reading(max_body_bytes=4)
    (finding,) = observer.observe(exchange(session="chat", body=b"too long a body"))
    assert (finding.kind, finding.session, finding.call) == ("unobservable", "unobservable", 1)
    assert observer.unobservable_count == 1


def test_a_body_the_decoder_refuses_is_unobservable_in_the_named_session() -> None:
    observer = observer_reading()
    observer.observe(exchange(session="chat", body=b"hello"))
    (finding,) = observer.observe(exchange(session="chat", body=b"{"))
    assert (finding.kind, finding.session, finding.call) == ("unobservable", "chat", 2)
    assert "cannot be decoded" in finding.detail
    assert observer.unobservable_count == 1


@pytest.mark.parametrize("error", [KeyError("x"), TypeError("y"), RecursionError()])
def test_the_observer_never_raises(error: Exception) -> None:
    (finding,) = observer_reading(error).observe(exchange(body=b"hi"))
    assert finding.kind == "unobservable"


def test_an_answer_the_decoder_refuses_adds_an_unobservable_to_the_requests_findings() -> None:
    observer = observer_reading()
    garbled = dataclasses.replace(exchange(session="chat", body=b"hello"), response_body=b"garbled")
    assert kinds(observer.observe(garbled)) == ["unobservable"]
    assert observer.last_call == ("chat", 1)  # the request was read and counted once
    assert observer.session_count == 1


def test_an_overflow_then_a_smaller_retry_that_fits() -> None:
    observer = WireObserver(ObserverConfig(is_overflow=overflow_on_413))
    feed(observer, [S, U[0]], [A[0]], session="c")
    history = [S, U[0], A[0], U[1], A[1], U[2]]
    overflow = only(
        feed(observer, history, status=413, error_text="too long", session="c"), "overflow"
    )
    assert overflow.status == 413
    retry = only(feed(observer, [S, U[2]], [A[2]], session="c"), "overflow_retry")
    assert retry.tokens_after is not None
    assert retry.tokens_before is not None
    assert retry.tokens_after < retry.tokens_before
    assert "smaller; it fit" in retry.detail


def test_an_error_inside_a_2xx_stream_is_classified_with_no_status() -> None:
    seen: list[int | None] = []

    def classify(provider: str, status: int | None, body: str) -> bool:
        seen.append(status)
        return True

    observer = WireObserver(ObserverConfig(is_overflow=classify))
    assert "overflow" in kinds(feed(observer, [U[0]], status=200, error_text="event: error"))
    assert seen == [None]


def poisoned(observer: WireObserver, rows: list[ChatMessage], status: int) -> bool:
    return "poisoned_session" in kinds(feed(observer, rows, status=status, session="c"))


def test_two_failing_turns_after_an_overflow_poison_the_session_once() -> None:
    observer = WireObserver(ObserverConfig(is_overflow=overflow_on_413))
    feed(observer, [S, U[0]], [A[0]], session="c")
    feed(observer, [S, U[0], A[0], U[1]], status=413, session="c")
    feed(observer, [S, U[0], A[0], U[1]], status=413, session="c")  # the same turn again
    assert "poisoned_session" not in kinds(
        feed(observer, [S, U[0], A[0], U[2]], status=500, session="c")
    )
    assert "poisoned_session" in kinds(
        feed(observer, [S, U[0], A[0], U[3]], status=413, session="c")
    )
    assert "poisoned_session" not in kinds(
        feed(observer, [S, U[0], A[0], U[4]], status=413, session="c")
    )


def test_a_success_ends_the_streak_after_an_overflow() -> None:
    observer = WireObserver(ObserverConfig(is_overflow=overflow_on_413))
    feed(observer, [S, U[0]], status=413, session="c")
    feed(observer, [S, U[1]], [A[1]], session="c")
    feed(observer, [S, U[1], A[1], U[2]], status=500, session="c")
    assert "poisoned_session" not in kinds(
        feed(observer, [S, U[1], A[1], U[2], U[3]], status=500, session="c")
    )


@given(conversations(min_turns=2), conversations(tag="d", min_turns=1), st.integers(0, 30))
def test_cache_loss_is_the_reference_agents_cache_loss(
    first: Conversation, second: Conversation, keep: int
) -> None:
    """Against ``harness.agent.cache_loss``: tokens of the last successful request that
    the new one no longer starts with."""
    last = first.rows
    new = last[: min(keep, len(last))] + second.rows
    sent = SentRequests()
    sent.started("route", last)
    sent.succeeded("route")
    observer = WireObserver()
    feed(observer, last, session="c")
    breaks = [f for f in feed(observer, new, session="c") if f.kind == "cache_break"]
    loss = sent.loss("route", new)
    assert [f.cache_loss_tokens for f in breaks] == ([loss] if loss else [])


def test_a_refused_request_is_not_the_prefix_a_cache_could_keep() -> None:
    observer = WireObserver()
    feed(observer, [S, U[0]], [A[0]], session="c")
    refused = feed(observer, [ChatMessage("system", "other"), U[0]], status=400, session="c")
    assert "cache_break" in kinds(refused)
    assert "cache_break" not in kinds(feed(observer, [S, U[0], A[0], U[1]], session="c"))


def test_provider_edits_and_truncation_auto_are_provider_edits() -> None:
    observer = WireObserver()
    edits = ("clear_tool_uses_20250919", "clear_thinking_20251015")
    findings = feed(observer, [U[0]], [A[0]], provider_edits=edits)
    assert tuple(f.detail for f in findings if f.kind == "provider_edit") == edits
    request = DecodedRequest(model="m", rows=(U[0],), truncation_auto=True)
    findings = observer.observe_decoded(exchange(), request, DecodedAnswer())
    assert only(findings, "provider_edit").detail.startswith("truncation")


def test_a_provider_compaction_item_is_a_compaction_when_it_first_appears() -> None:
    observer = WireObserver()
    feed(observer, [U[0]], [A[0]], session="c")
    items = ("anthropic_compaction", "anthropic_context_management")
    found = only(feed(observer, [U[1]], provider_items=items, session="c"), "compaction")
    assert "anthropic_compaction" in found.detail
    assert "compaction" not in kinds(
        feed(observer, [U[1], A[1], U[2]], provider_items=items, session="c")
    )


@pytest.mark.parametrize(("status", "said"), [(400, "rejected it (400)"), (200, "silently (200)")])
def test_an_orphan_tool_result_says_what_the_provider_did(status: int, said: str) -> None:
    findings = feed(WireObserver(), [S, U[0], RESULT], status=status)
    assert said in only(findings, "orphan_tool_result").detail


def test_a_call_answered_nowhere_is_an_orphan_unless_it_is_the_last_row() -> None:
    assert "orphan_tool_call" not in kinds(feed(WireObserver(), [U[0], CALL]))
    assert "orphan_tool_call" in kinds(feed(WireObserver(), [U[0], CALL, U[1]]))


def test_a_result_before_its_call_is_a_turn_order_on_every_wire() -> None:
    assert "turn_order" in kinds(feed(WireObserver(), [U[0], RESULT, CALL], wire="openai_chat"))


def test_a_call_id_used_again_in_a_later_turn_is_no_result_before_its_call() -> None:
    # Gemini without ids: ``functionCall.id`` is the function's name (Google ADK sends none),
    # so the same id is called and answered in each turn; each result follows its own call.
    twice = [U[0], CALL, RESULT, A[0], U[1], CALL, RESULT]
    assert "turn_order" not in kinds(feed(WireObserver(), twice, wire="gemini"))
    assert "turn_order" in kinds(feed(WireObserver(), [U[0], RESULT, CALL, RESULT], wire="gemini"))


def test_gemini_wants_a_function_call_after_a_user_turn_and_its_response_right_after() -> None:
    after_model = [U[0], A[0], CALL, RESULT]
    assert "turn_order" in kinds(feed(WireObserver(), after_model, wire="gemini"))
    assert "turn_order" not in kinds(feed(WireObserver(), after_model, wire="openai_chat"))
    apart = [U[0], CALL, U[1], RESULT]
    assert "turn_order" in kinds(feed(WireObserver(), apart, wire="gemini"))
    assert "turn_order" not in kinds(
        feed(WireObserver(), [U[0], CALL, RESULT, A[0]], wire="gemini")
    )


def test_anthropic_wants_a_user_message_first_and_no_two_assistant_messages_in_a_row() -> None:
    assert "turn_order" in kinds(feed(WireObserver(), [S, A[0], U[0]], wire="anthropic"))
    assert "turn_order" in kinds(feed(WireObserver(), [U[0], A[0], A[1], U[1]], wire="anthropic"))
    assert "turn_order" not in kinds(feed(WireObserver(), [U[0], A[0], U[1]], wire="anthropic"))
    compacted = feed(
        WireObserver(), [A[0], U[1]], wire="anthropic", provider_items=("x_compaction",)
    )
    assert "turn_order" not in kinds(compacted)


def test_a_request_on_provider_held_state_is_not_read_as_a_cut_history() -> None:
    """Responses' ``previous_response_id`` carries only the new items (here the result of
    a call the previous response made): no trim, orphan, user or cache finding."""
    observer = WireObserver()
    feed(observer, [S, U[0]], [CALL], session="c", response_id="resp_1")
    findings = feed(observer, [RESULT], session="c", hints={"previous_response_id": "resp_1"})
    assert findings == ()
    without = WireObserver()
    feed(without, [S, U[0]], [CALL], session="c")
    cut = feed(without, [RESULT], session="c")
    assert {"orphan_tool_result", "user_dropped", "system_dropped"} <= set(kinds(cut))
