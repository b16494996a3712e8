"""Read a scenario file and check its YAML nodes before anything is built from them.

Order matters, because each step is only safe once the one before has passed: refuse a
non-regular file *without opening it for a read that could block* (a FIFO, ``/dev/zero``);
read at most ``file_bytes``; refuse bytes that are not UTF-8 and characters YAML forbids
(with their line, instead of PyYAML's ``ReaderError`` and a position); compose the nodes;
count them as if every alias were expanded (billion laughs is refused by counting, never
by a clock) and measure their nesting; then check every scalar once: no control
characters or lone surrogates from escapes, no integer beyond 64 bits. Only then may
``construct_document`` and pydantic see the data.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import yaml

from harness.runtime.errors import HarnessError
from harness.scenarios.limits import MAX_INTEGER, Limits, hint
from harness.scenarios.problems import dotted
from harness.scenarios.vocabulary import Loc

# What the YAML reader accepts (PyYAML's own set); anything else in the raw text is refused.
_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# What a value may not hold once escapes are decoded ("\0", "\a", "\ud800"): C0 controls but
# tab, newline and carriage return, DEL, C1 controls, and lone surrogates (they cannot be
# written as UTF-8, so a run would crash on its first transcript line).
_BAD_IN_VALUE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_INT_TAG = "tag:yaml.org,2002:int"
# Longer integer text cannot be <= MAX_INTEGER (19 digits, plus sign, prefix and '_');
# checking the length first keeps Python's 4300-digit conversion limit out of reach.
_MAX_INT_TEXT = 40
_EXACT_DIGITS = 18  # a count this long is written out; a longer one as a power of ten
_SHOWN_VALUE_CHARS = 24  # a longer offending value is cut to its first _CUT_VALUE_CHARS
_CUT_VALUE_CHARS = 20
_FILE_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


class SourceProblem(HarnessError):
    """One problem at one line; the loader adds the file name."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"{line}: {what}")
        self.line, self.what = line, what


