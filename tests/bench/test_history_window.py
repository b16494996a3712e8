"""``HistoryWindow`` (the benchmark's incremental window, ``bench/history_window.py``) gives
exactly what the pure trimmers give on ``window.history()``.

Histories mix everything the pricing and the turn rules care about: system rows (leading
and late), plain user turns with loadable and placeholder image markers, native and
prompt-mode tool rounds with declared images (small paths, and data URIs whose bytes
dwarf the flat image price), legacy carriers, user rows that open a turn although they are
carriers (``"  [Tool results]"``), user text typed with the raw carrier prefix, pre-turn
rows, and the flagged breadcrumb (also when the flagged row is not the breadcrumb text).

A state machine appends rows and turns, trims (budget and turn count, applied or not, in
place), inserts the breadcrumb, and after every step compares the window with the pure
functions on its history.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bench.history_window import HistoryWindow, TrimStats
from harness.runtime import (
    ChatMessage,
    TrimResult,
    TurnCountTrimResult,
    estimate_history_tokens,
    insert_breadcrumb_deduped,
    segment_turns,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
)
from tests.runtime.builders import asst, call, carrier, crumb, raw, sys, tool, user

# ------------------------------------------------------------------------------ strategies

_text = st.text(alphabet="ab é🦀\n", max_size=20)
_sizes = st.integers(min_value=0, max_value=300)
_image_targets = st.sampled_from(
    ["/x.png", "https://h/i.png", "data:image/png;base64," + "A" * 9000, "relative.png"]
)


@st.composite
def _body_text(draw: st.DrawFn) -> str:
    return draw(_text) + "x" * draw(_sizes)


@st.composite
def turn_openers(draw: st.DrawFn) -> ChatMessage:
    text = draw(_body_text())
    kind = draw(
        st.sampled_from(
            ["plain", "image", "images", "placeholder", "space-carrier", "space-declared", "crumb"]
        )
    )
    if kind == "image":
        return user(f"{text} [IMAGE:/x.png]")
    if kind == "images":
        return user(f"[IMAGE:/a.png]{text}[IMAGE:https://h/b.png] [IMAGE:\n  /c.png]")
    if kind == "placeholder":
        return user(f"{text} [IMAGE:<path>]")
    if kind == "space-carrier":
        # A carrier (leading whitespace is trimmed) that still opens a turn (raw prefix).
        return user(draw(st.sampled_from(["  ", "\n", "\t"])) + "[Tool results]\n" + text)
    if kind == "space-declared":
        return user("  " + carrier(text, "/x.png").content)
    if kind == "crumb":
        return crumb()  # the breadcrumb's text, typed by a human: a real turn
    return user(text)


@st.composite
def tool_rounds(draw: st.DrawFn, tag: str) -> list[ChatMessage]:
    images = draw(st.lists(_image_targets, max_size=2))
    output = "r" * draw(_sizes) + draw(st.sampled_from(["", " [IMAGE:/in-body.png]"]))
    kind = draw(st.sampled_from(["native", "native", "prompt", "prompt", "legacy"]))
    if kind == "native":
        ids = [f"{tag}_{n}" for n in range(draw(st.integers(1, 3)))]
        return [call(*ids, text=draw(st.none() | _text)), *[tool(i, output, *images) for i in ids]]
    if kind == "prompt":
        return [asst("calling tools"), carrier(output, *images)]
    legacy = draw(
        st.sampled_from(
            [
                raw("tool", json.dumps({"tool_call_id": tag, "content": output})),
                raw("tool", "not json " + output),
                raw("user", "[Tool results]\n" + output),  # no count header
                raw("user", "[Tool results]\n[Tool attachments: 2]\n[IMAGE:/x.png]\n" + output),
            ]
        )
    )
    return [call(tag), legacy]


_turn_counter = st.integers(min_value=0, max_value=10**6).map(str)


@st.composite
def turns(draw: st.DrawFn) -> list[ChatMessage]:
    tag = draw(_turn_counter)
    rows = [draw(turn_openers())]
    for n in range(draw(st.integers(0, 2))):
        rows.extend(draw(tool_rounds(f"{tag}_{n}")))
    extra = draw(st.integers(0, 9))
    if extra == 0:
        rows.append(raw("user", "[Tool results] typed by a human"))  # no turn, a carrier
    elif extra == 1:
        rows.append(sys("late system row"))
    rows.append(asst(draw(_body_text())))
    return rows


loose_rows = st.one_of(
    turn_openers(),
    st.builds(sys, _text),
    st.builds(asst, _body_text()),
    tool_rounds("loose").map(lambda rows: rows[-1]),
)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[ChatMessage], bool]:
    """A history and the owner's breadcrumb flag."""
    rows = [sys(draw(_text)) for _ in range(draw(st.integers(0, 2)))]
    flag = draw(st.booleans())
    if flag and draw(st.integers(0, 4)):
        # The flag names whatever row follows the system prefix; usually the breadcrumb.
        rows.append(crumb() if draw(st.integers(0, 3)) else draw(loose_rows))
    for _ in range(draw(st.integers(0, 2))):
        rows.append(draw(loose_rows))  # pre-turn rows (or more turns)
    for _ in range(draw(st.integers(0, 7))):
        rows.extend(draw(turns()))
    return rows, flag


