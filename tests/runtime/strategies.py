"""Hypothesis strategies for provider-facing histories built from whole turns.

Histories mix everything the rules care about: leading and late system rows, rows before
the first turn, plain turns, native and prompt-mode tool rounds (with declared images),
user rows with loadable and placeholder image markers, user text that *looks* like a
carrier (raw prefix, or after leading spaces), and the breadcrumb right after the system
prefix.
"""

from __future__ import annotations

from hypothesis import strategies as st

from harness.runtime import ChatMessage
from tests.runtime.builders import asst, call, carrier, crumb, raw, sys, tool, user

_words = st.text(alphabet="abc xyz\n🦀é", min_size=0, max_size=60)
_sizes = st.integers(min_value=0, max_value=400)


@st.composite
def user_rows(draw: st.DrawFn) -> ChatMessage:
    text = draw(_words) + "x" * draw(_sizes)
    kind = draw(st.sampled_from(["plain", "image", "placeholder", "leading-space-carrier"]))
    if kind == "image":
        text += " [IMAGE:/tmp/shot.png]"
    elif kind == "placeholder":
        text += " [IMAGE:<path>]"
    elif kind == "leading-space-carrier":
        text = "  [Tool results]\n" + text
    return user(text)


@st.composite
def tool_rounds(draw: st.DrawFn, turn: int, round_no: int) -> list[ChatMessage]:
    ids = [f"c{turn}_{round_no}_{n}" for n in range(draw(st.integers(1, 3)))]
    images = ["/tmp/a.png"] * draw(st.integers(0, 2))
    if draw(st.booleans()):
        results = [tool(i, "r" * draw(_sizes), *images) for i in ids]
        return [call(*ids, text=draw(st.none() | _words)), *results]
    return [asst("calling tools"), carrier("o" * draw(_sizes), *images)]


@st.composite
def turns(draw: st.DrawFn, turn: int) -> list[ChatMessage]:
    rows = [draw(user_rows())]
    for round_no in range(draw(st.integers(0, 2))):
        rows.extend(draw(tool_rounds(turn, round_no)))
    if draw(st.booleans()):
        rows.append(raw("user", "[Tool results]" + draw(_words)))  # typed by a human: no turn
    if draw(st.integers(0, 9)) == 0:
        rows.append(sys("late system row"))
    rows.append(asst("a" * draw(_sizes)))
    return rows


@st.composite
def histories(
    draw: st.DrawFn, *, min_turns: int = 0, max_turns: int = 8
) -> tuple[list[ChatMessage], bool]:
    """A history and the owner's breadcrumb flag (the crumb is present when the flag is)."""
    rows = [sys(draw(_words)) for _ in range(draw(st.integers(0, 2)))]
    crumb_present = draw(st.booleans())
    if crumb_present:
        rows.append(crumb())
    if draw(st.integers(0, 4)) == 0:
        rows.append(asst("pre-turn row"))
    for turn in range(draw(st.integers(min_turns, max_turns))):
        rows.extend(draw(turns(turn)))
    return rows, crumb_present


def json_values(*, finite: bool) -> st.SearchStrategy[object]:
    """Every value the standard library's JSON encoder writes: nested lists and objects of
    null, booleans, integers of any size, floats (``finite``: no NaN or infinities) and
    any text, lone surrogates included."""
    floats = st.floats(allow_nan=not finite, allow_infinity=not finite)
    return st.recursive(
        st.none() | st.booleans() | st.integers() | floats | st.text(),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=8), children, max_size=4)
        ),
        max_leaves=20,
    )
