"""Image markers (spec 5.2) turned into something a wire format can carry.

A user row's ``[IMAGE:<ref>]`` markers are split out with the same grammar the token
estimate uses (``harness.runtime.estimate.summarize_image_markers``): the ref runs to the
first ``]``, CR/LF plus the whitespace after it are removed, the ref is trimmed, and only
*loadable* refs are markers; everything else stays text. A property test holds the two in
agreement, so the images a client sends are exactly the images the estimate priced.

What is sent for a loadable ref:

- ``data:`` URIs are sent inline (``InlineImage``: media type and base64 payload);
- ``http://`` / ``https://`` URLs are sent by reference (``UrlImage``);
- local paths (``/...``, ``C:\\...``, UNC) are **sent as their text marker**: the clients
  never read the disk, so a test run cannot depend on, or leak, local files.

A malformed data URI is also sent as its text marker rather than guessed at.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from dataclasses import dataclass
from typing import TypeAlias

from harness.runtime.constants import IMAGE_MARKER_PREFIX
from harness.runtime.estimate import is_loadable_image_ref
from harness.runtime.text import RUST_WHITESPACE, rust_trim

DEFAULT_DATA_MEDIA_TYPE = "application/octet-stream"
"""Media type of a data URI that names none (RFC 2397's text/plain would mislabel an image)."""


@dataclass(frozen=True, slots=True)
class InlineImage:
    """An image sent by value. ``uri`` is the original data URI (OpenAI-style wires take it
    verbatim); ``media_type`` and ``data`` (base64) serve the wires that split them."""

    uri: str
    media_type: str
    data: str


@dataclass(frozen=True, slots=True)
class UrlImage:
    url: str


Image: TypeAlias = InlineImage | UrlImage


@dataclass(frozen=True, slots=True)
class ImageMarker:
    """A loadable marker found in text: its raw text and its normalised ref."""

    raw: str
    ref: str


Segment: TypeAlias = str | ImageMarker


def normalize_ref(ref: str) -> str:
    """Remove each CR/LF with the whitespace after it, then trim (spec 5.2)."""
    out: list[str] = []
    index = 0
    while index < len(ref):
        ch = ref[index]
        index += 1
        if ch in "\r\n":
            while index < len(ref) and ref[index] in RUST_WHITESPACE:
                index += 1
            continue
        out.append(ch)
    return rust_trim("".join(out))


def split_image_markers(content: str) -> tuple[Segment, ...]:
    """Text segments and loadable markers, in order; placeholders and an unterminated
    tail are text. Concatenating the segments' raw text gives back ``content``."""
    segments: list[Segment] = []
    text_start = pos = 0
    while (start := content.find(IMAGE_MARKER_PREFIX, pos)) != -1:
        end = content.find("]", start + len(IMAGE_MARKER_PREFIX))
        if end == -1:
            break
        ref = normalize_ref(content[start + len(IMAGE_MARKER_PREFIX) : end])
        if is_loadable_image_ref(ref):
            if start > text_start:
                segments.append(content[text_start:start])
            segments.append(ImageMarker(content[start : end + 1], ref))
            text_start = end + 1
        pos = end + 1
    if text_start < len(content):
        segments.append(content[text_start:])
    return tuple(segments)


def parse_data_uri(uri: str) -> InlineImage | None:
    """``data:[<media type>][;params][;base64],<payload>``; ``None`` when malformed."""
    header, sep, payload = uri[len("data:") :].partition(",")
    if not sep:
        return None
    params = header.split(";")
    media_type = params[0].strip() or DEFAULT_DATA_MEDIA_TYPE
    if "base64" in (p.strip().lower() for p in params[1:]):
        compact = "".join(payload.split())
        try:
            base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            return None
        return InlineImage(uri, media_type, compact)
    raw = urllib.parse.unquote_to_bytes(payload)
    return InlineImage(uri, media_type, base64.b64encode(raw).decode("ascii"))


def sendable_image(ref: str) -> Image | None:
    """The image to send for a loadable ref, or ``None`` when it must stay a text marker
    (local paths, malformed data URIs)."""
    if ref.startswith("data:"):
        return parse_data_uri(ref)
    if ref.startswith(("http://", "https://")):
        return UrlImage(ref)
    return None


def image_uri(image: Image) -> str:
    """The URI form: the data URI itself, or the URL."""
    return image.uri if isinstance(image, InlineImage) else image.url


def image_marker(ref: str) -> str:
    return f"{IMAGE_MARKER_PREFIX}{ref}]"
