"""``trimscope dashboards build``: write the Grafana dashboard JSON that is committed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DEFAULT_OUT = Path("dashboards/json")


def register(app: typer.Typer) -> None:
    group = typer.Typer(no_args_is_help=True, help="Grafana dashboards as code.")

    @group.command("build")
    def build(
        out: Annotated[
            Path, typer.Option("--out", help="Directory to write the JSON into.")
        ] = DEFAULT_OUT,
        check: Annotated[
            bool, typer.Option("--check", help="Write nothing; exit 1 if --out is stale.")
        ] = False,
    ) -> None:
        """Render every dashboard to OUT/<uid>.json (sorted keys, deterministic)."""
        # Imported here so that other commands do not pay for loading the Grafana SDK.
        from dashboards import stale, write_all  # noqa: PLC0415

        if check:
            outdated = stale(out)
            for name in outdated:
                typer.echo(f"stale: {out / name}", err=True)
            raise typer.Exit(1 if outdated else 0)
        for path in write_all(out):
            typer.echo(str(path))

    app.add_typer(group, name="dashboards")
