"""Tools the agent loop can run. A tool is an async callable from JSON arguments to text
plus declared attachments; the loop records its result (truncated to
``max_tool_result_chars``) in the working history."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from harness.runtime import Attachment, ToolSpec


@dataclass(frozen=True, slots=True)
class ToolOutput:
    text: str
    attachments: tuple[Attachment, ...] = ()


ToolFunction = Callable[[Mapping[str, object]], Awaitable[ToolOutput]]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    run: ToolFunction


@dataclass(frozen=True, slots=True)
class ToolBox:
    tools: Mapping[str, Tool] = field(default_factory=dict)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(tool.spec for tool in self.tools.values())


def template_tool(
    name: str,
    description: str,
    parameters: Mapping[str, object],
    *,
    output: str = "{text}",
    repeat: int = 1,
    images: tuple[str, ...] = (),
    fails: bool = False,
) -> Tool:
    """A deterministic tool described by data (scenario files, load templates):
    ``output`` with ``{text}`` replaced by the ``text`` argument, ``repeat`` times,
    declaring ``images`` as attachments; ``fails`` makes every call raise."""

    async def run(arguments: Mapping[str, object]) -> ToolOutput:
        if fails:
            raise RuntimeError(f"{name} failed as scripted")
        text = output.replace("{text}", str(arguments.get("text", ""))) * repeat
        return ToolOutput(text, tuple(Attachment("image", ref) for ref in images))

    return Tool(ToolSpec(name, description, parameters), run)


def echo_tool(name: str = "echo", *, repeat: int = 1) -> Tool:
    """A deterministic tool for scenarios: returns its arguments' ``text`` ``repeat`` times."""

    async def run(arguments: Mapping[str, object]) -> ToolOutput:
        return ToolOutput(str(arguments.get("text", "")) * repeat)

    return Tool(ToolSpec(name, "Echo the text argument.", {"type": "object"}), run)
