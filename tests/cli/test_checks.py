"""The checks every command runs first (``harness.cli.paths``, ``envvars``, ``lazy``): each
refuses what it must and accepts what it must, and none leaves anything on disk."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli.envvars import check_telemetry_environment
from harness.cli.lazy import found_value
from harness.cli.paths import check_output_dir, check_output_file, check_port

NAMES = st.text(st.sampled_from("abcxyz-_0"), min_size=1, max_size=8)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(NAMES, min_size=1, max_size=5), as_dir=st.booleans())
def test_a_path_whose_folder_exists_is_accepted_and_nothing_is_created(
    tmp_path: Path, parts: list[str], as_dir: bool
) -> None:
    base = Path(tempfile.mkdtemp(dir=tmp_path))  # examples share tmp_path
    target = base.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    made = sorted(base.rglob("*"))
    if as_dir:
        check_output_dir("--out", target)
    else:
        check_output_file("--out", target)
    assert sorted(base.rglob("*")) == made


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(NAMES, min_size=2, max_size=5), as_dir=st.booleans())
def test_a_missing_folder_is_refused_and_never_created(
    tmp_path: Path, parts: list[str], as_dir: bool
) -> None:
    """A typo in an output path must not build a tree of folders."""
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    before = sorted(base.rglob("*"))
    target = base.joinpath("missing", *parts)
    check = check_output_dir if as_dir else check_output_file
    with pytest.raises(typer.BadParameter, match="does not exist \\(create it first\\)"):
        check("--out", target)
    assert sorted(base.rglob("*")) == before


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(NAMES, min_size=1, max_size=4))
def test_any_path_below_a_regular_file_is_refused(tmp_path: Path, parts: list[str]) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    with pytest.raises(typer.BadParameter, match="not a folder"):
        check_output_file("--json", blocker.joinpath(*parts))
    with pytest.raises(typer.BadParameter, match="not a folder"):
        check_output_dir("--transcript", blocker.joinpath(*parts))


def test_an_existing_file_may_be_replaced_and_a_folder_may_not(tmp_path: Path) -> None:
    existing = tmp_path / "old.json"
    existing.write_text("{}")
    check_output_file("--json", existing)
    assert existing.read_text() == "{}"
    with pytest.raises(typer.BadParameter, match="is a folder"):
        check_output_file("--json", tmp_path)
    with pytest.raises(typer.BadParameter, match="is a file"):
        check_output_dir("--transcript", existing)


def test_a_device_is_not_an_output_file() -> None:
    with pytest.raises(typer.BadParameter, match="not a regular file"):
        check_output_file("--json", Path("/dev/zero"))


@given(port=st.one_of(st.integers(max_value=-1), st.integers(min_value=65_536)))
def test_ports_outside_the_range_are_refused(port: int) -> None:
    with pytest.raises(typer.BadParameter, match=r"0\.\.65535"):
        check_port("--port", port, "127.0.0.1")


def test_a_port_in_use_is_refused_and_a_free_one_accepted() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        busy = held.getsockname()[1]
        with pytest.raises(typer.BadParameter, match=f"127.0.0.1:{busy}"):
            check_port("--serve-metrics", busy, "127.0.0.1")
    check_port("--serve-metrics", 0, "127.0.0.1")  # 0: the server picks a free one


WORDS = st.text(st.sampled_from("ab1-="), max_size=4)


@given(before=st.lists(WORDS, max_size=4), values=st.lists(WORDS, min_size=1, max_size=3))
def test_the_value_found_is_the_last_one_given(before: list[str], values: list[str]) -> None:
    argv = [w for w in before if not w.startswith("--")]
    for index, value in enumerate(values):
        argv += ["--port", value] if index % 2 == 0 else [f"--port={value}"]
    assert found_value(["--port", "-p"], argv) == values[-1]


@pytest.mark.parametrize(
    ("environ", "tracing", "otlp", "named"),
    [
        ({"OTEL_TRACES_SAMPLER": "sometimes"}, True, False, "OTEL_TRACES_SAMPLER"),
        ({"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "nan"}, True, False,
         "OTEL_TRACES_SAMPLER_ARG"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://x"}, False, True,
         "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        ({"OTEL_EXPORTER_OTLP_TIMEOUT": "601"}, False, True, "OTEL_EXPORTER_OTLP_TIMEOUT"),
    ],
)  # fmt: skip
def test_a_variable_the_run_uses_is_checked(
    environ: dict[str, str], tracing: bool, otlp: bool, named: str
) -> None:
    with pytest.raises(typer.BadParameter) as raised:
        check_telemetry_environment(tracing=tracing, otlp=otlp, environ=environ)
    assert named in str(raised.value.param_hint)


def test_variables_the_run_does_not_use_are_left_alone() -> None:
    unused = {"OTEL_TRACES_SAMPLER": "sometimes", "OTEL_EXPORTER_OTLP_ENDPOINT": "x"}
    check_telemetry_environment(tracing=False, otlp=False, environ=unused)
    good = {
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
        "OTEL_TRACES_SAMPLER_ARG": "0.25",
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc,x-team=t",
        "OTEL_RESOURCE_ATTRIBUTES": "service.namespace=ci",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
    }
    check_telemetry_environment(tracing=True, otlp=True, environ=good)
