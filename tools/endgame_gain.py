"""Count what the endgame search gains over secondary safety, position by position.

How the figures of ``ENDGAME_LAYOUTS`` and ``ENDGAME_NODES`` in autoplay/lookahead.py were
measured. It plays the games of ``autoplay sim --seed S`` with the player as shipped, and
at each endgame search of more than ``--above`` layouts it counts, exactly, how many of
them the search's cell wins under the best play after it, and how many the cell that
secondary safety picks (the player with at most ``--above`` layouts searched) wins. A
game is a draw of those layouts, each equally likely, so the difference over the layouts
is what the search adds to the chance of winning that game; summed over the games and
divided by their number, to the win rate. Also how many positions each search looked at,
so the gain kept within each bound is known.

    python tools/endgame_gain.py --preset expert --seed 5 --games 1000
"""

from __future__ import annotations

import argparse
import dataclasses
import random
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from autoplay import lookahead
from autoplay.deduction import Problem
from autoplay.sim import PRESETS, SimConfig, game_seed, map_seeds, play_sim

BOUNDS = (100_000, 200_000, 400_000, 1_000_000)
"""The bounds on positions looked at that the totals are given for."""
MOST = 5_000_000
"""Positions an exact count may look at before the position is left out."""


class Search(NamedTuple):
    """One endgame search: its layouts, the positions it looked at, and the layouts won by
    its cell and by secondary safety's (None past :data:`MOST`)."""

    layouts: int
    looked: int
    search_wins: int | None
    secondary_wins: int | None


_found: list[Search] = []
_shipped = lookahead.endgame_move


def _watch(above: int) -> None:
    """Have this (worker) process's player report each endgame search of more than
    ``above`` layouts."""
    lookahead.endgame_move = partial(_counted, above)


def _counted(above: int, problem: Problem, layouts: Sequence[frozenset[int]], *,
             nodes: int = lookahead.ENDGAME_NODES) -> int | None:
    """The shipped search's move, after counting the search and its alternative.

    Searched once without the shipped bound: the same search finds the same cell when it
    looks at no more than ``nodes`` positions, and gives up (None) otherwise."""
    if len(layouts) <= above:
        return _shipped(problem, layouts, nodes=nodes)
    search = lookahead._Endgame(problem, layouts, MOST)
    try:
        wins, best = search.best(search.everything, search.splits, 0)
    except lookahead._TooBig:
        wins, best = None, None
    bound, lookahead.ENDGAME_LAYOUTS = lookahead.ENDGAME_LAYOUTS, above
    try:
        guess = lookahead.choose_guess(problem.board, random.Random(0))
    finally:
        lookahead.ENDGAME_LAYOUTS = bound
    other = problem.board.index(guess.cell)
    _found.append(Search(len(layouts), search.looked, wins,
                         lookahead.endgame_wins(problem, layouts, other, nodes=MOST)))
    return best if search.looked <= nodes else None


def play_one(config: SimConfig, seed: int) -> list[Search]:
    """The endgame searches of game ``seed``."""
    _found.clear()
    play_sim(config, seed)
    return list(_found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--above", type=int, default=1000,
                        help="count the searches of more than this many layouts")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    config = dataclasses.replace(PRESETS[args.preset], strategy="lookahead")
    seeds = (game_seed(args.seed, i) for i in range(args.games))
    found = [search for searches in map_seeds(partial(play_one, config), seeds,
                                              workers=args.workers,
                                              setup=partial(_watch, args.above))
             for search in searches]
    for search in sorted(found):
        print(*search)
    counted = [(s, s.search_wins - s.secondary_wins) for s in found
               if s.search_wins is not None and s.secondary_wins is not None]
    print(f"{len(found)} searches of more than {args.above} layouts in {args.games} games, "
          f"{len(counted)} counted exactly, {sum(gain != 0 for _, gain in counted)} where the "
          "search wins more or fewer than secondary safety")
    for bound in (*BOUNDS, MOST):
        kept = [gain / s.layouts for s, gain in counted if s.looked <= bound]
        games = sum(kept)
        print(f"within {bound:,} positions: {len(kept)} searches, {games:.3f} games more "
              f"won, {100 * games / args.games:.3f} point of win rate")


if __name__ == "__main__":
    main()
