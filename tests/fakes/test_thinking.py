"""Extended thinking in the fake (``fakes.thinking``): signed blocks come back, only the
fake's own signatures are taken back, and a gateway's handling of context management
leaves thinking alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.answer import Answer
from fakes.thinking import INVALID_SIGNATURE, MIN_BUDGET_TOKENS, sign
from tests.fakes.test_context_edits import BETA, fake, obj, send

ENABLED = {"type": "enabled", "budget_tokens": MIN_BUDGET_TOKENS}


def ask(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "fake-model", "max_tokens": 2048, "messages": messages, **extra}


def content(answer: Answer) -> list[dict[str, Any]]:
    assert answer.status == 200, answer.body
    return list(obj(answer.body)["content"])


def message(answer: Answer) -> str:
    return str(obj(answer.body)["error"]["message"])


def test_thinking_enabled_answers_with_one_signed_block_first() -> None:
    [first, *rest] = content(
        send(fake(), ask([{"role": "user", "content": "hi"}], thinking=ENABLED))
    )
    assert first["type"] == "thinking"
    assert first["signature"] == sign(first["thinking"])
    assert [b["type"] for b in rest] == ["text"]


@pytest.mark.parametrize("thinking", [None, {"type": "disabled"}])
def test_without_thinking_no_block_comes_back(thinking: dict[str, Any] | None) -> None:
    extra = {"thinking": thinking} if thinking else {}
    blocks = content(send(fake(), ask([{"role": "user", "content": "hi"}], **extra)))
    assert "thinking" not in [b["type"] for b in blocks]


def test_each_turn_thinks_anew() -> None:
    provider = fake()
    first = content(send(provider, ask([{"role": "user", "content": "a"}], thinking=ENABLED)))
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": first},
        {"role": "user", "content": "b"},
    ]
    second = content(send(provider, ask(history, thinking=ENABLED)))
    assert second[0]["thinking"] != first[0]["thinking"]


@pytest.mark.parametrize(
    ("config", "max_tokens", "says"),
    [
        ({"type": "enabled"}, 2048, "thinking.enabled.budget_tokens"),
        ({"type": "enabled", "budget_tokens": 1023}, 2048, "greater than or equal to 1024"),
        ({"type": "enabled", "budget_tokens": 2048}, 2048, "`max_tokens` must be greater"),
        ({"type": "sometimes"}, 2048, "thinking.type"),
    ],
)
def test_a_bad_thinking_config_is_a_400_naming_it(
    config: dict[str, Any], max_tokens: int, says: str
) -> None:
    payload = ask([{"role": "user", "content": "hi"}], thinking=config)
    answer = send(fake(), {**payload, "max_tokens": max_tokens})
    assert answer.status == 400
    assert says in message(answer)


@given(text=st.text(max_size=60), forged=st.text(max_size=60))
def test_a_thinking_block_the_fake_did_not_sign_is_refused(text: str, forged: str) -> None:
    if forged == sign(text):
        return
    block = {"type": "thinking", "thinking": text, "signature": forged}
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "b"},
    ]
    answer = send(fake(), ask(history))
    assert answer.status == 400
    assert message(answer) == INVALID_SIGNATURE.format(message=1, block=0)


def test_a_gateway_that_drops_context_management_still_thinks() -> None:
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    payload = ask(
        [{"role": "user", "content": "hi"}],
        thinking=ENABLED,
        context_management={"edits": [edit]},
    )
    answer = send(fake(handling="ignore"), payload, BETA)
    assert content(answer)[0]["type"] == "thinking"
    assert "context_management" not in obj(answer.body)
