"""The recognition table: every catalogue body and every look-alike through both classifiers."""

import pytest

from harness.providers import (
    Classifier,
    classify_overflow,
    extended_is_overflow,
    reference_is_overflow,
)
from tests.providers.catalogue import (
    ALL_CASES,
    NEGATIVES,
    OVERFLOWS,
    TABLE_1_4_REFERENCE,
    UNRECOGNISABLE,
    Case,
)


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_reference_classifier_verdict(case: Case) -> None:
    assert reference_is_overflow(case.provider, case.status, case.body) is case.reference


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_extended_classifier_verdict(case: Case) -> None:
    assert extended_is_overflow(case.provider, case.status, case.body) is case.extended


@pytest.mark.parametrize("case", OVERFLOWS, ids=lambda c: c.id)
def test_extended_recognises_every_catalogue_overflow(case: Case) -> None:
    assert Classifier.EXTENDED.is_overflow(case.provider, case.status, case.body)


@pytest.mark.parametrize("case", NEGATIVES, ids=lambda c: c.id)
def test_extended_flags_no_look_alike(case: Case) -> None:
    assert not Classifier.EXTENDED.is_overflow(case.provider, case.status, case.body)


def test_every_row_of_the_1_4_table_is_in_the_catalogue() -> None:
    rows = {case.table_row for case in ALL_CASES if case.table_row is not None}
    assert rows == set(TABLE_1_4_REFERENCE)


@pytest.mark.parametrize(
    "case", [c for c in ALL_CASES if c.table_row is not None], ids=lambda c: c.id
)
def test_reference_expectations_match_the_1_4_table(case: Case) -> None:
    assert case.table_row is not None
    assert case.reference is TABLE_1_4_REFERENCE[case.table_row]


def test_bedrock_throttle_is_the_reference_false_positive() -> None:
    throttle = next(c for c in NEGATIVES if c.id == "bedrock-throttle")
    verdicts = classify_overflow(throttle.provider, throttle.status, throttle.body)
    assert (verdicts.reference, verdicts.extended) == (True, False)


@pytest.mark.parametrize("case", UNRECOGNISABLE, ids=lambda c: c.id)
def test_bodiless_overflow_is_recognised_by_neither(case: Case) -> None:
    verdicts = classify_overflow(case.provider, case.status, case.body)
    assert (verdicts.reference, verdicts.extended) == (False, False)


def test_reference_misses_are_exactly_the_expected_ones() -> None:
    misses = {c.id for c in OVERFLOWS if not reference_is_overflow(c.provider, c.status, c.body)}
    assert misses == {
        "azure-configured-limit",
        "anthropic-input-plus-max-tokens",
        "anthropic-stop-reason",
        "gemini",
        "gemini-list",
        "groq",
        "groq-no-code",
        "ollama-400",
        "lmstudio",
        "lmstudio-keep",
        "together",
        "together-tgi",
        "xai",
        "kimi",
        "minimax",
        "zai",
        "dashscope",
        "phrase-after-500-chars",
    }