def _regular(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = _FILE_KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise SourceProblem(1, f"(file): expected a regular file, found {kind}")


def _too_big(size: int, limits: Limits, *, exact: bool = True) -> SourceProblem:
    found = f"{size} bytes" if exact else "more"
    return SourceProblem(
        1, f"(file): expected at most {limits.file_bytes} bytes {hint('file_bytes')}, found {found}"
    )


def read_bytes(path: Path, limits: Limits) -> bytes:
    """The file's bytes, or ``SourceProblem``: never blocks, never reads past the limit."""
    try:
        _regular(os.stat(path))  # before open: opening a FIFO for reading waits for a writer
        # O_NONBLOCK: if the path was swapped for a FIFO since, open still returns at once.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SourceProblem(1, f"(file): cannot be read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        _regular(info)
        if info.st_size > limits.file_bytes:
            raise _too_big(info.st_size, limits)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(limits.file_bytes + 1)  # a file that grew is still bounded
    except OSError as exc:
        raise SourceProblem(1, f"(file): cannot be read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    if len(data) > limits.file_bytes:  # it grew since fstat: only a lower bound is known
        raise _too_big(len(data), limits, exact=False)
    return data


def _where(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


_CHAR_KINDS = {"Cs": "a lone surrogate", "Cc": "a control character"}


def char_name(char: str) -> str:
    kind = _CHAR_KINDS.get(unicodedata.category(char), "a character YAML does not allow")
    return f"U+{ord(char):04X} ({kind})"


def decode(data: bytes) -> str:
    """UTF-8 text YAML can read, or ``SourceProblem`` at the first bad byte or character."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceProblem(
            line,
            f"(text): expected UTF-8 text, found byte 0x{data[exc.start]:02X} at column {column}",
        ) from exc
    bad = _NON_PRINTABLE.search(text)
    if bad is not None:
        line, column = _where(text, bad.start())
        raise SourceProblem(
            line,
            f"(text): expected printable text, found {char_name(bad.group())} at column {column}",
        )
    return text


# --- composing, within the node limit ---------------------------------------------------


class BoundedLoader(yaml.SafeLoader):
    """A ``SafeLoader`` that stops composing once it has built more distinct nodes than the
    limit: aliases only add to the expanded count, so the document is over it already, and
    a file of a million tiny items costs the limit's worth of work, not a million nodes."""

    def __init__(self, text: str, limits: Limits) -> None:
        super().__init__(text)
        self._limit = limits.yaml_nodes
        self._left = limits.yaml_nodes
        self._labels: list[int | str | None] = []

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if not self.check_event(yaml.AliasEvent):
            self._left -= 1
            if self._left < 0:
                event = self.peek_event()  # type: ignore[no-untyped-call]
                loc = tuple(label for label in self._labels if label is not None)
                raise SourceProblem(
                    event.start_mark.line + 1,
                    f"{dotted(loc)}: expected at most {self._limit} YAML nodes once aliases are"
                    f" expanded {hint('yaml_nodes')}, found more",
                )
        self._labels.append(_label(index))
        try:
            return super().compose_node(parent, index)
        finally:
            self._labels.pop()


def _label(index: object) -> int | str | None:
    """PyYAML composes a mapping's value with its key node as ``index``, a list item with
    its position, a key with ``None`` (its stub says ``int``): the path to name."""
    if isinstance(index, yaml.ScalarNode):
        return str(index.value)
    if isinstance(index, yaml.Node):
        return "[key]"
    return index if isinstance(index, int) else None


# --- the composed nodes ----------------------------------------------------------------


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _labelled(node: yaml.Node) -> Iterator[tuple[int | str, int, yaml.Node]]:
    """``(key or index, line of the use, child)``; a mapping's key nodes count too."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            label = str(key.value) if isinstance(key, yaml.ScalarNode) else "[key]"
            yield label, _line(key), key
            yield label, _line(key), value
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield index, _line(item), item


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    return (child for _, _, child in _labelled(node))


def _measure(root: yaml.Node) -> tuple[dict[int, int], dict[int, int]]:
    """Expanded size and nesting depth of every distinct node (aliases share nodes).

    Iterative depth-first search; meeting a node that is still open is an anchor used
    inside itself, whose expansion never ends."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = {id(root)}
    stack = [(root, _children(root))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            open_nodes.discard(id(node))
            kids = list(_children(node))
            size[id(node)] = 1 + sum(size[id(c)] for c in kids)
            nested = isinstance(node, yaml.CollectionNode)
            depth[id(node)] = int(nested) + max((depth[id(c)] for c in kids), default=0)
        elif id(child) in open_nodes:
            raise SourceProblem(
                _line(child),
                "(yaml): expected an anchor used outside itself, found a recursive alias",
            )
        elif id(child) not in size:
            open_nodes.add(id(child))
            stack.append((child, _children(child)))
    return size, depth


def _count(number: int) -> str:
    text = str(number)
    return text if len(text) <= _EXACT_DIGITS else f"about 10^{len(text) - 1}"


def _first_over(root: yaml.Node, size: dict[int, int], limit: int) -> tuple[Loc, int]:
    """Where, in document order, the expanded node count passes the limit: the first
    alias on the way (the use that multiplies), else the node itself."""
    budget, node, line = limit - 1, root, _line(root)
    loc: Loc = ()
    while isinstance(node, yaml.CollectionNode):
        for label, use_line, child in _labelled(node):
            if size[id(child)] <= budget:
                budget -= size[id(child)]
                continue
            budget -= 1
            loc = (*loc, label)
            if use_line < line:  # an alias: the node starts at its anchor, further up
                return loc, line
            node, line = child, use_line
            break
        else:
            break
    return loc, line


def _deepest(root: yaml.Node, depth: dict[int, int], limit: int) -> tuple[Loc, int]:
    """The path to the first node nested deeper than the limit."""
    node, line, level = root, _line(root), 1
    loc: Loc = ()
    while level <= limit:
        label, line, node = max(_labelled(node), key=lambda entry: depth[id(entry[2])])
        if isinstance(node, yaml.CollectionNode):
            level += 1
        loc = (*loc, label)
    return loc, line


def _scalars(root: yaml.Node) -> Iterator[tuple[Loc, bool, yaml.ScalarNode]]:
    """Every distinct scalar once, with the path of its first use; ``True`` for keys."""
    seen: set[int] = set()
    stack: list[tuple[Loc, bool, yaml.Node]] = [((), False, root)]
    while stack:
        loc, is_key, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            yield loc, is_key, node
            continue
        entries = []
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                label = str(key.value) if isinstance(key, yaml.ScalarNode) else "[key]"
                entries += [(loc, True, key), ((*loc, label), False, value)]
        elif isinstance(node, yaml.SequenceNode):
            entries = [((*loc, i), False, item) for i, item in enumerate(node.value)]
        stack.extend(reversed(entries))


def _scalar_problem(node: yaml.ScalarNode, is_key: bool, loader: yaml.SafeLoader) -> str | None:
    bad = _BAD_IN_VALUE.search(node.value)
    if bad is not None:
        what = "a key of printable text" if is_key else "printable text"
        return f"expected {what}, found {char_name(bad.group())}"
    if node.tag == _INT_TAG and not is_key:
        number = None
        if len(node.value) <= _MAX_INT_TEXT:
            number = loader.construct_yaml_int(node)
        if number is None or abs(number) > MAX_INTEGER:
            shown = (
                node.value
                if len(node.value) <= _SHOWN_VALUE_CHARS
                else f"{node.value[:_CUT_VALUE_CHARS]}... ({len(node.value)} characters)"
            )
            return f"expected an integer of at most {MAX_INTEGER}, found {shown}"
    return None


def check_nodes(root: yaml.Node, loader: yaml.SafeLoader, limits: Limits) -> list[tuple[int, str]]:
    """Problems of the composed document, as ``(line, "key.path: ...")``."""
    size, depth = _measure(root)
    if depth[id(root)] > limits.depth:
        loc, line = _deepest(root, depth, limits.depth)
        return [
            (
                line,
                f"{dotted(loc)}: expected at most {limits.depth} levels of nesting"
                f" {hint('depth')}, found {depth[id(root)]}",
            )
        ]
    if size[id(root)] > limits.yaml_nodes:
        loc, line = _first_over(root, size, limits.yaml_nodes)
        return [
            (
                line,
                f"{dotted(loc)}: expected at most {limits.yaml_nodes} YAML nodes once aliases"
                f" are expanded {hint('yaml_nodes')}, found {_count(size[id(root)])}",
            )
        ]
    problems = []
    for loc, is_key, node in _scalars(root):
        what = _scalar_problem(node, is_key, loader)
        if what is not None:
            problems.append((_line(node), f"{dotted(loc)}: {what}"))
    return problems
