"""``trimscope dashboards build``: write the Grafana dashboard JSON and the Prometheus alerting
rules that are committed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.atomic import write_text_atomic

DEFAULT_OUT = Path("dashboards/json")
DEFAULT_ALERTS = Path("dashboards/alerts.yml")


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        no_args_is_help=True, help="Grafana dashboards and Prometheus alerts as code."
    )

    @group.command("build")
    def build(
        out: Annotated[
            Path, typer.Option("--out", help="Directory to write the JSON into.")
        ] = DEFAULT_OUT,
        alerts: Annotated[
            Path, typer.Option("--alerts", help="Prometheus rule file to write.")
        ] = DEFAULT_ALERTS,
        check: Annotated[
            bool,
            typer.Option("--check", help="Write nothing; exit 1 if --out or --alerts is stale."),
        ] = False,
    ) -> None:
        """Render every dashboard to OUT/<uid>.json (sorted keys, deterministic) and the
        alerting rules to ALERTS."""
        # Imported here so that other commands do not pay for loading the Grafana SDK.
        from dashboards import alerts_stale, stale, write_alerts, write_all  # noqa: PLC0415

        if check:
            outdated = [out / name for name in stale(out)]
            if alerts_stale(alerts):
                outdated.append(alerts)
            for path in outdated:
                typer.echo(f"stale: {path}", err=True)
            raise typer.Exit(1 if outdated else 0)
        for path in [*write_all(out, write_text_atomic), write_alerts(alerts, write_text_atomic)]:
            typer.echo(str(path))

    app.add_typer(group, name="dashboards")
