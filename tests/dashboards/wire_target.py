"""A scrape target holding what the proxy would export for a runtime on the wire.

``python -m tests.dashboards.wire_target PORT HOLD_S`` serves, on 127.0.0.1:PORT, a registry
the Prometheus observer fills from ``wire_session`` (the events ``harness.proxy.events``
makes of the wire observer's findings) twice, ``ROUND_GAP_S`` apart (start it once
Prometheus scrapes: the first round must be scraped before the second), so every wire
series exists before it grows again and rates and quantiles have something to show; then
it holds until SIGTERM or HOLD_S. The proxy's own process is another branch's: this stands
in for its metrics in the Prometheus integration test.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from types import FrameType

from prometheus_client import CollectorRegistry, start_http_server

from harness.telemetry import PrometheusObserver
from tests.telemetry.scripted import wire_session

ROUNDS = 2
ROUND_GAP_S = 2.0
"""Eight scrapes at the test's 250 ms interval."""


def main(port: int, hold_s: float) -> None:
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    server, _ = start_http_server(port, addr="127.0.0.1", registry=registry)
    for round_ in range(ROUNDS):
        if round_:
            time.sleep(ROUND_GAP_S)
        for event in wire_session(f"w{round_}"):
            observer.on_event(event)
    stop.wait(hold_s)
    server.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
