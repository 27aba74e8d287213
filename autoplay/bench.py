"""Benchmarks of the deducer against the one-query-per-cell method, measured in the same run.

The reference is the method of the safe-cells article this project grew from: a ``Sum`` of
booleans per count, then for each frontier cell ``push``, assert it is a mine, ``check``,
``pop``. It proves only safe cells; :func:`~autoplay.deduction.deduce` proves safe cells and
mines, also off the frontier, and uses the total mine count when the board has one.

The nonogram suite times :func:`~autoplay.nonogram.solve` against the nonogram article's own
model (integer start and end per group) on the article's puzzle.

The vision suite times reading a screenshot against the plain way of template matching, one
``cv2.matchTemplate`` of every template over the whole picture; both must read the same board.
Its last row reads a GNOME Mines board whose tiles are unevenly spaced, against the cells
that match loosely matched again with the whole lattice moved, as the reader did before.

Times are medians, since these machines are shared and noisy; speed is stated as a ratio to
the reference timed on the same positions in the same process.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path

import cv2
import numpy as np
import z3

from autoplay.board import UNKNOWN, Board, Cell
from autoplay.deduction import deduce
from autoplay.errors import AutoplayError
from autoplay.locate import locate_board, read_screenshot
from autoplay.nonogram import Clues, Grid, solutions, solve
from autoplay.pb import cancelled_as_interrupt
from autoplay.sim import SimGame
from autoplay.vision import (
    ALIGN_GAIN,
    OUTSIDE,
    SHIPPED_SKINS,
    Geometry,
    Image,
    ReadCache,
    Skin,
    align_reach,
    decode_image,
    match_lattice,
    read_board,
    reading_of,
)

SCREENSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "screenshots"
"""The screenshot fixtures, which only a source checkout has (a wheel carries none)."""
UNEVEN = SCREENSHOTS.parent / "window-sizes" / "gnome-mines-16x16-crowded-1440x900.png"
"""GNOME Mines' tiles drawn unevenly, in a window of a size its skin lacks."""
OFF_LATTICE = SCREENSHOTS.parent / "window-sizes" / "gnome-mines-30x16-1440x868.png"
"""GNOME Mines' 30x16 with whole lines of its tiles off the lattice that fits the rest."""
CLICKED = (SCREENSHOTS.parent / "window-sizes" / "sgt-mines-30x16-1440x868.png",
           SCREENSHOTS.parent / "window-sizes" / "sgt-mines-30x16-1440x868-next.png")
"""Tatham's Mines' 30x16 in a 1440x868 window (42 px tiles), before and after a click."""

SEED_003_BOARD = """\
...201..................
...201..................
...1013.................
...1102.................
....1011123.............
..21100012...22211122...
..2000012.33212.3111....
..421002.310002.3.122...
....3224.31000112111....
........4.20000001121...
.......43.20000012.11...
.......3122211001.212...
.......202.3.10011213...
......2103.42210001.213.
......1112.43.111233202.
......2.222..311.3..212.
.............2124.4.....
............111.3.......
........................
........................
"""
"""The 24x20 board of the safe-cells article (no total mine count)."""

SEED_001_NONOGRAM = """\
rows:
3
5
3 1
2 1
3 3 4
2 2 7
6 1 1
4 2 2
1 1
3 1
6
2 7
6 3 1
1 2 2 1 1
4 1 1 3
4 2 2
3 3 1
3 3
3
2 1
columns:
2
1 2
2 3
2 3
3 1 1
2 1 1
1 1 1 2 2
1 1 3 1 3
2 6 4
3 3 9 1
5 3 2
3 1 2 2
2 1 7
3 3 2
2 4
2 1 2
2 2 1
2 2
1
1
"""
"""The 20x20 nonogram of the nonogram article, in :class:`~autoplay.nonogram.Clues` format."""


@dataclass(frozen=True, slots=True)
class Measurement:
    """The median time of one measured task, beside a reference when there is one."""

    suite: str
    """Which benchmark suite it belongs to (a key of :data:`SUITES`)."""
    name: str
    """What was measured, for a person."""
    count: int
    """How many positions (or images, or puzzles) the median is taken over."""
    median_ms: float
    """Median over the items of each item's median time, in milliseconds."""
    reference_ms: float | None = None
    """The same for the reference method, timed in the same run."""
    detail: str = ""
    """What the timed runs found, so a person can tell they did the same work."""

    @property
    def ratio(self) -> float | None:
        """How many times faster than the reference."""
        return None if self.reference_ms is None else self.reference_ms / self.median_ms


