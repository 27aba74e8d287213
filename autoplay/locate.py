"""Finding a board in an image: the lattice of its cells (origin, pitch, rows, columns).

:func:`locate_board` finds one skin's board in a cropped board, a game window or a whole
desktop, at the skin's own scale or another one (a screenshot taken at 125% or 200%);
:func:`read_screenshot` finds and reads a board with whichever installed skin matches it
best. The steps: a coarse search of a shrunk grey image gives rough lattices
(:func:`_seed_lattices`), and each is settled on the full image (:func:`_settle`): fitted
to where its cells match their templates, its edges moved to the board's.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from autoplay.board import FLAG, UNKNOWN, Cell
from autoplay.errors import BoardCut, NoBoardFound, listed
from autoplay.vision import (
    ALIGN_GAIN,
    COARSE,
    MAX_DISTANCE,
    OUTSIDE,
    Floats,
    Geometry,
    Image,
    Match,
    NearbyFeatures,
    Reading,
    Skin,
    aligned,
    as_bgr,
    cell_features,
    distances_between,
    is_grey,
    line_shift,
    match_cells,
    match_lattice,
    read_matched,
    reads_beyond_empty,
    shrink,
    template_distances,
)

_SEED_DISTANCE = 24.0
"""In the coarse search, a spot this close to a grey template may be a cell..."""
_SEED_CONTRAST = 12.0
"""... if spots a few pixels away are this much further: a plain area matches a plain
template equally well everywhere, a cell only where it is."""
_SCALES = tuple(sorted({*np.geomspace(0.5, 3.0, 20).round(3).tolist(),
                        0.75, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0}))
"""Screen scales tried after the skin's own: the usual display scalings, and between them
steps of about 10%, which the fit from the seeds makes up."""
_DISPLAY_SCALES = (1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
"""The usual display scalings, searched before the rest of ``_SCALES``, which is searched
only when the lattices seeded at these settle into no board shown at one of them, nor
into a game under way (see :func:`_find`)."""
_CLOSE = 16.0
"""Mean distance to their templates under which a board's cells are close enough to take
it for one at a display scaling (:func:`_is_displayed`)."""
_ROUGH_PITCH = 0.03
"""How far (a share) a rough lattice's pitch, fitted to its seeds, may be from a display
scaling's to be settled with them: one seeded there but further off is a board at another
scale, which the rest of the ladder settles (settled twice, such lattices made fixtures
at 90% and 110% read about a quarter slower)."""
_MIN_SHARE = 0.5
"""An edge row or column belongs to the board when this share of its cells is recognised."""
_MIN_CELLS = 4
_MIN_SIDE = 3
"""A board has at least this many rows and columns. Nobody plays a board two cells wide,
and two rows and columns at half the pitch fit inside one plain cell: a covered GNOME
Mines cell grown to 150% read as a 2x2 board of covered cells."""
_REACH = 3
"""How many rows and columns beyond its edges a lattice is read to look for more board."""
_EXACT = 4.0
"""A board whose cells are all this close to their templates is at the skin's own scale."""
_PIXEL_EXACT = 1.0
"""Cells this close to their templates on average sit exactly on the screen's pixels."""
_TRIED_LATTICES = 2
"""How many rough lattices of a scale, the biggest, are tried."""
_SETTLED = 5
"""How many rough lattices of the whole ladder are settled, twice over: those whose
weighed seeds cover the most area, and those with the most weighed seeds times the root
of a cell's area (a board of few big cells has few seeds, random seeds come easily at a
small pitch)."""
MIN_RECOGNISED = 0.75
"""A lattice is a board only when this share of its cells is recognised."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    geometry: Geometry
    match: Match = field(repr=False)
    """How each cell matches: the reading, once this board is chosen."""

    @property
    def recognised(self) -> int:
        return int(self.match.recognised().sum())

    @property
    def distance(self) -> float:
        """Mean distance of the cells to their closest templates."""
        return float(self.match.distance.mean())

    def is_complete(self) -> bool:
        return self.recognised == self.geometry.rows * self.geometry.cols

    def is_exact(self) -> bool:
        """Every cell recognised, almost exactly: at its skin's own scale, on the pixels."""
        return self.is_complete() and self.distance < _EXACT


MAX_PIXELS = 40_000_000
"""The largest image searched for a board: an 8K screen (33 megapixels) and some room.
The search's time and memory grow with the area, to minutes and gigabytes past it."""


def check_size(image: Image) -> None:
    """:raises NoBoardFound: when ``image`` is larger than :data:`MAX_PIXELS`."""
    height, width = image.shape[:2]
    _check_pixels(width, height)


def check_declared_size(data: bytes) -> None:
    """Refuse an image file from its header, before it is decoded: a few kilobytes of PNG
    can declare a gigapixel, and decoding 25000x25000 took 12 s and 3.75 GB.

    :raises NoBoardFound: when the header declares more than :data:`MAX_PIXELS`.
    """
    from PIL import Image as Picture  # only for images read from files

    with warnings.catch_warnings():  # of a damaged header, which decoding names in one line
        warnings.simplefilter("ignore")
        try:
            with Picture.open(io.BytesIO(data)) as picture:
                width, height = picture.size
        except Picture.DecompressionBombError:  # past Pillow's own limit, far past ours,
            raise _too_large("the image") from None  # which does not tell the size
        except (OSError, ValueError):  # a header Pillow cannot read: decoding says why
            return
    _check_pixels(width, height)


def _check_pixels(width: int, height: int) -> None:
    if width * height > MAX_PIXELS:
        raise _too_large(f"the {width}x{height} image")


def _too_large(image: str) -> NoBoardFound:
    return NoBoardFound(f"{image} is larger than autoplay searches for a board "
                        f"({MAX_PIXELS // 1_000_000} megapixels): crop it to the game")


def locate_board(image: Image, skin: Skin) -> Geometry:
    """Find the skin's board in an image: a cropped board, a window, or a whole screen.

    The skin's own scale is tried first; when it finds no board whose every cell it
    recognises almost exactly, other scales are tried and the best board found wins.

    :raises NoBoardFound: when no lattice of the skin's cells is found, or the image is
        too large to search (:data:`MAX_PIXELS`).
    """
    image = as_bgr(image)
    found = _find(image, [skin])
    if found is None:
        raise _no_board(image, [skin], f"no {skin.name} board")
    candidate, _, _ = found
    _check_whole(image, candidate, skin)
    return candidate.geometry


def read_screenshot(image: Image, skins: Sequence[Skin], *, place: str = "image") -> Reading:
    """Locate and read a board, with whichever of ``skins`` matches it best; ``place`` names
    the image in messages ("area of the screen searched", for a grab of the screen).

    :raises NoBoardFound: when none of the skins finds a board, or the image is too large
        to search (:data:`MAX_PIXELS`).
    """
    image = as_bgr(image)
    found = _find(image, skins)
    if found is None:
        names = ", ".join(skin.name for skin in skins)
        raise _no_board(image, skins, "no Minesweeper board", f" (skins tried: {names})",
                        place)
    candidate, skin, others = found
    _check_whole(image, candidate, skin)
    covered = _covered(skin)[candidate.match.best] & candidate.match.recognised()
    return replace(read_matched(image, candidate.geometry, skin, candidate.match),
                   edges=edges_reached(image, candidate.geometry, skin, covered),
                   others=tuple((other_skin.name, other.geometry)
                                for other, other_skin in others))


def _no_board(image: Image, skins: Sequence[Skin], what: str, tried: str = "",
              place: str = "image") -> NoBoardFound:
    """The error for an image (a ``place``) where ``what`` was not found, saying when it has
    too little contrast to hold a board of these skins (see :func:`_blank_span`)."""
    height, width = image.shape[:2]
    why = ""
    span = _blank_span(image, skins)
    if span is not None:
        cells = "these skins" if len(skins) > 1 else "the skin"
        why = (f": the {place} has too little contrast for one (its grey levels span {span}; "
               f"every cell of {cells} spans {min(map(_cell_contrast, skins))} or more)")
    return NoBoardFound(f"{what} found in the {width}x{height} {place}{tried}{why}")


def _blank_span(image: Image, skins: Sequence[Skin]) -> int | None:
    """How many grey levels the image spans, darkest to brightest, when that is less than
    half the span of any cell of the skins; else None. Such an image, a screen captured
    black say, cannot hold a board, even shrunk to half its size (which blurs a line of one
    pixel to half its contrast), and is refused at once, not after the whole search (11 s
    on a 4K screen). A skin with a flat cell (a learned one, say) turns this off."""
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    span = int(grey.max()) - int(grey.min())
    return span if 2 * span < min(map(_cell_contrast, skins), default=0) else None


@functools.cache
def _cell_contrast(skin: Skin) -> int:
    """The span of grey levels of the skin's flattest cell template."""
    return min(int(np.ptp(cv2.cvtColor(template.image, cv2.COLOR_BGR2GRAY)))
               for template in skin.templates if template.state != OUTSIDE)


def _check_whole(image: Image, candidate: _Candidate, skin: Skin) -> None:
    """Refuse a board that goes on past the image's edge, or is cut short inside it.

    :raises BoardCut: naming the edge, or the board's side, when :func:`find_cut` finds one.
    :raises NoBoardFound: when the board goes on past a side, only part of it found.
    """
    closed = _closed(skin)[candidate.match.best] & candidate.match.recognised()
    cut = next((cut for geometry, sides in _edge_lattices(image, candidate, skin)
                if (cut := find_cut(image, skin, geometry, closed, sides)) is not None), None)
    if cut is None:
        return
    side, kind = cut
    if kind == "edge":
        raise BoardCut(f"the {skin.name} board goes on past the image's {side} edge, "
                       f"which cuts through covered cells: give a screenshot of the whole "
                       f"board", skin.name, (side,))
    if kind == "short":
        raise NoBoardFound(f"the {skin.name} board goes on past its {side} side, where its "
                           f"cells could not be read at this size: show it at another (a "
                           f"screenshot at 100%, a game window at its first size)")
    raise BoardCut(f"the {skin.name} board stops part way into a line of covered cells at "
                   f"its {side} side, so something hides the rest of it (a window too small "
                   f"for its board, say): show the whole board", skin.name)


SIDES = ("top", "bottom", "left", "right")
"""A board's sides, as :func:`find_cut` names them."""
CutKind = Literal["edge", "inside", "short"]
"""How :func:`find_cut` finds a board cut: by the image's edge, inside the image, or not
cut but found short."""


def _edge_lattices(image: Image, candidate: _Candidate, skin: Skin
                   ) -> list[tuple[Geometry, tuple[str, ...]]]:
    """The lattices to look beyond the board's sides from, and the sides for each: the
    board's own, but for a side whose edge line lies off it (:func:`_edge_shifts`), the
    lattice moved to where that line lies. GNOME Mines' new 30x16 board at 1200x560 has
    its first column 7 px left of the lattice that fits the rest, and 7 px of its covered
    cells beyond the board's left side were taken for a cut."""
    geometry = candidate.geometry
    moved = {side: geometry.moved(*shift)
             for side, shift in _edge_shifts(image, geometry, candidate.match, skin).items()}
    still = tuple(side for side in SIDES if side not in moved)
    return [(geometry, still), *((there, (side,)) for side, there in moved.items())]


