"""Play seeded simulated games with some of the lookahead player's constants changed.

How the tuning figures in the README were measured: game i is dealt as by ``autoplay sim
--seed S`` (same deal whatever the constants), and each game's result is written as a
line of JSON ``{"i", "won", "seconds", "guesses"}``, so two files compare game by game
(``tools/compare.py``). ``--set`` takes a JSON object of constants of
``autoplay.lookahead`` (``NEAR`` and the like; fractions as strings such as ``"8/10"``).

    python tools/tune.py base.jsonl --preset beginner --seed 5 --games 20000
    python tools/tune.py near.jsonl --preset beginner --seed 5 --games 20000 --set '{"NEAR": "8/10"}'
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

from autoplay import lookahead
from autoplay.sim import PRESETS, SimConfig, game_seed, play_sim


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


def _play(job: tuple[SimConfig, int, int]) -> dict[str, Any]:
    config, i, seed = job
    start = time.perf_counter()
    result = play_sim(config, game_seed(seed, i))
    return {"i": i, "won": result.won, "seconds": time.perf_counter() - start,
            "guesses": len(result.guesses)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the JSON lines file to write")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--set", default="{}", help="JSON object of constants to change")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    constants = json.loads(args.set)
    _set(constants)  # fail here, not in a worker, on a name that does not exist
    config = replace(PRESETS[args.preset], strategy="lookahead")
    jobs = [(config, i, args.seed) for i in range(args.games)]
    context = multiprocessing.get_context("spawn")
    with (context.Pool(args.workers, initializer=_set, initargs=(constants,)) as pool,
          open(args.out, "w") as out):
        games = pool.imap_unordered(_play, jobs, chunksize=4)
        out.writelines(json.dumps(game) + "\n" for game in games)


if __name__ == "__main__":
    main()
