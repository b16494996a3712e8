"""The harness's wire decoders read requests exactly as the fakes do: for every wire
format, the rows of one body are the same ``(role, content)`` pairs, byte for byte (the
fakes' decoders are the spec of the canonical encoding, reference-runtime.md §1.1)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.runtime import ChatMessage
from harness.wire import WIRE_KINDS, WireKind, decode_request
from tests.fakes.test_decode import CASES
from tests.providers.support import HISTORY
from tests.wire.bodies import fake_rows, histories, path_of, render


def harness_rows(wire: WireKind, body: bytes) -> list[tuple[str, str]]:
    return [(row.role, row.content) for row in decode_request(wire, path_of(wire), body).rows]


@given(histories(), st.booleans())
def test_rows_of_every_wire_equal_the_fakes_rows(history: list[ChatMessage], stream: bool) -> None:
    for wire in WIRE_KINDS:
        body = render(wire, history, stream=stream)
        assert harness_rows(wire, body) == fake_rows(wire, body), wire


@pytest.mark.parametrize("wire", WIRE_KINDS)
def test_the_provider_tests_standard_history_decodes_as_the_fakes_do(wire: WireKind) -> None:
    body = render(wire, HISTORY)
    assert harness_rows(wire, body) == fake_rows(wire, body)


@pytest.mark.parametrize(("wire", "build"), CASES, ids=[case[0] for case in CASES])
def test_hand_written_api_bodies_decode_as_the_fakes_do(wire: WireKind, build: Any) -> None:
    """The fakes' own per-wire bodies, written out as each API documents them (Responses
    ``output_text`` parts, Gemini ids absent, Ollama argument objects, ...)."""
    body = json.dumps(build(), ensure_ascii=False).encode()
    assert harness_rows(wire, body) == fake_rows(wire, body)
