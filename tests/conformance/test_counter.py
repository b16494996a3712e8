"""The report names the counter behind the endpoint's token figures: the one a fake says it
used (its ``COUNTER_HEADER``), or the endpoint's own when it names none (issue 25)."""

from __future__ import annotations

import json

import httpx
import pytest
from rich.console import Console

from fakes import COUNTER_HEADER, counter_label
from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import ConformanceReport
from harness.conformance import counter as conformance_counter
from harness.conformance.counter import ENDPOINT_OWN, CountersSeen
from harness.conformance.render import markdown, table, to_json_text
from tests.conformance.support import conform
from tests.fakes.test_exact_counter import needs_quicktok

pytestmark = pytest.mark.anyio
HEURISTIC = "heuristic (estimate: bytes/4 + 4 per row, not a real tokenizer)"


def _shown(report: ConformanceReport) -> str:
    console = Console(width=400, record=True)
    console.print(table(report))
    return console.export_text()


@pytest.mark.parametrize(
    ("counter", "label"),
    [
        pytest.param("o200k_base", "o200k_base (exact)", marks=needs_quicktok),
        ("heuristic", HEURISTIC),
    ],
)
async def test_the_report_names_the_counter_the_fake_used(
    fake_server: FakeServerFactory, counter: str, label: str
) -> None:
    report = (await conform(fake_server, "openai", 3000, counter=counter)).report
    assert report.counter == label
    assert json.loads(to_json_text(report))["counter"] == label
    assert f"- counter: {label}\n" in markdown(report)
    assert f"counter: {label}" in _shown(report)


async def test_an_endpoint_that_names_no_counter_is_counted_by_its_own() -> None:
    seen = CountersSeen()
    await seen(httpx.Response(200, json={}))
    assert seen.label == ENDPOINT_OWN
    await seen(httpx.Response(200, headers={COUNTER_HEADER: counter_label("cl100k_base")}))
    assert seen.label == "cl100k_base (exact)"


def test_conformance_reads_the_header_the_fakes_send() -> None:
    """Written twice on purpose (conformance never imports the fakes): kept equal here."""
    assert conformance_counter.COUNTER_HEADER == COUNTER_HEADER
