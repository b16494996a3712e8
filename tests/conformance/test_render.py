"""The Markdown and terminal reports are written for people: no raw Python values
(``None``, ``True``, ``False``) whatever the report holds."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from harness.conformance import (
    Check,
    ConformanceReport,
    Exchange,
    OverflowAnswer,
    PairingOutcome,
    Verdict,
    WindowFinding,
    markdown,
    table,
)
from harness.conformance.recovery import RecoveryResult
from harness.conformance.report import EstimateRatio, Spent

PYTHON_VALUES = re.compile(r"\b(None|True|False)\b")
WORDS = st.text(alphabet="abcdefgh ijk:,.()'", max_size=30)
COUNTS = st.integers(0, 10**6)
MAYBE = st.none() | COUNTS
STATUS = st.none() | st.sampled_from([200, 400, 413, 429, 500, 503])
FLAGS = st.booleans()

exchanges = st.builds(
    Exchange,
    index=COUNTS,
    purpose=WORDS,
    estimate_tokens=COUNTS,
    streamed=FLAGS,
    status=STATUS,
    ok=FLAGS,
    reported_input_tokens=MAYBE,
    output_tokens=MAYBE,
    finish_reason=st.none() | WORDS,
    error_class=st.none() | WORDS,
    error_type=st.none() | WORDS,
    reference=st.none() | FLAGS,
    extended=st.none() | FLAGS,
    excerpt=WORDS,
)
outcomes = st.builds(PairingOutcome, probe=WORDS, outcome=WORDS, status=STATUS, excerpt=WORDS)
reports = st.builds(
    ConformanceReport,
    provider=WORDS,
    base_url=WORDS,
    model=WORDS,
    spent=st.builds(Spent, COUNTS, COUNTS, COUNTS, COUNTS, COUNTS, COUNTS),
    checks=st.lists(
        st.builds(Check, WORDS, WORDS, st.sampled_from(list(Verdict)), WORDS), max_size=4
    ).map(tuple),
    window=st.builds(
        WindowFinding,
        declared=MAYBE,
        measured=MAYBE,
        lower_bound=MAYBE,
        upper_bound=MAYBE,
        tolerance=st.just(0.05),
        stopped=WORDS,
        probes=COUNTS,
    ),
    overflow=st.lists(
        st.builds(
            OverflowAnswer, WORDS, STATUS, FLAGS, COUNTS, st.none() | WORDS, FLAGS, FLAGS, WORDS
        ),
        max_size=3,
    ).map(tuple),
    pairing=st.lists(outcomes, max_size=2).map(tuple),
    row_shapes=st.lists(outcomes, max_size=2).map(tuple),
    recovery=st.builds(RecoveryResult, ran=FLAGS),
    exchanges=st.lists(exchanges, max_size=4).map(tuple),
    estimate_ratio=st.none()
    | st.builds(EstimateRatio, COUNTS, *(st.floats(0, 10) for _ in range(4))),
)


@given(reports)
def test_markdown_shows_no_python_values(report: ConformanceReport) -> None:
    assert PYTHON_VALUES.search(markdown(report)) is None


@given(reports)
def test_terminal_table_shows_no_python_values(report: ConformanceReport) -> None:
    out = io.StringIO()
    Console(file=out, width=160).print(table(report))
    assert PYTHON_VALUES.search(out.getvalue()) is None
