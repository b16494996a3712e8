"""``python -m bench.estimate_accuracy``: how far the runtime's estimate is from a real
tokenizer.

The contract's estimate is ``ceil(utf8_bytes / 4) + 4`` per row. Each sample below is one
request (a system prompt and rows, as the agent sends them); the real count is what a real
llama.cpp server would put in ``usage.prompt_tokens`` for it: the server renders the
OpenAI-wire messages with the model's chat template (``/apply-template``) and tokenizes the
prompt (``/tokenize``). The table gives real ÷ estimated per request, by content kind:

- ``ASCII prose``: the scenario library's conversations and the bench histories' turns;
- ``code``: this repository's own Python source, in chunks, sent as user messages;
- ``JSON tool rows``: turns whose bytes are mostly native tool-call and tool-result rows;
- ``non-ASCII``: any of the above with non-ASCII text (accents, arrows, emoji).

Samples with images are left out (the estimate charges a flat 1600 per image; the model
here has no vision). The server is the one ``scripts/install-real-server.sh`` installs
(SmolLM2-135M, a GPT-2-style BPE of 49k tokens), started here unless ``--base-url`` names
one already running. Its chat template renders a tool-call row's text only, not its calls,
so call arguments are not counted in the real figure (tool results are).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import httpx

from bench.histories import generate_history
from bench.llama_server import ROOT, installed, running
from harness.providers.clients.openai_chat import chat_messages
from harness.runtime import ChatMessage, estimate_history_tokens
from harness.scenarios import load_all

KINDS: Final = ("ASCII prose", "code", "JSON tool rows", "non-ASCII")
HISTORY_ROWS: Final = 1500
CODE_CHUNK_BYTES: Final = (400, 1200, 3000)
CODE_FILES: Final = 30
SYSTEM_PROMPT: Final = "You are a careful coding agent."
CONTEXT: Final = 8192
"""The server's context; tokenizing does not need it, but a request must fit to be sent."""
LARGE_REQUEST_TOKENS: Final = 256
"""Short requests are dominated by the chat template's per-row framing (about 5 tokens
where the estimate charges 4), which never decides an overflow; windows are reached by
large ones, so the headroom is read off these."""
_TOOL_MARKERS: Final = ('"tool_calls":', '"tool_call_id":', "[Tool results]")


@dataclass(frozen=True, slots=True)
class Sample:
    source: str
    kind: str
    messages: tuple[ChatMessage, ...]


@dataclass(frozen=True, slots=True)
class Measured:
    sample: Sample
    estimate: int
    real: int

    @property
    def ratio(self) -> float:
        return self.real / self.estimate


def content_kind(rows: Sequence[ChatMessage]) -> str:
    """Non-ASCII first (the tokenizer's biggest departure), then tool rows by bytes."""
    body = [r for r in rows if r.role != "system"]
    if not all(r.content.isascii() for r in body):
        return "non-ASCII"
    tool_bytes = sum(
        len(r.content) for r in body if any(m in r.content[:200] for m in _TOOL_MARKERS)
    )
    other = sum(len(r.content) for r in body) - tool_bytes
    return "JSON tool rows" if tool_bytes > other else "ASCII prose"


def _has_images(rows: Sequence[ChatMessage]) -> bool:
    return any("[IMAGE:" in r.content or '"attachments":[{' in r.content for r in rows)


def history_samples(rows: int = HISTORY_ROWS) -> Iterator[Sample]:
    """One request per turn of a generated bench history (its system prompt first)."""
    history = generate_history(rows)
    system, turn = history[0], list[ChatMessage]()
    for row in [*history[1:], ChatMessage("user", "")]:
        if row.role == "user" and not row.content.lstrip().startswith("[Tool results]"):
            if turn and not _has_images(turn):
                yield Sample("bench history", content_kind(turn), (system, *turn))
            turn = []
        turn.append(row)


def scenario_samples(folder: Path = ROOT / "scenarios") -> Iterator[Sample]:
    """One request per scenario: its system prompt, seeded rows and user texts."""
    for item in load_all([folder]):
        scenario = item.scenario
        rows = [ChatMessage("system", scenario.system_prompt or SYSTEM_PROMPT)]
        for step in scenario.conversation:
            if step.seed:
                rows.extend(ChatMessage(r.role, r.content) for r in step.seed)
            if isinstance(step.user, str):
                rows.append(ChatMessage("user", step.user))
            elif step.user is not None:
                rows.append(ChatMessage("user", step.user.text))
        if len(rows) > 1 and not _has_images(rows):
            yield Sample(f"scenario {scenario.id}", content_kind(rows), tuple(rows))