def _edge_shifts(image: Image, geometry: Geometry, match: Match, skin: Skin
                 ) -> dict[str, tuple[int, int]]:
    """How far, across and down, each edge line of the board that has cells not matching
    closely (in ``match``) lies off the lattice (:func:`~autoplay.vision.line_shift`), for
    those that do: a game may space its lines unevenly, by more than a cell is matched
    around it."""
    loose = match.loose().reshape(geometry.rows, geometry.cols)
    edges = {"top": (loose[0], ("row", 0)), "bottom": (loose[-1], ("row", geometry.rows - 1)),
             "left": (loose[:, 0], ("col", 0)), "right": (loose[:, -1], ("col", geometry.cols - 1))}
    shifts = {}
    for side, (cells, line) in edges.items():
        shift = line_shift(image, geometry, skin, line) if cells.any() else 0
        if shift:
            shifts[side] = (shift, 0) if line[0] == "col" else (0, shift)
    return shifts


_CUT_DISTANCE = 40.0
"""A strip beyond the board's edge is part of a covered cell or a mine when it is this
close to that look's own strip (root-mean-square, 0-255 per channel)..."""
_INSIDE_DISTANCE = 20.0
"""... or this close when the strip stops inside the image: xdemineur's bevelled frame
beside a whole board is about 40 from its covered cells' edges when the screenshot is
shrunk or grown, while most cells a window cuts short come within 15 of them (not all:
``python tools/reading_faults.py clipped`` at 75%)."""
_CUT_MARGIN = 1.5
"""... and this many times closer than to an opened cell's strip or the window's."""


def _closed(skin: Skin) -> npt.NDArray[np.bool_]:
    """Which of the skin's templates are of covered cells or mines."""
    closed: npt.NDArray[np.bool_] = (skin.states < 0) & (skin.states != OUTSIDE)
    return closed


def _covered(skin: Skin) -> npt.NDArray[np.bool_]:
    """Which of the skin's templates are of covered cells or flags: of those a game still
    being played shows, the ones the cells beyond a cut can hide mines under."""
    covered: npt.NDArray[np.bool_] = np.isin(skin.states, (UNKNOWN, FLAG))
    return covered


def find_cut(image: Image, skin: Skin, geometry: Geometry, closed: npt.NDArray[np.bool_],
             sides: Collection[str] = SIDES) -> tuple[str, CutKind] | None:
    """The side of the board (of ``sides``) where a covered cell or a mine lies just beyond
    it, and how: cut short by the image's edge (``"edge"``) or by something inside the
    image (``"inside"``: a window too small for its board), or whole (``"short"``: the
    board goes on, and only part of it was found); or None.

    A cut board is read as the smaller board the image shows, and what that board proves
    next to the cut may be false: a count there can have covered cells or mines beyond
    it. Opened cells beyond change nothing the board says, and cannot be told from a
    window's plain frame, so only a strip (narrower than a cell, from the board's edge
    outwards) that looks like the matching strip of a covered cell or a mine, and much
    less like an opened cell's or the window's, counts. Up to the image's edge, a strip of
    one pixel will do: no whole window of the fixtures is refused at 75% to 150%
    (``python tools/reading_faults.py whole``), and the cut ones are caught more often.
    Inside the image, where a window too small for its board cuts it, the window's frame
    follows the part of a cell it shows, and its first pixel or two can be as like a
    covered cell's as the window's frame beside a whole board is: a strip counts there
    from a quarter of a cell deep (:func:`_inside_depth`), and only when closer to the
    cell's own (``_INSIDE_DISTANCE``); every depth from that to a cell's less one is
    tried (``python tools/reading_faults.py clipped``). A strip a whole cell deep that
    ends as a covered cell does (:func:`_goes_on`) is no cut: the board goes on, and only
    part of it was found (xbomb's cells of 20 pixels shrunk to 75%; GNOME Mines' 30x16 in
    a 1440x868 window, its last 9 columns a pixel closer than the rest, was read 29
    columns wide with no warning up to commit 0c6f07b).

    The strips it is compared with are those of the skin's templates, scaled to the
    pitch. A screenshot shrunk or grown changes the few pixels at a cell's edge more than
    that shows, so a strip also counts when it is much closer to the matching strips of
    the board's covered cells and mines (``closed``, flat, row by row) than to those of
    its other cells, all changed alike, and the templates lean the same way, nearer a
    covered cell or a mine than an opened cell: a window's plain frame can be as like
    the covered cells' edges as they are like each other (Ace of Penguins'), and the
    board has no frame of its own to compare with. Nor does it count when the skin's own
    look of the window beyond a board (its outside templates) is closer still: sgt-mines'
    white bevel over grey is as like the top of its covered cell as like the window, and a
    screenshot cropped close round the board was refused
    (``python tools/reading_faults.py margins``).
    """
    pitch_x, pitch_y = max(2, round(geometry.pitch_x)), max(2, round(geometry.pitch_y))
    looks = _looks(skin, pitch_x, pitch_y)
    closed_looks = _closed(skin)
    opened_looks = ~closed_looks & (skin.states != OUTSIDE)
    frame_looks = skin.states == OUTSIDE
    cells: dict[bytes, tuple[Image, Image]] = {}  # the board's cells' looks, kept
    for side, gap in _margins(image, geometry).items():
        if side not in sides:
            continue
        across = side in ("top", "bottom")
        pitch = pitch_y if across else pitch_x
        deepest = min(gap, pitch)  # to the image's edge, or a whole cell to tell a cut by
        depths = [*range(_inside_depth(pitch), min(gap, pitch - 1) + 1)]
        if 0 < gap < pitch and gap not in depths:
            depths.append(gap)
        if not depths:
            continue
        columns = np.array(depths) - 1
        limits = np.where(np.array(depths) == gap, _CUT_DISTANCE, _INSIDE_DISTANCE)
        strips = _outwards(looks, side)[:, :deepest]
        beyond = np.array(list(_beyond(image, geometry, side, deepest)), np.float32)
        if not len(beyond):
            continue
        distances = _depth_distances(strips, beyond)[..., columns]  # look, strip, depth
        near = distances[closed_looks].min(axis=0, initial=np.inf)
        cut = _is_closer(near, distances[~closed_looks].min(axis=0, initial=np.inf), limits)
        leaning = near < distances[opened_looks].min(axis=0, initial=np.inf)
        unsure = leaning.any(axis=1) & ~cut.any(axis=1)  # the templates lean, no more
        own = (_own_strips(image, geometry, side, deepest, closed, cells)
               if unsure.any() or (cut.any() and deepest == pitch) else None)
        if own is not None and unsure.any():
            near_own, other_own = (_depth_distances(kind, beyond)[..., columns].min(
                axis=0, initial=np.inf) for kind in own)
            frame = distances[frame_looks].min(axis=0, initial=np.inf)
            cut |= unsure[:, None] & leaning & _is_closer(
                near_own, np.minimum(other_own, frame), limits)
        for strip in np.flatnonzero(cut.any(axis=1)):
            if own is not None and deepest == pitch and _goes_on(
                    beyond[strip], strips, closed_looks, own):
                return side, "short"  # a whole covered cell: the board goes on
            at_edge = bool(cut[strip, depths.index(gap)]) if gap in depths else False
            return side, "edge" if at_edge else "inside"
    return None


