"""Measure what the player loses when it is not told the mine count, as on a screen without
``autoplay play --mines``.

Each deal of ``autoplay sim --seed S`` (first click safe) is played twice by the player:
once told the mine count, once shown the board without it (its guesses then assume a
count, see :func:`autoplay.odds.assume_mines`). It prints both win rates, with 95%
intervals, and the deals won by one of the two only.

    python tools/unknown_count.py --preset beginner --seed 5 --games 4000
    python tools/unknown_count.py --board 20x20/62 --seed 5 --games 1500
"""

from __future__ import annotations

import argparse
from functools import partial

from autoplay.board import Board, Cell
from autoplay.player import Outcome, play
from autoplay.report import wilson_interval
from autoplay.sim import PRESETS, SimConfig, SimGame, deal, game_seed, map_seeds, parse_board


class Uncounted:
    """A game that shows its board without the mine count, as a screen does without
    ``autoplay play --mines``."""

    def __init__(self, game: SimGame) -> None:
        self.game = game

    @property
    def outcome(self) -> Outcome:
        return self.game.outcome

    def observe(self) -> Board:
        return self.game.observe().with_mines(None)

    def reveal(self, cell: Cell) -> None:
        self.game.reveal(cell)

    def flag(self, cell: Cell) -> None:
        self.game.flag(cell)


def play_deal(config: SimConfig, seed: int) -> tuple[bool, bool]:
    """Whether deal ``seed`` is won by the player told the count, and by the one not told."""
    won = []
    for told in (True, False):
        game, rng = deal(config, seed)
        play(game if told else Uncounted(game), rng=rng, first_cell=config.first_cell)
        won.append(game.outcome == "won")
    return won[0], won[1]


def _board(text: str) -> SimConfig:
    parsed = parse_board(text)
    if parsed is None:
        raise argparse.ArgumentTypeError(f"expected WxH/M such as 20x20/62, got {text!r}")
    return SimConfig(*parsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("--board", type=_board, metavar="WxH/M", help="any board instead")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    config = args.board or PRESETS[args.preset]
    seeds = (game_seed(args.seed, i) for i in range(args.games))
    results = list(map_seeds(partial(play_deal, config), seeds, workers=args.workers))
    for name, wins in (("told the count", sum(told for told, _ in results)),
                       ("not told", sum(blind for _, blind in results))):
        low, high = wilson_interval(wins, len(results))
        print(f"{config.width}x{config.height}/{config.mines}, {len(results)} games of seed "
              f"{args.seed}, {name}: {wins} won, {wins / len(results):.2%} "
              f"[{low:.2%}, {high:.2%}]")
    print(f"won only when told: {sum(told and not blind for told, blind in results)}, "
          f"only when not told: {sum(blind and not told for told, blind in results)}")


if __name__ == "__main__":
    main()
