"""How GNOME Mines' board reads in windows of other sizes than the skin was learned at.

GNOME Mines draws its tiles to fit its window, so a desktop user's board can have cells of
any size. This plays a few random clicks on a board in the window the skin knows (610x460,
or 1000x460 for 30x16), reads it there as the truth (every fixture at those sizes reads
exactly), then makes the window each size given and reads the same position again, one
line a size: the pitch found, and the cells not recognised and read wrong, or the error.
The game deals its own layouts, so runs differ; ``--seed`` fixes only the clicks.
``--keep`` saves the truth and the windows; ``--reread`` reads the kept windows again
(with the autoplay found first on ``PYTHONPATH``: two commits on the same pictures), and
tallies them: read exactly, with cells not recognised, with cells read wrong, as a board
of another size, or refused.

    python tools/gnome_sizes.py --board medium --seed 1 800x600 1100x800 1440x900
    python tools/gnome_sizes.py --board crowded --seed 2 --keep /tmp/sizes 1024x768
    python tools/gnome_sizes.py --reread /tmp/sizes
    python tools/gnome_sizes.py --board small --clicks 0 --keep /tmp/new 850x640

Boards: ``small`` (8x8), ``medium`` (16x16), ``big`` (30x16) and ``crowded`` (16x16 with
40% mines, for high counts and many mines once lost).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fixtures"))

from capture import Setup, gnome_custom, gnome_setup, start

from autoplay.board import EXPLODED, UNKNOWN, Board
from autoplay.desktop import GameWindow, VirtualDisplay
from autoplay.errors import AutoplayError
from autoplay.locate import read_screenshot
from autoplay.vision import Image, Reading, Skin, decode_image, load_skins

BOARDS: dict[str, tuple[Setup, tuple[int, int]]] = {
    "small": (gnome_setup("8x8", ["--small"], 8, 8, 10), (610, 460)),
    "medium": (gnome_setup("16x16", ["--medium"], 16, 16, 40), (610, 460)),
    "big": (gnome_setup("30x16", ["--big"], 30, 16, 99, window_size=(1000, 460)), (1000, 460)),
    "crowded": (gnome_custom("16x16-crowded", 16, 16, 40), (610, 460)),
}
CLICKS = 14
"""Random clicks (a quarter of them flags) before the position is read, fewer if it is lost;
``--clicks 0`` reads a new game's covered board, which a player locates before its first
click."""


def still_grab(game: GameWindow) -> Image:
    """The window, the pointer parked off the board (GNOME Mines lights the tile under it)."""
    game.move(2, game.region().height - 2)
    time.sleep(0.2)
    return game.grab_still()


def play_some(game: GameWindow, skins: list[Skin], rng: random.Random, clicks: int
              ) -> Reading:
    """Click covered cells at random until ``clicks`` clicks or a lost game; the reading."""
    reading = read_screenshot(still_grab(game), skins)
    for _ in range(clicks):
        board, geometry = reading.board, reading.geometry
        covered = [cell for cell in board.cells() if board[cell] == UNKNOWN]
        if not covered or EXPLODED in board.states:
            break
        x, y = geometry.centre(rng.choice(covered))
        game.click(round(x), round(y), 3 if rng.random() < 0.25 else 1)
        time.sleep(0.15)
        reading = read_screenshot(still_grab(game), skins)
    return reading


def compare(truth: Board, image: Image, skins: list[Skin]) -> tuple[str, str]:
    """How ``image`` reads against the truth: a kind (``exact``, ``unrecognised``,
    ``wrong``, ``size`` or ``error``) and the same in words."""
    try:
        got = read_screenshot(image, skins)
    except AutoplayError as error:
        return "error", f"error: {error}"
    size = (got.board.width, got.board.height)
    if size != (truth.width, truth.height):
        return "size", f"read as a {size[0]}x{size[1]} board"
    unrecognised = {item.cell for item in got.unrecognized}
    wrong = [cell for cell in got.board.cells()
             if got.board[cell] != truth[cell] and cell not in unrecognised]
    kind = "wrong" if wrong else "unrecognised" if unrecognised else "exact"
    return kind, (f"pitch {got.geometry.pitch_x:.1f}x{got.geometry.pitch_y:.1f}, "
                  f"{len(unrecognised)} not recognised, {len(wrong)} read wrong")


def collect(args: argparse.Namespace, skins: list[Skin]) -> None:
    """Play a position, read it in the window the skin knows, then in the other sizes."""
    sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes]
    setup, home_size = BOARDS[args.board]
    stem = f"{args.board}-{args.seed}"
    with VirtualDisplay(1920, 1200) as display, start(display.name, setup) as game:
        game.place(0, 0)
        game.resize(*home_size)
        truth = play_some(game, skins, random.Random(args.seed), args.clicks)
        if not truth.is_complete():
            raise SystemExit(f"the position does not read whole at {home_size}: {truth.text()}")
        print(f"the truth, at {home_size[0]}x{home_size[1]}:\n{truth.board}")
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"{stem}-truth.txt").write_text(f"{truth.board}\n", encoding="utf-8")
        for width, height in sizes:
            game.resize(width, height)
            image = still_grab(game)
            if args.keep:
                cv2.imwrite(str(args.keep / f"{stem}-{width}x{height}.png"), image)
            print(f"{width}x{height}: {compare(truth.board, image, skins)[1]}", flush=True)


def reread(folder: Path, skins: list[Skin]) -> None:
    """Read every window kept in ``folder`` against its position's truth, then the tally."""
    tally: Counter[str] = Counter()
    for truth_file in sorted(folder.glob("*-truth.txt")):
        truth = Board.parse(truth_file.read_text(encoding="utf-8"))
        stem = truth_file.name.removesuffix("truth.txt")
        for path in sorted(folder.glob(f"{stem}*x*.png")):
            kind, said = compare(truth, decode_image(path.read_bytes(), path.name), skins)
            tally[kind] += 1
            print(f"{path.name}: {said}", flush=True)
    print(", ".join(f"{kind} {tally[kind]}" for kind in
                    ("exact", "unrecognised", "wrong", "size", "error")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", help="window sizes, such as 1100x800")
    parser.add_argument("--board", choices=BOARDS, default="medium")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clicks", type=int, default=CLICKS,
                        help="random clicks before the position is read (0: a new game)")
    parser.add_argument("--keep", type=Path,
                        help="a folder to save the truth and each window's picture in")
    parser.add_argument("--reread", type=Path,
                        help="read the windows kept in this folder again, and nothing else")
    args = parser.parse_args()
    skins = load_skins("gnome-mines")
    if args.reread:
        reread(args.reread, skins)
    else:
        collect(args, skins)


if __name__ == "__main__":
    main()
