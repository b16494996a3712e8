"""What a report shows: sessions, per-call points and marks, and the run's totals."""

from __future__ import annotations

from pathlib import Path

from harness.events import TrimTrigger
from harness.report import build, sessions_of, totals_of
from tests.report.transcripts import BUDGET_REASON, TURN_REASON, Session, busy_session, write

SOURCE = Path("t.jsonl")


def test_each_call_is_drawn_with_its_estimate_budget_and_window() -> None:
    (session,) = sessions_of(SOURCE, busy_session().events)
    points = [(c.index, c.estimate_tokens, c.budget_tokens, c.window_tokens) for c in session.calls]
    assert points == [
        (1, 5200, 6000, 8000),
        (2, 7900, 6000, 8000),
        (3, 4000, 5000, 8000),
        (4, 7990, 5000, 8000),
    ]
    assert [c.compacted for c in session.calls] == [True, False, True, False]
    assert [c.outcome for c in session.calls] == ["ok", "overflow", "ok", "overflow"]


def test_a_call_before_any_budget_has_none() -> None:
    (session,) = sessions_of(SOURCE, Session().turn().call(100).budget(50).call(60).events)
    assert [c.budget_tokens for c in session.calls] == [None, 50]


def test_marks_sit_between_the_calls_they_were_recorded_between() -> None:
    (session,) = sessions_of(SOURCE, busy_session().events)
    trims = [(t.position, t.event.trigger) for t in session.trims]
    assert trims == [
        (0.5, TrimTrigger.TURN_LIMIT),
        (0.5, TrimTrigger.PROACTIVE),
        (1.5, TrimTrigger.REPORTED_USAGE),
        (2.5, TrimTrigger.REACTIVE),
    ]
    assert [r.position for r in session.refusals] == [3.5]
    assert [(r.position, r.event.outcome) for r in session.recoveries] == [
        (2.5, "retrying"),
        (4.5, "only_one_turn_left"),
    ]


def test_an_overflow_belongs_to_the_call_it_names() -> None:
    (session,) = sessions_of(SOURCE, busy_session().events)
    assert [c.index for c in session.calls if c.overflow is not None] == [2, 4]
    assert session.notable


def test_several_sessions_in_one_file_even_interleaved_stay_apart(tmp_path: Path) -> None:
    a = Session("a").turn().budget(100).call(10).call(20).end()
    b = Session("b").turn().budget(200).call(30).end()
    write(tmp_path / "t.jsonl", a, b, interleave=True)
    report = build([tmp_path])
    assert [(s.session_id, [c.estimate_tokens for c in s.calls]) for s in report.sessions] == [
        ("a", [10, 20]),
        ("b", [30]),
    ]
    assert [c.budget_tokens for s in report.sessions for c in s.calls] == [100, 100, 200]


def test_the_same_session_id_in_two_files_is_two_sessions(tmp_path: Path) -> None:
    write(tmp_path / "one.jsonl", Session("same").turn().call(1).end())
    write(tmp_path / "two.jsonl", Session("same").turn().call(2).end())
    report = build([tmp_path])
    assert [(s.source.name, s.session_id) for s in report.sessions] == [
        ("one.jsonl", "same"),
        ("two.jsonl", "same"),
    ]
    assert report.totals.sessions == 2


def test_totals_count_every_session_of_every_file(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", busy_session("s1", "alpha"), busy_session("s2", "beta"))
    write(tmp_path / "b.jsonl", Session("quiet", provider="alpha").turn().budget(9).call(5).end())
    totals = build([tmp_path]).totals
    assert (totals.files, totals.sessions, totals.turns, totals.calls) == (2, 3, 7, 9)
    assert totals.compacted_calls == 4
    assert totals.tool_calls == 2
    assert totals.call_outcomes == {"ok": 5, "overflow": 4}
    assert totals.trims_by_trigger == {
        "proactive": 2,
        "reported_usage": 2,
        "reactive": 2,
        "turn_limit": 2,
        "wire": 0,  # every trigger is listed; these transcripts are the agent's
    }
    assert totals.trims_by_reason == {
        TURN_REASON: {
            "proactive": 0,
            "reported_usage": 0,
            "reactive": 0,
            "turn_limit": 2,
            "wire": 0,
        },
        BUDGET_REASON: {
            "proactive": 2,
            "reported_usage": 2,
            "reactive": 2,
            "turn_limit": 0,
            "wire": 0,
        },
    }
    assert totals.trims == 8
    assert totals.dropped_messages == 16
    assert totals.recoveries_by_outcome == {"retrying": 2, "only_one_turn_left": 2}
    assert (totals.refusals, totals.refusals_by_purpose) == (2, {"tool_loop": 2})
    assert {
        p: (t.count, t.reference_recognised, t.extended_recognised)
        for p, t in totals.overflows_by_provider.items()
    } == {"alpha": (2, 1, 2), "beta": (2, 1, 2)}
    assert totals.overflows == 4


def test_totals_list_every_trigger_even_when_nothing_trimmed() -> None:
    totals = totals_of(sessions_of(SOURCE, Session().turn().call(1).end().events), files=1)
    assert totals.trims_by_trigger == {t.value: 0 for t in TrimTrigger}
    assert (totals.trims, totals.recoveries, totals.refusals, totals.overflows) == (0, 0, 0, 0)
    assert totals.trims_by_reason == {}


def test_a_call_that_never_finished_is_drawn_as_unfinished_in_an_incomplete_session() -> None:
    events = Session().turn().call(1).events[:-1]  # the run stopped before the answer
    (session,) = sessions_of(SOURCE, events)
    assert [call.outcome for call in session.calls] == [None]
    assert session.incomplete == "a turn never finished (the run stopped mid-turn)"
    totals = totals_of([session], files=1)
    assert (totals.sessions, totals.calls, totals.incomplete_sessions) == (0, 0, 1)


def test_totals_show_what_the_cache_read_wrote_and_the_trims_lost() -> None:
    session = (
        Session()
        .turn()
        .call(2000, cache_write=1500)
        .trim(TrimTrigger.PROACTIVE, cache_loss=1200)
        .call(1800, cache_read=1024)
        .trim(TrimTrigger.TURN_LIMIT, TURN_REASON)
        .trim(TrimTrigger.REACTIVE, cache_loss=300)
        .call(900, outcome="overflow")
        .end()  # the totals count complete sessions only
    )
    cache = totals_of(sessions_of(SOURCE, session.events), 1).cache
    assert (cache.input_tokens, cache.cache_read_tokens, cache.cache_write_tokens) == (
        3800,
        1024,
        1500,
    )
    assert cache.hit_ratio == 1024 / 3800
    assert cache.cache_loss_by_trigger == {"proactive": 1200, "reactive": 300}


def test_the_page_has_a_prompt_cache_table(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", Session().turn().call(2000, cache_read=1024).end())
    page = build([path]).html()
    assert "Prompt cache" in page
    assert "0.512" in page
