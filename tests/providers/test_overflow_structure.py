"""The structural overflow rule: a token count above a limit, in whatever words.

Properties in random wording: a count set against a smaller limit is an overflow for
``count_over_limit`` and for ``extended``; the same sentence naming a rate, a quota or a
time unit is not (a key's token allowance per minute is no context window), nor is a count
at or under its limit, nor an output budget above the model's output cap.
"""

from hypothesis import given
from hypothesis import strategies as st

from harness.providers import extended_is_overflow
from harness.providers.overflow.classify import extended_verdict
from harness.providers.overflow.structure import MAX_WINDOWS, RULE_NAME, count_over_limit
from harness.providers.overflow.text import normalise

NEUTRAL = ["the", "model", "sorry", "server", "upstream", "kindly", "shorten", "it", "now"]
SUBJECTS = ["prompt", "input", "messages", "conversation", "context"]
COUNT_CUES = ["given", "received", "requested", "resulted in", "contains", "has", "sent", "got"]
LIMIT_CUES = ["maximum", "limit", "max", "at most", "less than", "context length", "allowed"]
COMPARATIVES = ["exceeds", "exceeded", ">", "is longer than", "is greater than"]
ALLOWANCES = ["per minute", "quota", "rate limit", "tokens per day", "per hour", "(TPM)"]

filler = st.lists(st.sampled_from(NEUTRAL), max_size=4).map(" ".join)
sizes = st.integers(min_value=1, max_value=10_000_000)


@st.composite
def count_and_limit(draw: st.DrawFn, *, over: bool = True) -> tuple[int, int]:
    limit = draw(sizes)
    bound = (limit + 1, limit + 10_000_000) if over else (0, limit)
    return draw(st.integers(*bound)), limit


@st.composite
def overflow_sentence(draw: st.DrawFn, *, over: bool = True) -> str:
    count, limit = draw(count_and_limit(over=over))
    subject, before, between = draw(st.sampled_from(SUBJECTS)), draw(filler), draw(filler)
    count_cue, limit_cue = draw(st.sampled_from(COUNT_CUES)), draw(st.sampled_from(LIMIT_CUES))
    shapes = [
        f"{before} {subject} {count_cue} {count:,} tokens, {between} {limit_cue} {limit}.",
        f"{before} {limit_cue} is {limit} tokens. {subject} {count_cue} {count}.",
        f"{subject} {count} tokens {draw(st.sampled_from(COMPARATIVES))} {between} {limit}.",
    ]
    text = draw(st.sampled_from(shapes))
    return draw(st.sampled_from([text, text.upper(), text.capitalize()]))


@given(overflow_sentence())
def test_a_count_above_its_limit_is_an_overflow_in_any_wording(sentence: str) -> None:
    assert count_over_limit(normalise(sentence)), sentence
    assert extended_is_overflow("any", 400, sentence), sentence


@given(overflow_sentence(over=False))
def test_a_count_within_its_limit_is_not(sentence: str) -> None:
    assert not count_over_limit(normalise(sentence)), sentence


@given(overflow_sentence(), st.sampled_from(ALLOWANCES), st.booleans())
def test_a_rate_quota_or_time_unit_in_the_sentence_makes_it_an_allowance(
    sentence: str, allowance: str, first: bool
) -> None:
    body = f"{allowance} {sentence}" if first else f"{sentence.rstrip('.')} {allowance}."
    assert not count_over_limit(normalise(body)), body
    assert not extended_is_overflow("any", 400, body), body


@given(count_and_limit(), st.sampled_from(["max_tokens", "max_completion_tokens"]))
def test_an_output_budget_over_the_output_cap_is_not_an_overflow(
    sizes_: tuple[int, int], parameter: str
) -> None:
    asked, cap = sizes_
    body = f"{parameter}: {asked} > {cap}, which is the maximum allowed number of output tokens"
    assert not count_over_limit(normalise(body)), body
    assert not extended_is_overflow("anthropic", 400, body), body


def test_a_count_inside_a_users_quotation_is_no_evidence() -> None:
    body = 'I keep seeing "given: 4545" after "less than 4096 tokens" in the logs.'
    assert not extended_is_overflow("any", None, body)


def test_the_rule_names_itself_when_it_decides() -> None:
    body = "Input validation error: `inputs` must have less than 4096 tokens. Given: 4545"
    assert extended_verdict("tgi", 422, body).rule == RULE_NAME


def test_a_hostile_body_is_read_in_bounded_windows() -> None:
    sentences = ["nothing here."] * (MAX_WINDOWS + 10)
    late = " ".join([*sentences, "prompt has 9 tokens, maximum 1."])
    assert count_over_limit(normalise("prompt has 9 tokens, maximum 1."))
    assert not count_over_limit(normalise(late))


def test_a_sum_set_against_a_limit_counts_as_one_count() -> None:
    body = "input length and `max_tokens` exceed context limit: 179413 + 32768 > 200000"
    assert count_over_limit(normalise(body))
    assert not count_over_limit(normalise(body.replace("179413", "100")))
