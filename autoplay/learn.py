"""Learning a skin: a game's cell templates, cut from screenshots and their true boards."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from autoplay.board import Board, Cell
from autoplay.errors import NoBoardFound, SkinError
from autoplay.locate import align, check_size, read_screenshot
from autoplay.vision import (
    LABEL_OF_STATE,
    Floats,
    Geometry,
    Image,
    Skin,
    Template,
    as_bgr,
    cell_features,
    distances_between,
    read_board,
    resample,
    rms,
)

_VARIANT_DISTANCE = 8.0
"""Two looks of a state closer than this are kept as one template."""
_MOST_LOOKS = 2000
"""Past this many distinct looks of a board's cells, :func:`_given_wrong` names no cell:
their distances would take too long."""
_SUSPECTS = 10
"""The cells :func:`_given_wrong` changes to see whether the board then reads back."""
_OUTSIDE_DISTANCE = 5.0
"""A look from around the board closer than this to a cell's is not kept as ``outside``:
it could veto real cells. Farther, it tells the window from the board: Ace of Penguins'
plain green bar above its board is 6.5 from its opened cell (whose dotted edges it lacks),
and at 24 and 12 px it is one and two rows of cells high. (With 12 here, as until
then, it was not kept, and those rows read as opened cells.) No other shipped skin has a
look around its board within 12 of a cell's."""
_SQUARE = 0.1
"""A lattice whose pitch differs more than this between the axes is no board: every game's
cells are square, while a board given smaller than the one shown can fit the image's
edges as a few tall cells, each two or three rows of the real board (then its skin, cut
there, reads that board back)."""


def learn_skin(name: str, examples: Sequence[tuple[Image, Board]]) -> Skin:
    """Make a skin from screenshots of one game and their true boards.

    For each screenshot the lattice is found from the board's size alone: the pitch and
    origin whose cells look most alike where the board says they are alike (then, after
    the first screenshot, where the looks learned so far match best). Then every
    distinct look of every state becomes a template, and so does every distinct look of
    the ring of cell-sized squares around the board, as ``outside`` (unless it looks like
    a cell, when it could not be told apart anyway).

    :raises NoBoardFound: when no lattice of the board's size fits a screenshot, or one is
        larger than the reader searches (:data:`autoplay.locate.MAX_PIXELS`).
    :raises SkinError: when the boards show too little (only one state) to learn from.
    """
    templates: list[Template] = []
    fitted: list[tuple[Image, Geometry]] = []
    for image, board in examples:
        check_size(image)
        image = as_bgr(image)
        if len(set(board.states)) < 2:
            raise SkinError("a board to learn from must show at least two kinds of cell "
                            "(say unopened and opened)")
        geometry = fit_lattice(image, board)
        if abs(geometry.pitch_x / geometry.pitch_y - 1) > _SQUARE:
            raise SkinError(f"the board does not match the screenshot: its cells fit only as "
                            f"{geometry.pitch_x:.1f}x{geometry.pitch_y:.1f} pixel "
                            f"rectangles, and a Minesweeper game's cells are square")
        if templates:  # cut where the looks learned so far match best, as a reader would
            so_far = Skin(name, (geometry.pitch_x, geometry.pitch_y), tuple(templates))
            geometry = align(image, so_far, geometry) or geometry
        fitted.append((image, geometry))
        _add_looks(templates, image, geometry, board)
    cells = np.stack([resample(t.image).ravel() for t in templates])
    for image, geometry in fitted:
        ring = geometry.grown(1, 1, 1, 1)
        for cell in Board.empty(ring.cols, ring.rows).cells():
            inner = 0 < cell.row < ring.rows - 1 and 0 < cell.col < ring.cols - 1
            x0, y0, x1, y1 = ring.cell_box(cell)
            if inner or x0 < 0 or y0 < 0 or x1 > image.shape[1] or y1 > image.shape[0]:
                continue
            look = resample(image[y0:y1, x0:x1]).ravel().astype(np.float32)
            if np.sqrt(((cells - look) ** 2).mean(axis=1)).min() > _OUTSIDE_DISTANCE:
                _add_look(templates, "outside", image, ring, cell)
    pitch = fitted[0][1]
    skin = Skin(name, (round(pitch.pitch_x, 3), round(pitch.pitch_y, 3)),
                tuple(sorted(templates, key=lambda t: t.label)))  # as saved and loaded
    for (image, geometry), (_, board) in zip(fitted, examples, strict=True):
        _check_reads_back(skin, image, geometry, board)
    return skin


