"""Telling sessions apart: header, provider hints, overlap; names, call numbers, expiry."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import (
    ChatMessage,
    estimate_history_tokens,
    insert_breadcrumb_deduped,
    trim_to_recent_turns,
)
from harness.wire import ObserverConfig, WireObserver
from tests.wire.strategies import Conversation, conversations
from tests.wire.support import feed

S, U1, A1, U2 = (
    ChatMessage("system", "sys"),
    ChatMessage("user", "first question"),
    ChatMessage("assistant", "first answer"),
    ChatMessage("user", "second question"),
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def requests_of(conv: Conversation) -> list[tuple[list[ChatMessage], list[ChatMessage]]]:
    """Every request the conversation makes (before each assistant row) and its answer."""
    rows = conv.rows
    return [
        (rows[:q], [rows[q]])
        for q in range(1, len(rows))
        if rows[q].role == "assistant" and rows[q - 1].role in {"user", "tool"}
    ]


def _maybe_trimmed(
    rows: list[ChatMessage], previous: list[ChatMessage], cut: bool
) -> list[ChatMessage]:
    """The request as the reference would trim it, when ``cut`` and when the trim keeps a
    row the previous request sent (a trim keeping none cannot be told apart by its rows)."""
    if not cut:
        return rows
    result = trim_to_recent_turns(rows, max(1, estimate_history_tokens(rows) // 2))
    trimmed = insert_breadcrumb_deduped(result.history, crumb_present=False)
    body = {
        row
        for row in trimmed
        if row.role != "system" and row not in insert_breadcrumb_deduped([], False)
    }
    return trimmed if result.trimmed and body & set(previous) else rows


@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True).flatmap(
        lambda tags: st.tuples(
            st.tuples(*(conversations(tag=f"c{t}", max_turns=4) for t in tags)),
            st.randoms(use_true_random=False),
            st.booleans(),
        )
    )
)
def test_interleaved_sessions_come_apart_by_their_rows(
    case: tuple[tuple[Conversation, ...], random.Random, bool],
) -> None:
    convs, shuffler, trims = case
    queues = [requests_of(conv) for conv in convs]
    order = [i for i, queue in enumerate(queues) for _ in queue]
    shuffler.shuffle(order)
    observer = WireObserver()
    seen: dict[int, set[str]] = {i: set() for i in range(len(convs))}
    previous: dict[int, list[ChatMessage]] = {}
    for index in order:
        rows, answer = queues[index].pop(0)
        sent = _maybe_trimmed(rows, previous.get(index, []), trims and shuffler.random() < 0.5)
        feed(observer, sent, answer)
        previous[index] = sent
        assert observer.last_call is not None
        seen[index].add(observer.last_call[0])
    names = [next(iter(s)) for s in seen.values()]
    assert all(len(s) == 1 for s in seen.values()), seen
    assert len(set(names)) == len(convs)


def test_sessions_told_apart_by_rows_are_named_in_order_of_opening() -> None:
    observer = WireObserver()
    feed(observer, [S, U1], [A1])
    feed(observer, [S, ChatMessage("user", "another conversation")])
    feed(observer, [S, U1, A1, U2])
    assert observer.last_call == ("s1", 2)
    feed(observer, [S, ChatMessage("user", "another conversation"), A1, U2])
    assert observer.last_call == ("s2", 2)
    assert observer.session_count == 2


def test_the_session_header_names_the_session_and_numbers_its_calls_from_one() -> None:
    observer = WireObserver()
    feed(observer, [S, U1], [A1], session="chat-1")
    feed(observer, [S, U1], [A1], session="chat-2")
    feed(observer, [S, U1, A1, U2], session="chat-1")
    assert observer.last_call == ("chat-1", 2)


def test_a_provider_hint_names_the_session() -> None:
    observer = WireObserver()
    feed(observer, [S, U1], hints={"prompt_cache_key": "k1", "user": "u"})
    assert observer.last_call == ("hint:prompt_cache_key:k1", 1)
    feed(observer, [S, U1], hints={"conversation": "conv_9", "prompt_cache_key": "k1"})
    assert observer.last_call == ("hint:conversation:conv_9", 1)


def test_previous_response_id_continues_the_session_that_answered_it() -> None:
    observer = WireObserver()
    feed(observer, [U1], [A1], session="chat", response_id="resp_1")
    feed(observer, [U2], hints={"previous_response_id": "resp_1"})
    assert observer.last_call == ("chat", 2)
    feed(observer, [U2], hints={"previous_response_id": "resp_unknown"})
    assert observer.last_call == ("hint:previous_response_id:resp_unknown", 1)


def test_an_idle_session_expires_by_the_injected_clock() -> None:
    clock = Clock()
    observer = WireObserver(ObserverConfig(idle_s=10.0, clock=clock))
    feed(observer, [S, U1], [A1], session="chat")
    clock.now = 10.0
    feed(observer, [S, ChatMessage("user", "other")], session="other")
    assert observer.session_count == 2
    clock.now = 20.5
    feed(observer, [S, U1, A1, U2], session="chat")
    assert observer.last_call == ("chat", 1)  # opened anew: the old one expired
    assert observer.session_count == 1


def test_past_max_sessions_the_least_recently_seen_goes_first() -> None:
    observer = WireObserver(ObserverConfig(max_sessions=2))
    feed(observer, [U1], session="a")
    feed(observer, [U1], session="b")
    feed(observer, [U1, A1, U2], session="a")  # b is now the least recently seen
    feed(observer, [U1], session="c")
    assert observer.session_count == 2
    feed(observer, [U1, A1, U2], session="a")
    assert observer.last_call == ("a", 3)
    feed(observer, [U1], session="b")
    assert observer.last_call == ("b", 1)
