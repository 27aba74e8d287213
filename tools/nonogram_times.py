"""Time the nonogram solver on the clues of random pictures, to compare two commits.

How the README's figures for large nonograms were measured. For each seed, the clues of a
random side x side picture, each cell filled with odds 1/2 (``random.Random(seed)``, row by
row), are solved the way ``autoplay nonogram --count`` solves them: the seconds to the
first grid, and to the answer on a second one, model building included, within a time
limit per puzzle. Random pictures mostly allow many grids, and the time a SAT solver takes
on them varies widely from one to the next, so compare medians and the slowest over the
same seeds, with ``PYTHONPATH`` set to a worktree of each commit:

    python tools/nonogram_times.py --side 40 --seeds 10-25 --timeout 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from itertools import islice

from autoplay.errors import OutOfTime
from autoplay.nonogram import Clues, Grid, solutions


def random_clues(side: int, seed: int) -> Clues:
    """The clues of a random side x side picture, half its cells filled."""
    rng = random.Random(seed)
    return Grid(tuple(tuple(rng.random() < 0.5 for _ in range(side))
                      for _ in range(side))).clues()


def time_puzzle(clues: Clues, timeout: float) -> tuple[float | None, float | None, str]:
    """Seconds to the first grid (None when there is none) and to the answer on a second
    (None when out of time), and that answer: "none", "one", "several" or "out of time"."""
    start = time.perf_counter()
    to_first = None
    count = 0
    try:
        for _ in islice(solutions(clues, timeout), 2):
            count += 1
            to_first = to_first or time.perf_counter() - start
    except OutOfTime:
        return to_first, None, "out of time"
    return to_first, time.perf_counter() - start, ("none", "one", "several")[count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", type=int, default=40)
    parser.add_argument("--seeds", default="10-25", help="FIRST-LAST, both included, or one seed")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per puzzle")
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    answers = []
    for seed in seeds:
        to_first, to_answer, answer = time_puzzle(random_clues(args.side, seed), args.timeout)
        answers.append(args.timeout if to_answer is None else to_answer)
        shown = "-" if to_first is None else f"{to_first:.1f} s"
        print(f"seed {seed}: first grid {shown}, answer {answers[-1]:.1f} s ({answer})",
              flush=True)
    print(f"{len(answers)} puzzles of {args.side}x{args.side}: answer in a median "
          f"{statistics.median(answers):.1f} s, {sum(answers):.1f} s in all, the slowest "
          f"{max(answers):.1f} s (out of time counts {args.timeout:g} s)")


if __name__ == "__main__":
    main()
