"""Tiny, escaping SVG/HTML element builders and number formatting.

Every attribute value and every text passes through ``html.escape`` here, so callers never
concatenate transcript strings into markup themselves.
"""

from __future__ import annotations

import html
import math

_THOUSAND = 1_000
_MILLION = 1_000_000

Attr = str | int | float | None


def esc(value: object) -> str:
    """Text or attribute value, HTML-escaped (quotes included)."""
    return html.escape(str(value), quote=True)


def num(value: float) -> str:
    """A coordinate: two decimals at most, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in {"", "-0"} else text


def attrs(**values: Attr) -> str:
    """`` name="value"`` pairs; ``None`` omits one, ``_`` in a name becomes ``-``."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        key = name.rstrip("_").replace("_", "-")
        text = num(value) if isinstance(value, float) else str(value)
        parts.append(f' {key}="{esc(text)}"')
    return "".join(parts)


def el(tag: str, content: str = "", **values: Attr) -> str:
    """An element; ``content`` is markup the caller built with these helpers."""
    return f"<{tag}{attrs(**values)}>{content}</{tag}>"


def void(tag: str, **values: Attr) -> str:
    """An empty element, self-closed: inside ``<svg>`` (foreign content) an unclosed
    ``<line>`` would swallow every element after it."""
    return f"<{tag}{attrs(**values)} />"


def tokens(value: float | None) -> str:
    """Token counts for labels: ``950``, ``8k``, ``12.5k``, ``1.05M``; ``-`` when unknown."""
    if value is None:
        return "-"
    if abs(value) < _THOUSAND:
        return f"{value:g}"
    if abs(value) < _MILLION:
        return f"{value / _THOUSAND:.3g}k"
    return f"{value / _MILLION:.3g}M"


def grouped(value: int | None) -> str:
    """Exact counts for tables: ``128,000``."""
    return "-" if value is None else f"{value:,}"


def nice_step(span: float, target: int) -> float:
    """A 1-2-5 step that cuts ``span`` into about ``target`` pieces."""
    raw = max(span, 1e-9) / max(target, 1)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return float(factor * power)
    return float(10 * power)  # pragma: no cover - the loop always returns
