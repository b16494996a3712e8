"""``ServerWatch``: a fake server that exits is named once, with when and the failures after."""

from __future__ import annotations

from typing import cast

from harness.load.server import FakeServers
from harness.load.summary import ServerDeath
from harness.load.watch import ServerWatch


class Servers:
    def __init__(self) -> None:
        self.dead: list[tuple[str, int]] = []

    def exited(self) -> list[tuple[str, int]]:
        return list(self.dead)


def test_a_death_is_timed_and_charged_the_failures_since_the_last_look_alive() -> None:
    servers, failed, now = Servers(), [0], [10.0]
    watch = ServerWatch(cast(FakeServers, servers), 10.0, lambda: failed[0], lambda: now[0])
    failed[0], now[0] = 2, 11.0
    watch.check()  # all alive; 2 failures so far (not the death's)
    failed[0], now[0] = 9, 11.25
    servers.dead = [("openai.load", -9)]
    watch.check()  # noticed now; the 7 failures since the last look count after it
    failed[0], now[0] = 30, 12.0
    watch.check()  # seen once only
    assert watch.deaths(failed_at_end=40) == [ServerDeath("openai.load", 1.25, -9, 38)]


def test_nothing_to_watch_finds_nothing() -> None:
    watch = ServerWatch(None, 0.0, lambda: 0)
    watch.check()
    assert watch.deaths(5) == []
