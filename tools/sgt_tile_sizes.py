"""How the bot plays Tatham's Mines when the game draws its tiles at other sizes than the
20 px the skin was learned at.

sgt-mines takes its tile size from ``MINES_TILESIZE`` (and redraws its tiles to fit a
resized window). For each size given, this starts the game on a virtual screen with that
tile size, has the bot play ``--games`` games of 9x9 with 10 mines, and prints one line:
the games won and lost, or the error that stopped the run, with the games played before it.
The game deals its own layouts, so runs differ; ``--seed`` fixes only the bot's ties.

    python tools/sgt_tile_sizes.py --games 5 10 12 14 16 18 20 24 33 50
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
from concurrent.futures import ProcessPoolExecutor

from autoplay.desktop import VirtualDisplay, launch_game
from autoplay.errors import AutoplayError, plural
from autoplay.player import play
from autoplay.screen import Screen, find_game, play_games
from autoplay.vision import load_skins


def play_at(size: int, games: int, seed: int) -> str:
    """The bot's games at tile size ``size``, in words, with the cell size it found."""
    os.environ["MINES_TILESIZE"] = str(size)  # the game started here inherits it
    rng = random.Random(seed)
    found = "no board found"
    won = lost = 0
    try:
        with VirtualDisplay(1280, 1024) as display, \
                launch_game("sgt-mines", display.name, ["9x9n10"]):
            screen = Screen(display.name)
            try:
                game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                                 mines=10, timeout=10.0)
                found = f"cells of {game.geometry.pitch_x:.1f} px found"
                for record in play_games(game, games, lambda g: play(g, rng=rng)):
                    won, lost = won + record.won, lost + (not record.won)
            finally:
                screen.close()
    except AutoplayError as error:
        return (f"{size} px, {found}: stopped after {plural(won + lost, 'game')} "
                f"({won} won): {error}")
    return f"{size} px, {found}: {won} won, {lost} lost"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="+", metavar="PX")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    # A process clicks on one display only (pyautogui's connection), so each size gets its own.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                             max_tasks_per_child=1) as pool:
        for size in options.sizes:
            print(pool.submit(play_at, size, options.games, options.seed).result(), flush=True)


if __name__ == "__main__":
    main()