def _goes_on(beyond: Floats, strips: Floats, closed_looks: npt.NDArray[np.bool_],
             own: tuple[Floats, Floats]) -> bool:
    """Whether ``beyond``, a whole cell deep, ends as a covered cell or a mine does: the
    far quarter of it, where a window too small for its board shows its frame, is near
    the far quarter of a closed look (``strips`` where ``closed_looks``, or the board's
    own, ``own[0]``) and much less like the other looks and the board's other cells."""
    far = slice(len(beyond) - max(2, len(beyond) // 4), len(beyond))

    def nearest(blocks: Floats) -> float:
        if not len(blocks):
            return np.inf
        return float(np.sqrt(((blocks[:, far] - beyond[far]) ** 2).mean(axis=(1, 2, 3))).min())
    near = min(nearest(strips[closed_looks]), nearest(own[0]))
    other = min(nearest(strips[~closed_looks]), nearest(own[1]))
    return near < _INSIDE_DISTANCE and _CUT_MARGIN * near < other


def _inside_depth(pitch: int) -> int:
    """The shallowest strip that shows a cell cut short inside the image: a window's frame
    beside a whole board is as like a covered cell's first pixel or two as that is (the
    bevels of sgt-mines and xdemineur)."""
    return max(3, pitch // 4)


def _outwards(blocks: npt.NDArray[Any], side: str) -> npt.NDArray[Any]:
    """Cell-sized ``blocks`` (..., rows, columns, 3) turned so that their first axis runs
    away from the board beyond ``side``: from the edge that would touch the board."""
    return {"bottom": blocks, "top": blocks[..., ::-1, :, :],
            "right": np.swapaxes(blocks, -3, -2),
            "left": np.swapaxes(blocks[..., :, ::-1, :], -3, -2)}[side]


def _beyond(image: Image, geometry: Geometry, side: str, depth: int) -> Iterator[Floats]:
    """The image beyond the board's ``side``, ``depth`` pixels deep and one pitch along,
    beside each cell of its edge line that the image holds, turned by :func:`_outwards`."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = geometry.box()
    pitch_x, pitch_y = max(2, round(geometry.pitch_x)), max(2, round(geometry.pitch_y))
    across = side in ("top", "bottom")
    for k in range(geometry.cols if across else geometry.rows):
        left, top, _, _ = geometry.cell_box(Cell(0, k) if across else Cell(k, 0))
        if min(left, top) < 0 or (left + pitch_x > width if across else top + pitch_y > height):
            continue
        block = {"top": image[y0 - depth:y0, left:left + pitch_x],
                 "bottom": image[y1:y1 + depth, left:left + pitch_x],
                 "left": image[top:top + pitch_y, x0 - depth:x0],
                 "right": image[top:top + pitch_y, x1:x1 + depth]}[side]
        yield _outwards(block.astype(np.float32), side)


def _own_strips(image: Image, geometry: Geometry, side: str, depth: int,
                closed: npt.NDArray[np.bool_], cells: dict[bytes, tuple[Image, Image]]
                ) -> tuple[Floats, Floats]:
    """The strips that the board's covered cells and mines (``closed``), and its other
    cells, would show beyond ``side`` were they there, ``depth`` pixels deep, turned as
    :func:`_beyond` turns the image's: each look once, most cells looking alike. The
    cells' distinct looks are kept in ``cells`` for the other sides, which mostly take
    them from the same pixels."""
    pitch_x, pitch_y = max(2, round(geometry.pitch_x)), max(2, round(geometry.pitch_y))
    xs, ys = geometry.lines()
    x = xs[1:] - pitch_x if side == "left" else xs[:-1]  # from the cells' edge that
    y = ys[1:] - pitch_y if side == "top" else ys[:-1]  # would touch the board
    key = x.tobytes() + y.tobytes()
    if key not in cells:
        height, width = image.shape[:2]
        rows = np.flatnonzero((y >= 0) & (y + pitch_y <= height))
        cols = np.flatnonzero((x >= 0) & (x + pitch_x <= width))
        blocks = (image[(y[rows, None] + np.arange(pitch_y)).ravel()]
                  [:, (x[cols, None] + np.arange(pitch_x)).ravel()]
                  .reshape(len(rows), pitch_y, len(cols), pitch_x, 3).swapaxes(1, 2)
                  .reshape(-1, pitch_y, pitch_x, 3))  # row by row of the board's cells
        is_closed = closed.reshape(geometry.rows, geometry.cols)[np.ix_(rows, cols)].ravel()
        cells[key] = _distinct(blocks[is_closed]), _distinct(blocks[~is_closed])
    closed_parts, other_parts = (_distinct(_outwards(kind, side)[:, :depth])
                                 for kind in cells[key])
    return closed_parts.astype(np.float32), other_parts.astype(np.float32)


def _distinct(blocks: Image) -> Image:
    """``blocks`` with each look once."""
    looks = {block.tobytes(): block for block in blocks}
    return np.array(list(looks.values()), np.uint8).reshape(-1, *blocks.shape[1:])


def _depth_distances(strips: Floats, beyond: Floats) -> Floats:
    """The root-mean-square distance from each of ``strips`` (looks, depth, along, 3) to
    each of ``beyond`` (strips, depth, along, 3), over its first pixel, its first two and
    so on: indexed by look, strip beyond and depth."""
    squares = ((strips[:, None] - beyond[None]) ** 2).sum(axis=(3, 4)).cumsum(axis=2)
    depth, along = beyond.shape[1:3]
    distances: Floats = np.sqrt(squares / (np.arange(1, depth + 1) * along * 3))
    return distances


def _is_closer(near: Floats, other: Floats, limits: Floats) -> npt.NDArray[np.bool_]:
    """Whether strips ``near`` a covered cell's or a mine's (each within its depth's
    ``limits``) and ``other`` from an opened cell's or the window's are part of a covered
    cell or a mine."""
    closer: npt.NDArray[np.bool_] = (near < limits) & (_CUT_MARGIN * near < other)
    return closer


def edges_reached(image: Image, geometry: Geometry, skin: Skin,
                  covered: npt.NDArray[np.bool_]) -> tuple[str, ...]:
    """The edges of the image ("top", "bottom", "left", "right") that the board's cells
    reach or pass, or that a sliver of a further line of its cells may reach.

    Every game draws a frame around its board, so a board flush with the image's edge was
    either cropped to its cells or cut there, at or within a line of cells; and beyond the
    edge there is no strip to tell the two apart (:func:`find_cut`). Nor is there when the
    image ends in a strip narrower than a cell that is as like the first pixels of a
    covered cell (of the skin's, or of the board's own ``covered`` cells, flat, row by
    row) as like the window's frame, and close to them (``_SLIVER_DISTANCE``): many skins
    start every cell, covered or opened, with the same grid line, so :func:`find_cut`
    cannot see that covered cells were cut there (``python tools/reading_faults.py past``).
    Only covered cells and flags count here: the mines a lost game shows are drawn on
    Ace of Penguins' opened cells, whose grid line closes its board too. A cut board
    reads as the smaller board the image shows, and what it proves next to the cut may
    be false.
    """
    sides = []
    pitch_x, pitch_y = max(2, round(geometry.pitch_x)), max(2, round(geometry.pitch_y))
    is_frame, is_covered = skin.states == OUTSIDE, _covered(skin)
    looks: Floats | None = None  # the skin's, made once a sliver is found
    for side, gap in _margins(image, geometry).items():
        if gap >= (pitch_y if side in ("top", "bottom") else pitch_x):
            continue
        if gap <= 0:
            sides.append(side)
            continue
        beyond = np.array(list(_beyond(image, geometry, side, gap)), np.float32)
        if not len(beyond):
            continue
        looks = _looks(skin, pitch_x, pitch_y) if looks is None else looks
        strips = _outwards(looks, side)[:, :gap]
        own, _ = _own_strips(image, geometry, side, gap, covered, {})
        distances = _depth_distances(np.concatenate([strips[is_covered], own]), beyond)
        near = distances[..., -1].min(axis=0)  # per strip
        frame = _depth_distances(strips[is_frame], beyond)[..., -1].min(
            axis=0, initial=np.inf)
        if ((near < _SLIVER_DISTANCE) & (near <= frame)).any():
            sides.append(side)
    return tuple(sides)


_SLIVER_DISTANCE = 3.0
"""A strip at the image's edge this close to the first pixels of a covered cell
(root-mean-square, 0-255 per channel) may be part of one (:func:`edges_reached`). At 100%
the cells cut are within a pixel's rounding of the board's own; the frame beside every
whole fixture, at 75% to 150%, is farther (``python tools/reading_faults.py whole``), and
so is Ace of Penguins' frame cropped to 4 pixels or more."""


def _looks(skin: Skin, pitch_x: int, pitch_y: int) -> Floats:
    """The skin's templates at the pitch, as floats."""
    return np.stack([shrink(t.image, pitch_x, pitch_y) for t in skin.templates]
                    ).astype(np.float32)


def _margins(image: Image, geometry: Geometry) -> dict[str, int]:
    """The pixels between the board and each edge of the image, negative past it."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = geometry.box()
    return {"top": y0, "bottom": height - y1, "left": x0, "right": width - x1}


def edges_in_words(edges: Sequence[str]) -> str:
    """``("top", "left")`` as "top and left edges", for a message."""
    return f"{listed(edges)} {'edges' if len(edges) > 1 else 'edge'}"


def others_in_words(reading: Reading) -> str:
    """The other boards a reading met, as "another board, xbomb 16x16 at x=656, y=49, besides
    the gnome-mines 8x8 at x=34, y=89, which is read", for a warning."""
    def board(skin: str, geometry: Geometry) -> str:
        return (f"{skin} {geometry.cols}x{geometry.rows} at x={round(geometry.left)}, "
                f"y={round(geometry.top)}")

    others = [board(*other) for other in reading.others]
    return (f"{'another board' if len(others) == 1 else 'other boards'}, {listed(others)}, "
            f"besides the {board(reading.skin, reading.geometry)}, which is read")


def _rank(candidate: _Candidate) -> float:
    """Better boards cover more of the image with recognised cells (a lattice of half the
    pitch on a board can hold more cells, but never more area), matched more closely."""
    geometry = candidate.geometry
    return (candidate.recognised * geometry.pitch_x * geometry.pitch_y
            * (1 - candidate.distance / MAX_DISTANCE))


def _find(image: Image, skins: Sequence[Skin]
          ) -> tuple[_Candidate, Skin, list[tuple[_Candidate, Skin]]] | None:
    """The best board of any of the skins in the image, its skin and the other boards the
    search met (see :func:`_others`); or None.

    A board at one of its skin's own scales matches almost exactly, and is taken at once
    (the best such, if several skins find one). The skins whose covered cells show are
    searched for one first, and the others only if none is found (see :func:`_in_order`):
    a game being played shows covered cells, so on a screen with one game the other skins
    cost only the search for their covered look. Else the coarse search runs at the usual
    display scalings of the skins' own sizes (``_DISPLAY_SCALES``), and the most promising
    rough lattices are settled. Only when none of them is a board shown at such a scaling
    (:func:`_is_displayed`) nor a game under way (:func:`_shows_play`) does it run at the
    rest of the ladder, the far costlier part on a big screen (its small scales shrink the
    image least). A lattice settles at the board's own pitch, whatever the scale of its
    seeds, so a board at another scale (GNOME Mines draws its tiles to fit its window) is
    settled from these seeds too, whole or in part, and grown below; but a lattice of half
    a covered board's pitch reads its quarter tiles as covered cells, and the ladder finds
    the true board (a new 8x8 game at 800x600). Nor does the rest of the ladder run when a
    board settled is on whole tiles (:func:`_is_whole_tiles`), such as a new 30x16 game in
    a maximized window, whose tiles are at no display scaling; and the ladder stops at the
    first skin that settles such a board. When one is shown at a display scaling,
    only the boards settled at such a scaling's pitch are ranked, read whole or not:
    GNOME Mines' covered 8x8 in an 850x640 window, its tiles 69 px (150% of 46), settled
    as 9x8 with its title bar for a row, and a lattice of half its pitch read all 16x16 of
    its quarter tiles as covered cells (that board is the better, and its title bar row is
    polished off below). The best board is grown by any line its settled pitch reaches
    (:func:`_extend`); when it is not read whole, the best :data:`_RIVALS` are polished
    and grown, and the best of them taken.

    In a grey image (a screenshot saved in greyscale) the skins are matched in grey too.

    :raises NoBoardFound: when the image is too large to search (:data:`MAX_PIXELS`).
    """
    check_size(image)
    if _blank_span(image, skins) is not None:
        return None
    if is_grey(image):
        skins = [_grey_skin(skin) for skin in skins]
    coarse = _Coarse(image)
    found: list[tuple[_Candidate, Skin]] = []
    for group in _in_order(coarse, skins):
        found += [(candidate, skin) for skin in group for scale in skin.scales
                  for candidate in _settled(image, skin, [
                      (weight, _on_pixels(lattice, skin, scale)) for weight, lattice
                      in _seed_lattices(coarse, skin, scale)], snapped=True)]
        exact = [(candidate, skin) for candidate, skin in found if candidate.is_exact()]
        if exact:
            candidate, skin = max(exact, key=lambda pair: _rank(pair[0]))
            return candidate, skin, _others(candidate, found)
    rough = {skin: [lattice for lattice in _promising(coarse, skin, _DISPLAY_SCALES)
                    if _is_display_pitch(lattice[1], skin, _ROUGH_PITCH)] for skin in skins}
    settled = {skin: _settled(image, skin, rough[skin]) for skin in skins}
    seeded = [(candidate, skin) for skin in skins for candidate in settled[skin]]
    close = [(candidate, skin) for candidate, skin in seeded if _is_displayed(candidate, skin)]
    taken = (close or any(_shows_play(skin, candidate.match) for candidate, skin in seeded)
             or any(_is_whole_tiles(image, candidate, skin) for candidate, skin in seeded))
    for skin in () if taken else skins:  # the rest of the ladder
        rest = [lattice for lattice in _promising(coarse, skin, _SCALES)
                if lattice not in rough[skin]]
        known = len(settled[skin])  # those were found not on whole tiles above
        settled[skin] = _settled(image, skin, rest, settled[skin])
        if any(_is_whole_tiles(image, candidate, skin) for candidate in settled[skin][known:]):
            break
    found += [(candidate, skin) for skin in skins for candidate in settled[skin]
              if not close or _is_display_pitch(candidate.geometry, skin, _DISPLAYED)]
    if not found:
        return None
    ranked = sorted(found, key=lambda pair: _rank(pair[0]), reverse=True)
    if ranked[0][0].is_complete():
        grown = [ranked[0]]
    else:
        grown = [(_Candidate(*_polish(image, skin, candidate.geometry, candidate.match,
                                      _WIDE_STEPS)), skin)
                 for candidate, skin in _distinct_boards(ranked)[:_RIVALS]]
    board, skin = max(((_extend(image, skin, candidate), skin) for candidate, skin in grown),
                      key=lambda pair: _rank(pair[0]))
    return board, skin, _others(board, found)


def _shows_play(skin: Skin, match: Match) -> bool:
    """Whether a recognised cell is a count, a flag or a mine: a game under way, whose
    board no lattice of a part of its pitch reads, as one can a board's covered and opened
    empty cells (their quarters look like them)."""
    states = skin.states[match.best][match.recognised()]
    return bool(((states != 0) & (states != UNKNOWN)).any())


def _is_whole_tiles(image: Image, candidate: _Candidate, skin: Skin) -> bool:
    """Whether a settled board is read closely, nearly every cell recognised, and no
    lattice of twice its pitch on it reads as closely: then its cells are the game's
    tiles, not their quarters (see :func:`_find`), and the ladder can only find it again."""
    geometry = candidate.geometry
    if candidate.distance >= _CLOSE or candidate.recognised < _SURE * geometry.rows * geometry.cols:
        return False
    for row, col in ((0, 0), (0, 1), (1, 0), (1, 1)):
        rows, cols = (geometry.rows - row) // 2, (geometry.cols - col) // 2
        if min(rows, cols) < 1:
            continue
        double = Geometry(geometry.left + col * geometry.pitch_x,
                          geometry.top + row * geometry.pitch_y,
                          2 * geometry.pitch_x, 2 * geometry.pitch_y, rows, cols)
        match = match_lattice(image, double, skin)
        if _Candidate(double, match).distance <= candidate.distance:
            return False
    return True


_SURE = 0.95
"""The share of a board's cells that must be recognised for :func:`_is_whole_tiles` to
take it for the game's board: a lattice straying off the board does not stop the search."""


_RIVALS = 3
"""When the best board found is not read whole, this many of the best are polished widely
and grown, and the best of them taken: GNOME Mines' crowded 16x16 in a 660x500 window,
its first rows 26 px apart and the rest 25, settled best as 11x15 at a pitch fitting the
lower rows, and grew to 14x16 missing the two top rows (a 14x14 board higher up, ranked
second, grows to the whole board)."""


def _distinct_boards(found: list[tuple[_Candidate, Skin]]) -> list[tuple[_Candidate, Skin]]:
    """``found`` in its order, each board once: two seeds can settle on the same one."""
    distinct: dict[tuple[str, tuple[int, int, int, int]], tuple[_Candidate, Skin]] = {}
    for candidate, skin in found:
        distinct.setdefault((skin.name, _state(candidate.geometry)), (candidate, skin))
    return list(distinct.values())


def _others(board: _Candidate, found: list[tuple[_Candidate, Skin]]
            ) -> list[tuple[_Candidate, Skin]]:
    """The boards among ``found`` apart from ``board``, best first: every cell recognised
    closely, and no two overlapping. The search stops at the first board matched exactly,
    so a second board is met only when its skin was searched by then (two games of one
    skin, say), and the reading may not name it."""
    others: list[tuple[_Candidate, Skin]] = []
    for candidate, skin in sorted(found, key=lambda pair: -_rank(pair[0])):
        if (candidate.is_complete() and candidate.distance < _CLOSE
                and not any(_overlap(candidate.geometry, kept.geometry)
                            for kept in [board, *(other for other, _ in others)])):
            others.append((candidate, skin))
    return others


def _overlap(one: Geometry, other: Geometry) -> bool:
    left, top, right, bottom = one.box()
    other_left, other_top, other_right, other_bottom = other.box()
    return (left < other_right and other_left < right and top < other_bottom
            and other_top < bottom)


@functools.cache
def _grey_skin(skin: Skin) -> Skin:
    """:meth:`Skin.in_grey`, made once a skin (skins compare by identity)."""
    return skin.in_grey()


def _in_order(coarse: _Coarse, skins: Sequence[Skin]) -> list[list[Skin]]:
    """The skins in the groups their boards are sought in: first those whose covered look
    shows at one of their own scales (seeds of it weighing ``_FIT_WEIGHT``, two cells
    matched exactly), then the others. A lone skin makes one group: nothing to order."""
    if len(skins) == 1:
        return [list(skins)]
    showing = [skin for skin in skins if any(
        weight >= _FIT_WEIGHT for scale in skin.scales
        for weight, _ in _seed_lattices(coarse, skin, scale, covered=True))]
    return [showing, [skin for skin in skins if skin not in showing]]


def _ladder(skin: Skin, scales: Sequence[float]) -> list[float]:
    """The scales tried for a skin: ``scales`` of each of its own cell sizes (a 200%
    screen of Ace of Penguins' 48 px cells is 4 times its 24 px ones), one of any two within
    4% of each other."""
    ladder = list(scales)
    for size in skin.scales[1:]:
        ladder += [scale * size for scale in scales
                   if all(abs(scale * size / other - 1) > 0.04 for other in ladder)]
    return sorted(ladder)


def _is_displayed(candidate: _Candidate, skin: Skin) -> bool:
    """Every cell recognised closely (``_CLOSE``), with a pitch within a percent of a
    display scaling of one of the skin's own cell sizes. A display scales a window
    exactly, so such a board is one a scaled display shows, and only the boards at such a
    pitch are ranked with it (see :func:`_find`)."""
    return (candidate.is_complete() and candidate.distance < _CLOSE
            and _is_display_pitch(candidate.geometry, skin, _DISPLAYED))


_DISPLAYED = 0.01
"""A pitch within this share of a display scaling of one of the skin's own cell sizes is
taken for one: a display scales a window exactly."""


def _is_display_pitch(geometry: Geometry, skin: Skin, within: float) -> bool:
    """True when the lattice's pitch is within ``within`` (a share) of a display scaling
    of one of the skin's own cell sizes."""
    size_x, size_y = skin.pitch
    return any(abs(geometry.pitch_x / (size_x * scale) - 1) < within
               and abs(geometry.pitch_y / (size_y * scale) - 1) < within
               for scale in _ladder(skin, _DISPLAY_SCALES))


def _promising(coarse: _Coarse, skin: Skin, scales: Sequence[float]
               ) -> list[tuple[float, Geometry]]:
    """The rough lattices of the skin's ladder of ``scales`` worth settling: the
    ``_SETTLED`` whose weighed seeds cover the most area, and the ``_SETTLED`` with the
    most weighed seeds times the root of a cell's area."""
    rough = [lattice for scale in _ladder(skin, scales)
             for lattice in _seed_lattices(coarse, skin, scale)]
    by_area = sorted(rough, key=lambda item: -item[0] * item[1].pitch_x * item[1].pitch_y)
    by_count = sorted(rough, key=lambda item: -item[0] * np.sqrt(item[1].pitch_x
                                                                 * item[1].pitch_y))
    return list({id(item): item for item in by_area[:_SETTLED] + by_count[:_SETTLED]}.values())


def _settled(image: Image, skin: Skin, lattices: list[tuple[float, Geometry]],
             found: Sequence[_Candidate] = (), *, snapped: bool = False) -> list[_Candidate]:
    """The boards settled from rough lattices, after those already ``found``; a lattice
    whose middle lies on a board found, every cell of it recognised, is that board, and
    is skipped: when that board was matched almost exactly, or its pitch is within a tenth
    of the lattice's. (A board matched loosely may be a lattice of half the pitch on a
    board of plain covered cells, which a lattice at the right pitch beats.) ``snapped``:
    see :func:`_settle`."""
    found = list(found)
    for weight, geometry in lattices:
        middle = geometry.centre(Cell(geometry.rows // 2, geometry.cols // 2))
        if not any(_covers(candidate.geometry, middle) and candidate.is_complete()
                   and (candidate.is_exact() or _same_pitch(candidate.geometry, geometry))
                   for candidate in found):
            candidate = _settle(image, skin, geometry, snapped=snapped, weight=weight)
            found += [candidate] if candidate is not None else []
    return found


def _same_pitch(a: Geometry, b: Geometry) -> bool:
    return abs(a.pitch_x / b.pitch_x - 1) < 0.1 and abs(a.pitch_y / b.pitch_y - 1) < 0.1


def _on_pixels(geometry: Geometry, skin: Skin, scale: float) -> Geometry:
    """A rough lattice at one of the skin's own scales, moved to whole pixels and given
    that scale's pitch exactly, if it is within a percent of it: on a screen at that
    scale, the board is there."""
    pitch_x, pitch_y = skin.pitch[0] * scale, skin.pitch[1] * scale
    if abs(geometry.pitch_x / pitch_x - 1) > 0.01 or abs(geometry.pitch_y / pitch_y - 1) > 0.01:
        return geometry
    return Geometry(round(geometry.left), round(geometry.top), pitch_x, pitch_y,
                    geometry.rows, geometry.cols)


def _covers(geometry: Geometry, point: tuple[float, float]) -> bool:
    x0, y0, x1, y1 = geometry.box()
    return x0 <= point[0] < x1 and y0 <= point[1] < y1


class _Coarse:
    """One image as the coarse search sees it: in grey, shrunk so that a skin's cell is
    ``COARSE`` pixels a side, and matched there against the skin's coarse looks. Each
    size is shrunk once, for all the skins whose cells it fits (sgt-mines' cells and
    xbomb's small ones are both 20 px), and each look matched once: a skin's covered
    looks, searched for first, count again in its full search."""

    def __init__(self, image: Image) -> None:
        self.pyramid = [np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)]
        while min(self.pyramid[-1].shape) >= 64:  # halvings: shrinking a smaller one is cheaper
            self.pyramid.append(np.asarray(cv2.resize(self.pyramid[-1], None, fx=0.5, fy=0.5,
                                                      interpolation=cv2.INTER_AREA), np.uint8))
        self._shrunk: OrderedDict[tuple[int, int], tuple[Floats, Floats]] = OrderedDict()
        self._distances: OrderedDict[tuple[Skin, int, int, bool], Floats] = OrderedDict()
        self.lattices: dict[tuple[Skin, float, bool], list[tuple[float, Geometry]]] = {}
        """:func:`_seed_lattices` by skin, scale and covered: a few numbers each, all
        kept (the display scalings are searched again as part of the whole ladder)."""

    @property
    def shape(self) -> tuple[int, int]:
        """Height and width of the image."""
        return self.pyramid[0].shape[0], self.pyramid[0].shape[1]

    def distances(self, skin: Skin, width: int, height: int, *, covered: bool = False
                  ) -> Floats:
        """The distance to the closest of the skin's coarse looks (or of its covered looks
        only) at every place of the image shrunk to ``width`` x ``height`` (see
        :func:`_coarse_distances`)."""
        def make() -> Floats:
            looks = skin.covered if covered else skin.coarse[len(skin.covered):]
            parts = [] if covered or not skin.covered else [
                self.distances(skin, width, height, covered=True)]
            if looks:
                parts.append(_coarse_distances(*self.shrunk(width, height), looks))
            return parts[0] if len(parts) == 1 else np.minimum(*parts)
        return _recent(self._distances, (skin, width, height, covered), make)

    def shrunk(self, width: int, height: int) -> tuple[Floats, Floats]:
        """The grey image shrunk to ``width`` x ``height`` (by area averaging, from the
        smallest halving big enough), as floats, and the mean square of every
        ``COARSE``-pixel square of it, which every template's distance there shares."""
        def make() -> tuple[Floats, Floats]:
            level = max((grey for grey in self.pyramid
                         if grey.shape[0] >= height and grey.shape[1] >= width),
                        key=lambda grey: -grey.size, default=self.pyramid[0])
            small = shrink(level, width, height)
            squares = cv2.sqrBoxFilter(small, cv2.CV_32F, (COARSE, COARSE), anchor=(0, 0))
            return small.astype(np.float32), np.asarray(squares, np.float32)
        return _recent(self._shrunk, (width, height), make)


_KEPT = 2
"""How many shrunk images, and distance maps, :class:`_Coarse` keeps: the searches use
each soon after making it. Keeping every one made a 4K screenshot cost 2 GB; keeping 8, an
image of 36 megapixels with no board in it 4.0 GB, and 2, 2.3 GB in the same time."""


_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


def _recent(cache: OrderedDict[_Key, _Value], key: _Key, make: Callable[[], _Value]) -> _Value:
    """``cache[key]``, made by ``make`` when missing; only the :data:`_KEPT` most recently
    used are kept."""
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = cache[key] = make()
    if len(cache) > _KEPT:
        cache.popitem(last=False)
    return value


def _seed_lattices(coarse: _Coarse, skin: Skin, scale: float, *, covered: bool = False
                   ) -> list[tuple[float, Geometry]]:
    """Rough lattices at one scale, biggest first, with their weights, from a search on a
    shrunk grey image for the skin's coarse looks (``covered``: its covered looks only);
    searched once an image (see :func:`_search_seeds`)."""
    key = (skin, scale, covered)
    if key not in coarse.lattices:
        coarse.lattices[key] = _search_seeds(coarse, skin, scale, covered=covered)
    return coarse.lattices[key]


def _search_seeds(coarse: _Coarse, skin: Skin, scale: float, *, covered: bool
                  ) -> list[tuple[float, Geometry]]:
    """The rough lattices of :func:`_seed_lattices`, searched for.

    The image is shrunk so that a cell of this scale is ``COARSE`` pixels a side; every
    spot close to a template is a seed; seeds a cell apart form grids (:func:`_grids`), and
    each grid is a lattice fitted to its seeds' positions (which corrects the pitch of an
    approximate scale). A lattice weighs the cells its seeds fall on, times how closely
    they match (1 exactly, 0 at the seeds' limit): on a board of plain covered cells,
    lattices of a half or a third of the pitch find seeds everywhere too, but poorer ones.
    """
    fx = COARSE / (skin.pitch[0] * scale)
    fy = COARSE / (skin.pitch[1] * scale)
    height, width = round(coarse.shape[0] * fy), round(coarse.shape[1] * fx)
    if height < 2 * COARSE or width < 2 * COARSE or (covered and not skin.covered):
        return []
    distance = coarse.distances(skin, width, height, covered=covered)
    # A seed is close enough, strictly closer than the spots around it (an edge ties along
    # its length), and clearly closer than spots a few pixels away. Few spots are close
    # enough, so the other two tests are made only there.
    ys, xs = np.nonzero(distance < _SEED_DISTANCE ** 2)
    if len(xs) < _MIN_CELLS:
        return []
    ring = np.ones((3, 3), np.uint8)
    ring[1, 1] = 0
    lowest_around = cv2.erode(distance, ring)
    highest = cv2.dilate(distance, np.ones((COARSE - 1, COARSE - 1), np.uint8))
    near = distance[ys, xs]
    seed = (near < lowest_around[ys, xs]) & (highest[ys, xs] - near > _SEED_CONTRAST ** 2)
    ys, xs = ys[seed], xs[seed]
    if len(xs) < _MIN_CELLS:
        return []
    sx = xs + _subpixel(distance, ys, xs, axis=1)
    sy = ys + _subpixel(distance, ys, xs, axis=0)
    lattices = []
    for group, cols, rows in _grids(xs, ys, sx, sy, distance.shape, _TRIED_LATTICES):
        left, top, pitch_x, pitch_y = _fit(cols, sx[group] / fx, rows, sy[group] / fy,
                                           (COARSE / fx, COARSE / fy))
        c0, r0 = int(cols.min()), int(rows.min())
        cells = len(set(zip(cols.tolist(), rows.tolist())))
        quality = 1 - float(np.sqrt(distance[ys[group], xs[group]].mean())) / _SEED_DISTANCE
        lattices.append((cells * quality, Geometry(
            left + c0 * pitch_x, top + r0 * pitch_y, pitch_x, pitch_y,
            int(rows.max()) - r0 + 1, int(cols.max()) - c0 + 1)))
    return lattices


def _coarse_distances(small: Floats, squares: Floats, templates: Sequence[Image]
                      ) -> Floats:
    """The mean squared difference between the closest template and the image at every
    place a template fits (what ``cv2.matchTemplate``'s ``TM_SQDIFF`` gives, per pixel),
    given the image's mean square at every place (see :meth:`_Coarse.shrunk`). That is
    the same for every template, so it is added once, to the closest; each template's
    correlation by ``cv2.filter2D`` gives the rest of its distance in one pass (a kernel
    of -2 times the template and an offset of its own mean square, both over its area),
    several times faster than ``matchTemplate`` on templates this small."""
    area = COARSE * COARSE
    closest: Floats | None = None
    for template in templates:
        kernel = template.astype(np.float32)
        rest = np.asarray(cv2.filter2D(small, -1, kernel * (-2 / area), anchor=(0, 0),
                                       delta=float((kernel * kernel).sum()) / area),
                          np.float32)
        closest = rest if closest is None else np.minimum(closest, rest, out=closest)
    assert closest is not None  # never called without templates
    closest += squares
    rows, cols = small.shape[0] - COARSE + 1, small.shape[1] - COARSE + 1
    return np.maximum(closest[:rows, :cols], 0.0, out=closest[:rows, :cols])


def _grids(xs: npt.NDArray[np.intp], ys: npt.NDArray[np.intp], sx: Floats, sy: Floats,
           shape: tuple[int, ...], most: int
           ) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    """Group seeds into grids, biggest first: two seeds are neighbours when one lies about
    a cell (``COARSE`` pixels, give or take one) to the right of or below the other.

    Each group's own pitch is the mean step between its neighbours, so a grid whose
    pitch is a few percent off the coarse cell still numbers its columns and rows right,
    where one phase for the whole image would drift across a big board. (Not the median:
    steps come close to whole pixels, and a pitch of 8.25 gives steps of 8, 8, 8 and 9,
    whose median drifts by a column every 30. The steps lie within a pixel of the
    coarse cell, so none is far enough off to pull the mean.) ``xs``, ``ys`` are
    the seeds' pixels, ``sx``, ``sy`` their positions between pixels.

    Returns the ``most`` biggest groups of at least ``_MIN_CELLS`` seeds: each one's seed
    indices, with their columns and rows.
    """
    seeds = np.full(shape, -1, np.intp)
    seeds[ys, xs] = np.arange(len(xs))
    offsets = sorted(((ox, oy) for ox in (-1, 0, 1) for oy in (-1, 0, 1)),
                     key=lambda o: abs(o[0]) + abs(o[1]), reverse=True)
    links = []  # per way (right, down): seeds, and their neighbours that way
    for dx, dy in ((COARSE, 0), (0, COARSE)):
        found = np.full(len(xs), -1, np.intp)
        for ox, oy in offsets:  # the nearest offset is written last and wins
            tx, ty = xs + dx + ox, ys + dy + oy
            inside = (tx < shape[1]) & (ty < shape[0])
            hit = np.full(len(xs), -1, np.intp)
            hit[inside] = seeds[ty[inside], tx[inside]]
            found = np.where(hit >= 0, hit, found)
        links.append((np.flatnonzero(found >= 0), found[found >= 0]))
    sources = np.concatenate([a for a, _ in links])
    targets = np.concatenate([b for _, b in links])
    label = np.arange(len(xs))
    while True:  # every seed takes the smallest label among its neighbours, until none moves
        smaller = np.minimum(label[sources], label[targets])
        moved = label.copy()
        np.minimum.at(moved, sources, smaller)
        np.minimum.at(moved, targets, smaller)
        moved = moved[moved]
        if np.array_equal(moved, label):
            break
        label = moved
    groups = []
    values, sizes = np.unique(label, return_counts=True)
    biggest = np.argsort(-sizes, kind="stable")[:most]
    for value in values[biggest[sizes[biggest] >= _MIN_CELLS]]:
        group = np.flatnonzero(label == value)
        steps = []
        for (a, b), position in zip(links, (sx, sy)):
            inside = label[a] == value
            steps.append(float(np.mean(position[b[inside]] - position[a[inside]]))
                         if inside.any() else float(COARSE))
        cols = np.rint((sx[group] - sx[group].min()) / steps[0]).astype(np.intp)
        rows = np.rint((sy[group] - sy[group].min()) / steps[1]).astype(np.intp)
        groups.append((group, cols, rows))
    return groups


def _subpixel(distance: Floats, ys: npt.NDArray[np.intp], xs: npt.NDArray[np.intp],
              axis: int) -> Floats:
    """Where between pixels each minimum lies along one axis (a parabola through three)."""
    step = (0, 1) if axis == 1 else (1, 0)
    limit_y, limit_x = distance.shape[0] - 1, distance.shape[1] - 1
    before = distance[np.clip(ys - step[1], 0, limit_y), np.clip(xs - step[0], 0, limit_x)]
    centre = distance[ys, xs]
    after = distance[np.clip(ys + step[1], 0, limit_y), np.clip(xs + step[0], 0, limit_x)]
    curve = before - 2 * centre + after
    safe = np.where(curve > 1e-6, curve, 1.0)
    return np.where(curve > 1e-6, np.clip((before - after) / (2 * safe), -0.5, 0.5), 0.0)


def _vertex(before: float, centre: float, after: float) -> float:
    """Where between -0.5 and 0.5 the parabola through three neighbouring values is lowest;
    0 for an exact match (a centre of almost nothing), whose place is the pixel itself."""
    if centre < 0.01 * min(before, after):
        return 0.0
    curve = before - 2 * centre + after
    return float(np.clip((before - after) / (2 * curve), -0.5, 0.5)) if curve > 1e-6 else 0.0


def _fit(cols: npt.NDArray[np.intp], xs: npt.NDArray[np.floating[Any]],
         rows: npt.NDArray[np.intp], ys: npt.NDArray[np.floating[Any]],
         pitch: tuple[float, float]) -> tuple[float, float, float, float]:
    """Origin and pitch (left, top, pitch_x, pitch_y) of the lattice through cells at
    ``(xs, ys)`` in columns ``cols`` and rows ``rows``, robustly: each pitch is the median
    of the slopes between pairs (Theil-Sen), so stray matches do not bend the lattice.

    An axis whose positions span too few cells to measure its pitch, or disagree with the
    given one by more than a tenth, takes the other axis's, in the given pitch's
    proportions: a screen is scaled alike both ways. (Kept at a rough scale's pitch, a
    lattice of two rows drifts a pixel or more a row, so the rows beyond it are never
    recognised, and a board whose other cells gave no seeds is taken for those two rows.)
    The given pitch is kept when neither axis measures one.
    """
    pitch_x, pitch_y = _slope(cols, xs, pitch[0]), _slope(rows, ys, pitch[1])
    if pitch_x is None:
        pitch_x = pitch[0] if pitch_y is None else pitch_y * pitch[0] / pitch[1]
    if pitch_y is None:
        pitch_y = pitch_x * pitch[1] / pitch[0]
    return (float(np.median(xs - cols * pitch_x)), float(np.median(ys - rows * pitch_y)),
            pitch_x, pitch_y)


def _slope(index: npt.NDArray[np.intp], position: npt.NDArray[np.floating[Any]], pitch: float
           ) -> float | None:
    """The median of the slopes of ``position`` against ``index`` between pairs; None when
    the positions span too few cells to measure it, or it is more than a tenth off
    ``pitch``."""
    if len(index) > 64:  # the median of 2016 slopes is as good, and n² grows fast
        keep = np.linspace(0, len(index) - 1, 64).round().astype(int)
        index, position = index[keep], position[keep]
    if np.ptp(index) < 2:
        return None
    i, j = np.triu_indices(len(index), k=1)
    apart = index[j] != index[i]
    slope = float(np.median((position[j] - position[i])[apart] / (index[j] - index[i])[apart]))
    return slope if abs(slope / pitch - 1) < 0.1 else None


def _settle(image: Image, skin: Skin, geometry: Geometry, *, snapped: bool = False,
            weight: float = 0.0, fit: Skin | None = None) -> _Candidate | None:
    """Make a rough lattice exact on the full image, and find the board's edges.

    The lattice is fitted to where its cells match their templates best; then, on the
    lattice extended by a few cells each way, its edges move in while the edge row or
    column is mostly not cells of the skin, and out while the one beyond is mostly cells
    matching about as closely as the board's (:func:`_alike`).
    Fitting again on the bigger board refines the pitch; this repeats until the edges
    stay, or come back to where they were (:func:`_extend` then grows the best board
    found). A lattice between pixels is then polished. None when what is left is no
    board.

    A ``snapped`` lattice (see :func:`_on_pixels`) is first taken as it is, and fitted only
    when its cells within the edges they give do not match almost exactly (its seeds can
    put it a pixel or two off, or spill onto a window's plain lines beside the board) and
    its seeds weigh at least ``_FIT_WEIGHT``; each fit is put on whole pixels at its
    scale's pitch again (fitted on four rows, xbomb's 20 px board on a white desktop came
    out at 19.96 px, and the rows beyond were off). When its cells do not match almost
    exactly even then, it is no board at one of the skin's own scales, and None is
    returned at once; the ladder of scales settles it later if need be. (Fitting every
    stray lattice of every skin costs far more than reading a board at its own scale.)

    A lattice whose cells all read as opened empty cells is no board, but a covered board
    can read so a pixel or so off its lattice, where the empty look, plain, matches better
    than the covered look scaled to another size does (sgt-mines' 17 to 19 px tiles, their
    bevel 1 px wide where the skin's 20 px template's is 2): such a lattice is settled again
    fitted to the covered look alone (``fit``; by default the whole skin).
    """
    rough = geometry
    match: Match | None = None
    fitted = snapped  # taken as fitted until its cells say otherwise
    scale = geometry.pitch_x / skin.pitch[0]  # a snapped lattice's: one of the skin's own
    if snapped and weight < _FIT_WEIGHT:  # its own cells first: cheaper than grown
        clipped = _clip(geometry, image)
        if clipped is None or not _is_close(match_lattice(image, clipped, skin)):
            return None
    seen: set[tuple[int, int, int, int]] = set()
    for _ in range(64):
        clipped = _clip(geometry, image)
        aligned = clipped if fitted or clipped is None else align(image, fit or skin, clipped)
        if snapped and aligned is not None:  # fitted on a few rows, its pitch can be off
            aligned = _on_pixels(aligned, skin, scale)
        aligned = None if aligned is None else _clip(aligned, image)
        if aligned is None:
            return None
        reach = _REACH if min(aligned.rows, aligned.cols) > _REACH else 2 * _REACH
        grown = _clip(aligned.grown(reach, reach, reach, reach), image)
        if grown is None:
            return None
        grown_match = match_lattice(image, grown, skin)
        block = _block(grown, aligned)
        top, left = block[:2]
        moved = _moved_edges(grown, grown_match, block)
        if snapped and (moved is None
                        or not _is_close(grown_match.block(grown.cols, moved[0]))):
            if not fitted or weight < _FIT_WEIGHT:
                return None
            fitted = False
            continue
        if moved is None:
            return None
        edges, geometry = moved
        if edges == (top, left, top + aligned.rows, left + aligned.cols):
            match = grown_match.block(grown.cols, edges)
            break
        state = _state(geometry)
        if state in seen:  # the edges go round in a cycle
            break
        seen.add(state)
    if match is None:
        match = match_lattice(image, geometry, skin)
    if match.distance.mean() > _PIXEL_EXACT:  # between pixels: place it finer
        geometry, match = _polish(image, skin, geometry, match)
        geometry, match = _on_whole_pixels(image, skin, geometry, match)
    candidate = _Candidate(geometry, match)
    if (geometry.rows < _MIN_SIDE or geometry.cols < _MIN_SIDE
            or candidate.recognised < max(_MIN_CELLS, MIN_RECOGNISED * geometry.rows
                                          * geometry.cols)):
        return None
    if not reads_beyond_empty(skin, match):  # no game's board, or a covered one off it
        covered = _covered_skin(skin)
        if snapped or fit is not None or covered is None:
            return None
        return _settle(image, skin, rough, weight=weight, fit=covered)
    if not _is_lattice(image, skin, geometry, match):
        return None
    return candidate


def _on_whole_pixels(image: Image, skin: Skin, geometry: Geometry, match: Match
                     ) -> tuple[Geometry, Match]:
    """The lattice moved to whole pixels with a whole pitch, when that recognises more of
    its cells, else as it is. A game draws its tiles on whole pixels, but at a size its
    skin lacks the polish, which minds only the mean distance, can leave the lattice a
    fraction of a pixel off, a cell near an edge leaning towards another look: a new
    sgt-mines game at 18 px settled 0.4 px off, its corner cell not recognised."""
    recognised = int(match.recognised().sum())
    if recognised == len(match.distance):
        return geometry, match
    whole = Geometry(round(geometry.left), round(geometry.top), round(geometry.pitch_x),
                     round(geometry.pitch_y), geometry.rows, geometry.cols)
    if whole == geometry or not whole.fits(image):
        return geometry, match
    whole_match = match_lattice(image, whole, skin)
    if int(whole_match.recognised().sum()) > recognised:
        return whole, whole_match
    return geometry, match


@functools.cache
def _covered_skin(skin: Skin) -> Skin | None:
    """The skin's covered looks alone, to fit a lattice to (see :func:`_settle`); None when
    it has none."""
    covered = tuple(t for t in skin.templates if t.state == UNKNOWN)
    return Skin(skin.name, skin.pitch, covered, skin.source) if covered else None


def _extend(image: Image, skin: Skin, candidate: _Candidate) -> _Candidate:
    """Grow a settled board by the lines beyond its edges that are alike (see
    :func:`_alike`), and cut off its edge lines that are mostly no cells, polishing it
    again after each step, for as long as there are any.

    Fitting can misjudge the pitch by a few tenths of a percent on a rescaled board full
    of one look (a lost game's mines), enough to put its far lines off their cells, so
    that :func:`_settle` leaves them out; the polished pitch reaches them (the xdemineur
    30x16 mid-game board at 75%, settled under OpenCV 5 as its left 24 columns). Polished,
    a line can also turn out to be no cells: GNOME Mines' title bar, above an 8x8 board
    in an 850x640 window, came within reach of a ``0`` on the lattice settled, and out of
    it half a pixel lower.

    The lines beyond are matched a little off the lattice (see
    :func:`~autoplay.vision.aligned`), and where an edge line of the board lies further
    off (:func:`_edge_shifts`), it and the line beyond are matched there too: a game may
    space its lines unevenly. GNOME Mines' 30x16 in a 1440x868 window has its first 21
    columns 41 px apart and the rest 40, and the lattice fitted to most of them left out
    its last column, several pixels off; its crowded 16x16 at 1600x1000, 57 px tiles, the
    last three rows 56 px apart, left out its last row of mines, 1 px off, when a board
    at a display scaling of the skin's own size (46 px at 125%) was taken to be evenly
    spaced. Only the best board is grown: polishing every stray lattice of the ladder
    again costs too much."""
    geometry, match = candidate.geometry, candidate.match
    seen = {_state(geometry)}
    while True:  # each step adds or cuts a line: the image's size ends it
        grown = _clip(geometry.grown(1, 1, 1, 1), image)
        if grown is None:
            break
        block = _block(grown, geometry)
        if (block[2] - block[0], block[3] - block[1]) != (geometry.rows, geometry.cols):
            break  # the lattice itself goes past the image: nothing to grow
        grown_match = match_lattice(image, grown, skin)
        off = aligned(image, grown, skin, grown_match)  # matched off the lattice too
        for side, shift in _edge_shifts(image, geometry, match, skin).items():
            for line in _side_lines(grown, block, side):
                off = _line_moved(image, grown, skin, off, line, shift)
        moved = _moved_edges(grown, off, block)
        if moved is None:
            break
        edges, moved_to = moved
        if edges == block or _state(moved_to) in seen:  # settled, or going round
            break
        seen.add(_state(moved_to))
        geometry, match = _polish(image, skin, moved_to, grown_match.block(grown.cols, edges))
    return _Candidate(*_without_empty_beside_covered(geometry, match, skin))


def _without_empty_beside_covered(geometry: Geometry, match: Match, skin: Skin
                                  ) -> tuple[Geometry, Match]:
    """The board less its edge lines that no game shows: every cell of the line read is an
    opened empty one, and one of them is beside a covered cell of the line within. A game
    opens every neighbour of an empty cell, so such a line is something else that reads as
    empty cells: GNOME Mines' plain title bar, above a covered 8x8 board of 69 px tiles in
    an 850x640 window, read as a row of ``0``."""
    rows, cols = geometry.rows, geometry.cols
    states = np.where(match.recognised(), skin.states[match.best], OUTSIDE).reshape(rows, cols)
    top, left, bottom, right = 0, 0, rows, cols
    trimmed = True
    while trimmed and bottom - top > 1 and right - left > 1:
        block = states[top:bottom, left:right]
        lines = {"top": (block[0], block[1]), "bottom": (block[-1], block[-2]),
                 "left": (block[:, 0], block[:, 1]), "right": (block[:, -1], block[:, -2])}
        trimmed = False
        for side, (edge, within) in lines.items():
            if _empty_beside_covered(edge, within):
                top, bottom = top + (side == "top"), bottom - (side == "bottom")
                left, right = left + (side == "left"), right - (side == "right")
                trimmed = True
                break
    if (top, left, bottom, right) == (0, 0, rows, cols):
        return geometry, match
    return (geometry.grown(-top, -left, bottom - rows, right - cols),
            match.block(cols, (top, left, bottom, right)))


def _empty_beside_covered(edge: npt.NDArray[np.int64], within: npt.NDArray[np.int64]) -> bool:
    """True when every cell read of the line ``edge`` (states, :data:`OUTSIDE` where not
    read) is an opened empty one, and one of them touches a covered cell of ``within``,
    the line beside it on the board's side."""
    read = edge != OUTSIDE
    covered = within == UNKNOWN
    covered_near = covered.copy()  # covered, or beside a covered cell along the line
    covered_near[1:] |= covered[:-1]
    covered_near[:-1] |= covered[1:]
    return bool(read.any() and (edge[read] == 0).all() and covered_near[read].any())


def _side_lines(grown: Geometry, block: tuple[int, int, int, int], side: str
                ) -> list[npt.NDArray[np.intp]]:
    """The cells (flat indices of ``grown``) of the board ``block``'s edge line on
    ``side``, and of the line beyond it unless the image's edge clipped that."""
    top, left, bottom, right = block
    index = np.arange(grown.rows * grown.cols).reshape(grown.rows, grown.cols)
    edge, out = {"top": (top, top - 1), "bottom": (bottom - 1, bottom),
                 "left": (left, left - 1), "right": (right - 1, right)}[side]
    across = side in ("top", "bottom")
    size = grown.rows if across else grown.cols
    return [index[line, left:right] if across else index[top:bottom, line]
            for line in (edge, out) if 0 <= line < size]


def _line_moved(image: Image, geometry: Geometry, skin: Skin, match: Match,
                cells: npt.NDArray[np.intp], shift: tuple[int, int]) -> Match:
    """``match``, with ``cells`` (a line of ``geometry``) matched again where the lattice
    moved by ``shift`` puts them, a few pixels around that (see
    :func:`~autoplay.vision.aligned`), each where it comes clearly closer
    (:data:`~autoplay.vision.ALIGN_GAIN`)."""
    if not len(cells):
        return match
    rows, cols = np.divmod(cells, geometry.cols)
    line = Geometry(geometry.left + cols.min() * geometry.pitch_x + shift[0],
                    geometry.top + rows.min() * geometry.pitch_y + shift[1],
                    geometry.pitch_x, geometry.pitch_y,
                    int(rows.max() - rows.min()) + 1, int(cols.max() - cols.min()) + 1)
    if not line.fits(image):
        return match
    found = aligned(image, line, skin, match_lattice(image, line, skin))
    better = np.flatnonzero(found.distance < ALIGN_GAIN * match.distance[cells])
    return match.with_cells(cells[better], found.of(better)) if len(better) else match


def _state(geometry: Geometry) -> tuple[int, int, int, int]:
    """Where a lattice's edges are, to the pixel: a board whose edges come back to where
    they were has settled."""
    return round(geometry.top), round(geometry.left), geometry.rows, geometry.cols


def _moved_edges(grown: Geometry, grown_match: Match, block: tuple[int, int, int, int]
                 ) -> tuple[tuple[int, int, int, int], Geometry] | None:
    """The edges of the board ``block`` of ``grown`` once moved by :func:`_edges` over
    the lines that are :func:`_alike` its cells, and the lattice within them; None when
    nothing is left."""
    edges = _edges(_alike(grown_match, grown_match.block(grown.cols, block)).reshape(
        grown.rows, grown.cols), *block)
    if edges is None:
        return None
    return edges, grown.grown(-edges[0], -edges[1], edges[2] - grown.rows,
                              edges[3] - grown.cols)


def _block(grown: Geometry, inner: Geometry) -> tuple[int, int, int, int]:
    """Where the cells of ``inner`` are in ``grown``, a lattice of the same pitch around
    it (clipped to the image): its top, left, bottom and right cell, in ``grown``."""
    top = min(max(round((inner.top - grown.top) / grown.pitch_y), 0), grown.rows - 1)
    left = min(max(round((inner.left - grown.left) / grown.pitch_x), 0), grown.cols - 1)
    return top, left, min(top + inner.rows, grown.rows), min(left + inner.cols, grown.cols)


def _alike(match: Match, board: Match) -> npt.NDArray[np.bool_]:
    """Per cell of ``match``: a cell of the skin (:meth:`~autoplay.vision.Match.is_cell`),
    and about as close to its template as the cells of ``board`` are to theirs (within
    :data:`_ALIKE` of their median distance).

    A line of cells next to a board joins it only if most of its cells are alike: at the
    board's own scale its cells match almost exactly, while a window's frame with a plain
    desktop beyond can come within :data:`~autoplay.vision.MAX_DISTANCE` of a thin look
    (xbomb's 0, a white cell with lines at its edges, read on a white desktop). A cell
    leaning a little past :data:`~autoplay.vision.MAX_LEAN` is still a cell: shrunk to
    75%, a row of sgt-mines' covered cells leans that far towards an opened one, and was
    left off the board."""
    cells = board.is_cell()
    if not cells.any():
        return match.is_cell()
    times, plus = _ALIKE
    bound = times * float(np.median(board.distance[cells])) + plus
    return match.is_cell() & (match.distance <= bound)


_ALIKE = (2.0, 12.0)
"""A cell is as close as a board's cells when its distance is within this many times
their median, plus this much. In the fixtures at 75% to 200%, no edge line of a board
has a cell beyond that."""

_FIT_WEIGHT = 2.0
"""A snapped lattice whose cells are off is fitted only if its seeds weigh this much (two
cells matched exactly); a stray lattice on some other window weighs less than one."""


def _is_close(match: Match) -> bool:
    """True when most of the cells are recognised, and those match their templates to
    within ``_PIXEL_EXACT`` on average."""
    recognised = match.recognised()
    return bool(recognised.mean() >= MIN_RECOGNISED
                and match.distance[recognised].mean() < _PIXEL_EXACT)


def _polish(image: Image, skin: Skin, geometry: Geometry, match: Match,
            steps: Sequence[float] = (0.25,)) -> tuple[Geometry, Match]:
    """Move the lattice's edges by quarter pixels to where its cells are closest to their
    templates: a rescaled board sits between pixels, and a cell a third of a pixel off can
    lean away from its look. Each edge moves on its own, so the pitch is refined too: a
    pitch a thousandth off puts the far cells of a big board a third of a pixel out.
    Steps repeat while they help, at most ``_POLISH_STEPS`` times; ``steps`` are the
    sizes of step, in pixels, tried in turn (see :data:`_WIDE_STEPS`).

    Each move is read from the means its lattice shares with the one it moves
    (:class:`~autoplay.vision.NearbyFeatures`), and the lattice kept is matched afresh:
    on GNOME Mines boards between pixels in windows of 1440 to 1920 px, this made
    ``autoplay read`` 1.1 to 1.6 times as fast, reading the same boards."""
    best = (float(match.distance.mean()), geometry, match)
    features = NearbyFeatures(image)
    for step in steps:
        for _ in range(_POLISH_STEPS):
            start = best
            for moved in _edge_moves(start[1], step):
                if moved.fits(image):
                    moved_match = match_lattice(image, moved, skin, features(moved, start[1]))
                    if moved_match.distance.mean() < best[0]:
                        best = (float(moved_match.distance.mean()), moved, moved_match)
            if best is start:
                break
    if best[1] == geometry:
        return geometry, match
    return best[1], match_lattice(image, best[1], skin)


_POLISH_STEPS = 4
_WIDE_STEPS = (2.0, 1.0, 0.5, 0.25)
"""The steps of the polish the best board gets when some of its cells are not recognised:
the pitch settled for a GNOME Mines board drawn at a size the skin lacks can be a third
of a pixel off (50.87 px for rows 50 and 51 px apart at 1440x900), five pixels by its
last row, which quarter-pixel steps do not reach. Only the best board gets it: it costs
tens of matches more."""


def _edge_moves(geometry: Geometry, step: float) -> list[Geometry]:
    """The lattice with one of its four edges, or the whole of it along one axis, moved
    by ``step`` pixels either way."""
    g = geometry
    moves = []
    for d in (-step, step):
        moves += [
            g.moved(dx=d), g.moved(dy=d),
            Geometry(g.left + d, g.top, g.pitch_x - d / g.cols, g.pitch_y, g.rows, g.cols),
            Geometry(g.left, g.top, g.pitch_x + d / g.cols, g.pitch_y, g.rows, g.cols),
            Geometry(g.left, g.top + d, g.pitch_x, g.pitch_y - d / g.rows, g.rows, g.cols),
            Geometry(g.left, g.top, g.pitch_x, g.pitch_y + d / g.rows, g.rows, g.cols),
        ]
    return moves


def _edges(recognised: npt.NDArray[np.bool_], top: int, left: int, bottom: int, right: int
           ) -> tuple[int, int, int, int] | None:
    """Move the edges of the block [top:bottom, left:right] of a recognition map: in while
    an edge line is mostly unrecognised, then out while the line beyond is mostly
    recognised. None when nothing is left."""
    def share(side: str) -> float:
        line = {"top": recognised[top, left:right], "bottom": recognised[bottom - 1, left:right],
                "left": recognised[top:bottom, left], "right": recognised[top:bottom, right - 1]
                }[side]
        return float(line.mean())

    shrinking = True
    while shrinking and top < bottom and left < right:
        shrinking = False
        for side in ("top", "bottom", "left", "right"):
            if top < bottom and left < right and share(side) < _MIN_SHARE:
                shrinking = True
                top, bottom, left, right = (top + (side == "top"), bottom - (side == "bottom"),
                                            left + (side == "left"), right - (side == "right"))
    if top >= bottom or left >= right:
        return None
    growing = True
    while growing:
        growing = False
        for side in ("top", "bottom", "left", "right"):
            beyond = {"top": (top - 1, bottom, left, right),
                      "bottom": (top, bottom + 1, left, right),
                      "left": (top, bottom, left - 1, right),
                      "right": (top, bottom, left, right + 1)
                      }[side]
            if (beyond[0] < 0 or beyond[1] > recognised.shape[0] or beyond[2] < 0
                    or beyond[3] > recognised.shape[1]):
                continue
            saved = top, bottom, left, right
            top, bottom, left, right = beyond
            if share(side) >= _MIN_SHARE:
                growing = True
            else:
                top, bottom, left, right = saved
    return top, left, bottom, right


def align(image: Image, skin: Skin, geometry: Geometry) -> Geometry | None:
    """Fit origin and pitch to where the cells match their templates best.

    A pitch a few percent off puts the far cells of a big lattice out of reach, so the
    fit starts on a block of at most 7 x 7 cells in the middle and widens from there, as
    long as the pitch it finds keeps changing by more than the board can tell. None when
    a block has too few cells.
    """
    for radius in (3, 8, 0):
        rows, cols = geometry.rows, geometry.cols
        if radius:
            rows, cols = min(rows, 2 * radius + 1), min(cols, 2 * radius + 1)
        top, left = (geometry.rows - rows) // 2, (geometry.cols - cols) // 2
        block = geometry.grown(-top, -left, rows + top - geometry.rows,
                                 cols + left - geometry.cols)
        fitted = _fit_block(image, skin, block)
        if fitted is None:
            return None
        drift = max(abs(fitted.pitch_x - geometry.pitch_x) * geometry.cols,
                    abs(fitted.pitch_y - geometry.pitch_y) * geometry.rows)
        whole = (rows, cols) == (geometry.rows, geometry.cols)
        widened = _clip(fitted.grown(top, left, geometry.rows - rows - top,
                                       geometry.cols - cols - left), image)
        if widened is None:
            return None
        geometry = widened
        if whole or drift < 1.0:
            break
    return geometry


def _fit_block(image: Image, skin: Skin, geometry: Geometry, most: int = 24
               ) -> Geometry | None:
    """Fit one lattice's origin and pitch to where its cells match best.

    Each cell's two closest templates (scaled to the pitch) are matched a quarter of a
    cell around it; the best position wins. Trying more than the closest matters: on a
    lattice a few pixels off, a covered cell can look most like an opened one (a cell
    that already matches almost exactly needs no second try). Up to ``most`` cells, spread
    over the better-matching half of the lattice, are used: a rough lattice a few pixels
    off may have no cell recognised yet. None for a lattice of fewer than ``_MIN_CELLS``.
    """
    features = cell_features(image, geometry)
    match = match_cells(features, skin)
    if geometry.rows * geometry.cols < _MIN_CELLS:
        return None
    # The better-matching half of the cells, in board order, is where the board is.
    better = np.sort(np.argsort(match.lean)[:max(_MIN_CELLS, len(match.distance) // 2)])
    chosen = better[np.linspace(0, len(better) - 1, min(most, len(better))).round().astype(int)]
    distances = np.where(skin.states == OUTSIDE, np.inf, template_distances(features[chosen], skin))
    closest = np.argsort(distances, axis=1)[:, :2]
    exact = match.distance[chosen] < _EXACT
    width, height = max(2, round(geometry.pitch_x)), max(2, round(geometry.pitch_y))
    reach = max(2, round(0.25 * max(geometry.pitch_x, geometry.pitch_y)))
    scaled: dict[int, Image] = {}
    rows, cols, xs, ys = [], [], [], []
    for index, candidates, is_exact in zip(chosen, closest, exact):
        row, col = divmod(int(index), geometry.cols)
        x0, y0, _, _ = geometry.cell_box(Cell(row, col))
        wx0, wy0 = max(0, x0 - reach), max(0, y0 - reach)
        window = image[wy0:y0 + height + reach, wx0:x0 + width + reach]
        if window.shape[0] < height or window.shape[1] < width:
            continue
        results = []
        for best in map(int, candidates[:1] if is_exact else candidates):
            if best not in scaled:
                scaled[best] = shrink(skin.templates[best].image, width, height)
            results.append(np.asarray(cv2.matchTemplate(window, scaled[best], cv2.TM_SQDIFF),
                                      np.float32))
        result = min(results, key=lambda r: float(r.min()))
        y, x = (int(i) for i in np.unravel_index(int(np.argmin(result)), result.shape))
        rows.append(row)
        cols.append(col)
        inner_x, inner_y = 0 < x < result.shape[1] - 1, 0 < y < result.shape[0] - 1
        xs.append(wx0 + x + (_vertex(float(result[y, x - 1]), float(result[y, x]),
                                     float(result[y, x + 1])) if inner_x else 0.0))
        ys.append(wy0 + y + (_vertex(float(result[y - 1, x]), float(result[y, x]),
                                     float(result[y + 1, x])) if inner_y else 0.0))
    if len(xs) < _MIN_CELLS:
        return None
    left, top, pitch_x, pitch_y = _fit(np.array(cols), np.array(xs), np.array(rows),
                                       np.array(ys), (geometry.pitch_x, geometry.pitch_y))
    return Geometry(left, top, pitch_x, pitch_y, geometry.rows, geometry.cols)


def _clip(geometry: Geometry, image: Image) -> Geometry | None:
    """The lattice without the rows and columns that stick out of the image (by more than
    :meth:`Geometry.fits` allows)."""
    height, width = image.shape[:2]
    # A pixel less than fits() allows, so that rounding the edges cannot undo it.
    slack_x, slack_y = max(0.0, geometry.pitch_x / 5 - 1), max(0.0, geometry.pitch_y / 5 - 1)

    def beyond(overhang: float, pitch: float) -> int:
        return max(0, int(np.ceil(overhang / pitch - 1e-9)))

    left = beyond(-geometry.left - slack_x, geometry.pitch_x)
    top = beyond(-geometry.top - slack_y, geometry.pitch_y)
    right = beyond(geometry.left + geometry.cols * geometry.pitch_x - width - slack_x,
                   geometry.pitch_x)
    bottom = beyond(geometry.top + geometry.rows * geometry.pitch_y - height - slack_y,
                    geometry.pitch_y)
    clipped = geometry.grown(-top, -left, -bottom, -right)
    while clipped.rows > 0 and clipped.cols > 0 and not clipped.fits(image):
        clipped = clipped.grown(0, 0, -1, -1)  # rounding at the far edges
    return clipped if clipped.rows > 0 and clipped.cols > 0 else None


def _is_lattice(image: Image, skin: Skin, geometry: Geometry, match: Match) -> bool:
    """True when the cells match much worse half a cell away (:func:`_much_worse`). A
    plain area or a stripe pattern matches a flat template about as well wherever the
    lattice is put.

    When they are further by :data:`_SHIFTED_GAP` but not by enough more, both lattices
    are matched again a few pixels off (see :func:`~autoplay.vision.aligned`) and compared
    so: GNOME Mines' 30x16 board in a 1920x900 window has tiles 50 and 51 px apart, so the
    even lattice that fits them best meets some a pixel or two off, 13.9 from their
    templates on average against 28.8 half a cell away, and the board was not found;
    matched off the lattice, 8.1 against 28.7."""
    shifted = geometry.moved(geometry.pitch_x / 2, geometry.pitch_y / 2).grown(0, 0, -1, -1)
    if shifted.rows < 1 or shifted.cols < 1 or not shifted.fits(image):
        return True
    elsewhere = match_lattice(image, shifted, skin)
    if _much_worse(match, elsewhere) or (
            _is_new_game(skin, match) and _unlike_half_away(image, geometry, shifted)):
        return True
    return (float(elsewhere.distance.mean() - match.distance.mean()) >= _SHIFTED_GAP
            and _much_worse(aligned(image, geometry, skin, match),
                            aligned(image, shifted, skin, elsewhere)))


def _much_worse(match: Match, elsewhere: Match) -> bool:
    """Whether the cells of ``elsewhere``, half a cell from those of ``match``, match much
    worse: fewer of them recognised, or twice as far from their templates, and in either
    case further by :data:`_SHIFTED_GAP` on average."""
    near, far = float(match.distance.mean()), float(elsewhere.distance.mean())
    return bool((elsewhere.recognised().mean() < 0.5 * match.recognised().mean()
                 or far > 2 * near + 5) and far - near >= _SHIFTED_GAP)


def _is_new_game(skin: Skin, match: Match) -> bool:
    """Every cell recognised as covered (or flagged): a game with nothing opened yet."""
    return bool(match.recognised().all() and _covered(skin)[match.best].all())


def _unlike_half_away(image: Image, geometry: Geometry, shifted: Geometry) -> bool:
    """Whether the cells of ``shifted``, half a cell from those of ``geometry``, are twice
    as far from the board's own look as its cells are (a board of one look: a new game's).

    The skin's looks are scaled to the pitch, but a game may not scale all of a tile:
    GNOME Mines keeps 4 px between its tiles at any size, where its covered look at 46 px
    has a blurred gap that scales with it. Its new 8x8 board in windows of 1024x768 or
    more, tiles of 85 to 132 px, came 11 to 13 from that look, and its cells half a cell
    away, a cross of gaps within each, only 21 to 23: not twice as far, and the board was
    not found. From their own look, the first are 0 to 4 away (the lattice settled a
    fraction of a pixel off the tiles' pitch) and the others 11 to 17: twice as far, and
    further by :data:`_OWN_GAP`, which a plain area, alike wherever it is cut, is not."""
    cells, half_away = cell_features(image, geometry), cell_features(image, shifted)
    look = np.median(cells, axis=0, keepdims=True).astype(np.float32)
    near = float(distances_between(cells, look).mean())
    far = float(distances_between(half_away, look).mean())
    return far > 2 * near and far - near >= _OWN_GAP


_OWN_GAP = 5.0
"""How much further from a new board's own look its cells are half a cell away (see
:func:`_unlike_half_away`): 8 or more in GNOME Mines' windows up to 1920x1150."""


_SHIFTED_GAP = 10.0
"""How much further from their templates, on average, a board's cells are half a cell
away (see :func:`_is_lattice`). In the fixtures at 75% to 200% and saved as JPEG, 15 or
more; in charts plotted by matplotlib whose axes and labels fell on a lattice of xbomb's
plain 0 (a white cell with thin lines at its edges), 5 or less."""
