"""Compare files of ``tools/tune.py`` with the first, game by game.

For each file: its win rate with a 95% Wilson interval; for each after the first, the games
only it won and only the first won, and the paired difference with its 95% interval.

    python tools/compare.py base.jsonl near.jsonl
"""

from __future__ import annotations

import json
import math
import sys


def _won(path: str) -> dict[int, bool]:
    with open(path) as lines:
        return {game["i"]: game["won"] for game in map(json.loads, lines)}


def _wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    rate, spread = wins / games, z * z / games
    middle = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / games + spread / (4 * games)) / (1 + spread)
    return middle - half, middle + half


def main() -> None:
    paths = sys.argv[1:]
    if not paths:
        raise SystemExit("usage: compare.py BASE.jsonl [OTHER.jsonl ...]")
    runs = [_won(path) for path in paths]
    for path, run in zip(paths, runs):
        wins, games = sum(run.values()), len(run)
        low, high = _wilson(wins, games)
        print(f"{path}: {wins}/{games} won, {100 * wins / games:.2f}% "
              f"[{100 * low:.2f}-{100 * high:.2f}]")
    base = runs[0]
    for path, run in zip(paths[1:], runs[1:]):
        common = base.keys() & run.keys()
        games = len(common)
        only_this = sum(run[i] and not base[i] for i in common)
        only_base = sum(base[i] and not run[i] for i in common)
        difference = (only_this - only_base) / games
        error = math.sqrt(only_this + only_base - (only_this - only_base) ** 2 / games) / games
        print(f"{path} against {paths[0]}, {games} games: won only by it {only_this}, "
              f"only by {paths[0]} {only_base}; difference {100 * difference:+.2f} "
              f"[{100 * (difference - 1.96 * error):+.2f}, {100 * (difference + 1.96 * error):+.2f}]")


if __name__ == "__main__":
    main()
