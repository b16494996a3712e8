"""``python -m bench.sut``: the protocol's overhead, as a ratio of wall-clock times.

One invocation runs, interleaved ``--rounds`` times, on the library's portable scenarios:

- ``trimscope run PATHS`` (the in-process reference against in-process fakes), and
- ``trimscope run --sut "trimscope sut reference" PATHS`` (the reference as a child
  process over the protocol, real HTTP to uvicorn fakes, judged, and compared with the
  in-process reference it also runs),

each a real ``trimscope`` process, timed whole (start-up included, as a user waits for
it). The medians' ratio is compared with the goal (at most ``GOAL_RATIO``) and printed
``met`` or ``NOT MET``. Wall time, not CPU time: the SUT run is two processes that wait
on each other, which is what a user waits for. This is a benchmark: nothing fails.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut.portable import not_portable

GOAL_RATIO: Final = 1.5
DEFAULT_ROUNDS: Final = 3
RUN_TIMEOUT_S: Final = 600.0
TRIMSCOPE: Final = Path(sys.executable).with_name("trimscope")


def portable_paths() -> list[str]:
    loaded = load_all([scenario_library()])
    return [str(item.path) for item in loaded if not_portable(item.scenario) is None]


def timed(argv: list[str]) -> float:
    """Wall seconds of one ``trimscope`` run; it must succeed (exit 0)."""
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {done.returncode}:\n{done.stdout}")
    return elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sut", description=__doc__)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, choices=range(1, 51))
    rounds = parser.parse_args(argv).rounds
    paths = portable_paths()
    in_process = [str(TRIMSCOPE), "run", "-q", *paths]
    sut = [str(TRIMSCOPE), "run", "-q", "--sut", f"{TRIMSCOPE} sut reference", *paths]
    walls: dict[str, list[float]] = {"in-process": [], "sut": []}
    for _ in range(rounds):  # interleaved: a machine whose speed drifts slows both alike
        walls["in-process"].append(timed(in_process))
        walls["sut"].append(timed(sut))
    base, over = statistics.median(walls["in-process"]), statistics.median(walls["sut"])
    ratio = over / base
    print(f"portable scenarios: {len(paths)}; rounds: {rounds} (medians of wall time)")
    print(f"trimscope run (in-process)              {base:7.2f} s")
    print(f"trimscope run --sut 'trimscope sut reference' {over:7.2f} s")
    verdict = "met" if ratio <= GOAL_RATIO else "NOT MET"
    print(f"ratio {ratio:.2f}x (goal <= {GOAL_RATIO}x): {verdict}")


if __name__ == "__main__":
    main()
