"""The report in a real browser: headless Chromium loads it from disk, it renders without a
console error or a network request, its script works, transcript text never runs, and a
screenshot is saved (``<pytest tmp dir>/report.png``).

Needs Debian's ``chromium`` (``scripts/ensure-system-deps.sh`` installs it). Without it the
test skips, except under CI (``CI=true``), where it fails: CI must run it. Bounded: every
wait shares one deadline (``DEADLINE_S``).
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from harness.events import TrimTrigger
from harness.report import write_report
from tests.report.cdp import Chromium, DevTools, screenshot
from tests.report.transcripts import Session, busy_session, write

pytestmark = pytest.mark.integration

DEADLINE_S = 25.0
HOSTILE_ID = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PAGE_STATE = """({
  ready: document.documentElement.getAttribute("data-ready"),
  charts: document.querySelectorAll("svg.chart").length,
  sessions: document.querySelectorAll("section.session").length,
  dots: document.querySelectorAll("svg.chart circle.dot").length,
  trims: document.querySelectorAll("svg.chart .mark.trim").length,
  pwned: typeof window.__pwned,
  images: document.images.length,
  titles: Array.from(document.querySelectorAll("section.session h3"), h => h.textContent),
  chart: (() => { const r = document.querySelector("svg.chart").getBoundingClientRect();
                  return [Math.round(r.width), Math.round(r.height)]; })(),
  line: document.querySelector("svg.chart polyline.estimate").getTotalLength() > 0,
})"""
FILTER = """(() => {
  const box = document.getElementById("filter");
  box.value = "busy";
  box.dispatchEvent(new Event("input"));
  const shown = document.querySelectorAll("section.session:not([hidden])").length;
  return [shown, document.getElementById("shown").textContent];
})()"""


HOVER = """(() => {
  const mark = document.querySelector("svg.chart .mark.overflow");
  mark.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
  const tip = document.getElementById("tip");
  return [tip.hidden, tip.textContent.split("\\n")[0]];
})()"""


def _chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    message = (
        "`chromium` not found: install Debian's `chromium` package "
        "(scripts/ensure-system-deps.sh does it when run as root)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run the browser test")
    pytest.skip(message)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    long = Session("long-run")
    for i in range(24):
        long.turn().budget(6000).check(1200 + 200 * i).call(1200 + 200 * i, compacted=i % 6 == 0)
        if i % 8 == 7:
            long.trim(TrimTrigger.PROACTIVE)
        long.end()
    tiny = Session("tiny-budget").turn().budget(30).call(22).budget(30).trim(TrimTrigger.PROACTIVE)
    tiny.call(28, compacted=True).end()
    write(tmp_path / "run" / "a.jsonl", busy_session("busy-1"), busy_session(HOSTILE_ID))
    write(tmp_path / "run" / "b.jsonl", long, tiny)
    target = tmp_path / "report.html"
    write_report([tmp_path / "run"], target)
    return target


def _problems(devtools: DevTools) -> list[str]:
    """Console errors and warnings, uncaught exceptions, error log entries (CSP, loads)."""
    found = [
        f"console.{c['type']}: {[a.get('value', a.get('description')) for a in c['args']]}"
        for c in devtools.named("Runtime.consoleAPICalled")
        if c["type"] in {"error", "assert", "warning"}
    ]
    found += [
        f"exception: {e['exceptionDetails'].get('exception', {}).get('description')}"
        for e in devtools.named("Runtime.exceptionThrown")
    ]
    found += [
        f"log {entry['entry']['level']} ({entry['entry']['source']}): {entry['entry']['text']}"
        for entry in devtools.named("Log.entryAdded")
        if entry["entry"]["level"] in {"error", "warning"}
    ]
    return found


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE), "not a PNG"
    width, height = struct.unpack("!II", data[16:24])  # IHDR
    return width, height


def _chromium_leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("org.chromium.Chromium.*")}


def test_the_report_renders_in_chromium_without_errors(report: Path, tmp_path: Path) -> None:
    binary = _chromium()
    leftovers_before = _chromium_leftovers()
    deadline = time.monotonic() + DEADLINE_S
    url = report.resolve().as_uri()
    with Chromium(binary, tmp_path / "profile", tmp_path / "chromium.log", deadline) as browser:
        devtools = browser.devtools()
        for domain in ("Runtime", "Log", "Network", "Page"):
            devtools.call(f"{domain}.enable")
        devtools.call("Page.navigate", url=url)
        devtools.wait_for("Page.loadEventFired")
        devtools.settle(0.5)
        state: dict[str, Any] = devtools.evaluate(PAGE_STATE)
        shown = devtools.evaluate(FILTER)
        hover = devtools.evaluate(HOVER)
        devtools.settle(0.2)
        problems = _problems(devtools)
        requests = [r["request"]["url"] for r in devtools.named("Network.requestWillBeSent")]

    assert problems == []
    assert [u for u in requests if not u.startswith(("file://", "data:"))] == []
    assert state["ready"] == "1"  # the script ran to its end
    assert (state["sessions"], state["charts"]) == (4, 4)
    assert state["dots"] == 4 + 4 + 24 + 2
    assert state["trims"] == 4 + 4 + 3 + 1
    assert state["titles"] == ["busy-1", HOSTILE_ID, "long-run", "tiny-budget"]
    assert (state["pwned"], state["images"]) == ("undefined", 0)
    assert state["chart"][0] > 600
    assert state["chart"][1] > 150
    assert state["line"] is True
    assert shown == [1, "1 of 4 sessions shown"]
    assert hover == [False, "call 2 (busy-1-c2), turn busy-1-t1"]

    png = tmp_path / "report.png"
    remaining = deadline - time.monotonic()
    screenshot(binary, url, png, tmp_path / "profile-shot", timeout=max(remaining, 1.0))
    assert _png_size(png) == (1280, 1800)
    assert png.stat().st_size > 20_000  # charts and tables, not a blank page
    # no temp folder outlives the browsers: Chromium's own went under tmp_path
    assert _chromium_leftovers() - leftovers_before == set()
