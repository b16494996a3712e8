"""A clone with nothing beside it stands alone.

No tracked file reads a folder outside the repository (the project's ``../shared``): code,
scripts, tests and configuration take what they need from the repository or from what its
install steps bring. The contract the code and the scenarios cite is in the repository too:
every section number cited as "spec N.N" (or "decision 19.N", or a scenario's rule id) is a
heading of docs/contract.md, every "providers.md §N" a heading of docs/providers.md, and
every relative link in the tracked Markdown leads to a file (and heading) that exists.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from harness.scenarios.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SHARED = "shared"
# A path into the outside folder: "../shared", "shared/<one of its folders>", or a pathlib
# join on the bare name ("/ 'shared'", "'shared' /", os.path.join(..., "shared")).
OUTSIDE: tuple[re.Pattern[str], ...] = (
    re.compile(rf"\.\.[/\\]{SHARED}\b"),
    re.compile(rf"\b{SHARED}/(?:spec|seed|design|schemas|cassettes|hooks)\b"),
    re.compile(rf"/\s*[\"']{SHARED}[\"']|[\"']{SHARED}[\"']\s*/"),
    re.compile(rf"join\([^)]*[\"']{SHARED}[\"']"),
)
# "spec 3.1", "Spec 2.3, 3.1, 3.5 and 19.2", "spec 8–14", "decision 19.10", "spec §1.1".
CITED = re.compile(
    r"\b(?:[Ss]pec|[Dd]ecisions?|contract\.md)\s+§?"
    r"((?:\d+(?:\.\d+)?)(?:(?:,\s*|\s+and\s+|\s*/\s*|\s*[–-]\s*)§?\d+(?:\.\d+)?)*)"
)
PROVIDERS_CITED = re.compile(r"providers\.md\s+§?(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


@cache
def tracked() -> tuple[Path, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout
    return tuple(ROOT / name for name in listed.split("\0") if name)


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return None


def outside_reads(text: str) -> list[str]:
    """The lines of ``text`` that name a path into the outside folder."""
    return [line.strip() for line in text.splitlines() if any(p.search(line) for p in OUTSIDE)]


def test_the_detector_sees_each_way_of_naming_the_outside_folder() -> None:
    reads = [
        'SCHEMAS = ROOT.parent / "shared" / "schemas" / "grafana"',
        "see ../shared/spec/reference-runtime.md",
        "cp shared/cassettes/exchanges.jsonl out/",
        "os.path.join(root, '..', 'shared', 'spec')",
    ]
    prose = [
        "one shared lock per event",
        "shared = tmp_path / 'multiproc'",
        "the rows trimmed history no longer shares as a prefix",
    ]
    assert outside_reads("\n".join(reads)) == reads
    assert outside_reads("\n".join(prose)) == []


def test_no_tracked_file_reads_the_folder_beside_the_clone() -> None:
    me = Path(__file__).resolve()
    found = [
        f"{path.relative_to(ROOT)}: {line}"
        for path in tracked()
        if path.resolve() != me and (text := _text(path)) is not None
        for line in outside_reads(text)
    ]
    assert found == [], "the repository must stand alone:\n" + "\n".join(found)


def _numbers(group: str) -> list[str]:
    """``"2.3, 3.1 and 19.2"`` → the numbers; a range ``8–14`` gives its two ends."""
    return re.findall(r"\d+(?:\.\d+)?", group)


def headings(path: Path) -> set[str]:
    return {match.group(1) for match in HEADING.finditer(path.read_text(encoding="utf-8"))}


def section_ids(path: Path) -> set[str]:
    """The ids headings start with: ``## 3 The trimmers`` → ``3``, ``### 9.proactive`` →
    ``9.proactive``."""
    return {m.group(0) for h in headings(path) if (m := re.match(r"\d+(?:\.\w+)?", h))}


def _cited(pattern: re.Pattern[str], *, providers: bool) -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for path in tracked():
        if path.suffix not in {".py", ".yaml", ".md"}:
            continue
        text = _text(path)
        if text is None:
            continue
        for match in pattern.finditer(text):
            if not providers and text[max(0, match.start() - 14) : match.start()].endswith(
                "providers.md "
            ):
                continue
            for number in _numbers(match.group(1)):
                cited.setdefault(number, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_every_section_the_code_cites_is_a_heading_of_the_contract() -> None:
    ids = section_ids(DOCS / "contract.md")
    cited = _cited(CITED, providers=False)
    assert len(cited) > 30  # the pattern still finds the code's citations
    missing = {number: sorted(where)[:3] for number, where in cited.items() if number not in ids}
    assert missing == {}


def test_every_scenario_rule_id_is_a_heading_of_the_contract() -> None:
    assert set(RULES) - section_ids(DOCS / "contract.md") == set()


def test_every_providers_section_the_code_cites_is_a_heading_of_providers_md() -> None:
    ids = section_ids(DOCS / "providers.md")
    cited = _cited(PROVIDERS_CITED, providers=True)
    assert {"1", "1.3", "2"} <= set(cited)
    assert {number: sorted(where)[:3] for number, where in cited.items() if number not in ids} == {}


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped,
    spaces to ``-``."""
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


def test_slug_matches_github_anchors() -> None:
    assert slug("11 The turn limit (`max_history_messages`)") == (
        "11-the-turn-limit-max_history_messages"
    )
    assert slug("19.10 Overflow classification") == "1910-overflow-classification"


def _links() -> list[tuple[Path, str]]:
    return [
        (path, target)
        for path in tracked()
        if path.suffix == ".md" and (text := _text(path)) is not None
        for target in LINK.findall(text)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


@pytest.mark.parametrize("where", ["docs/contract.md", "docs/architecture.md", "docs/providers.md"])
def test_the_standalone_docs_are_tracked(where: str) -> None:
    assert ROOT / where in tracked()


def test_every_relative_markdown_link_resolves() -> None:
    broken = []
    for path, target in _links():
        file, _, anchor = target.partition("#")
        goal = (path.parent / file).resolve() if file else path
        if not goal.exists() or (ROOT not in goal.parents and goal != ROOT):
            broken.append(f"{path.relative_to(ROOT)}: {target}")
        elif anchor and goal.suffix == ".md" and anchor not in {slug(h) for h in headings(goal)}:
            broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []
