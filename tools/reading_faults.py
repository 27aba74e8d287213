"""Count the screenshots that read wrong: every fixture on plain desktops, and cut by the
image's edge.

``borders``: each fixture in the middle of a plain desktop of 0, 150, 192 and 255 grey,
100 pixels all round; each reading is exact, refused (an error), unrecognised (the right
board, with cells reported), wrong with cells reported (another size or skin), or
silently wrong. ``cuts``: fixtures drawn at random at 100%, 75%, 125% and
150%, each cut by a line through its board between a fifth and a half of the way in, from
a side drawn at random; each is refused as cut, refused otherwise, or read (see
:func:`cut_reading`).
``cut-each``: every fixture at each of those scales, cut once, the cut drawn from the
fixture's name and the scale alone, one line per case: two commits' lines compare case by
case (in ``cuts`` a board found by one commit and not by the other moves every later draw).
``whole``: every fixture at those scales, which must not be refused as cut, said to
reach the image's edge nor to show another board. ``margins``:
every fixture cropped to its board and :data:`MARGINS` pixels round it, as a user crops a
screenshot, tallied as for ``borders``. ``slivers``:
every fixture cut 1 to 4 pixels, a quarter and a half of a cell into its outermost line of
cells from each side in turn, at each scale of ``cuts``, tallied as for ``cuts`` (each
reading not refused as cut nor said to reach the edge printed). ``clipped``: likewise,
every fixture's outermost line of cells shown a quarter, two fifths, three fifths and
four fifths of a cell deep, the window's frame beyond it moved in, as a window too small
for its board shows it. ``past``: every fixture cut through its middle line of cells from
each side in turn, 1 to 4 pixels, a quarter and a half of a cell of that line left showing
beyond the lines whole, tallied as for ``slivers``. ``scales``:
every fixture at 75%, 90%, 110% and 150%, each reading tallied as for ``borders``.
``phases``: every fixture on a desktop of 150 grey, moved by 0 to 5 pixels each way
(:data:`SHIFTS`), so that its cells fall on the coarse search's pixels in every phase
(a cell of 48 pixels is 6 of the image's pixels to one of them), tallied as for
``borders``. ``readings``: every fixture at each of :data:`READING_SCALES` (or each
``--scale``) on a desktop of 150 grey, one JSON line each with what was read (or the
error) and the seconds it took, so that two commits' readings and times can be compared
case by case.

    python tools/reading_faults.py borders
    python tools/reading_faults.py cuts --seed 11 --count 40
    python tools/reading_faults.py cut-each
    python tools/reading_faults.py whole
    python tools/reading_faults.py margins
    python tools/reading_faults.py slivers
    python tools/reading_faults.py slivers --scale 0.75 --scale 1.25
    python tools/reading_faults.py clipped
    python tools/reading_faults.py past --scale 1
    python tools/reading_faults.py scales
    python tools/reading_faults.py phases
    python tools/reading_faults.py readings > readings.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from autoplay.board import Board
from autoplay.errors import BoardCut, NoBoardFound, listed
from autoplay.locate import edges_in_words, others_in_words, read_screenshot
from autoplay.vision import Image, Reading, Skin, decode_image, load_skins

Box = tuple[int, int, int, int]
"""A board's box in pixels: x0, y0, x1, y1."""
FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "screenshots")
                  .glob("*/*.png"))
SCALES = (1.0, 0.75, 1.25, 1.5)
RESCALES = (0.75, 0.9, 1.1, 1.5)
READING_SCALES = (0.75, 0.9, 1.1, 1.25, 1.5, 1.75, 2.0)
"""Shrunk by area averaging, grown by bilinear interpolation (:func:`scaled`): the display
scalings 125% to 200%, and sizes between them and under 100%, which none gives."""
MARGINS = (1, 2, 3, 5, 8, 12)
"""Pixels of the window kept round the board by ``margins``: less than a cell."""
SLIVERS = (1, 2, 3, 4)
"""Pixels cut into a board's outermost line of cells by ``slivers``, besides a quarter and
a half of a cell."""
CLIPS = (1 / 4, 2 / 5, 3 / 5, 4 / 5)
"""How much of a cell of a board's outermost line ``clipped`` shows."""
SHIFTS = ((0, 0), (1, 3), (2, 5), (3, 1), (4, 4), (5, 2))
"""Moves (right, down) of a fixture on its desktop: every phase of a 6-pixel step once
each way."""


