"""Force the first guess of seeded simulated games, to measure which cell it should be.

How the first-guess figures of docs/win-rates.md were measured. Of the deals of ``autoplay
sim --seed S`` (first click safe), it keeps those whose first click shows ``--shows N``, so that a
guess must come next. On each it plays the player as it is, and again once per listed cell
with that cell opened first and the player going on from there. Every game is recorded in
a statistics file, the forced ones under a strategy naming their cell, so ``autoplay stats
--db`` gives each one's win rate and pairs them deal by deal.

    python tools/first_guess.py first-guess.sqlite3 --preset beginner --seed 100 \\
        --deals 30000 --shows 1 8,8 0,8 0,2
    autoplay stats --db first-guess.sqlite3
"""

from __future__ import annotations

import argparse
import dataclasses
from functools import partial

from autoplay.board import Cell
from autoplay.odds import mine_probabilities
from autoplay.player import play
from autoplay.sim import PRESETS, SimConfig, deal, game_record, game_seed, map_seeds, play_sim
from autoplay.stats import GameRecord, StatsStore


def forced_name(cell: Cell) -> str:
    """The strategy a forced cell's games are recorded under."""
    return f"lookahead, first guess {cell.row},{cell.col}"


def play_deal(config: SimConfig, shows: int, cells: tuple[Cell, ...],
              seed: int) -> list[GameRecord]:
    """The player's game of deal ``seed`` and one game per forced cell, or none when its
    first click does not show ``shows``."""
    game, _ = deal(config, seed)
    game.reveal(config.first_cell)
    board = game.observe()
    if game.outcome != "playing" or board[config.first_cell] != shows:
        return []
    risk = mine_probabilities(board).probabilities
    games = [play_sim(config, seed)]
    for cell in cells:
        game, rng = deal(config, seed)
        game.reveal(config.first_cell)
        game.reveal(cell)
        rest = game_record(config, seed, game, play(game, rng=rng, strategy=config.strategy))
        games.append(dataclasses.replace(
            rest, first_cell=config.first_cell, clicks=rest.clicks + 2,
            guesses=(float(risk[cell]), *rest.guesses),
            strategy=forced_name(cell)))
    return games


def _cell(text: str) -> Cell:
    row, col = text.split(",")
    return Cell(int(row), int(col))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", help="the statistics file to record the games in")
    parser.add_argument("cells", nargs="+", type=_cell, help="first guesses to force, as ROW,COL")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--deals", type=int, default=1000, help="deals to look at")
    parser.add_argument("--shows", type=int, choices=range(1, 9), default=1,
                        help="the number the first click must show")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    config = PRESETS[args.preset]
    for cell in args.cells:
        if cell == config.first_cell or not (0 <= cell.row < config.height
                                             and 0 <= cell.col < config.width):
            parser.error(f"{cell.row},{cell.col} is the first click or off the board")
    play_one = partial(play_deal, config, args.shows, tuple(args.cells))
    seeds = (game_seed(args.seed, i) for i in range(args.deals))
    with StatsStore(args.db) as store:
        for games in map_seeds(play_one, seeds, workers=args.workers):
            for game in games:
                store.record(game)


if __name__ == "__main__":
    main()
