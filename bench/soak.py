"""``python -m bench soak``: a long load run with faults mixed by rate, and whether every
output agrees to the call (issue 28).

One real ``trimscope load`` process (and its fake server, a process of its own) runs
``--sessions`` sessions of the scenario below: the fake answers most calls, and by a seeded
rate (``fake.fault_rates``, ``fakes.scripting.fault_rates``) 5xx, 429s with a
``Retry-After``, hangs past ``--request-timeout``, streams dropped mid-answer and malformed
bodies. The run writes its summary (``--json``), its metrics (``--metrics-out``) and its
spans (``--otel-jsonl``); the fake server reports its own count. Then, per output:

- **summary**, **metrics**, **spans**: provider calls by outcome (the spans: each
  inference span's ``trimscope.call.outcome``); the three must be equal, outcome by outcome;
- **fake**: the generation requests the fake server answered, which must equal their
  total, and its 500s and 429s, which must equal the ``server_error`` and ``rate_limited``
  calls (the other faults are answered 200 and broken on the way);
- **drawn**: the outcomes the seed places on the fake's calls (a fault kind is a function
  of the seed and the call's number alone), which must equal the summary's, outcome by
  outcome: each hang a ``timeout``, each dropped or malformed body a ``protocol_error``;
- **orphan spans**: spans whose parent is not in the file (must be none).

"agree" is ``met`` only when all of these hold. This is a bench entry, not a test: a run
of ``DEFAULT_SESSIONS`` takes minutes; ``tests/load/test_soak.py`` runs a small one.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from bench.timing import table
from fakes.scripting.fault_rates import RATE_KINDS, FaultRates, RateKind
from harness.cli.load_options import MAX_CONCURRENCY, MAX_SESSIONS  # load's own bounds
from harness.telemetry import names as n

DEFAULT_SESSIONS, DEFAULT_CONCURRENCY = 10_000, 50
REQUEST_TIMEOUT_S = 5.0
"""A drawn hang outlasts it (``FAULTS.hang_seconds``), so each hang is a ``timeout``; an
answered call on a busy 2-core machine stays well inside it (at 1 s, 6 calls of 30,915
timed out before the fake answered them, and the fake rightly did not count them)."""
FAULTS = FaultRates(
    server_error=0.03,
    rate_limit=0.03,
    hang=0.005,
    drop_mid_stream=0.02,
    malformed_json=0.02,
    seed=28,
    retry_after=0,
    hang_seconds=10.0,
)
"""Each fault kind's share of calls (one call in ten, all told), and where they fall."""
OUTCOME_OF_KIND: dict[RateKind | None, str] = {
    None: "ok",
    "server_error": "server_error",
    "rate_limit": "rate_limited",
    "hang": "timeout",
    "drop_mid_stream": "protocol_error",
    "malformed_json": "protocol_error",
}
"""The harness's outcome of a call the fake answered with each drawn fault kind."""
SCENARIO = """\
id: bench-soak
title: bench soak, faults mixed by rate
rules: ["10"]
providers:
  openai.main:
    kind: openai
    model: gpt-soak
    context_window: 100000
    fake:
      fault_rates: {{{rates}}}
      default: {{text: "ok"}}
system_prompt: "You answer briefly."
conversation:
  - user: "Which planets have rings around them?"
  - user: "How many moons does Saturn have today?"
  - user: "Which is the largest moon of Jupiter?"
expect: {{}}
"""
TRIMSCOPE = [sys.executable, "-c", "import sys; from harness.cli import main; sys.exit(main())"]
SPAN_OUTCOME = "trimscope.call.outcome"
"""An inference span's outcome attribute (``harness.telemetry``)."""
FAKE_STATUS_OF = {"server_error": "500", "rate_limited": "429"}
"""Outcomes the fake answers with a status of their own (the rest are answered 200)."""


def scenario_text() -> str:
    return SCENARIO.format(rates=", ".join(f"{k}: {v}" for k, v in asdict(FAULTS).items()))


def drawn_outcomes(calls: int) -> Counter[str]:
    """The outcomes the seed places on the fake's first ``calls`` calls (its own numbering)."""
    return Counter(OUTCOME_OF_KIND[FAULTS.kind_for(index)] for index in range(calls))


@dataclass(frozen=True, slots=True)
class Outputs:
    folder: Path

    @property
    def summary(self) -> Path:
        return self.folder / "load.json"

    @property
    def metrics(self) -> Path:
        return self.folder / "metrics.prom"

    @property
    def spans(self) -> Path:
        return self.folder / "spans.jsonl"

    @property
    def scenario(self) -> Path:
        return self.folder / "soak.yaml"


def soak_command(outputs: Outputs, sessions: int, concurrency: int) -> list[str]:
    """The ``trimscope load`` command of a soak (the scenario written first)."""
    outputs.scenario.write_text(scenario_text(), encoding="utf-8")
    args = ["load", "--scenario", str(outputs.scenario), "--sessions", str(sessions)]
    args += ["--concurrency", str(concurrency), "--duration", "86400", "--quiet"]
    args += ["--request-timeout", str(REQUEST_TIMEOUT_S), "--max-failed-calls", "1"]
    args += ["--json", str(outputs.summary), "--metrics-out", str(outputs.metrics)]
    return [*TRIMSCOPE, *args, "--otel-jsonl", str(outputs.spans)]