def _check_reads_back(skin: Skin, image: Image, geometry: Geometry, board: Board) -> None:
    """Refuse a skin that misreads its own screenshot, where the board was fitted or as
    ``autoplay read`` finds it: the board given was not the one shown (a corner of it,
    say), and its templates would carry wrong labels into every later reading."""
    read = read_board(image, geometry, skin).board
    wrong = [cell for cell in board.cells() if read[cell] != board[cell]]
    if wrong:
        count = (f"{len(wrong)} of {board.width * board.height} cells "
                 f"{'reads' if len(wrong) == 1 else 'read'} unlike the board")
        suspect = _given_wrong(image, geometry, board)
        if suspect is not None:
            cell, label, alike = suspect
            raise SkinError(f"the board does not match the screenshot: row {cell.row}, "
                            f"column {cell.col} is given as {LABEL_OF_STATE[board[cell]]!r} "
                            f"but looks like the {alike} cells given as {label!r} ({count})")
        first = wrong[0]
        raise SkinError(f"the board does not match the screenshot: {count} (first at row "
                        f"{first.row}, column {first.col}: the board says "
                        f"{LABEL_OF_STATE[board[first]]!r})")
    try:
        found = read_screenshot(image, [skin]).board
    except NoBoardFound as error:
        raise SkinError(f"the board does not match the screenshot: read with the skin "
                        f"learned, {error}") from None
    if (found.width, found.states) == (board.width, board.states):
        return
    shown = f"a {found.width}x{found.height} board" + (
        " with other cells" if (found.width, found.height) == (board.width, board.height)
        else "")
    raise SkinError(f"the board does not match the screenshot: read with the skin learned, "
                    f"the screenshot shows {shown}, not the {board.width}x{board.height} "
                    f"board given")


def _given_wrong(image: Image, geometry: Geometry, board: Board
                 ) -> tuple[Cell, str, int] | None:
    """The cell given a wrong state, when changing that one cell makes the board read back:
    the cell, the state it is changed to (the state of more cells that look all but the
    same as it than of cells given its own) and the number of those cells; or None.

    Learned as given, such a cell's look becomes a template of the wrong state, which then
    wins cells of the right one, so the first cell read wrong is seldom the one given
    wrong. Two states can look nearly alike (xbomb's 1 and 2 are 7.6 apart), so a look
    shared across states names no cell until the changed board reads back."""
    cells = list(board.cells())
    distinct, which = np.unique(cell_features(image, geometry), axis=0, return_inverse=True)
    if len(distinct) > _MOST_LOOKS:
        return None
    which = which.ravel()
    states, state_of = np.unique(np.array([board[cell] for cell in cells]),
                                 return_inverse=True)
    given = np.zeros((len(distinct), len(states)), np.int64)  # cells by look and state
    np.add.at(given, (which, state_of.ravel()), 1)
    alike = distances_between(distinct, distinct) <= _VARIANT_DISTANCE
    near = alike.astype(np.int64) @ given  # cells of each state that look like each look
    suspects: dict[tuple[int, int], tuple[int, int, int]] = {}  # one per look and state
    for index, (look, own) in enumerate(zip(which.tolist(), state_of.ravel().tolist(),
                                            strict=True)):
        others = near[look].copy()
        others[own] = -1
        other = int(others.argmax())
        if others[other] > near[look, own]:
            suspects.setdefault((look, own), (int(others[other]), index, other))
    for count, index, other in sorted(suspects.values(), key=lambda s: (-s[0], s[1]))[
            :_SUSPECTS]:
        changed = board.with_states({cells[index]: int(states[other])})
        if _reads_back(image, geometry, changed):
            return cells[index], LABEL_OF_STATE[int(states[other])], count
    return None


def _reads_back(image: Image, geometry: Geometry, board: Board) -> bool:
    """Whether the templates cut from ``image`` as ``board`` says read it back as
    ``board``."""
    templates: list[Template] = []
    _add_looks(templates, image, geometry, board)
    skin = Skin("check", (geometry.pitch_x, geometry.pitch_y), tuple(templates))
    return read_board(image, geometry, skin).board.states == board.states


def _add_looks(templates: list[Template], image: Image, geometry: Geometry, board: Board
               ) -> None:
    """Add the look of every cell of ``board`` as a template of its state (see
    :func:`_add_look`)."""
    for cell in board.cells():
        _add_look(templates, LABEL_OF_STATE[board[cell]], image, geometry, cell)


def _add_look(templates: list[Template], label: str, image: Image, geometry: Geometry,
              cell: Cell) -> None:
    """Add the cell's look as a template of ``label``, unless one is already close to it."""
    x0, y0, x1, y1 = geometry.cell_box(cell)
    look = image[y0:y1, x0:x1]
    features = resample(look).ravel()
    if all(rms(resample(t.image).ravel(), features) > _VARIANT_DISTANCE
           for t in templates if t.label == label):
        templates.append(Template(label, look.copy()))


