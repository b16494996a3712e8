"""``python -m bench.sut_protocol_only PATHS``: what ``trimscope run --sut "trimscope sut
reference" PATHS`` does without the in-process reference it runs for the comparison (the
same ``SutSuite``, ``references=None``): the protocol's own cost, for ``bench.sut``.
Exit 0 when every scenario passed, 1 otherwise (the bench stops on it)."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.suite import SutSuite, run_sut_suite

TRIMSCOPE = Path(sys.executable).with_name("trimscope")


def main(paths: list[str]) -> int:
    loaded = load_all([Path(p) for p in paths])
    suite = SutSuite([str(TRIMSCOPE), "sut", "reference"], references=None)
    outcomes = run_sut_suite(suite, loaded, lambda _: None, StopRequest())
    failed = [o.scenario_id for o in outcomes if o.verdict not in ("PASS", "SKIP")]
    if failed or len(outcomes) != len(loaded):
        print(f"not passed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
