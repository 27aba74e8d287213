"""Count the Z3 checks ``deduce`` makes on the benchmark's positions, for each phase setting.

How the README's figure for ``phase=random`` was measured: the deducer keeps asking Z3 for
a model in which some still-unwitnessed cell takes its other value, and each model found
witnesses every cell at once, so the fewer cells successive models share, the fewer checks.
This counts them on the positions of ``autoplay bench --suite deduce`` (the article's
24x20 board, then 20 stuck expert positions), with the phase the deducer sets and with
Z3's default one, ``caching``.

    python tools/solver_checks.py
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from autoplay import pb
from autoplay.bench import SEED_003_BOARD, expert_positions
from autoplay.board import Board
from autoplay.deduction import deduce

PHASES = ("random", "caching")


@contextmanager
def counted(phase: str) -> Iterator[list[int]]:
    """Every :class:`~autoplay.pb.PbSolver` made inside uses ``phase``; the list's one item
    counts their checks."""
    calls = [0]
    init, check = pb.PbSolver.__init__, pb.PbSolver.check

    def set_phase(self: pb.PbSolver) -> None:
        init(self)
        self._solver.set("phase", phase)

    def count(self: pb.PbSolver, *args: object, **kwargs: object) -> bool | None:
        calls[0] += 1
        return check(self, *args, **kwargs)  # type: ignore[arg-type]

    pb.PbSolver.__init__ = set_phase  # type: ignore[method-assign]
    pb.PbSolver.check = count  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        pb.PbSolver.__init__ = init  # type: ignore[method-assign]
        pb.PbSolver.check = check  # type: ignore[method-assign]


def checks(positions: Sequence[Board], phase: str) -> int:
    """The checks ``deduce`` makes to settle every one of ``positions`` with ``phase``."""
    with counted(phase) as calls:
        for board in positions:
            deduce(board)
    return calls[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20, help="expert positions")
    args = parser.parse_args()
    suites = {"24x20 board of the article": [Board.parse(SEED_003_BOARD)],
              f"{args.positions} expert positions": expert_positions(args.positions)}
    for name, positions in suites.items():
        counts = ", ".join(f"{checks(positions, phase)} with {phase}" for phase in PHASES)
        print(f"{name}: {counts}")


if __name__ == "__main__":
    main()