def article_model(board: Board) -> tuple[z3.Solver, dict[Cell, z3.BoolRef]]:
    """The safe-cells article's model: a boolean per frontier cell, a ``Sum`` per count."""
    cells: dict[Cell, z3.BoolRef] = {}
    for cell in board.cells():
        if board[cell] >= 0:
            for near in board.neighbours(cell):
                if board[near] == UNKNOWN and near not in cells:
                    cells[near] = z3.Bool(f"{near.row}-{near.col}")
    solver = z3.Solver()
    for cell in board.cells():
        if board[cell] >= 0:
            near_cells = [cells[n] for n in board.neighbours(cell) if n in cells]
            if near_cells:
                solver.add(z3.Sum(near_cells) == board[cell])
    return solver, cells


@cancelled_as_interrupt()
def reference_safe_cells(board: Board) -> set[Cell]:
    """The article's method: one Z3 query per frontier cell, safe cells only."""
    solver, cells = article_model(board)
    safe = set()
    for cell, mine in cells.items():
        solver.push()
        solver.add(mine == True)  # a Z3 equation, as the article writes it
        if solver.check() == z3.unsat:
            safe.add(cell)
        solver.pop()
    return safe


def expert_positions(count: int, *, seed: int = 0) -> list[Board]:
    """Mid-game expert (30x16, 99 mines) positions where nothing local is left to open.

    From fixed seeds, a game is played from an opening at (3, 3) by revealing every proven
    safe cell; where none is proven, the position is kept (between a fifth and four fifths of
    the way through the game) and play goes on by revealing a cell the simulator knows is
    safe. These are the positions where a complete deducer must work hardest: it has to show
    that nothing at all is safe.
    """
    positions: list[Board] = []
    game_seed = seed
    while len(positions) < count:
        positions.extend(_stuck_positions(game_seed))
        game_seed += 1
    return positions[:count]


def _stuck_positions(seed: int) -> Iterator[Board]:
    rng = random.Random(seed)
    game = SimGame(30, 16, 99, rng=rng, first_click="opening")
    game.reveal(Cell(3, 3))
    total_safe = 30 * 16 - 99
    while game.outcome == "playing":
        board = game.observe()
        deduction = deduce(board)
        if deduction.safe:
            for cell in sorted(deduction.safe):
                if game.outcome == "playing":
                    game.reveal(cell)
            continue
        opened = sum(1 for s in board.states if s >= 0)
        if total_safe // 5 <= opened <= 4 * total_safe // 5:
            yield board
        layout = game.layout
        assert layout is not None
        game.reveal(rng.choice([c for c in board.unknown_cells() if c not in layout]))