# ------------------------------------------------------------------------------- helpers


def probe_budgets(history: list[ChatMessage], flag: bool, limit: int | None = None) -> list[int]:
    """Budgets where the budget trim changes its mind: every candidate's exact estimate
    (the reference's probe) and one less, plus 0, 1 and the total and one less."""
    segments = segment_turns(history, flag)
    prefix = history[: segments.pre_turn_start]
    starts = [start for start, _ in segments.turns][1:]
    if limit is not None and len(starts) > limit:
        step = len(starts) / limit
        starts = [starts[int(i * step)] for i in range(limit)] + [starts[-1]]
    total = estimate_history_tokens(history)
    budgets = {0, 1, total, max(0, total - 1)}
    for start in starts:
        cost = estimate_history_tokens(prefix + history[start:])
        budgets.update((cost, max(0, cost - 1), cost + 1))
    return sorted(budgets)


def assert_same_trims(
    window: HistoryWindow, history: list[ChatMessage], flag: bool, limit: int | None = None
) -> None:
    for budget in probe_budgets(history, flag, limit):
        assert window.trim_to_recent_turns(budget) == trim_to_recent_turns(history, budget, flag)
    for cap in range(window.turn_count + 2):
        assert window.trim_to_recent_turn_count(cap) == trim_to_recent_turn_count(
            history, cap, flag
        )


class _EagerWindow(HistoryWindow):
    """Compacts dropped rows at once, so the machine exercises compaction too."""

    compact_min_dead = 1


# ---------------------------------------------------------------------------- properties


@given(histories())
def test_window_trims_equal_the_pure_trims_at_every_budget_that_matters(
    case: tuple[list[ChatMessage], bool],
) -> None:
    history, flag = case
    window = HistoryWindow(history, flag)
    assert window.history() == history
    assert len(window) == len(history)
    assert window.estimate_tokens() == estimate_history_tokens(history)
    assert_same_trims(window, history, flag)


@given(histories(), st.data())
def test_window_built_row_by_row_equals_window_built_at_once(
    case: tuple[list[ChatMessage], bool], data: st.DataObject
) -> None:
    history, flag = case
    split = data.draw(st.integers(0, len(history)))
    window = HistoryWindow(history[:split], flag)
    for row in history[split:]:
        window.append(row)
    assert window.history() == history
    assert_same_trims(window, history, flag)


@given(histories(), st.data())
def test_trim_in_place_and_apply_follow_the_pure_result(
    case: tuple[list[ChatMessage], bool], data: st.DataObject
) -> None:
    history, flag = case
    budget = data.draw(st.sampled_from(probe_budgets(history, flag)))
    expected = trim_to_recent_turns(history, budget, flag)
    in_place = HistoryWindow(history, flag)
    stats = in_place.trim_in_place(budget)
    assert stats == TrimStats.of(expected)
    applied = HistoryWindow(history, flag)
    applied.apply(expected)  # a pure result on the window's history is accepted too
    for window in (in_place, applied):
        assert window.history() == expected.history
        assert window.estimate_tokens() == expected.tokens_after
        assert_same_trims(window, expected.history, flag)


