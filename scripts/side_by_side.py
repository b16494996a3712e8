"""Compare two runs of the scenario library, before and after a restructuring.

Each run is a folder written by::

    trimscope run -q --transcript RUN/tx --otel-jsonl RUN/spans.jsonl \
        --metrics-out RUN/metrics.prom --junit-xml RUN/junit.xml --prices docs/prices.example.yaml

``python scripts/side_by_side.py BEFORE AFTER`` prints, for transcripts, spans, metrics and
JUnit, ``identical`` or ``DIFFERENT`` with the first differences, and exits 1 on any
difference. What a run cannot reproduce is normalised away: span and trace ids (a span is
named by its path of span names from the root), wall-clock times, the resource's
``service.instance.id``, metric ``_created`` samples, exemplar trace ids, the wall-clock sum
of the GenAI duration histogram, and JUnit times and host. Transcripts are compared
byte for byte (the scenario runner's clock is a fake one).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any


def transcripts(run: Path) -> list[str]:
    return [f"{p.name}\n{p.read_text(encoding='utf-8')}" for p in sorted((run / "tx").iterdir())]


def spans(run: Path) -> list[str]:
    text = (run / "spans.jsonl").read_text(encoding="utf-8")
    raw: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines() if line.strip()]
    by_id = {span["context"]["span_id"]: span for span in raw}

    def path(span: dict[str, Any] | None) -> str:
        names: list[str] = []
        while span is not None:
            names.append(span["name"])
            span = by_id.get(span.get("parent_id"))
        return "/".join(reversed(names))

    def resource(span: dict[str, Any]) -> dict[str, Any]:
        attributes = span.get("resource", {}).get("attributes", {})
        return {k: v for k, v in attributes.items() if k != "service.instance.id"}

    return sorted(
        json.dumps(
            {
                "path": path(span),
                "kind": span["kind"],
                "status": span["status"],
                "attributes": span["attributes"],
                "events": [
                    {"name": e["name"], "attributes": e["attributes"]} for e in span["events"]
                ],
                "resource": resource(span),
            },
            sort_keys=True,
        )
        for span in raw
    )


def metrics(run: Path) -> list[str]:
    lines = []
    for line in (run / "metrics.prom").read_text(encoding="utf-8").splitlines():
        if "_created" in line:
            continue
        anonymous = re.sub(r'trace_id="[0-9a-f]+"', 'trace_id="T"', line)
        lines.append(re.sub(r"(operation_duration_seconds_sum\{[^}]*\}) \S+", r"\1 D", anonymous))
    return lines


def junit(run: Path) -> list[str]:
    text = (run / "junit.xml").read_text(encoding="utf-8")
    return [re.sub(r'(time|timestamp|hostname)="[^"]*"', r'\1=""', text)]


def main(before: Path, after: Path) -> int:
    same = True
    for name, read in (("transcripts", transcripts), ("spans", spans), ("metrics", metrics)):
        same &= _report(name, read(before), read(after))
    same &= _report("junit", junit(before), junit(after))
    return 0 if same else 1


def _report(name: str, before: list[str], after: list[str]) -> bool:
    if before == after:
        print(f"{name}: identical ({len(before)} items)")
        return True
    print(f"{name}: DIFFERENT ({len(before)} items before, {len(after)} after)")
    only_before, only_after = set(before) - set(after), set(after) - set(before)
    for item in sorted(only_before)[:3]:
        print("  only before:", item[:300])
    for item in sorted(only_after)[:3]:
        print("  only after: ", item[:300])
    return False


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
