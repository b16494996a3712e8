"""``gen_ai.provider.name`` carries the GenAI conventions' values, the route alias our own
attribute and label: every value a real run emits, in spans and in the GenAI metrics, is
checked against the conventions' list in opentelemetry-semantic-conventions."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from harness.providers.plumbing.factory import PROVIDER_KINDS
from harness.telemetry import names as n
from harness.wire import WIRE_KINDS
from tests.scenarios.support import console_script

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as genai

CONVENTIONS = frozenset(value.value for value in genai.GenAiProviderNameValues)
CUSTOM_VALUE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
"""The list's own spelling of a multi-word name (``mistral_ai``, ``x_ai``)."""


def _is_ours(value: str) -> bool:
    """A value we may emit: the conventions', or a custom one by their rule that clashes
    with none of theirs (``gemini`` for ``gcp.gemini`` would)."""
    if value in CONVENTIONS:
        return True
    clashes = {part for known in CONVENTIONS for part in known.split(".")}
    return CUSTOM_VALUE.fullmatch(value) is not None and value not in clashes


def test_well_known_values_are_the_conventions() -> None:
    assert set(n.WELL_KNOWN_PROVIDER_NAMES.values()) <= CONVENTIONS


def test_custom_values_follow_the_rule_for_values_the_list_lacks() -> None:
    for kind, value in n.CUSTOM_PROVIDER_NAMES.items():
        assert value not in CONVENTIONS, kind
        assert _is_ours(value), kind


def test_every_kind_we_speak_has_a_value() -> None:
    # a kind left out would fall back to its own spelling: each is named on purpose
    assert set(PROVIDER_KINDS) | set(WIRE_KINDS) <= set(n.GEN_AI_PROVIDER_NAMES)
    assert n.gen_ai_provider_name("My-Gateway") == "my_gateway"


def test_a_run_emits_only_the_conventions_values_and_the_route_apart(tmp_path: Path) -> None:
    spans, metrics = tmp_path / "spans.jsonl", tmp_path / "m.prom"
    result = console_script(
        # the provider-* scenarios speak every client kind of the library
        ["run", "-q", "-k", "^provider-", "--otel-jsonl", spans, "--metrics-out", metrics],
        cwd=tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    in_spans: set[str] = set()
    routes: set[str] = set()
    for line in spans.read_text(encoding="utf-8").splitlines():
        attributes = json.loads(line)["attributes"]
        if n.GEN_AI_OPERATION_NAME in attributes and n.GEN_AI_TOOL_NAME not in attributes:
            in_spans.add(attributes[n.GEN_AI_PROVIDER_NAME])  # present on agent and call spans
            routes.add(attributes[n.ATTR_PROVIDER])
    labels: set[str] = set()
    labelled_routes: set[str] = set()
    for family in text_string_to_metric_families(metrics.read_text(encoding="utf-8")):
        if family.name in (n.GEN_AI_TOKEN_USAGE.name, n.GEN_AI_DURATION.name):
            for sample in family.samples:
                labels.add(sample.labels[n.LABEL_GEN_AI_PROVIDER])
                labelled_routes.add(sample.labels[n.LABEL_ROUTE])
    assert {"openai", "anthropic", "gcp.gemini", "cohere", "ollama"} <= in_spans
    assert in_spans == labels
    assert all(_is_ours(value) for value in in_spans), in_spans - CONVENTIONS
    assert "openai.main" in routes
    assert labelled_routes <= routes  # a turn refused before any call has no call series
    assert not routes & in_spans


def test_the_docs_table_is_the_code_table() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "provider-names.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", page, re.M)
    assert dict(rows) == dict(n.GEN_AI_PROVIDER_NAMES)