def median_ms(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``run``, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure_deduce(name: str, positions: list[Board], repeat: int) -> Measurement:
    """Time ``deduce`` and the reference on each position; check they agree on safe cells.

    :raises AssertionError: if the reference proves a safe cell that ``deduce`` missed,
        which would make the comparison (and the deducer) wrong.
    """
    deduce(positions[0])  # the first Z3 call of a process pays for its set-up
    ours, reference = [], []
    safe = mines = reference_safe = 0
    for board in positions:
        deduction = deduce(board)
        found = reference_safe_cells(board)
        assert found <= deduction.safe, f"reference found safe cells deduce missed on {board!r}"
        safe, mines, reference_safe = (safe + len(deduction.safe), mines + len(deduction.mines),
                                       reference_safe + len(found))
        ours.append(median_ms(partial(deduce, board), repeat))
        reference.append(median_ms(partial(reference_safe_cells, board), max(1, repeat // 5)))
    detail = f"proved {safe} safe and {mines} mines; the reference {reference_safe} safe"
    return Measurement("deduce", name, len(positions), statistics.median(ours),
                       statistics.median(reference), detail)


def deduce_suite(repeat: int) -> list[Measurement]:
    """The article's 24x20 board, then 20 stuck mid-game expert positions (mine count known)."""
    return [
        measure_deduce("24x20 board of the article", [Board.parse(SEED_003_BOARD)], repeat),
        measure_deduce("expert 30x16/99 mid-game, 20 positions", expert_positions(20), repeat),
    ]


@cancelled_as_interrupt()
def article_nonogram(clues: Clues) -> Grid | None:
    """The nonogram article's model, with Z3's default solver: an integer start and end per
    group, inside the stripe, ``size - 1`` apart, each group at least two past the previous
    end, and a cell filled exactly when it lies between some group's start and end.
    """
    width, height = clues.width, clues.height
    cell = [[z3.Bool(f"cell{col},{row}") for col in range(width)] for row in range(height)]
    solver = z3.Solver()
    stripes = [(f"row-{row}", clue, cell[row]) for row, clue in enumerate(clues.rows)]
    stripes += [(f"column-{col}", clue, [cell[row][col] for row in range(height)])
                for col, clue in enumerate(clues.columns)]
    for name, clue, cells in stripes:
        start = [z3.Int(f"{name}-{i}-start") for i in range(len(clue))]
        end = [z3.Int(f"{name}-{i}-end") for i in range(len(clue))]
        for i, size in enumerate(clue):
            solver.add(start[i] >= 0, start[i] < len(cells), end[i] >= 0, end[i] < len(cells),
                       end[i] - start[i] == size - 1)
        for i in range(len(clue) - 1):
            solver.add(start[i + 1] >= end[i] + 2)
        for k, filled in enumerate(cells):
            solver.add(filled == z3.Or([z3.And(start[i] <= k, k <= end[i])
                                        for i in range(len(clue))]))
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    return Grid(tuple(tuple(z3.is_true(model.eval(c, model_completion=True)) for c in row)
                      for row in cell))


def nonogram_suite(repeat: int) -> list[Measurement]:
    """The nonogram article's 20x20 puzzle: :func:`~autoplay.nonogram.solve` against the
    article's own model, both from the clues to a grid, the model built anew each time.

    :raises AssertionError: if either finds no grid, or a grid the clues do not describe.
    """
    clues = Clues.parse(SEED_001_NONOGRAM)
    ours, reference = solve(clues), article_nonogram(clues)
    assert ours is not None and ours.clues() == clues, "solve found no grid that fits"
    assert reference is not None and reference.clues() == clues, "the reference found none"
    unique = len(list(islice(solutions(clues), 2))) == 1
    detail = (f"{'the only' if unique else 'a'} grid that fits; the reference found "
              f"{'the same' if reference == ours else 'another'}")
    return [Measurement("nonogram", "20x20 puzzle of the nonogram article", 1,
                        median_ms(lambda: solve(clues), repeat),
                        median_ms(lambda: article_nonogram(clues), max(1, repeat // 5)),
                        detail)]
def sweep_read(image: Image, geometry: Geometry, skin: Skin) -> Board:
    """The plain reader: match every template, scaled to the pitch, over the whole board
    with ``cv2.matchTemplate``, and give each cell the template that fits best at its
    corner."""
    x0, y0, x1, y1 = geometry.box()
    size = (round(geometry.pitch_x), round(geometry.pitch_y))
    region = image[y0:y1 + size[1], x0:x1 + size[0]]
    cells = [t for t in skin.templates if t.state != OUTSIDE]
    scores = np.stack([cv2.matchTemplate(region, cv2.resize(t.image, size), cv2.TM_SQDIFF)
                       for t in cells])
    states = []
    for cell in Board.empty(geometry.cols, geometry.rows).cells():
        cx, cy, _, _ = geometry.cell_box(cell)
        states.append(cells[int(np.argmin(scores[:, cy - y0, cx - x0]))].state)
    return Board(geometry.cols, geometry.rows, tuple(states))


def sweep_locate_read(image: Image, skin: Skin) -> Board:
    """The plain locator: match every template over the whole screen; the spots that match
    (almost) exactly are the cells, at the skin's own pitch; then :func:`sweep_read`."""
    scores = np.min([cv2.matchTemplate(image, t.image, cv2.TM_SQDIFF_NORMED)
                     for t in skin.templates if t.state != OUTSIDE], axis=0)
    ys, xs = np.nonzero(scores < 1e-3)
    left, top = int(xs.min()), int(ys.min())
    pitch_x, pitch_y = skin.pitch
    geometry = Geometry(left, top, pitch_x, pitch_y, round((ys.max() - top) / pitch_y) + 1,
                        round((xs.max() - left) / pitch_x) + 1)
    return sweep_read(image, geometry, skin)


def sweep_locate_read_any(image: Image, skins: Sequence[Skin]) -> Board:
    """The plain locator with several skins: each one's templates over the whole screen;
    the skin with the most spots that match (almost) exactly is the board's."""
    def spots(skin: Skin) -> int:
        return sum(int(np.count_nonzero(cv2.matchTemplate(image, t.image,
                                                          cv2.TM_SQDIFF_NORMED) < 1e-3))
                   for t in skin.templates if t.state != OUTSIDE)

    return sweep_locate_read(image, max(skins, key=spots))


def whole_lattice_read(image: Image, geometry: Geometry, skin: Skin) -> Board:
    """The reader before commit 59cdd1c: each cell that matches loosely is matched again
    with the whole lattice moved by every whole pixel up to
    :func:`~autoplay.vision.align_reach`, and read where it comes closest, if clearly
    closer (as :func:`autoplay.vision.aligned` still decides)."""
    match = match_lattice(image, geometry, skin)
    loose, reach = match.loose(), align_reach(geometry)
    bar, best = ALIGN_GAIN * match.distance, match.copy()
    for dx, dy in itertools.product(range(-reach, reach + 1), repeat=2):
        moved = geometry.moved(dx, dy)
        if (dx or dy) and moved.fits(image):
            found = match_lattice(image, moved, skin)
            better = loose & (found.distance < np.minimum(best.distance, bar))
            for each in dataclasses.fields(found):
                getattr(best, each.name)[better] = getattr(found, each.name)[better]
    return reading_of(geometry, skin, best).board


def vision_suite(repeat: int) -> list[Measurement]:
    """A 30x16 sgt-mines board in mid-game: read from its window's frame (the lattice
    known), and found and read on a whole 1280x1024 screen among other windows, with its
    skin named and with every shipped skin tried; then on that screen at 150%, as a
    display scaled by 150% shows it (no plain sweep finds a board between pixels, so that
    row has no reference). Last, GNOME Mines' crowded 16x16 in a 1440x900 window, its tiles
    50 and 51 px apart, read again from the frame, the lattice known (as ``play`` reads
    each move), against :func:`whole_lattice_read`; and its 30x16 at 1440x868, whose last
    columns lie off the lattice, read again with the lines found kept from the read before
    (as :class:`~autoplay.screen.ScreenGame` keeps them), against reading it afresh. Then
    Tatham's Mines' 30x16 in a 1440x868 window, read after a click with the read before it
    kept (:class:`~autoplay.vision.ReadCache`, as the player keeps it), against reading it
    afresh: the reads go back and forth between the frames before and after the click,
    each one click from the last."""
    skin = Skin.load(SHIPPED_SKINS / "sgt-mines")
    skins = [Skin.load(folder) for folder in sorted(SHIPPED_SKINS.iterdir())
             if (folder / "skin.json").is_file()]
    frame = decode_image((SCREENSHOTS / "sgt-mines" / "30x16-mid.png").read_bytes())
    screen = decode_image((SCREENSHOTS / "sgt-mines" / "desktop-30x16.png").read_bytes())
    geometry = locate_board(frame, skin)
    reading = read_board(frame, geometry, skin)
    assert reading.board == sweep_read(frame, geometry, skin), "the readers disagree"
    on_screen = read_board(screen, locate_board(screen, skin), skin)
    assert on_screen.board == sweep_locate_read(screen, skin), "the locators disagree"
    any_skin = read_screenshot(screen, skins)
    assert any_skin.board == sweep_locate_read_any(screen, skins), "the locators disagree"
    scaled = np.asarray(cv2.resize(screen, None, fx=1.5, fy=1.5), np.uint8)
    on_scaled = read_screenshot(scaled, skins)
    assert on_scaled.board == any_skin.board, "the screen at 150% reads differently"
    gnome = Skin.load(SHIPPED_SKINS / "gnome-mines")
    uneven = decode_image(UNEVEN.read_bytes())
    lattice = read_screenshot(uneven, [gnome]).geometry
    again = read_board(uneven, lattice, gnome)
    assert again.board == whole_lattice_read(uneven, lattice, gnome), "the readers disagree"
    lines = decode_image(OFF_LATTICE.read_bytes())
    lines_lattice = read_screenshot(lines, [gnome]).geometry
    kept = ReadCache()
    first = read_board(lines, lines_lattice, gnome, cache=kept)

    def lines_kept() -> ReadCache:
        """A cache holding the lines found by the first read, and not its cells."""
        return ReadCache(dict(kept.shifts))

    assert first.board == read_board(lines, lines_lattice, gnome, cache=lines_kept()).board, (
        "the lines kept read differently")
    clicked = [decode_image(path.read_bytes()) for path in CLICKED]
    resized = read_screenshot(clicked[0], [skin]).geometry
    last = ReadCache()
    read_board(clicked[0], resized, skin, cache=last)
    after = read_board(clicked[1], resized, skin, cache=last)
    assert after.board == read_board(clicked[1], resized, skin).board, (
        "the read before kept reads differently")
    frames = itertools.cycle(clicked)  # the first differs from the last read by a click
    cells = geometry.rows * geometry.cols
    slow = max(1, repeat // 5)
    return [
        Measurement("vision", "read a 30x16 board from a frame in memory", 1,
                    median_ms(lambda: read_board(frame, geometry, skin), repeat),
                    median_ms(lambda: sweep_read(frame, geometry, skin), slow),
                    f"{cells - len(reading.unrecognized)} of {cells} cells recognised"),
        Measurement("vision", "locate and read it on a 1280x1024 screen", 1,
                    median_ms(lambda: read_board(screen, locate_board(screen, skin), skin),
                              repeat),
                    median_ms(lambda: sweep_locate_read(screen, skin), slow),
                    f"found at {on_screen.geometry.left:.0f},{on_screen.geometry.top:.0f}, "
                    f"{len(on_screen.unrecognized)} cells unrecognised"),
        Measurement("vision", f"the same with all {len(skins)} shipped skins tried", 1,
                    median_ms(lambda: read_screenshot(screen, skins), repeat),
                    median_ms(lambda: sweep_locate_read_any(screen, skins), max(1, repeat // 25)),
                    f"read as {any_skin.skin}, {len(any_skin.unrecognized)} cells unrecognised"),
        Measurement("vision", f"the same on the screen at 150% ({scaled.shape[1]}x"
                    f"{scaled.shape[0]})", 1,
                    median_ms(lambda: read_screenshot(scaled, skins), slow),
                    detail=f"read as {on_scaled.skin}, pitch {on_scaled.geometry.pitch_x:.2f}"),
        Measurement("vision", "read GNOME Mines' 16x16 in a 1440x900 window from a frame, "
                    "lattice known", 1,
                    median_ms(lambda: read_board(uneven, lattice, gnome), repeat),
                    median_ms(lambda: whole_lattice_read(uneven, lattice, gnome), slow),
                    f"pitch {lattice.pitch_x:.2f}, {len(again.unrecognized)} cells "
                    f"unrecognised"),
        Measurement("vision", "read GNOME Mines' 30x16 in a 1440x868 window again, the lines "
                    "found off its lattice kept", 1,
                    median_ms(lambda: read_board(lines, lines_lattice, gnome,
                                                 cache=lines_kept()), repeat),
                    median_ms(lambda: read_board(lines, lines_lattice, gnome), slow),
                    f"{sum(1 for shift in kept.shifts.values() if shift)} of "
                    f"{len(kept.shifts)} lines kept "
                    f"off the lattice, {len(first.unrecognized)} cells unrecognised"),
        Measurement("vision", "read Tatham's Mines' 30x16 in a 1440x868 window after a "
                    "click, the read before kept", 1,
                    median_ms(lambda: read_board(next(frames), resized, skin, cache=last),
                              repeat),
                    median_ms(lambda: read_board(clicked[1], resized, skin), repeat),
                    f"pitch {resized.pitch_x:.2f}, "
                    f"{int(match_lattice(clicked[1], resized, skin).loose().sum())} of "
                    f"{resized.rows * resized.cols} cells matched loosely on the lattice, "
                    f"{len(after.unrecognized)} unrecognised"),
    ]


SUITES: dict[str, Callable[[int], list[Measurement]]] = {
    "deduce": deduce_suite,
    "nonogram": nonogram_suite,
    "vision": vision_suite,
}
"""Every benchmark suite by name; each takes the number of repeats per item."""


def run(suites: Sequence[str] = tuple(SUITES), *, repeat: int = 25) -> list[Measurement]:
    """Run the named suites in order.

    :raises AutoplayError: when the vision suite is asked for where its screenshots are not
        (before any suite runs).
    """
    if "vision" in suites and not SCREENSHOTS.is_dir():
        raise AutoplayError(f"the vision benchmark reads the screenshots of a source checkout, "
                            f"and there are none at {SCREENSHOTS}: run it in a clone of "
                            f"autoplay, or choose another --suite")
    return [m for name in suites for m in SUITES[name](repeat)]
