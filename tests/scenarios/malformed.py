"""A corpus of malformed scenario files, each with the problem it must be reported as.

Every case is the tiny valid scenario of ``support.TINY`` with one thing broken, so the
expected ``line: key.path: message`` is known exactly (TINY's line numbers are in
``support``). ``MALFORMED`` maps a case name to ``(file bytes, expected problem start)``.
"""

from __future__ import annotations

from tests.scenarios.support import TINY

BEFORE_CONVERSATION = 10  # a line inserted before "conversation:" becomes line 10
FAKE_DEFAULT = '      default: {text: "ok"}'  # line 9


def sub(old: str, new: str) -> str:
    assert old in TINY, old
    return TINY.replace(old, new, 1)


def insert(line: str) -> str:
    """A top-level line put before ``conversation:`` (it becomes line 10)."""
    return sub("conversation:\n", f"{line}\nconversation:\n")


def runtime(value: str) -> str:
    return insert(f"runtime: {{{value}}}")


def fake(default: str) -> str:
    return sub(FAKE_DEFAULT, f"      default: {{{default}}}")


def laughs(levels: int) -> str:
    """A billion-laughs document inside ``tools[0].parameters``: 10**levels strings."""
    rows = [
        "tools:",
        "  - name: t",
        "    parameters:",
        "      l0: &l0 [x, x, x, x, x, x, x, x, x, x]",
    ]
    for n in range(1, levels):
        ref = f"*l{n - 1}"
        rows.append(f"      l{n}: &l{n} [{', '.join([ref] * 10)}]")
    return "\n".join(rows)


def nested(depth: int) -> str:
    return insert(f"tools: [{{name: deep, parameters: {{a: {'[' * depth}{']' * depth}}}}}]")


def many_tools(count: int) -> str:
    return insert("tools: [" + ", ".join(f"{{name: t{n}}}" for n in range(count)) + "]")


def tool_calls(count: int) -> str:
    calls = ", ".join(f"{{name: t{n}}}" for n in range(count))
    return fake(f"text: ok, tool_calls: [{calls}]")


TOP_LAUGHS = "x: &a [y, y, y, y, y, y, y, y, y, y]\n" + "".join(
    f"{key}: {anchor}[{', '.join([ref] * 10)}]\n"
    for key, anchor, ref in [
        ("x2", "&b ", "*a"),
        ("x3", "&c ", "*b"),
        ("x4", "&d ", "*c"),
        ("x5", "", "*d"),
    ]
)
BIG = "9" * 400
R = "runtime.max_context_tokens"
INT = "expected an integer"
PRINTABLE = "expected printable text, found"
LAUGHS = "expected at most 100000 YAML nodes once aliases are expanded"
DEFAULT = "providers.openai.main.fake.default"
MIB = 1_048_576