def code_samples(files: int = CODE_FILES) -> Iterator[Sample]:
    """Chunks of this repository's Python source as user messages."""
    sources = sorted((ROOT / "harness").rglob("*.py"))[:files]
    system = ChatMessage("system", SYSTEM_PROMPT)
    for n, path in enumerate(sources):
        text = path.read_text(encoding="utf-8")
        size = CODE_CHUNK_BYTES[n % len(CODE_CHUNK_BYTES)]
        chunk = text[:size]
        if chunk.strip():
            kind = "code" if chunk.isascii() else "non-ASCII"
            yield Sample(
                f"code {path.relative_to(ROOT)}", kind, (system, ChatMessage("user", chunk))
            )


def real_tokens(http: httpx.Client, base_url: str, messages: Sequence[ChatMessage]) -> int:
    """What the server would report as prompt tokens for these messages."""
    rendered = http.post(f"{base_url}/apply-template", json={"messages": chat_messages(messages)})
    rendered.raise_for_status()
    prompt = rendered.json()["prompt"]
    tokens = http.post(f"{base_url}/tokenize", json={"content": prompt, "parse_special": True})
    tokens.raise_for_status()
    return len(tokens.json()["tokens"])


def measure(base_url: str, samples: Sequence[Sample]) -> list[Measured]:
    with httpx.Client(timeout=60.0) as http:
        return [
            Measured(
                s,
                estimate_history_tokens(list(s.messages)),
                real_tokens(http, base_url, s.messages),
            )
            for s in samples
        ]


def _quantile(values: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of sorted ``values``."""
    return values[max(0, math.ceil(q * len(values)) - 1)]


def table(results: Sequence[Measured], title: str) -> list[str]:
    header = f"{'content kind':<16}{'requests':>9}{'p5':>7}{'p50':>7}{'p95':>7}{'max':>7}"
    lines = [f"real tokens ÷ estimated tokens, per request: {title}", header, "-" * len(header)]
    groups = [(kind, [r for r in results if r.sample.kind == kind]) for kind in KINDS]
    for kind, group in [*groups, ("all", list(results))]:
        if not group:
            lines.append(f"{kind:<16}{0:>9}")
            continue
        ratios = sorted(r.ratio for r in group)
        figures = [_quantile(ratios, q) for q in (0.05, 0.5, 0.95)] + [ratios[-1]]
        lines.append(f"{kind:<16}{len(group):>9}" + "".join(f"{f:>7.2f}" for f in figures))
    return lines


def headroom(results: Sequence[Measured]) -> str:
    """What the large requests say about a budget: they are the ones near a window."""
    if not results:
        return "headroom: no request of window scale was measured"
    worst = max(r.ratio for r in results)
    median = statistics.median(r.ratio for r in results)
    return (
        f"headroom: for requests of {LARGE_REQUEST_TOKENS}+ estimated tokens, a budget of B "
        f"estimated tokens is at most {worst:.2f} x B real tokens (median {median:.2f}); "
        f"a context_compact_ratio at or below {min(1.0, 1 / worst):.2f} kept every one of "
        "them inside the window"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.estimate_accuracy")
    parser.add_argument("--base-url", help="a running llama.cpp server (default: start one)")
    parser.add_argument("--history-rows", type=int, default=HISTORY_ROWS)
    args = parser.parse_args(argv)
    samples = [*scenario_samples(), *history_samples(args.history_rows), *code_samples()]
    if args.base_url:
        results = measure(args.base_url.rstrip("/"), samples)
    else:
        found = installed()
        if found is None:
            print("no real server: run `bash scripts/install-real-server.sh`", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as logs, running(found, CONTEXT, Path(logs)) as server:
            results = measure(server.url, samples)
    large = [r for r in results if r.estimate >= LARGE_REQUEST_TOKENS]
    lines = [
        *table(results, "all"),
        "",
        *table(large, f"{LARGE_REQUEST_TOKENS}+ estimated tokens"),
        "",
        headroom(large),
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
