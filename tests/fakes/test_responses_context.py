"""OpenAI Responses ``truncation`` and compaction in the fake
(``fakes.simulations.responses_context``)."""

from __future__ import annotations

import json
from typing import Any

from fakes import FakeBehaviour, FakeProvider
from fakes.serving.answer import Answer
from fakes.serving.discovery import HANDLERS, DiscoveryRequest
from fakes.simulations.provider_side import ProviderSide
from fakes.simulations.responses_context import COMPACTION_PREFIX, FOREIGN_SUMMARY
from fakes.wire.base import RequestContext
from tests.fakes.shapes import fixture, key_paths

WINDOW = 1000


def obj(value: object) -> dict[str, Any]:
    """A JSON object, narrowed for the type checker (the wire's bodies are ``JSONValue``)."""
    assert isinstance(value, dict), value
    return value


def fake(**side: Any) -> FakeProvider:
    provider = FakeProvider("openai", context_window=WINDOW)
    provider.provider_side = ProviderSide(**side)
    return provider


def send(provider: FakeProvider, payload: dict[str, Any]) -> Answer:
    raw = json.dumps(payload).encode()
    wire = provider.wire("openai_responses")
    return provider.answer(wire, raw, RequestContext(None, {}), 0, FakeBehaviour())


def long_input(turns: int = 8) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i in range(turns):
        items.append({"role": "user", "content": f"question {i} " + "q" * 600})
        items.append({"role": "assistant", "content": f"answer {i}"})
    items.append({"role": "user", "content": "the newest question"})
    return items


def request(**extra: Any) -> dict[str, Any]:
    return {"model": "fake-model", "input": long_input(), **extra}


def test_truncation_disabled_by_default_fails_over_the_window() -> None:
    assert send(fake(), request()).outcome == "overflow"
    assert send(fake(), request(truncation="disabled")).outcome == "overflow"


def test_truncation_auto_drops_the_oldest_items_until_it_fits() -> None:
    """ "By dropping items from the beginning of the conversation" (the API reference):
    what is kept is the newest run of items, the first one gone too."""
    answer = send(fake(), request(truncation="auto"))
    assert answer.status == 200
    assert answer.tokens is not None
    assert answer.tokens.total <= WINDOW
    kept = [row.content for row in answer.rows]
    assert not any(text.startswith("question 0") for text in kept)
    assert kept[-1] == "the newest question"
    items = long_input()
    contents = [str(item["content"]) for item in items]
    assert contents[len(contents) - len(kept) :] == kept  # a suffix: only the oldest went


def test_truncation_auto_drops_a_first_item_that_alone_is_over_the_window() -> None:
    huge = {"role": "user", "content": "h" * (WINDOW * 8)}
    newest = {"role": "user", "content": "the newest question"}
    answer = send(fake(), {"model": "fake-model", "input": [huge, newest], "truncation": "auto"})
    assert answer.status == 200
    assert [row.content for row in answer.rows] == ["the newest question"]


def test_truncation_auto_keeps_instructions_and_refuses_a_newest_item_over_the_window() -> None:
    newest = {"role": "user", "content": "h" * (WINDOW * 8)}
    payload = {"model": "fake-model", "input": [newest], "truncation": "auto"}
    assert send(fake(), payload).outcome == "overflow"  # nothing older to drop
    small = {"role": "user", "content": "hi"}
    kept = send(fake(), {**request(truncation="auto"), "instructions": "be brief"})
    assert kept.rows[0].content == "be brief"
    assert send(fake(), {**payload, "input": [small]}).status == 200


def test_truncation_auto_under_the_window_changes_nothing() -> None:
    small = {"model": "fake-model", "input": "hello", "truncation": "auto"}
    plain = send(fake(), {"model": "fake-model", "input": "hello"})
    answer = send(fake(), small)
    assert answer.tokens == plain.tokens


def test_a_bad_truncation_value_is_a_400_naming_it() -> None:
    answer = send(fake(), request(truncation="sometimes"))
    assert answer.status == 400
    assert isinstance(answer.body, dict)
    assert "truncation" in obj(answer.body)["error"]["message"]


def test_a_gateway_that_drops_truncation_leaves_the_overflow() -> None:
    assert send(fake(handling="ignore"), request(truncation="auto")).outcome == "overflow"
    assert send(fake(handling="reject"), request(truncation="auto")).status == 400


def compaction(threshold: int = 500) -> list[dict[str, Any]]:
    return [{"type": "compaction", "compact_threshold": threshold}]


def test_in_request_compaction_starts_the_output_with_an_opaque_item() -> None:
    answer = send(fake(), request(context_management=compaction()))
    assert answer.status == 200
    assert isinstance(answer.body, dict)
    item = obj(answer.body)["output"][0]
    assert item["type"] == "compaction"
    assert item["id"].startswith("cmp_")
    assert isinstance(item["encrypted_content"], str)
    assert answer.tokens is not None
    assert answer.tokens.total < 500


def test_a_streamed_compaction_announces_its_item_first_and_completes_with_it() -> None:
    plain = send(fake(), request(context_management=compaction()))
    answer = send(fake(), request(context_management=compaction(), stream=True))
    assert answer.events is not None
    data = [obj(e.data) for e in answer.events]
    assert [d["sequence_number"] for d in data] == list(range(len(data)))
    items = [d for d in data if d["type"].startswith("response.output_item.")]
    compacted = obj(plain.body)["output"][0]
    assert [(d["type"], d["output_index"], d["item"]["type"]) for d in items] == [
        ("response.output_item.added", 0, "compaction"),
        ("response.output_item.done", 0, "compaction"),
        ("response.output_item.added", 1, "message"),
        ("response.output_item.done", 1, "message"),
    ]
    # the same opaque item as the JSON answer's (the summary does not depend on streaming)
    assert items[1]["item"]["encrypted_content"] == compacted["encrypted_content"]
    [done] = [d for d in data if d["type"] == "response.completed"]
    output = obj(done["response"])["output"]
    assert [o["type"] for o in output] == ["compaction", "message"]
    assert output[0] == items[1]["item"]
    deltas = [d for d in data if d["type"] == "response.output_text.delta"]
    assert deltas
    assert {d["output_index"] for d in deltas} == {1}


