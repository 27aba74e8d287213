"""Play seeded simulated games with some of the lookahead player's constants changed.

How the tuning figures in docs/win-rates.md were measured. Game i is dealt as by
``autoplay sim --seed S`` whatever the constants, and recorded in a statistics file under a strategy
named after the change (``lookahead`` alone without one), so ``autoplay stats --db`` pairs
the runs game by game. ``--set`` takes a JSON object of constants of
``autoplay.lookahead`` (``NEAR`` and the like; fractions as strings such as ``"8/10"``).

    python tools/tune.py tune.sqlite3 --preset beginner --seed 5 --games 20000
    python tools/tune.py tune.sqlite3 --preset beginner --seed 5 --games 20000 \
        --set '{"NEAR": "8/10"}'
    autoplay stats --db tune.sqlite3
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from fractions import Fraction
from functools import partial
from typing import Any

from autoplay import lookahead
from autoplay.sim import PRESETS, play_games
from autoplay.stats import StatsStore


def _value(name: str, value: Any) -> Any:
    """``value`` in the type of the constant it replaces."""
    current = getattr(lookahead, name)
    if isinstance(current, Fraction):
        return Fraction(value)
    if isinstance(current, tuple):
        return tuple(value)
    return type(current)(value)


def _set(constants: dict[str, Any]) -> None:
    """Change the constants in this (worker) process."""
    for name, value in constants.items():
        if not hasattr(lookahead, name):
            raise SystemExit(f"autoplay.lookahead has no constant {name}")
        setattr(lookahead, name, _value(name, value))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", help="the statistics file to record the games in")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--set", default="{}", help="JSON object of constants to change")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    constants = json.loads(args.set)
    _set(constants)  # fail here, not in a worker, on a name that does not exist
    strategy = " ".join(["lookahead", *(f"{name}={json.dumps(value)}"
                                        for name, value in sorted(constants.items()))])
    config = dataclasses.replace(PRESETS[args.preset], strategy="lookahead")
    with StatsStore(args.db) as store:
        for game in play_games(config, args.games, seed=args.seed, workers=args.workers,
                               setup=partial(_set, constants)):
            store.record(dataclasses.replace(game, strategy=strategy))


if __name__ == "__main__":
    main()