def shipped_skins() -> list[Skin]:
    """The skins in ``templates/``, not the user's learned ones: a learned skin reading a
    fixture right under another name would count as a wrong reading."""
    return load_skins(learned=False)


def picture(path: Path) -> Image:
    return decode_image(path.read_bytes(), path.name)


def pictures() -> Iterator[tuple[Path, Image]]:
    """Every fixture and its picture, each decoded once."""
    for path in FIXTURES:
        yield path, picture(path)


def scaled(image: Image, scale: float) -> Image:
    if scale == 1.0:
        return image
    return np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=(
        cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)), np.uint8)


def truth_of(path: Path) -> Board:
    """The true board of fixture ``path``."""
    return Board.parse(path.with_name(path.stem + ".board.txt").read_text())


def outcome(image: Image, path: Path, skins: list[Skin]) -> str:
    """How ``image``, showing the board of fixture ``path``, reads: exact, refused (an
    error), unrecognised (the right board, with cells reported), wrong with cells reported
    (another size or skin), or silently wrong."""
    truth = truth_of(path)
    try:
        reading = read_screenshot(image, skins)
    except NoBoardFound:
        return "refused"
    board = reading.board
    right = (reading.skin, board.width, board.height) == (path.parent.name, truth.width,
                                                           truth.height)
    if reading.unrecognized:
        return "unrecognised" if right else "wrong, cells reported"
    return "exact" if right and str(board) == str(truth) else "silently wrong"


def on_desktop(image: Image, grey: int, right: int = 0, down: int = 0) -> Image:
    """``image`` on a plain desktop of ``grey``, 100 pixels all round before it is moved
    ``right`` and ``down``."""
    height, width = image.shape[:2]
    desktop = np.full((height + 200, width + 200, 3), grey, np.uint8)
    desktop[100 + down:100 + down + height, 100 + right:100 + right + width] = image
    return desktop


def tally(cases: Iterable[tuple[Image, Path, str]], skins: list[Skin]) -> Counter[str]:
    """The outcomes of ``cases`` (an image, the fixture it shows, and how it was made from
    it), counted; each one not exact is printed as it comes."""
    counts: Counter[str] = Counter()
    for image, path, how in cases:
        counts[found := outcome(image, path, skins)] += 1
        if found != "exact":
            print(f"{path.parent.name}/{path.name} {how}: {found}")
    return counts


def borders() -> None:
    skins = shipped_skins()
    print(dict(tally(((on_desktop(image, grey), path, f"on {grey}")
                      for path, image in pictures() for grey in (0, 150, 192, 255)), skins)))


def phases() -> None:
    skins = shipped_skins()
    print(dict(tally(((on_desktop(image, 150, right, down), path, f"moved ({right}, {down})")
                      for path, image in pictures() for right, down in SHIFTS), skins)))


def scales() -> None:
    skins = shipped_skins()
    for scale in RESCALES:
        counts = tally(((scaled(image, scale), path, f"at {scale:.0%}")
                        for path, image in pictures()), skins)
        print(f"at {scale:.0%}: {dict(counts)}")


def reading_record(image: Image, skins: list[Skin]) -> dict[str, object]:
    """What ``image`` reads as (its skin, board and how many cells are not recognised, or
    the error), and the seconds it took."""
    start = time.perf_counter()
    try:
        reading = read_screenshot(image, skins)
        read: dict[str, object] = {"skin": reading.skin, "board": str(reading.board),
                                   "unrecognized": len(reading.unrecognized)}
    except NoBoardFound as error:  # BoardCut is one
        read = {"error": str(error)}
    return {**read, "seconds": round(time.perf_counter() - start, 3)}


