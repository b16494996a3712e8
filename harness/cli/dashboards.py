"""``trimscope dashboards build``: write the Grafana dashboard JSON, the Prometheus alerting
rules, and the Grafana provisioning and example Prometheus files that are committed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.atomic import write_text_atomic
from harness.cli.lazy import group
from harness.cli.paths import check_outputs

HELP = "Grafana dashboards and Prometheus alerts as code."
DEFAULT_OUT = Path("dashboards/json")
DEFAULT_ALERTS = Path("dashboards/alerts.yml")
DEFAULT_PROVISIONING = Path("dashboards/provisioning")


def build(
    out: Annotated[
        Path, typer.Option("--out", help="Directory to write the JSON into.")
    ] = DEFAULT_OUT,
    alerts: Annotated[
        Path, typer.Option("--alerts", help="Prometheus rule file to write.")
    ] = DEFAULT_ALERTS,
    provisioning: Annotated[
        Path,
        typer.Option("--provisioning", help="Folder for Grafana provisioning and prometheus.yml."),
    ] = DEFAULT_PROVISIONING,
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 if any output is stale."),
    ] = False,
) -> None:
    """Render every dashboard to OUT/<uid>.json (sorted keys, deterministic), the
    alerting rules to ALERTS, and the provisioning files under PROVISIONING."""
    if not check:
        check_outputs({"--alerts": alerts}, {"--out": out, "--provisioning": provisioning})
    # Imported here so that other commands do not pay for loading the Grafana SDK.
    from dashboards import alerts_stale, stale, write_alerts, write_all  # noqa: PLC0415
    from dashboards.provisioning import (  # noqa: PLC0415
        provisioning_stale,
        write_provisioning,
    )

    if check:
        outdated = [out / name for name in stale(out)]
        if alerts_stale(alerts):
            outdated.append(alerts)
        outdated += [provisioning / name for name in provisioning_stale(provisioning)]
        for path in outdated:
            typer.echo(f"stale: {path}", err=True)
        raise typer.Exit(1 if outdated else 0)
    written = [
        *write_all(out, write_text_atomic),
        write_alerts(alerts, write_text_atomic),
        *write_provisioning(provisioning, write_text_atomic),
    ]
    for path in written:
        typer.echo(str(path))


def register(app: typer.Typer) -> None:
    app.add_typer(group(HELP, {"build": build}), name="dashboards")
