"""The body codec: orjson on the hot path, with the standard library's outcome wherever the
two would differ (``wirejson.encode_body`` / ``decode_body``)."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest
from hypothesis import given

from harness.providers import ProviderProtocolError, ProviderReply
from harness.providers.plumbing.wirejson import WireShapeError, decode_body, dumps, encode_body
from tests.providers.support import run
from tests.runtime.strategies import json_values

pytestmark = pytest.mark.anyio

# Every JSON value the standard library writes, including integers beyond 64 bits and
# strings with lone surrogates (Python strings may hold them).
finite_json_values = json_values(finite=True)


def _same(left: object, right: object) -> bool:
    """Equal, with types: ``1 == 1.0 == True`` would hide a float where an int was."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return type(left) is type(right) and left == right


@given(finite_json_values)
def test_decode_body_returns_what_the_standard_library_decodes(value: Any) -> None:
    text = json.dumps(value)  # ASCII: lone surrogates travel as escapes
    assert _same(decode_body(text.encode(), lambda: text), json.loads(text))


@given(finite_json_values)
def test_encode_body_sends_what_dumps_writes_when_it_can_be_sent(value: Any) -> None:
    try:
        expected = dumps(value).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: never sendable, before or now
        with pytest.raises(UnicodeEncodeError):
            encode_body(value)
        return
    assert _same(json.loads(encode_body(value)), json.loads(expected))


@pytest.mark.parametrize(
    "raw",
    [
        "123456789012345678901234567890",  # orjson would make it a float
        "-9223372036854775809",
        '{"usage":{"prompt_tokens":100000000000000000000}}',
        "NaN",  # accepted by the standard library, refused by orjson
        "[1e400]",
        '"\\ud800"',
    ],
)
def test_decode_body_falls_back_where_orjson_differs(raw: str) -> None:
    decoded = decode_body(raw.encode(), lambda: raw)
    expected = json.loads(raw)
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(decoded, float)
        assert math.isnan(decoded)
    else:
        assert _same(decoded, expected)


@pytest.mark.parametrize("raw", ["{not json", "", "\ufeff{}", '{"a":1} trailing'])
def test_decode_body_raises_the_standard_library_error(raw: str) -> None:
    with pytest.raises(WireShapeError) as caught:
        decode_body(raw.encode(), lambda: raw)
    with pytest.raises(json.JSONDecodeError) as stdlib:
        json.loads(raw)
    assert str(caught.value) == f"malformed JSON: {stdlib.value}"


def test_encode_body_of_an_integer_beyond_64_bits_is_exact() -> None:
    assert encode_body({"n": 2**70}) == b'{"n":1180591620717411303424}'


async def test_a_declared_charset_other_than_utf8_decodes_the_text() -> None:
    """Bytes that are valid UTF-8 but declared Latin-1: the text is what httpx decodes."""
    body = '{"choices":[{"message":{"role":"assistant","content":"café"}}]}'.encode("latin-1")
    headers = {"content-type": "application/json; charset=iso-8859-1"}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers=headers)

    reply, _ = await run("openai", handler)
    assert isinstance(reply, ProviderReply)
    assert reply.text == "café"


async def test_invalid_utf8_body_is_decoded_as_httpx_reads_it() -> None:
    """Invalid UTF-8: orjson refuses it; the text (with replacement characters) decodes."""
    body = b'{"choices":[{"message":{"role":"assistant","content":"caf\xe9"}}]}'

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    reply, _ = await run("openai", handler)
    assert isinstance(reply, ProviderReply)
    assert reply.text == "caf\ufffd"


async def test_malformed_body_error_carries_the_text() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"{oops", headers={"content-type": "application/json"})

    error, _ = await run("openai", handler)
    assert isinstance(error, ProviderProtocolError)
    assert "{oops" in str(error)
