"""The report's inline stylesheet and script, and the Content-Security-Policy that admits
exactly these two and nothing from the network.

The script never reads transcript data from markup it builds: it filters sections by their
``data-session`` attribute and shows ``data-tip`` attributes through ``textContent``, so the
browser never parses transcript text as HTML. The policy pins the script by hash, so even a
script injected by an escaping bug would not run.
"""

from __future__ import annotations

import base64
import hashlib

from harness.report.chart import TRIGGER_COLOURS

_TRIGGER_CSS = "\n".join(
    f".trim.{trigger} {{ stroke: {colour}; fill: {colour}; }}\n"
    f".swatch.{trigger} {{ background: {colour}; }}"
    for trigger, colour in TRIGGER_COLOURS.items()
)

STYLE = (
    """
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee7; --bad: #c0392b; --est: #1f6fb4;
        --budget: #b8860b; --window: #5b6475; --good: #2e8b57; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; color: var(--ink); background: #f6f7f9;
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 0; word-break: break-all; }
.sub, .meta { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 14px 0; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px;
        padding: 10px 14px; min-width: 118px; }
.card b { display: block; font-size: 22px; }
.card.alert b { color: var(--bad); }
.tables { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
caption { text-align: left; font-weight: 600; padding: 0 0 6px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: right; }
th:first-child, td:first-child { text-align: left; }
th.text { text-align: left; }
td.text { text-align: left; max-width: 420px; word-break: break-word; }
.toolbar { display: flex; gap: 16px; align-items: center; margin: 10px 0 14px;
           position: sticky; top: 0; background: #f6f7f9; padding: 8px 0; z-index: 2; }
.toolbar input[type=search] { width: 320px; padding: 5px 8px; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; color: var(--muted); font-size: 13px; }
.swatch { display: inline-block; width: 14px; height: 4px; vertical-align: middle;
          margin-right: 5px; }
.swatch.estimate { background: var(--est); } .swatch.budget { background: var(--budget); }
.swatch.window { background: var(--window); } .swatch.bad { background: var(--bad); }
.swatch.good { background: var(--good); }
section.session { background: #fff; border: 1px solid var(--line); border-radius: 8px;
                  padding: 14px 16px; margin: 0 0 16px; }
section.session[hidden] { display: none; }
.badges { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0; }
.badge { border-radius: 10px; padding: 1px 8px; background: #eef1f5; font-size: 12px; }
.badge.alert { background: #fbe3e0; color: var(--bad); }
svg.chart { width: 100%; height: auto; max-height: 340px; display: block; }
svg.chart text { font-size: 11px; fill: var(--muted); }
svg.chart .tick { text-anchor: end; } svg.chart .tick.x { text-anchor: middle; }
svg.chart .title { font-size: 12px; } svg.chart .title.x { text-anchor: middle; }
svg.chart .grid { stroke: #edf0f4; } svg.chart .axis { stroke: #9aa3b2; }
svg.chart .line { fill: none; stroke-width: 2; }
svg.chart .line.estimate { stroke: var(--est); }
svg.chart .line.budget { stroke: var(--budget); stroke-dasharray: 7 3; }
svg.chart .line.window { stroke: var(--window); stroke-dasharray: 2 3; }
svg.chart .label.budget { fill: var(--budget); } svg.chart .label.window { fill: var(--window); }
svg.chart .dot { fill: #fff; stroke: var(--est); stroke-width: 2; }
svg.chart .dot.compacted { fill: var(--est); }
svg.chart .rule { stroke-width: 1; stroke-dasharray: 3 3; opacity: .75; fill: none; }
svg.chart .mark { cursor: help; }
svg.chart .mark.overflow { fill: none; stroke: var(--bad); stroke-width: 3; }
svg.chart .refusal { stroke: var(--bad); fill: none; }
svg.chart .mark.refusal { stroke-width: 3; }
svg.chart .mark.recovery.ok { fill: var(--good); }
svg.chart .mark.recovery.failed { fill: var(--bad); }
details { margin-top: 8px; } summary { cursor: pointer; color: var(--muted); }
#tip { position: fixed; pointer-events: none; background: #1d2330; color: #fff; padding: 6px 9px;
       border-radius: 5px; font-size: 12px; white-space: pre-line; max-width: 460px; z-index: 9; }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; }
"""
    + _TRIGGER_CSS
    + "\n"
)

SCRIPT = """
"use strict";
(function () {
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.session"));
  var search = document.getElementById("filter");
  var notable = document.getElementById("notable");
  var shown = document.getElementById("shown");
  function apply() {
    var needle = search.value.toLowerCase();
    var count = 0;
    sections.forEach(function (section) {
      var match = section.getAttribute("data-session").toLowerCase().indexOf(needle) !== -1;
      if (notable.checked && section.getAttribute("data-notable") !== "1") { match = false; }
      section.hidden = !match;
      if (match) { count += 1; }
    });
    shown.textContent = count + " of " + sections.length + " sessions shown";
  }
  search.addEventListener("input", apply);
  notable.addEventListener("change", apply);
  apply();
  var tip = document.getElementById("tip");
  document.addEventListener("mouseover", function (event) {
    var text = event.target.getAttribute && event.target.getAttribute("data-tip");
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text;
    tip.hidden = false;
  });
  document.addEventListener("mousemove", function (event) {
    if (tip.hidden) { return; }
    var x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = (event.clientY + 16) + "px";
  });
  document.documentElement.setAttribute("data-ready", "1");
}());
"""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


CONTENT_SECURITY_POLICY = (
    "default-src 'none'; "
    f"style-src 'sha256-{_sha256(STYLE)}'; "
    f"script-src 'sha256-{_sha256(SCRIPT)}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
