"""docs/decisions.md stays findable: its index names every package section and concept, every
index link leads to a heading, and every decision says when it was taken.

The file is grouped by package (``## ``) and concept (``### ``); the index (``## Index``)
lists each with a GitHub-style anchor. A decision is a bullet (or a paragraph) under a
concept, ending with its date and, where it has one, its issue: ``(2026-12-05, issue 26)``.
A section appended in another form (a dated ``## `` with bullets straight under it) fails
here until its bullets are moved under a concept and dated.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from pathlib import Path

from tests.test_standalone import slug

DECISIONS = Path(__file__).resolve().parents[1] / "docs" / "decisions.md"
INDEX_HEADING = "Index"
INDEX_LINK = re.compile(r"\[([^\]]+)\]\(#([^)]+)\)")
DATE_TAG = re.compile(r"\((\d{4}-\d{2}-\d{2})(?:, issue \d+)?\)$")


@dataclass(frozen=True)
class Decisions:
    sections: tuple[str, ...]  # ``## `` headings but the index, in order
    concepts: tuple[str, ...]  # ``### `` headings, in order
    index_links: tuple[tuple[str, str], ...]  # (text, anchor)
    entries: tuple[tuple[str, str], ...]  # (heading it stands under, text joined)


def parse(text: str) -> Decisions:
    sections: list[str] = []
    concepts: list[str] = []
    links: list[tuple[str, str]] = []
    entries: list[tuple[str, str]] = []
    heading = ""
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## ") or line.startswith("### "):
            level, _, heading = line.partition(" ")
            (sections if level == "##" else concepts).append(heading)
            current = None
        elif heading == INDEX_HEADING:
            links.extend(INDEX_LINK.findall(line))
        elif not line.strip() or not heading:
            current = None  # a blank line, or the file's opening paragraphs
        elif line.startswith("- ") or current is None:
            current = [line]
            entries.append((heading, ""))
        else:
            current.append(line)
        if current is not None and entries:
            entries[-1] = (entries[-1][0], " ".join(" ".join(current).split()))
    if INDEX_HEADING in sections:
        sections.remove(INDEX_HEADING)
    return Decisions(tuple(sections), tuple(concepts), tuple(links), tuple(entries))


def index_problems(decisions: Decisions) -> list[str]:
    headings = (*decisions.sections, *decisions.concepts)
    anchors = [slug(h) for h in headings]
    problems = [f"two headings share the anchor #{a}" for a in set(anchors) if anchors.count(a) > 1]
    linked = {anchor: text for text, anchor in decisions.index_links}
    problems += [f"not in the index: {h}" for h in headings if slug(h) not in linked]
    by_anchor = dict(zip(anchors, headings, strict=True))
    for text, anchor in decisions.index_links:
        if anchor not in by_anchor:
            problems.append(f"index link #{anchor} leads to no heading")
        elif text != by_anchor[anchor]:
            problems.append(f"index says {text!r} for the heading {by_anchor[anchor]!r}")
    return problems


def undated(decisions: Decisions) -> list[str]:
    """Entries with no date tag at their end, or not under a concept, or dated impossibly."""
    concepts = set(decisions.concepts)
    problems = []
    for heading, text in decisions.entries:
        match = DATE_TAG.search(text)
        if heading not in concepts:
            problems.append(f"under {heading!r}, not under a concept: {text[:80]}")
        elif match is None:
            problems.append(f"undated, under {heading!r}: {text[:80]}")
        else:
            datetime.date.fromisoformat(match.group(1))  # raises on 2026-13-01
    return problems


SAMPLE = """# Decisions

Opening paragraph, no date needed.

## Index

- [pkg — what](#pkg--what)
  - [Concept one](#concept-one)
  - [Gone](#gone)

## pkg — what

### Concept one

- **Dated.** A choice,
  on two lines. (2026-11-30)
- **Undated.** A choice.

### Concept two

A paragraph decision. (2026-12-05, issue 26)

## 2026-12-05 — appended in the old form

- **Loose.** Straight under a package heading. (2026-12-05)
"""


def test_the_checks_see_every_kind_of_break() -> None:
    sample = parse(SAMPLE)
    assert sample.sections == ("pkg — what", "2026-12-05 — appended in the old form")
    assert index_problems(sample) == [
        "not in the index: 2026-12-05 — appended in the old form",
        "not in the index: Concept two",
        "index link #gone leads to no heading",
    ]
    assert [problem.split(":")[0] for problem in undated(sample)] == [
        "undated, under 'Concept one'",
        "under '2026-12-05 — appended in the old form', not under a concept",
    ]


def test_every_heading_is_in_the_index_and_every_index_link_resolves() -> None:
    decisions = parse(DECISIONS.read_text(encoding="utf-8"))
    assert len(decisions.concepts) > 50  # the parser still finds the concepts
    assert index_problems(decisions) == []


def test_every_decision_is_dated_and_under_a_concept() -> None:
    decisions = parse(DECISIONS.read_text(encoding="utf-8"))
    assert len(decisions.entries) > 300  # the parser still finds the entries
    assert undated(decisions) == []
