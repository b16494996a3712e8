"""Properties of the loader on hostile input: a forbidden character anywhere is reported at
its own line and column; an escaped one at its key path; an integer is accepted exactly
when it fits the format's 64-bit range; a value of any other type is never coerced."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.scenarios.limits import MAX_INTEGER
from harness.scenarios.loader import ScenarioError, load_scenario
from tests.scenarios.malformed import runtime
from tests.scenarios.support import TINY

# Characters the YAML reader refuses in the raw text (surrogates cannot be encoded at all).
RAW_FORBIDDEN = st.one_of(
    st.sampled_from([chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"]),
    st.sampled_from([chr(c) for c in range(0x7F, 0xA0) if c != 0x85]),
    st.sampled_from(["\ufffe", "\uffff"]),
)
# Code points a value may not hold once its escapes are decoded.
ESCAPED_FORBIDDEN = st.one_of(
    st.integers(0, 0x1F).filter(lambda c: chr(c) not in "\t\n\r"),
    st.integers(0x7F, 0x9F),
    st.integers(0xD800, 0xDFFF),
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile")


def _problems(path: Path) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    return caught.value.problems


@given(at=st.integers(0, len(TINY)), char=RAW_FORBIDDEN)
def test_raw_forbidden_character_is_reported_at_its_line_and_column(
    folder: Path, at: int, char: str
) -> None:
    text = TINY[:at] + char + TINY[at:]
    path = folder / "raw.yaml"
    path.write_text(text, encoding="utf-8")
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    kind = (
        "a control character"
        if unicodedata.category(char) == "Cc"
        else "a character YAML does not allow"
    )
    assert _problems(path) == (
        f"{path}:{line}: (text): expected printable text, found U+{ord(char):04X} ({kind})"
        f" at column {column}",
    )


@given(
    code=ESCAPED_FORBIDDEN, before=st.text("abc ", max_size=5), after=st.text("xyz ", max_size=5)
)
def test_escaped_forbidden_character_is_reported_at_its_key_path(
    folder: Path, code: int, before: str, after: str
) -> None:
    title = f'title: "{before}\\u{code:04X}{after}"'
    path = folder / "escaped.yaml"
    path.write_text(TINY.replace("title: One question, one answer", title), encoding="utf-8")
    kind = "a lone surrogate" if 0xD800 <= code <= 0xDFFF else "a control character"
    assert _problems(path) == (
        f"{path}:2: title: expected printable text, found U+{code:04X} ({kind})",
    )


@given(number=st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.just(MAX_INTEGER + 1)))
def test_integer_is_accepted_exactly_when_it_fits(folder: Path, number: int) -> None:
    path = folder / "number.yaml"
    path.write_text(runtime(f"max_context_tokens: {number}"), encoding="utf-8")
    if 0 <= number <= MAX_INTEGER:
        loaded = load_scenario(path)
        assert loaded.scenario.runtime.max_context_tokens == number
        return
    (problem,) = _problems(path)
    key = f"{path}:10: runtime.max_context_tokens: expected"
    if abs(number) > MAX_INTEGER:
        assert problem.startswith(f"{key} an integer of at most {MAX_INTEGER}, found ")
    else:
        assert problem == f"{key} a number >= 0, found {number}"


@given(
    value=st.sampled_from(
        ["yes", "no", "on", "off", "true", '"8000"', "'1'", "1.0", "2.5", ".inf", "[]", "{}"]
    )
)
def test_nothing_is_coerced_to_an_integer(folder: Path, value: str) -> None:
    path = folder / "coerced.yaml"
    path.write_text(runtime(f"max_context_tokens: {value}"), encoding="utf-8")
    (problem,) = _problems(path)
    assert problem.startswith(f"{path}:10: runtime.max_context_tokens: expected an integer")
