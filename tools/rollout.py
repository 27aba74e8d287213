"""Measure what one step of rollout search would add to the player's guesses.

Policy improvement, measured rather than played (it is far too slow to play with). In the
games of ``autoplay sim --seed S`` (first click safe), every guess the player makes by
secondary safety is looked at again, except those made with only the first click open
(``tools/first_guess.py`` measures these). The position is dealt ``--layouts`` times, each
layout drawn from those that fit it, all equally likely. Each candidate is opened on every
one of them, with the player going on to the end. The candidates are the player's pick,
then the safest cells with nine tenths of the safest one's safety, up to ``--candidates``.
A candidate's wins over these shared layouts estimate its chance of winning the game.

The gain is estimated without the winner's curse by splitting the layouts in two halves.
The best candidate of one half is scored on the other, against the player's pick, and the
two ways round are averaged. Summed over a game's guesses and averaged over the games,
that is what a player choosing these guesses by rollouts of half as many layouts would
add to the win rate. A fixed rule needs no split: always opening the k-th candidate
instead of the pick is scored on all the layouts. The best candidate on all of them,
against the pick, is printed too: noise inflates it, so it bounds from above what the
best choice among the candidates could add.

    python tools/rollout.py rollout.jsonl --preset beginner --seed 5 --games 1000
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from autoplay.board import UNKNOWN, Board, Cell
from autoplay.deduction import Problem
from autoplay.lookahead import NEAR
from autoplay.odds import LayoutCounter, mine_probabilities, unopened_around
from autoplay.player import Outcome, play
from autoplay.sim import PRESETS, SimConfig, SimGame, deal, game_seed, map_seeds


class _Watched:
    """A game that keeps the board it showed before each reveal."""

    def __init__(self, game: SimGame) -> None:
        self.game = game
        self.before: dict[Cell, Board] = {}

    @property
    def outcome(self) -> Outcome:
        return self.game.outcome

    def observe(self) -> Board:
        return self.game.observe()

    def reveal(self, cell: Cell) -> None:
        self.before[cell] = self.game.observe()
        self.game.reveal(cell)

    def flag(self, cell: Cell) -> None:
        self.game.flag(cell)


@dataclass(frozen=True, slots=True)
class Position:
    """A guess the player made: the board it saw, and the cell it chose."""

    guess: int
    """Which of the game's guesses, from 0."""
    board: Board
    pick: Cell


def positions(config: SimConfig, seed: int) -> list[Position]:
    """The player's guesses by secondary safety in the game dealt from ``seed``, but not
    those made with only the first click open."""
    game, rng = deal(config, seed)
    watched = _Watched(game)
    result = play(watched, rng=rng, first_cell=config.first_cell)
    return [Position(k, watched.before[guess.cell], guess.cell)
            for k, guess in enumerate(result.guesses)
            if guess.reason == "secondary safety"
            and sum(s >= 0 for s in watched.before[guess.cell].states) > 1]


def candidates(board: Board, pick: Cell, most: int) -> list[Cell]:
    """``pick``, then the safest cells with at least :data:`NEAR` of the safest one's
    safety, fewest unopened neighbours first on a tie (as the player orders them)."""
    risk = mine_probabilities(board).probabilities
    safest = 1 - min(risk.values())
    near = sorted((cell for cell, p in risk.items() if 1 - p >= NEAR * safest and cell != pick),
                  key=lambda cell: (risk[cell], unopened_around(board, board.index(cell)), cell))
    return [pick, *near][:most]


def outcomes(board: Board, cells: Sequence[Cell], layouts: int, seed: int) -> list[list[bool]]:
    """For each of ``cells``, whether the player wins after opening it first, on each of
    ``layouts`` layouts drawn (from ``seed``) from those that fit ``board``."""
    rng = random.Random(seed)
    draw = LayoutCounter().sampler(Problem(board))
    assert draw is not None, "the player counted this position within the same bound"
    drawn = [(frozenset(map(board.cell, draw(rng))), rng.getrandbits(64))
             for _ in range(layouts)]
    return [[_wins(board, mines, cell, random.Random(tie_breaks)) for mines, tie_breaks in drawn]
            for cell in cells]


