"""The event bus: publishes each event to every observer, isolating their failures.

An observer that raises is logged and counted and never breaks a run; in strict mode
(tests) the bus re-raises instead, so a broken observer fails the test that hit it.
Observers known when the bus is built are given to it then (``EventBus(observers=...)``);
``subscribe`` is for those that come later. Each event reaches them in that order.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from harness.events.kinds import Event

_log = logging.getLogger(__name__)


class Observer(Protocol):
    def on_event(self, event: Event) -> None: ...


@dataclass(frozen=True, slots=True)
class ObserverFailure:
    observer: str
    event: str
    error: str


class EventBus:
    def __init__(self, *, observers: Iterable[Observer] = (), strict: bool = False) -> None:
        """``observers`` are subscribed at once, in order (as ``subscribe`` would)."""
        self._observers: list[Observer] = list(observers)
        self._strict = strict
        self._lock = threading.Lock()
        self.failures: list[ObserverFailure] = []
        self.published = 0

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Add an observer; the returned function removes it."""
        with self._lock:
            self._observers.append(observer)
        return lambda: self._unsubscribe(observer)

    def _unsubscribe(self, observer: Observer) -> None:
        with self._lock:
            if observer in self._observers:
                self._observers.remove(observer)

    def publish(self, event: Event) -> None:
        with self._lock:
            observers = tuple(self._observers)
            self.published += 1
        for observer in observers:
            try:
                observer.on_event(event)
            except Exception as exc:
                if self._strict:
                    raise
                failure = ObserverFailure(type(observer).__name__, type(event).__name__, repr(exc))
                with self._lock:
                    self.failures.append(failure)
                _log.exception("observer %s failed on %s", failure.observer, failure.event)