def readings(scales: Sequence[float]) -> None:
    skins = shipped_skins()
    for path, image in pictures():
        for scale in scales:
            record = reading_record(on_desktop(scaled(image, scale), 150), skins)
            print(json.dumps({"fixture": f"{path.parent.name}/{path.name}", "scale": scale,
                              **record}), flush=True)


def cuts(seed: int, count: int) -> None:
    skins = shipped_skins()
    rng = random.Random(seed)
    for scale in SCALES:
        counts: Counter[str] = Counter()
        for path in rng.sample(FIXTURES, count):
            found = cut_case(scaled(picture(path), scale), path, skins, rng)
            if found is not None:
                counts[found[1]] += 1
        print(f"at {scale:.0%}: {dict(counts)}")


def cut_each() -> None:
    """See the module docstring: every case printed, then the tally of each scale."""
    skins = shipped_skins()
    for scale in SCALES:
        counts: Counter[str] = Counter()
        for path in FIXTURES:
            name = f"{path.parent.name}/{path.name}"
            found = cut_case(scaled(picture(path), scale), path, skins,
                             random.Random(f"{scale}-{name}"))
            how = "whole not found" if found is None else found[1]
            counts[how] += 1
            print(f"{name} at {scale:.0%}{'' if found is None else ', ' + found[0]}: {how}")
        print(f"at {scale:.0%}: {dict(counts)}")


