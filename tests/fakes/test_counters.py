"""The counters: ``heuristic`` equals the runtime's estimate; ``provider`` disagrees with it
the way real tokenizers do. The runtime is imported here (tests may) as the oracle."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from fakes import HeuristicCounter, ProviderCounter, Row, ToolSchema
from fakes.counting.tokenizer import MESSAGE_OVERHEAD, REPLY_PRIMING
from fakes.rows import Attachment as FakeAttachment
from fakes.rows import tool_result_row
from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolSpec,
    estimate_history_tokens,
    estimate_tool_schema_tokens,
    native_tool_result_row,
    render_prompt_tool_carrier,
)

H = HeuristicCounter()
P = ProviderCounter()


def _rows(*pairs: tuple[str, str]) -> list[Row]:
    return [Row(role, content) for role, content in pairs]


def test_heuristic_reproduces_the_specs_worked_examples() -> None:
    assert H.count_rows(_rows(("user", "a" * 40))) == 14
    assert (
        H.count_rows(
            _rows(("system", "system prompt here"), ("user", "hello"), ("assistant", "world"))
        )
        == 21
    )
    assert H.count_rows(_rows(("user", "hello world"))) == 7
    assert H.count_rows([]) == 0
    assert H.count_rows([Row("tool", "x" * 40_000)]) == 10_004
    envelope = tool_result_row("c", "x" * 39_950)  # 50 bytes of envelope around the text
    assert len(envelope.content) == 40_000
    assert H.count_rows([envelope]) == 10_004


def test_heuristic_counts_bytes_not_characters() -> None:
    assert H.count_rows(_rows(("user", "é" * 4))) == 2 + 4  # 8 bytes


def test_user_images_cost_1600_each_and_their_marker_bytes_nothing() -> None:
    assert H.count_rows(_rows(("user", "look[IMAGE:/tmp/a.png]"))) == 1 + 1600 + 4
    assert H.count_rows(_rows(("user", "[IMAGE:...]"))) == 3 + 4  # a placeholder is text


def test_declared_images_count_in_current_carriers_only() -> None:
    result = tool_result_row("c1", "ok", [FakeAttachment("image", "data:image/png;base64,AA")])
    current = H.count_rows([Row("user", "go"), result])
    older = H.count_rows([result, Row("user", "next")])
    assert current == 5 + (1 + 1600 + 4)
    assert older == (len(result.content.encode()) + 3) // 4 + 4 + 5


def test_tool_schemas_use_the_specs_formula() -> None:
    tool = ToolSchema("read", "Read a file.", {"type": "object"})
    assert H.count_tools([tool]) == -(-(4 + 12 + len('{"type":"object"}')) // 4) + 4


def test_provider_counter_overheads_differ_from_the_estimate() -> None:
    assert P.count_rows(_rows(("user", "hello"))) == 1 + MESSAGE_OVERHEAD + REPLY_PRIMING
    assert MESSAGE_OVERHEAD != 4


ENGLISH = (
    "The quick brown fox jumps over the lazy dog while the farmer watches from "
    "his porch and thinks about the weather of the coming week. "
) * 20
JSON_TEXT = json.dumps(
    [{"path": f"src/file_{n}.py", "line": n, "ok": n % 2 == 0} for n in range(60)],
    separators=(",", ":"),
)
CODE = "def f(x):\n    return {'a': [x[0], x[1]], 'b': (x or {}).get('k')}\n" * 20
CJK = "上下文窗口溢出是代理运行时最常见的故障之一。" * 20


def test_provider_counts_fewer_tokens_for_plain_english() -> None:
    assert P.count_text(ENGLISH) < H.count_text(ENGLISH)


def test_provider_counts_more_tokens_for_json_code_and_non_ascii() -> None:
    for text in (JSON_TEXT, CODE, CJK):
        assert P.count_text(text) > H.count_text(text)


# -- properties -------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "hello ",
        "world",
        "é",
        "上",
        "🙂",
        "\n",
        "  ",
        '{"a":1}',
        "[IMAGE:/tmp/p.png]",
        "[IMAGE:...]",
        "[IMAGE:https://x/y.png",
        "[Tool results]",
        "\n[Tool attachments: 1]\n",
        "[IMAGE:data:image/png;base64,AAAA]",
        "0123456789",
    ]
)
_TEXT = st.lists(_PIECES, max_size=8).map("".join)
_PLAIN = st.text(st.characters(blacklist_characters="[", blacklist_categories=["Cs"]), max_size=60)


@st.composite
def _histories(draw: st.DrawFn) -> list[ChatMessage]:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["system", "user", "assistant", "tool", "carrier"]))
        if kind == "tool":
            images = draw(st.integers(0, 2))
            attachments = [Attachment("image", f"/img/{n}.png") for n in range(images)]
            rows.append(native_tool_result_row("c", draw(_TEXT), attachments))
        elif kind == "carrier":
            images = draw(st.integers(0, 2))
            attachments = [Attachment("image", f"/img/{n}.png") for n in range(images)]
            rows.append(ChatMessage("user", render_prompt_tool_carrier(draw(_TEXT), attachments)))
        else:
            rows.append(ChatMessage(kind, draw(_TEXT)))
    return rows


@given(_histories())
def test_heuristic_equals_the_runtime_estimate(history: list[ChatMessage]) -> None:
    assert H.count_rows([Row(m.role, m.content) for m in history]) == estimate_history_tokens(
        history
    )


@given(
    st.text(max_size=20),
    st.text(max_size=40),
    st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=4),
)
def test_tool_estimate_equals_the_runtime(
    name: str, description: str, parameters: dict[str, object]
) -> None:
    ours = H.count_tools([ToolSchema(name, description, parameters)])
    assert ours == estimate_tool_schema_tokens([ToolSpec(name, description, parameters)])


@given(st.sampled_from(["system", "user", "assistant", "tool"]), _PLAIN, _PLAIN)
def test_both_counters_are_monotone_in_content(role: str, text: str, more: str) -> None:
    for counter in (H, P):
        assert counter.count_rows([Row(role, text + more)]) >= counter.count_rows([Row(role, text)])


@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), _PLAIN), max_size=5), _PLAIN)
def test_another_row_always_costs_more(pairs: list[tuple[str, str]], text: str) -> None:
    rows = [Row(role, content) for role, content in pairs]
    for counter in (H, P):
        assert counter.count_rows([*rows, Row("user", text)]) > counter.count_rows(rows)
