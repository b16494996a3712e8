"""Whether a request carries images that multimodal preparation would dispatch."""

from __future__ import annotations

from collections.abc import Sequence

from harness.runtime.carriers import is_tool_result_carrier, parse_carrier
from harness.runtime.constants import IMAGE_MARKER_PREFIX
from harness.runtime.estimate import current_turn_start, summarize_image_markers
from harness.runtime.messages import ChatMessage


def request_has_images(rows: Sequence[ChatMessage]) -> bool:
    """True when a user row has a loadable ``[IMAGE:…]`` marker, or a carrier of the
    current user turn declares an image attachment (the same rows the estimate prices
    as images, spec 5.3)."""
    start = current_turn_start(rows)
    for index, row in enumerate(rows):
        if is_tool_result_carrier(row):
            if index >= start:
                parsed = parse_carrier(row)
                if (
                    parsed
                    and parsed.declared
                    and any(a.kind == "image" for a in parsed.attachments)
                ):
                    return True
        elif (
            row.role == "user"
            and IMAGE_MARKER_PREFIX in row.content  # most rows have none: skip the scan
            and summarize_image_markers(row.content).image_refs > 0
        ):
            return True
    return False
