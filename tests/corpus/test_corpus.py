"""The public corpus: its shape, every row through ``extended``, and look-alike envelopes.

Every row is a test case: overflows must be recognised, look-alikes must not be. The
properties embed real overflow messages inside real look-alike envelopes (a throttle, a
quota, a payload cap, a user's quotation) and require the look-alike to stay one.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.providers import extended_is_overflow
from harness.providers.overflow.classify import extended_verdict
from harness.providers.overflow.rules import EVIDENCE, EXCLUSIONS
from harness.providers.overflow.text import normalise
from tests.corpus import CORPUS, LOOKALIKE_ROWS, OVERFLOW_ROWS, CorpusRow
from tests.corpus.peers import PEERS

MIN_OVERFLOWS = 120
MIN_LOOKALIKES = 80
MIN_PROVIDERS = 25
MARKED_FAMILIES = frozenset(
    {
        "tpm-rate-limit",
        "throttle",
        "quota",
        "billing",
        "payload-size",
        "field-length",
        "tokenizer-warning",
    }
)


def test_corpus_is_as_large_and_as_wide_as_the_issue_asks() -> None:
    assert len(OVERFLOW_ROWS) >= MIN_OVERFLOWS
    assert len(LOOKALIKE_ROWS) >= MIN_LOOKALIKES
    assert len({r.provider for r in CORPUS if r.provider != "user-text"}) >= MIN_PROVIDERS


def test_a_fifth_of_each_kind_is_held_out() -> None:
    for rows in (OVERFLOW_ROWS, LOOKALIKE_ROWS):
        assert sum(r.held_out for r in rows) >= len(rows) // 5


def test_bodies_are_distinct_captures() -> None:
    bodies = [r.body for r in CORPUS]
    assert len(set(bodies)) == len(bodies)


def test_every_look_alike_family_the_issue_names_is_present() -> None:
    families = {r.family for r in LOOKALIKE_ROWS}
    assert {"tpm-rate-limit", "throttle", "output-limit", "quota", "payload-size"} <= families
    assert "quoted-text" in families


@pytest.mark.parametrize("row", OVERFLOW_ROWS, ids=lambda r: r.id)
def test_extended_recognises_every_real_overflow(row: CorpusRow) -> None:
    verdict = extended_verdict(row.provider, row.status, row.body)
    assert verdict.is_overflow, f"{row.source}: decided by {verdict.rule}"


@pytest.mark.parametrize("row", LOOKALIKE_ROWS, ids=lambda r: r.id)
def test_extended_flags_no_real_look_alike(row: CorpusRow) -> None:
    verdict = extended_verdict(row.provider, row.status, row.body)
    assert not verdict.is_overflow, f"{row.source}: decided by {verdict.rule}"


_MESSAGE_VALUE = re.compile(r"""["']message["']\s*:\s*["']""")


def _embeddings(envelope: str, overflow: str) -> list[str]:
    """The overflow before the look-alike, after it, and at the head of its own message."""
    bodies = [f"{overflow} {envelope}", f"{envelope} {overflow}"]
    value = _MESSAGE_VALUE.search(envelope)
    if value is not None:
        bodies.append(f"{envelope[: value.end()]}{overflow} {envelope[value.end() :]}")
    return bodies


MARKED = [r for r in LOOKALIKE_ROWS if r.family in MARKED_FAMILIES]


@given(envelope=st.sampled_from(MARKED), overflow=st.sampled_from(OVERFLOW_ROWS))
def test_an_overflow_inside_a_look_alike_envelope_stays_a_look_alike(
    envelope: CorpusRow, overflow: CorpusRow
) -> None:
    for body in _embeddings(envelope.body, overflow.body):
        assert not extended_is_overflow(envelope.provider, envelope.status, body), body


QUOTED = [r for r in LOOKALIKE_ROWS if r.family == "quoted-text"]
_QUOTED_SPAN = re.compile(r"(?<= )([\"`])([^\"`]+)\1")
# one sentence without quote marks: what a quotation in a sentence can hold
SENTENCES = [
    normalise(r.body) for r in OVERFLOW_ROWS if not re.search(r"[\"`]|\. ", normalise(r.body))
]


@given(envelope=st.sampled_from(QUOTED), message=st.sampled_from(SENTENCES))
def test_an_overflow_quoted_in_a_users_sentence_stays_a_look_alike(
    envelope: CorpusRow, message: str
) -> None:
    span = _QUOTED_SPAN.search(envelope.body)
    assert span is not None, envelope.id
    body = f"{envelope.body[: span.start(2)]}{message}{envelope.body[span.end(2) :]}"
    assert not extended_is_overflow(envelope.provider, envelope.status, body)


def test_enough_overflow_sentences_to_quote() -> None:
    assert len(SENTENCES) >= 10


@given(overflow=st.sampled_from(OVERFLOW_ROWS), status=st.sampled_from([402, 429]))
def test_a_rate_limit_or_payment_status_is_never_an_overflow(
    overflow: CorpusRow, status: int
) -> None:
    assert not extended_is_overflow(overflow.provider, status, overflow.body)


@given(overflow=st.sampled_from(OVERFLOW_ROWS), status=st.sampled_from([None, 200, 400, 413, 500]))
def test_the_status_of_an_overflow_does_not_hide_it(
    overflow: CorpusRow, status: int | None
) -> None:
    assert extended_is_overflow(overflow.provider, status, overflow.body)


def test_extended_is_ahead_of_every_peer_on_the_corpus() -> None:
    def score(verdict: object) -> tuple[int, int]:
        assert callable(verdict)
        hits = sum(bool(verdict(r)) for r in OVERFLOW_ROWS)
        false = sum(bool(verdict(r)) for r in LOOKALIKE_ROWS)
        return hits, false

    ours = score(lambda r: extended_is_overflow(r.provider, r.status, r.body))
    assert ours == (len(OVERFLOW_ROWS), 0)
    for peer in PEERS:
        hits, false = score(lambda r, f=peer.is_overflow: f(r.status, r.body))
        assert hits < ours[0] or false > ours[1], peer.name


def test_every_message_rule_and_exclusion_decides_some_real_row() -> None:
    """No rule without a real answer behind it: each is documented by the rows it decides."""
    decided = {extended_verdict(r.provider, r.status, r.body).rule for r in CORPUS}
    rules = {rule.name for rule in (*EVIDENCE, *EXCLUSIONS)}
    assert rules - decided == set()
