"""Tool specs (``harness.runtime.ToolSpec``) in each wire's schema shape.

An empty ``parameters`` mapping is sent as the empty object schema
``{"type": "object", "properties": {}}``: several servers reject ``{}`` as a schema.
"""

from __future__ import annotations

from harness.providers.plumbing.wirejson import JsonObject
from harness.runtime.estimate import ToolSpec

EMPTY_OBJECT_SCHEMA: JsonObject = {"type": "object", "properties": {}}


def parameters_schema(spec: ToolSpec) -> JsonObject:
    return dict(spec.parameters) if spec.parameters else dict(EMPTY_OBJECT_SCHEMA)


def openai_function_tool(spec: ToolSpec) -> JsonObject:
    """OpenAI Chat, Ollama native and Cohere v2 share this shape."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": parameters_schema(spec),
        },
    }
