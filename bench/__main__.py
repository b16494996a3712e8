"""``python -m bench``: the trimming-speed bench (``bench/trim.py``), or with ``load`` first
the load bench (``python -m bench load``, ``bench/load.py``), or with ``soak`` first the
soak (``bench/soak.py``). Only dispatches: each bench
is a module of its own."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["load"]:
        from bench.load import main as load_main  # noqa: PLC0415 (only the bench asked for)

        return load_main(given[1:])
    if given[:1] == ["soak"]:  # `python -m bench soak`: every output agrees (bench/soak.py)
        from bench.soak import main as soak_main  # noqa: PLC0415

        return soak_main(given[1:])
    from bench.trim import main as trim_main  # noqa: PLC0415

    return trim_main(given)


if __name__ == "__main__":
    sys.exit(main())
