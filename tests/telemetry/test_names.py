"""Telemetry names: our GenAI constants match the conventions; metric names follow
Prometheus naming; labels are bounded."""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from pathlib import Path

import pytest

from harness.events import EventSource
from harness.telemetry import names as n
from harness.wire import FINDING_KINDS

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as genai
    from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
    from opentelemetry.semconv.attributes import error_attributes
    from opentelemetry.semconv.schemas import Schemas


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (n.GEN_AI_OPERATION_NAME, genai.GEN_AI_OPERATION_NAME),
        (n.GEN_AI_PROVIDER_NAME, genai.GEN_AI_PROVIDER_NAME),
        (n.GEN_AI_REQUEST_MODEL, genai.GEN_AI_REQUEST_MODEL),
        (n.GEN_AI_RESPONSE_FINISH_REASONS, genai.GEN_AI_RESPONSE_FINISH_REASONS),
        (n.GEN_AI_USAGE_INPUT_TOKENS, genai.GEN_AI_USAGE_INPUT_TOKENS),
        (n.GEN_AI_USAGE_OUTPUT_TOKENS, genai.GEN_AI_USAGE_OUTPUT_TOKENS),
        (n.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, genai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS),
        (
            n.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
            genai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
        ),
        (n.GEN_AI_CONVERSATION_ID, genai.GEN_AI_CONVERSATION_ID),
        (n.GEN_AI_AGENT_NAME, genai.GEN_AI_AGENT_NAME),
        (n.GEN_AI_TOOL_NAME, genai.GEN_AI_TOOL_NAME),
        (n.GEN_AI_TOOL_TYPE, genai.GEN_AI_TOOL_TYPE),
        (n.GEN_AI_TOOL_CALL_ID, genai.GEN_AI_TOOL_CALL_ID),
        (n.GEN_AI_TOKEN_TYPE, genai.GEN_AI_TOKEN_TYPE),
        (n.OPERATION_CHAT, genai.GenAiOperationNameValues.CHAT.value),
        (n.OPERATION_INVOKE_AGENT, genai.GenAiOperationNameValues.INVOKE_AGENT.value),
        (n.OPERATION_EXECUTE_TOOL, genai.GenAiOperationNameValues.EXECUTE_TOOL.value),
        (n.TOKEN_TYPE_INPUT, genai.GenAiTokenTypeValues.INPUT.value),
        (n.TOKEN_TYPE_OUTPUT, genai.GenAiTokenTypeValues.OUTPUT.value),
        (n.ERROR_TYPE, error_attributes.ERROR_TYPE),
        (n.ERROR_TYPE_OTHER, error_attributes.ErrorTypeValues.OTHER.value),
    ],
)
def test_genai_constant_matches_the_conventions(ours: str, theirs: str) -> None:
    assert ours == theirs


def test_compacted_is_ours_until_the_package_has_it() -> None:
    assert n.GEN_AI_CONVERSATION_COMPACTED == "gen_ai.conversation.compacted"
    assert not hasattr(genai, "GEN_AI_CONVERSATION_COMPACTED")  # when it lands, use theirs


def test_genai_metrics_are_the_exporters_names_of_the_conventions_instruments() -> None:
    def prometheus_name(instrument: str) -> str:
        return instrument.replace(".", "_")

    assert n.GEN_AI_TOKEN_USAGE.name == prometheus_name(gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE)
    duration = prometheus_name(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION) + "_seconds"
    assert n.GEN_AI_DURATION.name == duration


def test_schema_url_is_the_packages_latest() -> None:
    latest = list(Schemas)[-1].value
    assert latest == n.SEMCONV_SCHEMA_URL


def test_span_names_follow_the_conventions() -> None:
    assert n.inference_span_name("chat", "gpt-test") == "chat gpt-test"
    assert n.inference_span_name("chat", None) == "chat"
    assert n.agent_span_name("coder") == "invoke_agent coder"
    assert n.tool_span_name("read_file") == "execute_tool read_file"


_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
_UNBOUNDED = {"session", "session_id", "turn", "turn_id", "call_id", "trace_id", "user", "id"}


@pytest.mark.parametrize("spec", n.METRICS, ids=lambda spec: spec.name)
def test_metric_names_follow_prometheus_conventions(spec: n.MetricSpec) -> None:
    assert _SNAKE.match(spec.name)
    assert spec.name.startswith(("trimscope_", "gen_ai_"))
    assert spec.name.endswith("_total") == (spec.type == "counter")
    assert not re.search(r"_(ms|us|ns|percent|pct)(_|$)", spec.name)  # base units only
    assert spec.help
    for label in spec.labels:
        assert _SNAKE.match(label)
        assert label not in _UNBOUNDED
        assert f"_by_{label}" not in spec.name  # no label names inside metric names
    if spec.type == "histogram":
        assert list(spec.buckets) == sorted(spec.buckets)
        assert "le" not in spec.labels


def test_metric_names_are_unique() -> None:
    names = [spec.name for spec in n.METRICS]
    assert len(names) == len(set(names))


def test_every_decision_kind_has_a_span_event_name() -> None:
    assert set(n.SPAN_EVENT_OF_KIND) == set(n.OUTSIDE_TURN_SPANS)
    assert all(name.startswith("trimscope.") for name in n.SPAN_EVENT_OF_KIND.values())


def test_the_wire_finding_kinds_dashboards_select_are_the_observers() -> None:
    """Dashboards import only ``names``: the kinds spelled there must be ``harness.wire``'s."""
    spelled = {
        n.FINDING_COMPACTION,
        n.FINDING_OVERFLOW_RETRY,
        n.FINDING_POISONED_SESSION,
        n.FINDING_CACHE_BREAK,
        n.FINDING_UNOBSERVABLE,
        *n.BROKEN_PAIR_FINDINGS,
        *n.LOST_ROW_FINDINGS,
    }
    assert spelled <= set(FINDING_KINDS)
    assert {n.LABEL_SOURCE: {n.SOURCE_AGENT, n.SOURCE_WIRE}} == {
        n.LABEL_SOURCE: {source.value for source in EventSource}
    }


def _defined(path: Path) -> set[str]:
    """The public names a module defines at its top level (not the ones it imports)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {name for name in found if not name.startswith("_")}


def test_the_names_package_re_exports_every_name_its_modules_define() -> None:
    # a name added to a family module and not to the package's explicit re-exports would
    # be missing from ``n.*`` for every observer and dashboard
    folder = Path(n.__file__).parent
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = importlib.import_module(f"harness.telemetry.names.{path.stem}")
        for name in _defined(path):
            assert getattr(n, name, None) is getattr(module, name), f"{path.stem}.{name}"
