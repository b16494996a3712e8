"""Fake-server processes that die during a load run: noticed, timed, and their toll counted.

``ServerWatch.check`` is called every ``WATCH_INTERVAL_S`` while sessions run (an asyncio
task in the asyncio runner, the launcher's wait loop in Locust mode). The failed calls
"after" a death are counted from the last check at which every server was alive, so the
calls that failed between the death and its detection are included.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from harness.load.server import FakeServers
from harness.load.summary import ServerDeath

WATCH_INTERVAL_S: Final = 0.25
"""How often the fake-server processes are checked for life while sessions run."""


class ServerWatch:
    """Deaths of ``servers`` (``None``: nothing to watch); ``failed`` counts failed calls
    so far (``FAILED_CALL_OUTCOMES``)."""

    def __init__(
        self,
        servers: FakeServers | None,
        began: float,
        failed: Callable[[], int],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._servers = servers
        self._began = began
        self._failed = failed
        self._clock = clock
        self._seen: dict[str, tuple[float, int, int]] = {}  # ref -> (after_s, code, failed)
        self._failed_while_alive = 0

    def check(self) -> None:
        if self._servers is None:
            return
        failed_now = self._failed()
        for ref, code in self._servers.exited():
            if ref not in self._seen:
                after_s = round(self._clock() - self._began, 3)
                self._seen[ref] = (after_s, code, self._failed_while_alive)
        self._failed_while_alive = failed_now

    @property
    def died(self) -> bool:
        """A server has exited (as of the last ``check``)."""
        return bool(self._seen)

    def deaths(self, failed_at_end: int) -> list[ServerDeath]:
        return [
            ServerDeath(ref, after_s, code, failed_at_end - failed_before)
            for ref, (after_s, code, failed_before) in self._seen.items()
        ]