def test_the_compaction_item_is_reused_in_a_later_request() -> None:
    first = send(fake(), request(context_management=compaction()))
    assert isinstance(first.body, dict)
    item = obj(first.body)["output"][0]
    later = send(
        fake(), {"model": "fake-model", "input": [item, {"role": "user", "content": "go"}]}
    )
    assert later.status == 200
    assert [r.role for r in later.rows] == ["system", "user"]
    assert "summary" in later.rows[0].content


def test_a_foreign_compaction_item_is_rejected_when_strict() -> None:
    item = fixture("foreign_history.json")["responses_compaction"]["item"]
    answer = send(fake(foreign_history="strict"), {"model": "fake-model", "input": [item]})
    assert answer.status == 400


def test_a_foreign_compaction_item_is_opaque_by_default() -> None:
    item = fixture("foreign_history.json")["responses_compaction"]["item"]
    user = {"role": "user", "content": "go on"}
    answer = send(fake(), {"model": "fake-model", "input": [item, user]})
    assert answer.status == 200
    assert answer.rows[0].content == FOREIGN_SUMMARY


def test_an_edited_compaction_item_of_the_fakes_is_rejected_even_when_opaque() -> None:
    item = {"type": "compaction", "id": "cmp_1", "encrypted_content": COMPACTION_PREFIX + "!!"}
    assert send(fake(), {"model": "fake-model", "input": [item]}).status == 400


def test_a_bad_compact_threshold_is_a_400() -> None:
    answer = send(fake(), request(context_management=compaction(threshold=0)))
    assert answer.status == 400
    assert isinstance(answer.body, dict)
    assert "compact_threshold" in obj(answer.body)["error"]["message"]


def compact_endpoint(provider: FakeProvider, payload: dict[str, Any]) -> tuple[int, Any]:
    endpoint = next(e for e in provider.profile.endpoints if e.kind == "responses_compact")
    assert endpoint.path == "/v1/responses/compact"
    raw = json.dumps(payload).encode()
    return HANDLERS[endpoint.kind](provider, endpoint, DiscoveryRequest(None, raw, {}))


def test_the_compact_endpoint_keeps_user_messages_and_adds_one_compaction_item() -> None:
    provider = fake()
    payload = {"model": "fake-model", "input": long_input(3)}
    status, compacted = compact_endpoint(provider, payload)
    assert status == 200
    assert compacted["object"] == "response.compaction"
    *users, item = compacted["output"]
    sent = [i for i in long_input(3) if i["role"] == "user"]
    assert [u["content"] for u in users] == [
        [{"text": i["content"], "type": "input_text"}] for i in sent
    ]
    assert {u["status"] for u in users} == {"completed"}
    assert len({u["id"] for u in users}) == len(sent)
    assert item["type"] == "compaction"
    counted = send(fake(), {**payload, "input": long_input(3)}).tokens
    assert counted is not None
    assert compacted["usage"]["input_tokens"] == counted.total
    later = send(
        provider, {"model": "fake-model", "input": [item, {"role": "user", "content": "go"}]}
    )
    assert later.status == 200
    assert "summary of 7 earlier items" in later.rows[0].content
    resent = send(provider, {"model": "fake-model", "input": [*compacted["output"]]})
    assert resent.status == 200  # the output is a valid input as it stands


def test_the_compact_endpoint_answers_in_the_real_shape() -> None:
    real = fixture("responses_compact.json")
    status, compacted = compact_endpoint(fake(), {**real["request"], "model": "fake-model"})
    assert status == 200
    assert key_paths(compacted) == key_paths(real["response"])
    assert [o["type"] for o in compacted["output"]] == [
        o["type"] for o in real["response"]["output"]
    ]


def test_the_compact_endpoint_validates_like_responses() -> None:
    status, body = compact_endpoint(fake(), {"model": "fake-model"})
    assert status == 400
    assert "input" in json.dumps(body)


def test_compaction_without_a_newer_user_message_keeps_a_call_with_its_output() -> None:
    """pydantic-ai 2.78.0's ``OpenAICompaction`` sends, after a compaction, the item and
    the tool round after it: ``[compaction, function_call, function_call_output]``. Over
    the threshold, the summary may not take the call and leave its output (the API's own
    pairing rule would then refuse the request it made)."""
    calls = [{"type": "function_call", "call_id": f"c{n}", "name": "f", "arguments": "{}"}
             for n in (1, 2)]  # fmt: skip
    outputs = [{"type": "function_call_output", "call_id": f"c{n}", "output": "o" * 400}
               for n in (1, 2)]  # fmt: skip
    earlier = {"role": "assistant", "content": "a" * 400}  # no user message after it
    answer = send(fake(), {"model": "fake-model", "input": [earlier, *calls, *outputs],
                           "context_management": compaction(threshold=100)})  # fmt: skip
    assert answer.status == 200, answer.body
    body = obj(answer.body)
    assert body["output"][0]["type"] == "compaction"
    # both parallel calls kept with their outputs, only the older message summarised
    assert [row.role for row in answer.rows] == ["system", "assistant", "tool", "tool"]