@given(histories())
def test_insert_breadcrumb_matches_insert_breadcrumb_deduped(
    case: tuple[list[ChatMessage], bool],
) -> None:
    history, flag = case
    window = HistoryWindow(history, flag)
    window.insert_breadcrumb()
    expected = insert_breadcrumb_deduped(history, flag)
    assert window.crumb_present
    assert window.history() == expected
    assert window.estimate_tokens() == estimate_history_tokens(expected)
    assert_same_trims(window, expected, True)


def test_apply_rejects_a_result_from_another_history() -> None:
    history = [sys(), user("one"), asst("a" * 400), user("two"), asst("b" * 400), user("three")]
    window = HistoryWindow(history)
    foreign = trim_to_recent_turns([*history, asst("more")], 40)
    assert foreign.trimmed
    with pytest.raises(ValueError, match="not taken from this window"):
        window.apply(foreign)
    stale = window.trim_to_recent_turns(40)
    window.append(asst("after the trim was taken"))
    with pytest.raises(ValueError, match="not taken from this window"):
        window.apply(stale)
    untouched = trim_to_recent_turns(window.history(), 0)
    window.apply(untouched)  # nothing to do
    assert window.history() == [*history, asst("after the trim was taken")]


def test_the_flag_names_the_first_row_after_the_system_prefix_even_when_it_comes_late() -> None:
    window = HistoryWindow([sys()], crumb_present=True)
    window.append(sys("second system row"))
    window.append(crumb())
    window.extend([user("one"), asst("a" * 400), user("two"), asst("b" * 400)])
    history = window.history()
    assert history[:3] == [sys(), sys("second system row"), crumb()]
    assert window.turn_count == 2
    assert_same_trims(window, history, True)


def test_a_new_plain_user_row_reprices_the_carriers_of_the_previous_turn() -> None:
    # One declared data-URI image: 1600 tokens while current, its whole envelope once older.
    big = tool("c1", "out", "data:image/png;base64," + "A" * 40_000)
    window = HistoryWindow([sys(), user("look"), call("c1"), big])
    before = window.estimate_tokens()
    window.append(user("next"))
    history = window.history()
    assert window.estimate_tokens() == estimate_history_tokens(history) > before + 5000
    assert_same_trims(window, history, False)


def _space_turn(n: int, size: int) -> list[ChatMessage]:
    """A turn opened by a carrier with leading whitespace: a boundary, never an anchor."""
    return [user(f"  [Tool results]\n{n}"), call(f"s{n}"), tool(f"s{n}", "r" * size, "/x.png")]


def test_a_carrier_breadcrumb_row_costs_more_once_the_anchor_is_dropped() -> None:
    # The flagged row is a carrier declaring an image: older (bytes) while a plain user row
    # follows it, current (1600) once the candidate keeps none. The candidates' estimates
    # therefore jump up where they pass the anchor, and the search must not skip over it.
    flagged = tool("c0", "x", "/tiny.png")
    history = [
        sys(),
        flagged,
        user("one"),
        asst("a" * 40),
        user("two"),
        asst("b" * 40),
        *_space_turn(1, 4000),
        *_space_turn(2, 40),
        asst("c" * 40),
    ]
    window = HistoryWindow(history, crumb_present=True)
    assert_same_trims(window, history, True)
    two = history.index(user("two"))
    kept_from_two = estimate_history_tokens(history[:2] + history[two:])
    assert window.trim_to_recent_turns(kept_from_two).dropped_messages == two - 2


def test_turns_without_plain_user_rows_stay_identical_through_compaction() -> None:
    window = _EagerWindow([sys(), user("only plain row"), asst("a" * 100)])
    history = window.history()
    for n in range(60):
        turn = _space_turn(n, 10 * (n % 13))
        window.extend(turn)
        history = history + turn
        budget = 300 + 40 * (n % 5)
        expected = trim_to_recent_turns(history, budget)
        stats = window.trim_in_place(budget)
        assert (stats.dropped_messages, stats.tokens_after) == (
            expected.dropped_messages,
            expected.tokens_after,
        )
        history = expected.history
        assert window.history() == history
        assert window.estimate_tokens() == estimate_history_tokens(history)
    assert_same_trims(window, history, False)


