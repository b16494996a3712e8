"""Start Arize Phoenix (``phoenix serve``) with every listener on 127.0.0.1.

Run it with the Python of Phoenix's own venv (``.tools/phoenix/bin/python``, installed by
``scripts/ensure-phoenix.sh``); never imported by trimscope. The HTTP server (UI, REST API
and OTLP/HTTP at ``/v1/traces``) binds ``PHOENIX_HOST``, set to 127.0.0.1 here. Phoenix's
gRPC OTLP listener binds ``[::]`` (every interface) with no setting for its address, so it
is switched off: trimscope exports OTLP over HTTP and needs no gRPC.

Usage: ``python scripts/phoenix_loopback.py PORT WORKING_DIR``
"""

from __future__ import annotations

import os
import sys
from typing import Any

LOOPBACK = "127.0.0.1"


async def _no_grpc_listener(self: Any) -> None:
    """Replaces ``GrpcServer.__aenter__``: no server started, so ``__aexit__`` has nothing
    to stop."""


def main(port: str, working_dir: str) -> None:
    os.environ.update(
        PHOENIX_HOST=LOOPBACK,
        PHOENIX_PORT=port,
        PHOENIX_WORKING_DIR=working_dir,  # its SQLite database: a throw-away folder
        PHOENIX_TELEMETRY_ENABLED="false",
        PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",  # no fonts, pixels or downloads
    )
    # Imported only now: Phoenix reads its settings from the environment at import.
    from phoenix.server import grpc_server  # noqa: PLC0415
    from phoenix.server.main import main as phoenix_main  # noqa: PLC0415

    grpc_server.GrpcServer.__aenter__ = _no_grpc_listener  # type: ignore[method-assign]
    sys.argv = ["phoenix", "serve"]
    phoenix_main()


if __name__ == "__main__":
    main(*sys.argv[1:3])
