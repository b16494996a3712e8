"""The recognition matrix document is what the corpus, fakes and peers say today."""

from tests.corpus.matrix import MATRIX_FILE, render_matrix


def test_the_committed_matrix_is_current() -> None:
    assert MATRIX_FILE.read_text(encoding="utf-8") == render_matrix(), (
        "docs/recognition-matrix.md is stale: run `python -m tests.corpus.matrix`"
    )