_TEXT: dict[str, tuple[str, str]] = {
    # --- strict numbers and booleans -------------------------------------------------
    "yes-is-not-1": (runtime("max_context_tokens: yes"), f"10: {R}: {INT}, found true"),
    "no-is-not-0": (runtime("max_context_tokens: no"), f"10: {R}: {INT}, found false"),
    "quoted-number": (runtime('max_context_tokens: "8000"'), f"10: {R}: {INT}, found '8000'"),
    "400-digit-int": (runtime(f"max_context_tokens: {BIG}"), f"10: {R}: {INT} of at most"),
    "negative-400-digit": (runtime(f"max_context_tokens: -{BIG}"), f"10: {R}: {INT} of at most"),
    "2-pow-63": (runtime("max_context_tokens: 9223372036854775808"), f"10: {R}: {INT} of at most"),
    "huge-hex": (runtime("max_context_tokens: 0x" + "f" * 30), f"10: {R}: {INT} of at most"),
    "huge-binary": (runtime("max_context_tokens: 0b" + "1" * 39), f"10: {R}: {INT} of at most"),
    "underscored-huge": (
        runtime("max_context_tokens: 1_000_000_000_000_000_000_000"),
        f"10: {R}: {INT} of at most",
    ),
    "fraction-for-int": (runtime("max_context_tokens: 1.5"), f"10: {R}: {INT}, found 1.5"),
    "whole-float-for-int": (runtime("max_context_tokens: 8000.0"), f"10: {R}: {INT}, found 8000.0"),
    "infinity-for-int": (runtime("max_context_tokens: .inf"), f"10: {R}: {INT}, found inf"),
    "nan-for-int": (runtime("max_context_tokens: .nan"), f"10: {R}: {INT}, found nan"),
    "negative-count": (runtime("max_context_tokens: -1"), f"10: {R}: expected a number >= 0"),
    "list-for-int": (runtime("max_context_tokens: [1]"), f"10: {R}: {INT}, found a list"),
    "quoted-iterations": (
        runtime('max_tool_iterations: "10"'),
        f"10: runtime.max_tool_iterations: {INT}",
    ),
    "quoted-ratio": (
        runtime('context_compact_ratio: "0.5"'),
        "10: runtime.context_compact_ratio: expected a number, found '0.5'",
    ),
    "bool-ratio": (
        runtime("context_compact_ratio: yes"),
        "10: runtime.context_compact_ratio: expected a number, found true",
    ),
    "one-for-bool": (
        runtime("history_pruning: {enabled: 1}"),
        "10: runtime.history_pruning.enabled: expected true or false, found 1",
    ),
    "quoted-bool": (
        runtime('history_pruning: {enabled: "true"}'),
        "10: runtime.history_pruning.enabled: expected true or false, found 'true'",
    ),
    "quoted-count": (
        sub("provider_calls: 1", 'provider_calls: "1"'),
        f"15: expect.counts.provider_calls: {INT}, found '1'",
    ),
    "bool-count": (
        sub("provider_calls: 1", "provider_calls: true"),
        f"15: expect.counts.provider_calls: {INT}, found true",
    ),
    "float-count": (
        sub("provider_calls: 1", "provider_calls: 1.0"),
        f"15: expect.counts.provider_calls: {INT}, found 1.0",
    ),
    "quoted-stream": (
        insert('request: {stream: "no"}'),
        "10: request.stream: expected true or false, found 'no'",
    ),
    "quoted-call-number": (
        sub("  answers:", '  requests: {"1": []}\n  answers:'),
        "13: expect.requests.1: expected a key that is an integer, found '1'",
    ),
    "quoted-latency": (fake('latency_ms: "5"'), f"9: {DEFAULT}.latency_ms: {INT}, found '5'"),
    "float-latency-1e12": (
        fake("latency_ms: 1.0e+12"),
        f"9: {DEFAULT}.latency_ms: {INT}, found 1000000000000.0",
    ),
    "nan-latency": (fake("latency_ms: .nan"), f"9: {DEFAULT}.latency_ms: {INT}, found nan"),
    "quoted-fault-seconds": (
        fake('fault: {kind: hang, seconds: "5"}'),
        f"9: {DEFAULT}.fault.seconds: expected a number, found '5'",
    ),
    "bool-retry-after": (
        fake("fault: {kind: rate_limit, retry_after: yes}"),
        f"9: {DEFAULT}.fault.retry_after: {INT}, found true",
    ),
    "quoted-status": (
        fake('fault: {kind: server_error, status: "500"}'),
        f"9: {DEFAULT}.fault.status: {INT}, found '500'",
    ),
    "quoted-input-tokens": (
        fake('usage: {input_tokens: "100"}'),
        f"9: {DEFAULT}.usage.input_tokens: {INT}, found '100'",
    ),
    "quoted-input-factor": (
        fake('usage: {input_factor: "2"}'),
        f"9: {DEFAULT}.usage.input_factor: expected a number, found '2'",
    ),
    "quoted-repeat-times": (
        sub('  - user: "hello"', '  - repeat: {times: "3", steps: [{user: "x"}]}'),
        f"11: conversation[0].repeat.times: {INT}, found '3'",
    ),
    "quoted-tool-repeat": (
        insert('tools: [{name: t, repeat: "2"}]'),
        f"10: tools[0].repeat: {INT}, found '2'",
    ),
    "quoted-tool-fails": (
        insert('tools: [{name: t, fails: "no"}]'),
        "10: tools[0].fails: expected true or false, found 'no'",
    ),
    "date-for-title": (
        sub("title: One question, one answer", "title: 2024-01-01"),
        "2: title: expected a string, found datetime.date(2024, 1, 1)",
    ),
    # --- durations, sizes and counts beyond the limits -------------------------------
    "latency-over-limit": (
        fake("latency_ms: 600001"),
        f"9: {DEFAULT}.latency_ms: expected at most 600000 ms",
    ),
    "latency-1e12-as-int": (
        fake("latency_ms: 1000000000000"),
        f"9: {DEFAULT}.latency_ms: expected at most 600000 ms",
    ),
    "hang-1e9-seconds": (
        fake("fault: {kind: hang, seconds: 1000000000}"),
        f"9: {DEFAULT}.fault.seconds: expected at most 600 seconds",
    ),
    "hang-just-over": (
        fake("fault: {kind: hang, seconds: 600.5}"),
        f"9: {DEFAULT}.fault.seconds: expected at most 600 seconds",
    ),
    "hang-infinite": (
        fake("fault: {kind: hang, seconds: .inf}"),
        f"9: {DEFAULT}.fault.seconds: expected a finite number, found inf",
    ),
    "hang-nan": (
        fake("fault: {kind: hang, seconds: .nan}"),
        f"9: {DEFAULT}.fault.seconds: expected a finite number, found nan",
    ),
    "infinite-input-factor": (
        fake("usage: {input_factor: .inf}"),
        f"9: {DEFAULT}.usage.input_factor: expected a finite number, found inf",
    ),
    "repeat-times-zero": (
        sub('  - user: "hello"', '  - repeat: {times: 0, steps: [{user: "x"}]}'),
        "11: conversation[0].repeat.times: expected a number >= 1",
    ),
    "repeat-times-huge": (
        sub('  - user: "hello"', '  - repeat: {times: 1000000000, steps: [{user: "x"}]}'),
        "11: conversation[0].repeat.times: expected a number <= 5000",
    ),
    "nested-repeat-5000x5000": (
        sub(
            '  - user: "hello"',
            '  - repeat: {times: 5000, steps: [{repeat: {times: 5000, steps: [{user: "x"}]}}]}',
        ),
        "11: conversation[0].repeat: expected at most 10000 conversation steps once repeats"
        " are expanded",
    ),
    "repeat-3000x4": (
        sub(
            '  - user: "hello"',
            "  - repeat: {times: 3000, steps: [{user: a}, {user: b}, {user: c}, {user: d}]}",
        ),
        "11: conversation[0].repeat: expected at most 10000 conversation steps",
    ),
    "tool-repeat-2e9": (
        insert("tools: [{name: big, output: a, repeat: 2000000000}]"),
        "10: tools[0].repeat: expected a result of at most 1000000 characters",
    ),
    "tool-output-just-over": (
        insert("tools: [{name: big, output: ab, repeat: 500001}]"),
        "10: tools[0].repeat: expected a result of at most 1000000 characters",
    ),
    "257-tools": (many_tools(257), "10: tools: expected at most 256 tools"),
    "257-tool-calls": (
        tool_calls(257),
        f"9: {DEFAULT}.tool_calls: expected at most 256 tool calls",
    ),
    # --- characters ------------------------------------------------------------------
    "raw-nul": (
        sub("One question", "One\x00question"),
        f"2: (text): {PRINTABLE} U+0000 (a control character) at column 11",
    ),
    "raw-bel": (sub("One question", "One\x07question"), f"2: (text): {PRINTABLE} U+0007"),
    "raw-esc": (sub('"hello"', '"hel\x1blo"'), f"11: (text): {PRINTABLE} U+001B"),
    "raw-del": (sub("One question", "One\x7fquestion"), f"2: (text): {PRINTABLE} U+007F"),
    "raw-c1": (sub("One question", "One\x80question"), f"2: (text): {PRINTABLE} U+0080"),
    "raw-noncharacter": (
        sub("One question", "One\ufffequestion"),
        f"2: (text): {PRINTABLE} U+FFFE",
    ),
    "escaped-nul": (
        sub("title: One question, one answer", 'title: "One\\0"'),
        f"2: title: {PRINTABLE} U+0000 (a control character)",
    ),
    "escaped-bel": (
        sub("title: One question, one answer", 'title: "One\\a"'),
        f"2: title: {PRINTABLE} U+0007",
    ),
    "escaped-esc": (
        sub('"hello"', '"\\e[31mred"'),
        f"11: conversation[0].user: {PRINTABLE} U+001B",
    ),
    "escaped-surrogate": (
        sub("title: One question, one answer", 'title: "One \\ud800"'),
        f"2: title: {PRINTABLE} U+D800 (a lone surrogate)",
    ),
    "escaped-low-surrogate": (
        sub('"hello"', '"\\udfff"'),
        f"11: conversation[0].user: {PRINTABLE} U+DFFF (a lone surrogate)",
    ),
    "escaped-nul-in-fake": (fake('text: "o\\0k"'), f"9: {DEFAULT}.text: {PRINTABLE} U+0000"),
    "escaped-nul-in-key": (
        sub("title: One question, one answer", '"ti\\0tle": One'),
        "2: (top level): expected a key of printable text, found U+0000",
    ),
    "escaped-c1": (
        sub("title: One question, one answer", 'title: "One\\x9b"'),
        f"2: title: {PRINTABLE} U+009B",
    ),
    # --- YAML structure --------------------------------------------------------------
    "billion-laughs-in-tool-parameters": (
        insert(laughs(9)),
        f"{BEFORE_CONVERSATION + 7}: tools[0].parameters.l4[7]: {LAUGHS}",
    ),
    "laughs-at-top-level": (
        sub("conversation:\n", TOP_LAUGHS + "conversation:\n"),
        f"14: x5[7]: {LAUGHS}",
    ),
    "recursive-alias": (
        insert("tools: &t [{name: a, parameters: {x: *t}}]"),
        "10: (yaml): expected an anchor used outside itself, found a recursive alias",
    ),
    "nesting-65-levels": (nested(62), "10: tools[0].parameters.a[0]"),
    "nesting-5000-levels": (
        nested(5000),
        "1: (yaml): expected at most 64 levels of nesting, found too many to read",
    ),
    "unknown-fault-key": (
        fake("fault: {kind: hang, secs: 5}"),
        f"9: {DEFAULT}.fault.secs: expected one of the keys",
    ),
    "unknown-fault-kind": (
        fake("fault: {kind: explode}"),
        f"9: {DEFAULT}.fault.kind: expected one of",
    ),
    "tab-indentation": (
        sub("    kind: openai", "\tkind: openai"),
        "6: (yaml): found character '\\t' that cannot start any token",
    ),
}

_BYTES: dict[str, tuple[bytes, str]] = {
    "invalid-utf8": (
        TINY.replace("One question", "One\udcffquestion").encode("utf-8", "surrogateescape"),
        "2: (text): expected UTF-8 text, found byte 0xFF at column 11",
    ),
    "truncated-utf8": (
        TINY.encode() + b"# \xe2\x82",
        "16: (text): expected UTF-8 text, found byte 0xE2 at column 3",
    ),
    "latin1-file": (
        TINY.replace("One question", "Oné question").encode("latin-1"),
        "2: (text): expected UTF-8 text, found byte 0xE9 at column 10",
    ),
    "over-one-mib": (
        TINY.encode() + b"#" * MIB,
        f"1: (file): expected at most {MIB} bytes (raise it with --limit file_bytes=N),"
        f" found {MIB + len(TINY)} bytes",
    ),
}

MALFORMED: dict[str, tuple[bytes, str]] = {
    **{
        name: (text.encode("utf-8", "surrogatepass"), problem)
        for name, (text, problem) in _TEXT.items()
    },
    **_BYTES,
}
