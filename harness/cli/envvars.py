"""The environment variables the CLI acts on, checked like options before any work.

The OpenTelemetry SDK reads ``OTEL_*`` itself and, on a value it cannot use, logs a line and
falls back (an unknown sampler traces everything; a malformed endpoint fails every export
later). A user who set the variable meant something else, so here each one is an input
error (exit 2) naming the variable, the value and what was expected. Only the variables
the run will use are checked: samplers and resources when it traces, exporter settings
when it exports by OTLP.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from typing import Final

import typer

SAMPLERS: Final = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
RATIO_SAMPLERS: Final = ("traceidratio", "parentbased_traceidratio")
ENDPOINTS: Final = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
HEADERS: Final = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
TIMEOUTS: Final = ("OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
COMPRESSIONS: Final = ("OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION")
MAX_OTLP_TIMEOUT: Final = 600.0
"""Seconds; an export that may wait longer than this would hold the run's end hostage."""


def _bad(name: str, value: str, expected: str) -> typer.BadParameter:
    return typer.BadParameter(
        f"expected {expected}, found {value!r}", param_hint=f"environment variable {name}"
    )


def _pairs(name: str, value: str) -> None:
    """``key=value`` items separated by commas (the OTel list format); empty is allowed."""
    for item in filter(None, (part.strip() for part in value.split(","))):
        key, sep, _ = item.partition("=")
        if not sep or not key.strip():
            raise _bad(name, value, "comma-separated key=value pairs")


def _number(name: str, value: str, low: float, high: float) -> None:
    try:
        number = float(value)
    except ValueError:
        raise _bad(name, value, f"a number in {low:g}..{high:g}") from None
    if not low <= number <= high:  # also refuses nan
        raise _bad(name, value, f"a number in {low:g}..{high:g}")


def check_tracing_environment(environ: Mapping[str, str]) -> None:
    sampler = environ.get("OTEL_TRACES_SAMPLER", "").strip()
    if sampler and sampler not in SAMPLERS:
        raise _bad("OTEL_TRACES_SAMPLER", sampler, f"one of {', '.join(SAMPLERS)}")
    argument = environ.get("OTEL_TRACES_SAMPLER_ARG")
    if sampler in RATIO_SAMPLERS and argument is not None:
        _number("OTEL_TRACES_SAMPLER_ARG", argument, 0.0, 1.0)
    if "OTEL_RESOURCE_ATTRIBUTES" in environ:
        _pairs("OTEL_RESOURCE_ATTRIBUTES", environ["OTEL_RESOURCE_ATTRIBUTES"])


def check_otlp_environment(environ: Mapping[str, str]) -> None:
    for name in ENDPOINTS:
        value = environ.get(name)
        if value is None:
            continue
        url = urllib.parse.urlsplit(value.strip())
        if url.scheme not in ("http", "https") or not url.hostname:
            raise _bad(name, value, "an http(s) URL such as http://127.0.0.1:4318")
    for name in HEADERS:
        if name in environ:
            _pairs(name, environ[name])
    for name in TIMEOUTS:
        if name in environ:
            # opentelemetry-exporter-otlp-proto-http 1.45 reads these as seconds.
            _number(name, environ[name], 0.0, MAX_OTLP_TIMEOUT)
    for name in COMPRESSIONS:
        value = environ.get(name, "").strip().lower()
        if value and value not in ("none", "gzip", "deflate"):
            raise _bad(name, environ[name], "one of none, gzip, deflate")


def check_telemetry_environment(
    *, tracing: bool, otlp: bool, environ: Mapping[str, str] | None = None
) -> None:
    """Raise ``typer.BadParameter`` (exit 2) for an ``OTEL_*`` variable the run would use
    and could not."""
    env = os.environ if environ is None else environ
    if tracing or otlp:
        check_tracing_environment(env)
    if otlp:
        check_otlp_environment(env)


__all__ = [
    "MAX_OTLP_TIMEOUT",
    "SAMPLERS",
    "check_otlp_environment",
    "check_telemetry_environment",
    "check_tracing_environment",
]
