"""The fakes say what real providers say: every corpus wording of a simulated provider.

tests/corpus/wordings.json lists, per provider the fakes simulate, the distinct overflow
wordings of the corpus with numbers as ``{n}``. Both directions are checked: each corpus
overflow of such a provider shows one of its wordings (so the list misses none), and some
overflow variant of the provider's fake renders each wording (whatever numbers it fills).
"""

import json
import re
from pathlib import Path

import pytest

from fakes.catalogue import overflow_entries
from fakes.profiles import PROFILES
from fakes.scripting.templates import render
from harness.providers.overflow.text import normalise, unescape
from tests.corpus import OVERFLOW_ROWS, CorpusRow
from tests.corpus.matrix import SAMPLE_NUMBERS

WORDINGS_FILE = Path(__file__).with_name("wordings.json")
NOT_OURS = frozenset({"llamacpp"})  # the llama.cpp fake's body belongs to issue 12
NUMBER = r"\d[\d,]*"


def _load() -> dict[str, list[str]]:
    data = json.loads(WORDINGS_FILE.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k != "about"}


WORDINGS = _load()
SIMULATED = {p.name for p in PROFILES} - NOT_OURS


def _pattern(wording: str) -> re.Pattern[str]:
    return re.compile(NUMBER.join(re.escape(part) for part in wording.split("{n}")))


def _text(body: str) -> str:
    return normalise(unescape(body))


def _fake_texts(provider: str) -> list[str]:
    return [
        _text(json.dumps(render(e.body, SAMPLE_NUMBERS), ensure_ascii=False))
        for e in overflow_entries(provider)
        if e.body is not None
    ]


def test_every_listed_provider_is_one_the_fakes_simulate() -> None:
    assert set(WORDINGS) <= SIMULATED


SIMULATED_ROWS = [r for r in OVERFLOW_ROWS if r.provider in SIMULATED]


@pytest.mark.parametrize("row", SIMULATED_ROWS, ids=lambda r: r.id)
def test_each_corpus_overflow_shows_a_listed_wording(row: CorpusRow) -> None:
    wordings = WORDINGS.get(row.provider, [])
    assert any(_pattern(w).search(_text(row.body)) for w in wordings), row.source


CASES = [(provider, wording) for provider, ws in WORDINGS.items() for wording in ws]


@pytest.mark.parametrize(("provider", "wording"), CASES)
def test_the_fake_answers_every_corpus_wording(provider: str, wording: str) -> None:
    texts = _fake_texts(provider)
    assert any(_pattern(wording).search(text) for text in texts), (provider, wording)