def _wins(board: Board, mines: frozenset[Cell], cell: Cell, rng: random.Random) -> bool:
    """Whether the player wins the game of ``board`` on ``mines`` after opening ``cell``."""
    game = SimGame.with_layout(board.width, board.height, mines)
    for opened in board.cells():
        if board[opened] != UNKNOWN:
            game.reveal(opened)
    game.reveal(cell)
    if game.outcome != "playing":
        return game.outcome == "won"
    return play(game, rng=rng).won


def study(config: SimConfig, layouts: int, most: int, seed: int) -> list[dict[str, Any]]:
    """The rollouts of every guess :func:`positions` finds in the game dealt from ``seed``."""
    found = []
    for position in positions(config, seed):
        cells = candidates(position.board, position.pick, most)
        wins = outcomes(position.board, cells, layouts, seed ^ position.guess)
        found.append({"seed": seed, "guess": position.guess, "board": str(position.board),
                      "cells": [list(cell) for cell in cells],
                      "wins": ["".join("1" if won else "0" for won in row) for row in wins]})
    return found


def split_gain(wins: Sequence[str]) -> float:
    """What choosing by half the layouts adds over the first row (the player's pick), scored
    on the other half and averaged over both ways round."""
    halves = [[row[half::2].count("1") / len(row[half::2]) for row in wins] for half in (0, 1)]
    gain = 0.0
    for chosen, scored in ((halves[0], halves[1]), (halves[1], halves[0])):
        best = max(range(len(wins)), key=lambda i: (chosen[i], i == 0))
        gain += scored[best] - scored[0]
    return gain / 2


def summary(records: Sequence[dict[str, Any]], games: int) -> dict[str, Any]:
    """What choosing by rollouts adds per game, in points with a 95% interval over the
    games; the same for always opening the k-th candidate instead of the pick (a fixed
    rule, so its estimate is unbiased on all the layouts); the biased best-on-all-layouts
    figure; and how often the pick was that best."""
    split: dict[int, float] = {}
    instead: dict[int, dict[int, float]] = {}
    naive = 0.0
    agree = 0
    for record in records:
        seed = record["seed"]
        rates = [row.count("1") / len(row) for row in record["wins"]]
        split[seed] = split.get(seed, 0.0) + split_gain(record["wins"])
        for k, rate in enumerate(rates[1:], 1):
            by_game = instead.setdefault(k, {})
            by_game[seed] = by_game.get(seed, 0.0) + rate - rates[0]
        naive += max(rates) - rates[0]
        agree += rates[0] == max(rates)
    return {"games": games, "positions": len(records),
            "rollout_choice_points": _per_game(split, games),
            "kth_candidate_points": {k: _per_game(by_game, games)
                                     for k, by_game in sorted(instead.items())},
            "best_on_all_layouts_points": 100 * naive / games,
            "pick_was_best": agree}


def _per_game(gains: dict[int, float], games: int) -> list[float]:
    """The mean over ``games`` games of the gains summed by game (those of the games not
    in ``gains`` are 0), and its 95% interval, in points."""
    values = [*gains.values()] + [0.0] * (games - len(gains))
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(games)
    return [100 * mean, 100 * (mean - half), 100 * (mean + half)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="a JSON-lines file for each position's rollouts")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--layouts", type=int, default=400, help="layouts dealt per position")
    parser.add_argument("--candidates", type=int, default=5, help="cells tried per position")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be at least 2, for an interval")
    config = PRESETS[args.preset]
    play_one = partial(study, config, args.layouts, args.candidates)
    seeds = (game_seed(args.seed, i) for i in range(args.games))
    records: list[dict[str, Any]] = []
    with open(args.out, "w", encoding="utf-8") as out:
        for found in map_seeds(play_one, seeds, workers=args.workers):
            out.writelines(json.dumps(record) + "\n" for record in found)
            out.flush()
            records += found
    print(json.dumps(summary(records, args.games)))


if __name__ == "__main__":
    main()
