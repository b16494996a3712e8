"""The ``auth`` fault: every provider and wire format answers an invalid key as the real
provider does (status, body, headers; bodies quoted in ``fakes/serving/auth.py``), before the body
is even looked at; OpenAI-style wires echo the key partly masked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import PROFILES, FakeProvider, FakeScript, fail
from fakes.serving.auth import OPENAI_KEY_SHOWN_HEAD, OPENAI_KEY_SHOWN_TAIL, masked_key
from tests.fakes.conftest import Connect
from tests.fakes.wire_requests import path_for, user_request

pytestmark = pytest.mark.anyio
KEY = "sk-proj-DISTINCTIVEsecretPART0123456789wxyz"
CASES = [(p.name, wire) for p in PROFILES for wire in p.wires]
EXPECTED_STATUS = {"gemini": 400, "bedrock": 403}  # every other wire answers 401


def _fake(provider: str) -> FakeProvider:
    return FakeProvider(
        provider, "m", context_window=1000, script=FakeScript(steps=(fail("auth"),))
    )


@pytest.mark.parametrize(("provider", "wire"), CASES)
async def test_auth_fault_is_the_providers_invalid_key_answer(
    connect: Connect, provider: str, wire: str
) -> None:
    fake = _fake(provider)
    client, _ = await connect(fake)
    path = path_for(fake.profile, wire, "m")  # type: ignore[arg-type]
    headers = {"authorization": f"Bearer {KEY}", "x-api-key": KEY}
    body = user_request(wire, "m", "hello")  # type: ignore[arg-type]
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == EXPECTED_STATUS.get(wire, 401)
    payload = response.json()
    text = response.text
    assert KEY not in text  # never echoed whole
    if wire in ("openai_chat", "openai_responses"):
        assert payload["error"]["code"] == "invalid_api_key"
        assert f"Incorrect API key provided: {masked_key(KEY)}." in payload["error"]["message"]
    elif wire == "anthropic":
        assert payload["error"]["type"] == "authentication_error"
    elif wire == "gemini":
        assert payload["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    elif wire == "bedrock":
        assert response.headers["x-amzn-errortype"] == "UnrecognizedClientException"
    elif wire == "cohere":
        assert payload == {"message": "invalid api token"}
    else:
        assert payload == {"error": "unauthorized"}
    assert fake.log.calls()[0].fault == "auth"
    again = await client.post(path, json=body, headers=headers)
    assert again.status_code == 200  # the script's default after its one step


async def test_auth_is_checked_before_the_body(connect: Connect) -> None:
    client, _ = await connect(_fake("openai"))
    response = await client.post("/v1/chat/completions", content=b"{not json")
    assert response.status_code == 401


@given(key=st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=80))
def test_masked_key_keeps_head_and_tail_and_hides_the_rest(key: str) -> None:
    shown = masked_key(key)
    assert len(shown) == len(key)
    if len(key) <= OPENAI_KEY_SHOWN_HEAD + OPENAI_KEY_SHOWN_TAIL:
        assert shown == key
    else:
        assert shown.startswith(key[:OPENAI_KEY_SHOWN_HEAD])
        assert shown.endswith(key[-OPENAI_KEY_SHOWN_TAIL:])
        middle = shown[OPENAI_KEY_SHOWN_HEAD:-OPENAI_KEY_SHOWN_TAIL]
        assert set(middle) == {"*"}
