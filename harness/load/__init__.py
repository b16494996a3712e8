"""Many concurrent agent sessions against real fake servers; Locust for more than one machine.

``run_load(plan)`` starts a fake-server process per provider route (uvicorn on 127.0.0.1),
runs ``plan.sessions`` Agent sessions ``plan.concurrency`` at a time over real HTTP and
returns a ``LoadSummary``. ``run_locust`` runs the same sessions as Locust users
(``LOCUSTFILE``); Locust itself is imported only there, in Locust's own processes.
"""

from harness.load.fake import CountingLog, ServerStats, SessionScriptedFake, build_load_fake
from harness.load.launcher import LOCUSTFILE, LocustOptions, run_locust
from harness.load.metrics import LoadMetrics
from harness.load.runner import RunOptions, interrupted, nothing_ran, run_load, run_sessions
from harness.load.server import FakeServerProcess, FakeServers
from harness.load.session import SessionFactory, Stopwatch, TimedClient
from harness.load.summary import (
    LoadSummary,
    Quantiles,
    ServerDeath,
    TrimRow,
    render,
    write_json,
)
from harness.load.tally import LoadTally
from harness.load.template import (
    FAKE_FOR_KIND,
    SESSION_HEADER,
    LoadPlan,
    ProviderTemplate,
    RouteTemplate,
    SessionTemplate,
    ToolTemplate,
    default_template,
    read_plan,
    write_plan,
)

__all__ = [
    "FAKE_FOR_KIND",
    "LOCUSTFILE",
    "SESSION_HEADER",
    "CountingLog",
    "FakeServerProcess",
    "FakeServers",
    "LoadMetrics",
    "LoadPlan",
    "LoadSummary",
    "LoadTally",
    "LocustOptions",
    "ProviderTemplate",
    "Quantiles",
    "RouteTemplate",
    "RunOptions",
    "ServerDeath",
    "ServerStats",
    "SessionFactory",
    "SessionScriptedFake",
    "SessionTemplate",
    "Stopwatch",
    "TimedClient",
    "ToolTemplate",
    "TrimRow",
    "build_load_fake",
    "default_template",
    "interrupted",
    "nothing_ran",
    "read_plan",
    "render",
    "run_load",
    "run_locust",
    "run_sessions",
    "write_json",
    "write_plan",
]
