"""The document: transcript text escaped, nothing fetched from anywhere, charts well formed."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.events import TrimTrigger
from harness.report import build
from harness.report.chart import TRIGGER_COLOURS, scale_for
from harness.report.model import sessions_of
from tests.report.transcripts import Session, busy_session, write

HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">"\'&amp;'
URL_ATTRIBUTES = {"src", "href", "xlink:href", "action", "formaction", "poster", "data"}


class Markup(HTMLParser):
    """Tags, attributes and text as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []
        self.open_in_svg: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)
        if self.open_in_svg or tag == "svg":
            self.open_in_svg.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]
        self.scripts += tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if self.open_in_svg:
            assert self.open_in_svg.pop() == tag, f"</{tag}> closes another SVG element"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(html: str) -> Markup:
    markup = Markup()
    markup.feed(html)
    markup.close()
    return markup


def hostile_session() -> Session:
    s = Session(session_id=HOSTILE, provider=f"prov{HOSTILE}")
    s.turn().budget(6000).trim(TrimTrigger.PROACTIVE, reason=f"why{HOSTILE}")
    s.check(7000).call(7000, outcome="overflow").overflow(message=HOSTILE).recovery()
    return s


def test_transcript_text_is_escaped_everywhere(tmp_path: Path) -> None:
    write(tmp_path / "t.jsonl", hostile_session())
    html = build([tmp_path]).html()
    markup = _parsed(html)
    assert markup.scripts == 1  # ours, and only ours
    assert "img" not in markup.tags
    assert not [a for a in markup.attributes if a[1].startswith("on")]
    text = "".join(markup.text)
    assert HOSTILE in text  # shown, as text
    tips = [value for _, name, value in markup.attributes if name == "data-tip"]
    assert any(HOSTILE in (tip or "") for tip in tips)  # the overflow message, as an attribute
    sessions = [value for _, name, value in markup.attributes if name == "data-session"]
    assert sessions == [HOSTILE]


def test_no_url_a_browser_would_fetch(tmp_path: Path) -> None:
    session = busy_session()
    write(tmp_path / "t.jsonl", session)
    html = build([tmp_path]).html()
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert not re.search(r"https?://", html)
    assert not re.search(r"url\(|@import", html, re.I)
    for tag, name, value in _parsed(html).attributes:
        if name in URL_ATTRIBUTES:
            assert (value or "").startswith("data:"), f"<{tag} {name}={value!r}>"


def test_a_url_inside_transcript_text_stays_text(tmp_path: Path) -> None:
    write(tmp_path / "t.jsonl", Session(session_id="see https://example.invalid/x").turn().end())
    html = build([tmp_path]).html()
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)


def test_the_policy_admits_exactly_the_inline_style_and_script(tmp_path: Path) -> None:
    write(tmp_path / "t.jsonl", busy_session())
    html = build([tmp_path]).html()
    attributes = _parsed(html).attributes
    (policy,) = [
        value or ""
        for _, name, value in attributes
        if name == "content" and "default-src" in (value or "")
    ]
    assert ("meta", "http-equiv", "Content-Security-Policy") in attributes
    assert policy.startswith("default-src 'none'; ")
    for tag, directive in (("style", "style-src"), ("script", "script-src")):
        (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}';" in policy


def test_every_svg_element_is_closed(tmp_path: Path) -> None:
    # In foreign content an unclosed <line> swallows the rest of the chart.
    write(tmp_path / "t.jsonl", busy_session(), Session("no calls").turn().end())
    markup = _parsed(build([tmp_path]).html())
    assert markup.open_in_svg == []
    assert markup.tags.count("svg") == 2


def test_one_chart_per_session_with_a_dot_per_call(tmp_path: Path) -> None:
    write(tmp_path / "t.jsonl", busy_session("a"), Session("b").turn().budget(9).call(5).end())
    markup = _parsed(build([tmp_path]).html())
    assert markup.tags.count("svg") == 2
    classes = [value or "" for _, name, value in markup.attributes if name == "class"]
    assert sum(c.startswith("dot") for c in classes) == 5
    assert sum(c == "mark overflow" for c in classes) == 2
    assert sum(c == "mark refusal" for c in classes) == 1
    assert sum(c.startswith("mark trim ") for c in classes) == 4


@pytest.mark.parametrize(
    ("budget", "estimate", "log"),
    [(30, 22, True), (6000, 5200, False), (8000, 10, True), (1100, 1000, False), (700, 600, True)],
)
def test_the_y_axis_turns_logarithmic_when_the_window_dwarfs_the_rest(
    budget: int, estimate: int, log: bool
) -> None:
    events = Session(window=8000).turn().budget(budget).call(estimate).end().events
    (session,) = sessions_of(Path("t.jsonl"), events)
    assert scale_for(session).log is log


def test_every_trim_trigger_has_a_colour_and_a_legend_entry(tmp_path: Path) -> None:
    """A trim of a trigger without a colour would be drawn unstyled (the wire's, from a
    proxied runtime's transcript, came after the first four)."""
    assert set(TRIGGER_COLOURS) == {trigger.value for trigger in TrimTrigger}
    write(tmp_path / "t.jsonl", busy_session())
    html = build([tmp_path]).html()
    for trigger in TrimTrigger:
        assert f".trim.{trigger.value} {{" in html
        assert f"trim: {trigger.value}" in html
