"""``harness.interrupt``: signals are recorded, callbacks told once, handlers restored."""

from __future__ import annotations

import os
import signal

import pytest

from harness.interrupt import Interrupted, StopRequest, stop_on_signals


def test_nothing_requested_at_first() -> None:
    stop = StopRequest()
    assert (stop.requested, stop.name, stop.exit_code) == (False, None, None)
    stop.raise_if_requested()  # does nothing


@pytest.mark.parametrize(
    ("signum", "name", "code"), [(signal.SIGINT, "SIGINT", 130), (signal.SIGTERM, "SIGTERM", 143)]
)
def test_a_real_signal_is_recorded_and_gives_the_shell_exit_code(
    signum: signal.Signals, name: str, code: int
) -> None:
    stop = StopRequest()
    before = signal.getsignal(signum)
    with stop_on_signals(stop):
        os.kill(os.getpid(), signum)  # handled at the next bytecode boundary, here
        assert stop.name == name
    assert stop.exit_code == code
    assert signal.getsignal(signum) is before


def test_the_first_signal_wins_and_callbacks_run_once() -> None:
    stop = StopRequest()
    told: list[str] = []
    with stop.on_request(lambda: told.append("a")):
        stop.request(signal.SIGTERM)
        stop.request(signal.SIGINT)
    assert told == ["a"]
    assert stop.name == "SIGTERM"


def test_a_callback_registered_after_the_request_runs_at_once() -> None:
    stop = StopRequest()
    stop.request(signal.SIGINT)
    told: list[str] = []
    with stop.on_request(lambda: told.append("late")):
        pass
    assert told == ["late"]


def test_a_callback_is_forgotten_after_its_block() -> None:
    stop = StopRequest()
    told: list[str] = []
    with stop.on_request(lambda: told.append("x")):
        pass
    stop.request(signal.SIGINT)
    assert told == []


def test_raise_if_requested_raises_what_no_except_exception_catches() -> None:
    stop = StopRequest()
    stop.request(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught:
        stop.raise_if_requested()
    assert not isinstance(caught.value, Exception)  # ``except Exception`` lets it through
    assert caught.value.signum == signal.SIGTERM
