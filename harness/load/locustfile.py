"""Locust entry point: trimscope load sessions as Locust users.

Run by Locust only (``locust -f harness/load/locustfile.py``, or ``trimscope load
--locust``): importing Locust monkey-patches the standard library with gevent, so nothing
else imports this file. Each user runs whole agent sessions, one after another, from the
plan in ``$TRIMSCOPE_LOAD_PLAN`` (``harness.load.worker``); every provider call and every
turn is reported to Locust as a request (``provider <ref>``, ``agent turn``).

A worker that has run its share of the sessions tells the master (``DONE_MESSAGE``); once
every worker has, the master quits, which asks each worker for its final stats first.

A worker whose plan names no server (``--write-plan``, docs/load.md's several machines)
starts its own fake servers in ``init``. That waits for each server's URL, and under gevent
a wait yields: Locust starts the users meanwhile. So users wait for ``_ready`` (set when
``init`` is done, whether it worked or not) instead of finding no state and stopping, which
made every user quit in ``on_start`` and the run end with no work and exit code 0. A worker
whose state cannot be built logs why and exits 1.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import gevent  # type: ignore[import-untyped]
from gevent.event import Event  # type: ignore[import-untyped]
from locust import User, constant, events, task
from locust.env import Environment
from locust.exception import StopUser
from locust.rpc import Message
from locust.runners import MasterRunner, WorkerRunner

from harness.load.worker import WorkerState, close_client

DONE_MESSAGE: Final = "trimscope_worker_done"
STATE_WAIT_S: Final = 120.0
"""How long a user waits for its worker's ``init`` (fake servers starting: each is bounded
by ``harness.load.server.START_TIMEOUT_S``)."""

# httpx logs every request at INFO, Locust's default level: noise, and CPU, under load.
logging.getLogger("httpx").setLevel(logging.WARNING)

_state: WorkerState | None = None
_ready = Event()
_done_workers: set[str] = set()
_log = logging.getLogger("trimscope.locust")


def _worker_done(environment: Environment, msg: Message, **_: Any) -> None:
    """Master: one more worker ran its share; quit once they all have."""
    _done_workers.add(str(msg.node_id))
    runner = environment.runner
    if isinstance(runner, MasterRunner) and len(_done_workers) >= max(1, runner.worker_count):
        gevent.spawn(runner.quit)


def _on_init(environment: Environment, **_: Any) -> None:
    global _state  # noqa: PLW0603 - one shared state per worker process, by design
    if isinstance(environment.runner, MasterRunner):
        environment.runner.register_message(DONE_MESSAGE, _worker_done)
        return
    try:
        _state = WorkerState.from_environment()
    except Exception:
        _log.exception("trimscope: this worker cannot run sessions")
        environment.process_exit_code = 1
        if environment.runner is not None:
            gevent.spawn(environment.runner.quit)
    finally:
        _ready.set()


def _on_quitting(environment: Environment, **_: Any) -> None:
    if _state is not None:
        _state.close()


# Locust's EventHook.add_listener carries no annotations.
events.init.add_listener(_on_init)  # type: ignore[no-untyped-call]
events.quitting.add_listener(_on_quitting)  # type: ignore[no-untyped-call]


class AgentSessionUser(User):
    """Runs whole sessions back to back until the worker's budget or time is used up."""

    wait_time = constant(0)

    def on_start(self) -> None:
        _ready.wait(STATE_WAIT_S)  # see the module docstring
        if _state is None:
            raise StopUser()
        self.state = _state
        # Joined and acknowledged by now (users spawn after the master's ack): its index.
        _state.place(getattr(self.environment.runner, "worker_index", 0))
        self.http = _state.user_client()
        self.factory = _state.factory(self.http, self._report_call, self._report_turn)

    def on_stop(self) -> None:
        http = getattr(self, "http", None)
        if http is not None:
            close_client(http)

    def _fire(self, kind: str, name: str, seconds: float, error: BaseException | None) -> None:
        self.environment.events.request.fire(
            request_type=kind,
            name=name,
            response_time=seconds * 1000,
            response_length=0,
            exception=error,
            context={},
        )

    def _report_call(self, ref: str, seconds: float, error: BaseException | None) -> None:
        self._fire("provider", ref, seconds, error)

    def _report_turn(self, seconds: float, error: BaseException | None) -> None:
        self._fire("agent", "turn", seconds, error)

    @task
    def session(self) -> None:
        index = self.state.claim()
        if index is not None:
            self.state.run(self.factory, index)
        if self.state.finished() and self.state.announce_done():
            runner = self.environment.runner
            if isinstance(runner, WorkerRunner):
                runner.send_message(DONE_MESSAGE, {"sessions": self.state.claimed})
            elif runner is not None:
                runner.quit()
        if index is None:
            raise StopUser()