def fit_lattice(image: Image, board: Board) -> Geometry:
    """Find where a board of known size and contents lies in an image, with no templates.

    Cell edges make the column and row sums of the image's gradient peak once per pitch:
    the combs of ``cols + 1`` (``rows + 1``) evenly spaced teeth that catch the most of it
    give candidate pitches and origins, tried also a cell or two away (the edge of the
    window or of the board can fool a comb by a tooth). Lattices look better the more
    alike their cells look within each of the board's states; the best three are refined
    pixel by pixel, and the best of those wins.

    :raises NoBoardFound: when the image is too small for the board.
    """
    image = as_bgr(image)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    across = _combs(np.abs(np.diff(grey, axis=1)).sum(axis=0), board.width)
    down = _combs(np.abs(np.diff(grey, axis=0)).sum(axis=1), board.height)
    if not across or not down:
        raise NoBoardFound(f"a {board.width}x{board.height} board does not fit in the "
                           f"{image.shape[1]}x{image.shape[0]} image")
    labels = np.array(board.states)
    candidates = sorted((Geometry(x0 + i * px, y0 + j * py, px, py, board.height, board.width)
                         for x0, px in across for y0, py in down
                         for i in range(-2, 3) for j in range(-2, 3)),
                        key=lambda g: _spread(image, g, labels))[:3]
    refined = []
    for best in candidates:
        for _ in range(3):
            for axis in ("x", "y"):
                best = min(_nudges(best, axis), key=lambda g: _spread(image, g, labels))
        refined.append(best)
    best = min(refined, key=lambda g: _spread(image, g, labels))
    if _spread(image, best, labels) == 1.0:
        raise NoBoardFound(f"no {board.width}x{board.height} lattice fits the "
                           f"{image.shape[1]}x{image.shape[0]} image")
    return best


def _combs(profile: Floats, count: int, keep: int = 8) -> list[tuple[float, float]]:
    """The best (origin, pitch) pairs for ``count`` cells along a gradient profile, at
    most one per pitch within a pixel of another.

    ``profile[i]`` is the change from pixel i to i + 1, so a cell edge there puts the
    cell's first pixel at i + 1.
    """
    length = len(profile)
    found: list[tuple[float, float, float]] = []
    for pitch in np.arange(6.0, length / count + 1e-9, 0.25):
        origins = np.arange(0, length - count * pitch)
        if len(origins) == 0:
            continue
        teeth = np.rint(origins[:, None] + np.arange(count + 1)[None, :] * pitch).astype(int)
        scores = profile[np.clip(teeth, 0, length - 1)].sum(axis=1)
        best = int(np.argmax(scores))
        found.append((float(scores[best]), float(origins[best]) + 1, float(pitch)))
    found.sort(reverse=True)
    kept: list[tuple[float, float]] = []
    for _, origin, pitch in found:
        if len(kept) < keep and all(abs(pitch - other) > 1 for _, other in kept):
            kept.append((origin, pitch))
    return kept


def _nudges(geometry: Geometry, axis: str) -> list[Geometry]:
    """Moves of a whole pixel of the origin and of a pixel across the board of the pitch,
    along one axis: the lattices the next pixel-exact step can reach."""
    count = geometry.cols if axis == "x" else geometry.rows
    moves = []
    for d_origin in range(-3, 4):
        for d_pitch in (float(d) / count for d in range(-3, 4)):
            if axis == "x":
                moves.append(Geometry(geometry.left + d_origin, geometry.top,
                                      geometry.pitch_x + d_pitch, geometry.pitch_y,
                                      geometry.rows, geometry.cols))
            else:
                moves.append(Geometry(geometry.left, geometry.top + d_origin, geometry.pitch_x,
                                      geometry.pitch_y + d_pitch, geometry.rows, geometry.cols))
    return moves


def _spread(image: Image, geometry: Geometry, labels: npt.NDArray[np.int64]) -> float:
    """How unalike the cells of each state are, as a share of how unalike all the cells
    are (0: every state looks the same everywhere; 1: the states explain nothing).

    A lattice on a plain area would look alike within every state too, so a lattice
    whose cells hardly differ at all scores 1, as does one outside the image.
    """
    if not geometry.fits(image):
        return 1.0
    features = cell_features(image, geometry)
    total = float(((features - features.mean(axis=0)) ** 2).mean())
    if total < _PLAIN:
        return 1.0
    within = sum(float(((group - group.mean(axis=0)) ** 2).sum())
                 for group in (features[labels == state] for state in np.unique(labels)))
    return within / features.size / total


_PLAIN = 25.0
"""Cells whose mean squared difference from their average is below this (5 grey levels
root-mean-square) are a plain area, not a board."""
