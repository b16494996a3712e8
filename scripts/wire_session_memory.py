"""How much memory an idle wire-observer session holds (issue: ≤ 4 KiB per idle session).

Not a test: a measurement. Opens ``--sessions`` sessions of ``--turns`` chat turns each
(plus one tool round per turn with ``--tools``), lets them go idle, and prints the bytes
``tracemalloc`` sees held per session, with and without the request bodies the observer
was fed (those are the caller's; the observer keeps prints only).

    PYTHONPATH=. python scripts/wire_session_memory.py --sessions 2000 --turns 10
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

from harness.runtime import ChatMessage, ToolCall
from harness.runtime.messages import native_tool_call_row, native_tool_result_row
from harness.wire import DecodedAnswer, DecodedRequest, WireExchange, WireObserver


def _conversation(session: int, turns: int, tools: bool) -> list[ChatMessage]:
    rows = [ChatMessage("system", "You are a helpful assistant. " * 10)]
    for turn in range(turns):
        rows.append(ChatMessage("user", f"session {session} question {turn}: " + "x" * 200))
        if tools:
            call_id = f"call-{session}-{turn}"
            rows.append(native_tool_call_row(None, [ToolCall(call_id, "lookup", "{}")]))
            rows.append(native_tool_result_row(call_id, "result " + "y" * 300))
        rows.append(ChatMessage("assistant", f"answer {turn}: " + "z" * 300))
    return rows


def measure(sessions: int, turns: int, tools: bool) -> float:
    observer = WireObserver()
    gc.collect()
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    for session in range(sessions):
        rows = _conversation(session, turns, tools)
        exchange = WireExchange(
            wire="openai_chat",
            method="POST",
            path="/v1/chat/completions",
            request_headers={"x-trimscope-session": f"session-{session}"},
            request_body=b"",
            status=200,
        )
        observer.observe_decoded(
            exchange,
            DecodedRequest(model="m", rows=tuple(rows[:-1])),
            DecodedAnswer(rows=(rows[-1],)),
        )
        del rows
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert observer.session_count == sessions
    return (held - start) / sessions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--tools", action="store_true")
    args = parser.parse_args()
    per = measure(args.sessions, args.turns, args.tools)
    rows = args.turns * (4 if args.tools else 2) + 1
    print(f"{per:,.0f} bytes per idle session ({rows} rows, {per / rows:,.0f} bytes a row)")


if __name__ == "__main__":
    main()
