"""The bus takes the observers it is built with (``EventBus(observers=...)``): each event
reaches them in that order, then the late subscribers in theirs, exactly as if each had
been subscribed in turn."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.events import Event, EventBus, TurnStarted


class _Noted:
    def __init__(self, name: str, seen: list[tuple[str, Event]]) -> None:
        self.name, self.seen = name, seen

    def on_event(self, event: Event) -> None:
        self.seen.append((self.name, event))


def _event(n: int) -> TurnStarted:
    return TurnStarted(
        session_id="s", turn_id=None, at=float(n), agent_name="a", provider="p",
        model=None, user_text_bytes=n,
    )  # fmt: skip


@given(st.integers(0, 6), st.integers(0, 4), st.integers(1, 3))
def test_observers_given_at_construction_are_served_first_in_their_order(
    given_at_start: int, late: int, events: int
) -> None:
    seen: list[tuple[str, Event]] = []
    first = [_Noted(f"given-{i}", seen) for i in range(given_at_start)]
    then = [_Noted(f"late-{i}", seen) for i in range(late)]
    bus = EventBus(observers=iter(first))  # any iterable, read once
    for observer in then:
        bus.subscribe(observer)
    published = [_event(n) for n in range(events)]
    for event in published:
        bus.publish(event)
    names = [o.name for o in (*first, *then)]
    assert seen == [(name, event) for event in published for name in names]


def test_a_late_subscriber_can_still_be_removed() -> None:
    seen: list[tuple[str, Event]] = []
    kept, gone = _Noted("kept", seen), _Noted("gone", seen)
    bus = EventBus(observers=(kept,))
    bus.subscribe(gone)()  # subscribed, then removed at once
    bus.publish(_event(1))
    assert [name for name, _ in seen] == ["kept"]