@dataclass(frozen=True, slots=True)
class Counts:
    """Provider calls by outcome as each output says, and what the fake server said."""

    summary: Counter[str]
    metrics: Counter[str]
    spans: Counter[str]
    fake_calls: int
    fake_statuses: dict[str, int]
    orphan_spans: int
    drawn: Counter[str]
    sessions: int = 0
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.problems.extend(disagreements(self))

    @property
    def agree(self) -> bool:
        return not self.problems


def disagreements(counts: Counts) -> list[str]:
    """What does not agree, one line each (none: every output agrees to the call)."""
    found = [
        f"{name} {dict(other)} != summary {dict(counts.summary)}"
        for name, other in (("metrics", counts.metrics), ("spans", counts.spans))
        if other != counts.summary
    ]
    if counts.fake_calls != counts.summary.total():
        found.append(f"fake {counts.fake_calls:,} calls != summary {counts.summary.total():,}")
    for outcome, status in FAKE_STATUS_OF.items():
        if (answered := counts.fake_statuses.get(status, 0)) != counts.summary[outcome]:
            found.append(
                f"fake {status}s {answered:,} != summary {outcome} {counts.summary[outcome]:,}"
            )
    if counts.drawn != counts.summary:
        found.append(f"drawn by the seed {dict(counts.drawn)} != summary {dict(counts.summary)}")
    if counts.orphan_spans:
        found.append(f"{counts.orphan_spans:,} spans whose parent is not in the file")
    return found


def metric_counts(path: Path) -> Counter[str]:
    """Provider calls by outcome in a ``--metrics-out`` file (Prometheus text)."""
    counted: Counter[str] = Counter()
    for family in text_string_to_metric_families(path.read_text(encoding="utf-8")):
        for sample in family.samples:
            if sample.name == n.PROVIDER_CALLS.name:
                counted[sample.labels[n.LABEL_OUTCOME]] += int(sample.value)
    return counted


def _span_records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def span_counts(path: Path) -> tuple[Counter[str], int]:
    """Inference spans by outcome, and the spans whose parent is not in the file
    (read line by line: a soak's file is a few hundred MB)."""
    outcomes: Counter[str] = Counter()
    ids: set[str] = set()
    parents: set[str] = set()
    for span in _span_records(path):
        context, parent, attributes = span["context"], span.get("parent_id"), span["attributes"]
        ids.add(context["span_id"])
        if isinstance(parent, str):
            parents.add(parent)
        if span.get("kind") == "SpanKind.CLIENT":
            outcomes[str(attributes.get(SPAN_OUTCOME))] += 1
    return outcomes, len(parents - ids)


def read_counts(outputs: Outputs) -> Counts:
    summary = json.loads(outputs.summary.read_text(encoding="utf-8"))
    (server,) = summary["servers"]
    spans, orphans = span_counts(outputs.spans)
    return Counts(
        Counter(summary["calls_by_outcome"]),
        metric_counts(outputs.metrics),
        spans,
        server["generation_requests"],
        server["statuses"],
        orphans,
        drawn_outcomes(server["generation_requests"]),
        summary["sessions_started"],
        []
        if summary["provider_calls"] == sum(summary["calls_by_outcome"].values())
        else [f"summary provider_calls {summary['provider_calls']:,} != its calls by outcome"],
    )


def soak(folder: Path, sessions: int, concurrency: int) -> tuple[Counts, int, float]:
    """Run one soak into ``folder``: its counts, the run's exit code and its seconds."""
    outputs = Outputs(folder)
    began = time.monotonic()
    done = subprocess.run(
        soak_command(outputs, sessions, concurrency), check=False, capture_output=True
    )
    return read_counts(outputs), done.returncode, time.monotonic() - began


def report(counts: Counts, code: int, seconds: float, say: Callable[[str], None]) -> None:
    columns = (counts.summary, counts.metrics, counts.spans, counts.drawn)
    outcomes = sorted(set().union(*columns))
    rows = [[o, *(f"{c[o]:,}" for c in columns)] for o in outcomes]
    rows.append(["all", *(f"{c.total():,}" for c in columns)])
    head = ["calls by outcome", "summary --json", "--metrics-out", "--otel-jsonl", "drawn"]
    say(table(head, rows))
    statuses = ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.fake_statuses.items()))
    say(f"fake server: {counts.fake_calls:,} generation requests ({statuses})")
    say(f"orphan spans: {counts.orphan_spans:,}")
    say(f"run: exit {code}, {counts.sessions:,} sessions ended, {seconds:,.0f} s")
    for problem in counts.problems:
        say(f"  disagrees: {problem}")
    say(f"agree: {'met' if counts.agree else 'NOT MET'}")


def _bounded(most: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if not 1 <= value <= most:
            raise argparse.ArgumentTypeError(f"expected 1..{most:,}, found {value}")
        return value

    return parse


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__)
    parser.add_argument("--sessions", type=_bounded(MAX_SESSIONS), default=DEFAULT_SESSIONS)
    parser.add_argument(
        "--concurrency", type=_bounded(MAX_CONCURRENCY), default=DEFAULT_CONCURRENCY
    )
    args = parser.parse_args(argv)
    rates = ", ".join(f"{kind} {getattr(FAULTS, kind):g}" for kind in RATE_KINDS)
    print(f"soak: {args.sessions:,} sessions, {args.concurrency} at once; faults by rate: {rates}")
    with tempfile.TemporaryDirectory(prefix="trimscope-bench-soak-") as scratch:
        counts, code, seconds = soak(Path(scratch), args.sessions, args.concurrency)
    report(counts, code, seconds, print)
    return 0