def cut_case(image: Image, path: Path, skins: list[Skin], rng: random.Random
             ) -> tuple[str, str] | None:
    """The picture of fixture ``path`` cut by a line through its board from a side drawn
    with ``rng``, between a fifth and a half of the way in: how it was cut and how it reads
    (:func:`cut_reading`, or refused as cut, or refused); None when the whole picture
    shows no board."""
    try:
        x0, y0, x1, y1 = read_screenshot(image, skins).geometry.box()
    except NoBoardFound:
        return None
    side = rng.choice(["top", "bottom", "left", "right"])
    down = rng.randint((y1 - y0) // 5, (y1 - y0) // 2)
    across = rng.randint((x1 - x0) // 5, (x1 - x0) // 2)
    depth = down if side in ("top", "bottom") else across
    cut = cut_into(image, (x0, y0, x1, y1), side, depth)
    return f"{depth} px from the {side}", cut_outcome(cut, path, skins, side)


def cut_into(image: Image, box: Box, side: str, depth: int) -> Image:
    """``image`` cut ``depth`` pixels into the board in ``box`` (x0, y0, x1, y1) from
    ``side``."""
    x0, y0, x1, y1 = box
    return {"top": image[y0 + depth:], "bottom": image[:y1 - depth],
            "left": image[:, x0 + depth:], "right": image[:, :x1 - depth]}[side].copy()


def cut_outcome(cut: Image, path: Path, skins: list[Skin], side: str) -> str:
    """How ``cut``, the picture of fixture ``path`` cut from ``side``, reads: refused as
    cut, refused otherwise, or as :func:`cut_reading` says."""
    try:
        return cut_reading(read_screenshot(cut, skins), path, side)
    except BoardCut:
        return "refused as cut"
    except NoBoardFound:
        return "refused"


def cut_reading(reading: Reading, path: Path, side: str) -> str:
    """How a board cut from ``side`` reads: with the warning that it reaches the image's
    edge there, with cells reported, whole (the line cut short shows enough of its cells to read
    them all, and their middles, where a click goes), as what it shows (the fixture's
    board less the lines cut off, the line next to the cut all opened, so that every count
    beside the cut is whole), silently with covered cells or mines beyond the cut, or
    wrong."""
    if side in reading.edges:
        return "read, said to reach the edge"
    if reading.unrecognized:
        return "read, cells reported"
    truth = str(truth_of(path).with_mines(None)).splitlines()
    rows = str(reading.board.with_mines(None)).splitlines()
    if side in ("left", "right"):
        truth = ["".join(column) for column in zip(*truth, strict=True)]
        rows = ["".join(column) for column in zip(*rows, strict=True)]
    if rows == truth:
        return "read whole"
    cut = len(truth) - len(rows)  # the lines cut off
    if cut <= 0:
        return "read wrong"
    shown, beyond = ((truth[cut:], truth[cut - 1]) if side in ("top", "left")
                     else (truth[:len(rows)], truth[len(rows)]))
    if shown != rows:
        return "read wrong"
    return "read as what it shows" if beyond.isdigit() else "read, covered cells beyond"


def whole() -> None:
    skins = shipped_skins()
    for scale in SCALES:
        refused = warned = doubled = 0
        for path in FIXTURES:
            try:
                reading = read_screenshot(scaled(picture(path), scale), skins)
            except BoardCut as error:
                refused += 1
                print(f"{path.parent.name}/{path.name} at {scale:.0%}: {error}")
            except NoBoardFound:
                pass
            else:
                if reading.edges:
                    warned += 1
                    print(f"{path.parent.name}/{path.name} at {scale:.0%}: said to reach the "
                          f"{edges_in_words(reading.edges)}")
                if reading.others:
                    doubled += 1
                    print(f"{path.parent.name}/{path.name} at {scale:.0%}: said to show "
                          f"{others_in_words(reading)}")
        print(f"at {scale:.0%}: {refused} of {len(FIXTURES)} refused as cut, {warned} said to "
              f"reach an edge, {doubled} to show another board")


def margins() -> None:
    skins = shipped_skins()

    def cases() -> Iterator[tuple[Image, Path, str]]:
        for path, image in pictures():
            x0, y0, x1, y1 = read_screenshot(image, skins).geometry.box()
            for margin in MARGINS:
                yield (image[max(y0 - margin, 0):y1 + margin, max(x0 - margin, 0):x1 + margin],
                       path, f"with {margin} px round")
    print(dict(tally(cases(), skins)))


def slivers(scales: Iterable[float]) -> None:
    """See the module docstring: each fixture cut a few pixels into its outermost line of
    cells, from each side in turn, at each of ``scales``."""
    def cases(image: Image, box: Box, side: str, pitch: float) -> Iterator[tuple[str, Image]]:
        for depth in sorted({*SLIVERS, round(pitch / 4), round(pitch / 2)}):
            yield f"{depth} px from the {side}", cut_into(image, box, side, depth)
    cut_sweep(scales, cases)


def clipped(scales: Iterable[float]) -> None:
    """See the module docstring: each fixture's outermost line of cells shown in part, the
    window's frame beyond it, from each side in turn, at each of ``scales``."""
    def cases(image: Image, box: Box, side: str, pitch: float) -> Iterator[tuple[str, Image]]:
        for shown in CLIPS:
            yield (f"{shown:.0%} of a cell shown at the {side}",
                   clip_inside(image, box, side, round(pitch * (1 - shown))))
    cut_sweep(scales, cases)


def past(scales: Iterable[float]) -> None:
    """See the module docstring: each fixture cut through its middle line of cells, from
    each side in turn, a sliver of that line left beyond the lines kept whole, at each of
    ``scales``."""
    def cases(image: Image, box: Box, side: str, pitch: float) -> Iterator[tuple[str, Image]]:
        x0, y0, x1, y1 = box
        lines = round(((y1 - y0) if side in ("top", "bottom") else (x1 - x0)) / pitch)
        cut = lines - lines // 2  # the lines cut off, the middle one in part
        for shown in sorted({*SLIVERS, round(pitch / 4), round(pitch / 2)}):
            yield (f"{shown} px of the middle line shown at the {side}",
                   cut_into(image, box, side, round(pitch * cut) - shown))
    cut_sweep(scales, cases)


def clip_inside(image: Image, box: Box, side: str, hidden: int) -> Image:
    """``image`` with the ``hidden`` pixels of the board in ``box`` (x0, y0, x1, y1) next
    to its ``side`` taken out, what lies beyond that side moved in to close the gap: the
    board as a window too small for it shows it."""
    x0, y0, x1, y1 = box
    parts, axis = {"top": ((image[:y0], image[y0 + hidden:]), 0),
                   "bottom": ((image[:y1 - hidden], image[y1:]), 0),
                   "left": ((image[:, :x0], image[:, x0 + hidden:]), 1),
                   "right": ((image[:, :x1 - hidden], image[:, x1:]), 1)}[side]
    return np.concatenate(parts, axis=axis)


def cut_sweep(scales: Iterable[float],
              cases: Callable[[Image, Box, str, float], Iterator[tuple[str, Image]]]) -> None:
    """Every fixture at each of ``scales``, cut from each side in turn by ``cases`` (given
    the picture, its board's box, the side and the pitch across that side), tallied as for
    ``cuts``; each reading neither refused as cut nor said to reach the edge is printed (a
    fixture not found whole at a scale is only counted)."""
    skins = shipped_skins()
    for scale in scales:
        counts: Counter[str] = Counter()
        for path in FIXTURES:
            image = scaled(picture(path), scale)
            try:
                geometry = read_screenshot(image, skins).geometry
            except NoBoardFound:
                counts["whole not found"] += 1
                continue
            for side in ("top", "bottom", "left", "right"):
                pitch = geometry.pitch_y if side in ("top", "bottom") else geometry.pitch_x
                for label, cut in cases(image, geometry.box(), side, pitch):
                    how = cut_outcome(cut, path, skins, side)
                    counts[how] += 1
                    if how not in ("refused as cut", "read, said to reach the edge"):
                        print(f"{path.parent.name}/{path.name} at {scale:.0%}, {label}: {how}",
                              flush=True)
        print(f"at {scale:.0%}: {dict(counts)}", flush=True)


CUTS_SEED, CUTS_COUNT = 11, 40
"""``cuts``' draw when no --seed or --count is given (None there: given to another sweep,
either is refused)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", choices=["borders", "cuts", "cut-each", "whole", "margins",
                                          "scales", "phases", "readings", "slivers",
                                          "clipped", "past"])
    parser.add_argument("--seed", type=int, help=f"cuts: the draw's seed (default {CUTS_SEED})")
    parser.add_argument("--count", type=int, help=f"cuts: how many cases (default {CUTS_COUNT})")
    parser.add_argument("--scale", type=float, action="append",
                        help="slivers, clipped, past and readings: this scale only "
                             "(repeatable; default 1, 0.75, 1.25, 1.5, or for readings "
                             "READING_SCALES)")
    args = parser.parse_args()
    for option, value, sweeps in (("--seed", args.seed, ["cuts"]),
                                  ("--count", args.count, ["cuts"]),
                                  ("--scale", args.scale,
                                   ["slivers", "clipped", "past", "readings"])):
        if value is not None and args.sweep not in sweeps:
            parser.error(f"{option} goes with {listed(sweeps)} only, not {args.sweep}")
    if args.sweep == "borders":
        borders()
    elif args.sweep == "cuts":
        cuts(CUTS_SEED if args.seed is None else args.seed,
             CUTS_COUNT if args.count is None else args.count)
    elif args.sweep == "cut-each":
        cut_each()
    elif args.sweep == "scales":
        scales()
    elif args.sweep == "phases":
        phases()
    elif args.sweep == "readings":
        readings(args.scale or READING_SCALES)
    elif args.sweep == "margins":
        margins()
    elif args.sweep == "slivers":
        slivers(args.scale or SCALES)
    elif args.sweep == "clipped":
        clipped(args.scale or SCALES)
    elif args.sweep == "past":
        past(args.scale or SCALES)
    else:
        whole()


if __name__ == "__main__":
    main()