def test_long_run_stays_identical_through_compaction() -> None:
    window = HistoryWindow([sys("s" * 100)])
    history = window.history()
    budget = 4000
    for n in range(1500):
        turn = [user(f"turn {n} " + "u" * (n % 97)), call(f"c{n}"), tool(f"c{n}", "r" * (n % 300))]
        if n % 7 == 0:
            turn.append(carrier("o" * (n % 50), "/x.png"))
        turn.append(asst("a" * (n % 211)))
        window.extend(turn)
        history = history + turn
        stats = window.trim_in_place(budget)
        if n % 50 == 0:
            expected = trim_to_recent_turns(history, budget)
            assert stats.dropped_messages == expected.dropped_messages
            history = expected.history
            assert window.history() == history
        else:
            history = history[:1] + history[1 + stats.dropped_messages :]
    assert window.history() == history
    assert_same_trims(window, history, False, limit=20)


# ---------------------------------------------------------------------------- state machine


class WindowMachine(RuleBasedStateMachine):
    """A window next to a plain list and flag that only the pure functions touch."""

    def __init__(self) -> None:
        super().__init__()
        self.window = _EagerWindow()
        self.model: list[ChatMessage] = []
        self.flag = False

    @initialize(case=histories())
    def start(self, case: tuple[list[ChatMessage], bool]) -> None:
        history, flag = case
        self.window = _EagerWindow(history, flag)
        self.model, self.flag = list(history), flag

    @rule(row=loose_rows)
    def append_row(self, row: ChatMessage) -> None:
        self.window.append(row)
        self.model.append(row)

    @rule(turn=turns())
    def append_turn(self, turn: list[ChatMessage]) -> None:
        self.window.extend(turn)
        self.model.extend(turn)

    @rule(data=st.data(), apply=st.booleans())
    def trim_to_budget(self, data: st.DataObject, apply: bool) -> None:
        budget = data.draw(st.sampled_from(probe_budgets(self.model, self.flag, limit=6)))
        result = self.window.trim_to_recent_turns(budget)
        assert result == trim_to_recent_turns(self.model, budget, self.flag)
        if apply:
            self.window.apply(result)
            self.model = result.history

    @rule(data=st.data())
    def trim_in_place(self, data: st.DataObject) -> None:
        budget = data.draw(st.sampled_from(probe_budgets(self.model, self.flag, limit=6)))
        expected = trim_to_recent_turns(self.model, budget, self.flag)
        stats = self.window.trim_in_place(budget)
        assert (stats.dropped_messages, stats.tokens_after, stats.trimmed) == (
            expected.dropped_messages,
            expected.tokens_after,
            expected.trimmed,
        )
        self.model = expected.history

    @rule(cap=st.integers(0, 6), apply=st.booleans())
    def trim_to_turn_count(self, cap: int, apply: bool) -> None:
        result = self.window.trim_to_recent_turn_count(cap)
        assert result == trim_to_recent_turn_count(self.model, cap, self.flag)
        if apply:
            self.window.apply(result)
            self.model = result.history

    @precondition(lambda self: not self.flag)
    @rule()
    def insert_breadcrumb(self) -> None:
        self.window.insert_breadcrumb()
        self.model = insert_breadcrumb_deduped(self.model, self.flag)
        self.flag = True

    @invariant()
    def window_matches_the_pure_functions(self) -> None:
        window, model, flag = self.window, self.model, self.flag
        assert window.history() == model
        assert window.crumb_present == flag
        assert len(window) == len(model)
        assert window.estimate_tokens() == estimate_history_tokens(model)
        assert_same_trims(window, model, flag, limit=4)


TestWindowMachine = WindowMachine.TestCase


def test_records_are_the_pure_record_types() -> None:
    window = HistoryWindow([user("a"), asst("b"), user("c")])
    assert type(window.trim_to_recent_turns(1)) is TrimResult
    assert type(window.trim_to_recent_turn_count(1)) is TurnCountTrimResult
