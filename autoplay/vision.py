"""Reading a Minesweeper board from pixels: skins, the cell lattice, and template matching.

Pure: images come in as numpy arrays (BGR, the way OpenCV decodes files and mss grabs the
screen once its alpha channel is dropped); nothing here captures or clicks. The steps:

1. :func:`locate_board` finds the lattice of cells (origin, pitch, rows, columns) in a
   cropped board, a game window or a whole desktop, at the skin's own scale or another
   one (a screenshot taken at 125% or 200%);
2. :func:`read_board` matches every cell against the skin's templates and returns a
   :class:`Reading`: the :class:`~autoplay.board.Board`, and the cells it could not match
   with confidence, which are reported and never guessed;
3. :func:`read_screenshot` does both, trying every installed skin unless one is named.

Every comparison is made at one small resolution (:data:`CELL_SIZE` pixels a side): the
templates and the cells of the image are both resampled to it, so templates follow the
pitch found in the image and a rescaled screenshot compares like the original.

A skin is a folder: one PNG per cell appearance, named by what it shows (``unopened``,
``0``-``8``, ``flag``, ``mine``, ``exploded``, ``wrong-flag``, ``question``, with ``-2``,
``-3``... for other looks of the same thing), and ``skin.json`` holding the cell pitch the
images were cut at. :func:`learn_skin` makes one from screenshots and their true boards.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import platformdirs

from autoplay.board import EXPLODED, FLAG, MINE, UNKNOWN, WRONG_FLAG, Board, Cell
from autoplay.errors import NoBoardFound, SkinError, UnreadableImage

Image = npt.NDArray[np.uint8]
"""A picture: height x width x 3, BGR."""
_Floats = npt.NDArray[np.float32]

CELL_SIZE = 16
"""Side, in pixels, at which cells and templates are compared."""
MAX_DISTANCE = 40.0
"""A cell whose closest template differs by more than this (root-mean-square, 0-255 per
channel) is not recognised."""
MAX_LEAN = 0.3
"""Nor is a cell that leans this far towards the closest template of another state: seen on
the line from its closest template (0) to that one (1), it must lie below this. Only the
difference between the two looks counts, not the blur a rescaled screenshot adds
everywhere, so a thin digit on a plain cell stays told apart from the plain cell."""

OUTSIDE = -100
"""The 'state' of what surrounds a board in its game's window: not a cell at all."""
STATE_OF_LABEL: dict[str, int] = {
    "unopened": UNKNOWN, "question": UNKNOWN, "flag": FLAG, "mine": MINE,
    "exploded": EXPLODED, "wrong-flag": WRONG_FLAG, **{str(n): n for n in range(9)},
    "outside": OUTSIDE,
}
"""What each template name means; a question mark is read as an unopened cell, and a cell
that looks most like an ``outside`` template (the window around the board, as learned) is
not recognised: it keeps a lattice from growing past the board's edge."""
_LABEL_OF_STATE = {UNKNOWN: "unopened", FLAG: "flag", MINE: "mine", EXPLODED: "exploded",
                   WRONG_FLAG: "wrong-flag", **{n: str(n) for n in range(9)}}
_TEMPLATE_NAME = re.compile(r"(?P<label>[a-z0-9-]+?)(?:-(?P<variant>\d+))?\.png$")

SKINS_ENV = "AUTOPLAY_SKINS"
"""Environment variable naming the folder of learned skins (for tests and portable set-ups)."""
SHIPPED_SKINS = Path(__file__).resolve().parent.parent / "templates"
"""The skins that come with autoplay (the project is installed editable)."""


def learned_skins_dir() -> Path:
    """Where ``autoplay skin learn`` saves skins: ``$AUTOPLAY_SKINS``, or the user data dir."""
    return Path(os.environ.get(SKINS_ENV) or
                Path(platformdirs.user_data_dir("autoplay")) / "skins")


@dataclass(frozen=True, slots=True)
class Geometry:
    """Where a board's cells are in an image: cell (r, c) starts at
    ``(left + c * pitch_x, top + r * pitch_y)`` and is one pitch wide and high."""

    left: float
    top: float
    pitch_x: float
    pitch_y: float
    rows: int
    cols: int

    def centre(self, cell: Cell) -> tuple[float, float]:
        """The middle of ``cell``, in image pixels: where to click it."""
        return (self.left + (cell.col + 0.5) * self.pitch_x,
                self.top + (cell.row + 0.5) * self.pitch_y)

    def box(self) -> tuple[int, int, int, int]:
        """The board's pixel rectangle, rounded: (x0, y0, x1, y1)."""
        return (round(self.left), round(self.top), round(self.left + self.cols * self.pitch_x),
                round(self.top + self.rows * self.pitch_y))

    def cell_box(self, cell: Cell) -> tuple[int, int, int, int]:
        """The rectangle of one cell, rounded: (x0, y0, x1, y1)."""
        x, y = self.left + cell.col * self.pitch_x, self.top + cell.row * self.pitch_y
        return round(x), round(y), round(x + self.pitch_x), round(y + self.pitch_y)

    def moved(self, dx: float = 0.0, dy: float = 0.0) -> Geometry:
        """The same lattice shifted by (dx, dy) pixels."""
        return Geometry(self.left + dx, self.top + dy, self.pitch_x, self.pitch_y,
                        self.rows, self.cols)

    def grown(self, top: int, left: int, bottom: int, right: int) -> Geometry:
        """The lattice with rows/columns added (positive) or removed (negative) at each side."""
        return Geometry(self.left - left * self.pitch_x, self.top - top * self.pitch_y,
                        self.pitch_x, self.pitch_y, self.rows + top + bottom,
                        self.cols + left + right)

    def fits(self, image: Image) -> bool:
        """True when every cell lies inside the image, give or take a fifth of a cell at
        its edges (a board cropped tight to its cells, a little off)."""
        x0, y0, x1, y1 = self.box()
        slack_x, slack_y = self.pitch_x / 5, self.pitch_y / 5
        return (x0 >= -slack_x and y0 >= -slack_y and x1 <= image.shape[1] + slack_x
                and y1 <= image.shape[0] + slack_y and self.rows > 0 and self.cols > 0)


@dataclass(frozen=True, slots=True, eq=False)
class Template:
    """One look of one cell state, as cut from a screenshot at the skin's own scale."""

    label: str
    """A key of :data:`STATE_OF_LABEL`."""
    image: Image

    @property
    def state(self) -> int:
        """The board state this template stands for."""
        return STATE_OF_LABEL[self.label]


@dataclass(frozen=True, slots=True, eq=False)
class Skin:
    """The look of one game: its cell templates and the pitch they were cut at."""

    name: str
    pitch: tuple[float, float]
    """Width and height of a cell, in pixels of the screenshots the templates come from."""
    templates: tuple[Template, ...]
    source: str = ""
    """Where the templates come from, for a person."""
    features: _Floats = field(init=False, repr=False)
    """Every template at :data:`CELL_SIZE`, one row each, for matching."""
    states: npt.NDArray[np.int64] = field(init=False, repr=False)
    """The state of each template row."""
    apart: _Floats = field(init=False, repr=False)
    """How far apart every two templates are."""
    coarse: tuple[Image, ...] = field(init=False, repr=False)
    """A few distinct grey templates at the coarse search's size."""
    covered: tuple[Image, ...] = field(init=False, repr=False)
    """The first of ``coarse``: a covered cell at each of the skin's cell sizes (none when
    it has no covered look). A game being played shows covered cells, so these tell
    cheaply whether the skin's board may be on a screen."""
    scales: tuple[float, ...] = field(init=False, repr=False)
    """The scales its cell templates were cut at, relative to ``pitch``, 1.0 first. A game
    that draws its cells at several sizes (GNOME Mines scales them with its window, Ace of
    Penguins has a size per level) has looks at each, and a board at any of those sizes is
    found at once, as one at ``pitch`` is."""

    def __post_init__(self) -> None:
        if all(t.state == OUTSIDE for t in self.templates):
            raise SkinError(f"skin {self.name!r} has no cell templates")
        features = np.stack([_resample(t.image, 1, 1).ravel() for t in self.templates])
        object.__setattr__(self, "features", features.astype(np.float32))
        object.__setattr__(self, "states", np.array([t.state for t in self.templates]))
        object.__setattr__(self, "apart", _distances(self.features, self))
        cells = sorted((t for t in self.templates if t.state != OUTSIDE),
                       key=lambda t: t.state != UNKNOWN)
        smalls = [np.asarray(cv2.resize(cv2.cvtColor(t.image, cv2.COLOR_BGR2GRAY),
                                        (_COARSE, _COARSE), interpolation=cv2.INTER_AREA),
                             np.uint8) for t in cells]
        scales = [1.0]
        for width in sorted({t.image.shape[1] for t in cells}):
            if all(abs(width / self.pitch[0] / scale - 1) > 0.05 for scale in scales):
                scales.append(round(width / self.pitch[0], 3))
        object.__setattr__(self, "scales", tuple(scales))
        # A covered cell at each of those scales (most of a board, and all of a new one,
        # has seeds only where one matches), then each time the look least like those
        # chosen: as many of those as a skin of one scale has.
        coarse: list[Image] = []
        for scale in scales:
            covered = next((t for t in cells if t.state == UNKNOWN and abs(
                t.image.shape[1] / self.pitch[0] / scale - 1) <= 0.05), None)
            if covered is not None:
                look = _coarse_look(covered.image)
                if all(_rms(look, c) >= 4.0 for c in coarse):
                    coarse.append(look)
        object.__setattr__(self, "covered", tuple(coarse))
        coarse = coarse or smalls[:1]
        most = len(coarse) + _SEED_TEMPLATES - 1
        while len(coarse) < most:
            far = max(smalls, key=lambda small: min(_rms(small, c) for c in coarse))
            if min(_rms(far, c) for c in coarse) < 4.0:
                break
            coarse.append(far)
        object.__setattr__(self, "coarse", tuple(coarse))

    @classmethod
    def load(cls, directory: Path) -> Skin:
        """Load a skin folder (``skin.json`` and the template PNGs).

        :raises SkinError: when the folder is not a skin or a template cannot be read.
        """
        try:
            meta = json.loads((directory / "skin.json").read_text(encoding="utf-8"))
            pitch = (float(meta["pitch"][0]), float(meta["pitch"][1]))
        except (OSError, ValueError, KeyError, IndexError, TypeError) as error:
            raise SkinError(f"{directory} is not a skin: no readable skin.json ({error})"
                            ) from None
        named = []
        for path in directory.glob("*.png"):
            match = _TEMPLATE_NAME.fullmatch(path.name)
            if not match or match["label"] not in STATE_OF_LABEL:
                raise SkinError(f"{path}: not a template name (expected e.g. 'unopened.png', "
                                f"'3.png', 'flag-2.png')")
            named.append((match["label"], int(match["variant"] or 1), path))
        templates = []
        for label, _, path in sorted(named):  # the order they were saved in
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise SkinError(f"{path}: cannot read this image")
            templates.append(Template(label, np.asarray(image, np.uint8)))
        return cls(directory.name, pitch, tuple(templates), str(meta.get("source", "")))

    def save(self, directory: Path) -> None:
        """Write the skin as a folder that :meth:`load` reads back, replacing the templates
        of a skin saved there before."""
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob("*.png"):
            if _TEMPLATE_NAME.fullmatch(old.name):
                old.unlink()
        counts: dict[str, int] = {}
        for template in self.templates:
            counts[template.label] = counts.get(template.label, 0) + 1
            suffix = "" if counts[template.label] == 1 else f"-{counts[template.label]}"
            cv2.imwrite(str(directory / f"{template.label}{suffix}.png"), template.image)
        meta = {"name": self.name, "pitch": list(self.pitch), "source": self.source,
                "labels": sorted(counts, key=lambda label: STATE_OF_LABEL[label])}
        (directory / "skin.json").write_text(json.dumps(meta, indent=2) + "\n",
                                             encoding="utf-8")

    def labels(self) -> list[str]:
        """The distinct template names, in a stable order."""
        return sorted({t.label for t in self.templates})


def skin_folders() -> dict[str, Path]:
    """Every installed skin by name: the shipped ones, then the learned ones (a learned skin
    with a shipped skin's name replaces it)."""
    folders: dict[str, Path] = {}
    for root in (SHIPPED_SKINS, learned_skins_dir()):
        if root.is_dir():
            for folder in sorted(root.iterdir()):
                if (folder / "skin.json").is_file():
                    folders[folder.name] = folder
    return folders


def load_skins(name: str | None = None) -> list[Skin]:
    """The installed skins, or only the one called ``name``.

    :raises SkinError: when no skin is installed, or none is called ``name``.
    """
    folders = skin_folders()
    if name is not None:
        if name not in folders:
            known = ", ".join(folders) or "none"
            raise SkinError(f"no skin called {name!r} (installed: {known})")
        return [Skin.load(folders[name])]
    if not folders:
        raise SkinError(f"no skins installed (looked in {SHIPPED_SKINS} and "
                        f"{learned_skins_dir()})")
    return [Skin.load(folder) for folder in folders.values()]


@dataclass(frozen=True, slots=True)
class Unrecognized:
    """A cell no template matches with confidence, and the template that came closest."""

    cell: Cell
    closest: str
    """The label of the closest template."""
    distance: float
    """How far it is (root-mean-square difference, 0-255)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What was read off an image: the board, and how sure the reader is of it.

    In ``board``, an unrecognised cell is unopened: the only choice that keeps deductions
    sound, since a cell taken as unopened only loses what it says.
    """

    board: Board
    geometry: Geometry
    skin: str
    unrecognized: tuple[Unrecognized, ...] = ()

    def is_complete(self) -> bool:
        """True when every cell was recognised."""
        return not self.unrecognized

    def text(self) -> str:
        """The board as text, with '?' where a cell was not recognised."""
        rows = [list(row) for row in str(self.board.with_mines(None)).splitlines()]
        for item in self.unrecognized:
            rows[item.cell.row][item.cell.col] = "?"
        return "\n".join("".join(row) for row in rows)


# --- Images ------------------------------------------------------------------------------

_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"BM", b"GIF87a", b"GIF89a", b"II*\x00",
          b"MM\x00*")


def is_image(data: bytes) -> bool:
    """True when ``data`` starts like an image file (PNG, JPEG, BMP, GIF, TIFF or WebP).

    >>> is_image(b"\\x89PNG\\r\\n\\x1a\\n...") , is_image(b"..1\\n.F1\\n")
    (True, False)
    """
    return data.startswith(_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def decode_image(data: bytes, name: str = "image") -> Image:
    """Decode an image file's bytes into a BGR array.

    :raises UnreadableImage: when the bytes are not an image, or a damaged or cut-short one.
    """
    if not is_image(data):
        raise UnreadableImage(f"{name} is not an image (not PNG, JPEG, BMP, GIF, TIFF or "
                              f"WebP data)")
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if image is None:
        raise UnreadableImage(f"{name} is a damaged or truncated image")
    return np.ascontiguousarray(image)


def encode_image(image: Image, name: str) -> bytes:
    """The bytes of an image file in the format that ``name``'s extension says.

    :raises UnreadableImage: when the extension is not an image format OpenCV writes.
    """
    suffix = Path(name).suffix.lower()
    try:
        ok, data = cv2.imencode(suffix, image)
    except cv2.error:
        ok = False
    if not ok:
        raise UnreadableImage(f"cannot write {name}: its name must end in .png, .jpg, .bmp...")
    return bytes(data)


def as_bgr(image: npt.NDArray[np.uint8]) -> Image:
    """A BGR copy-free view of a grey, BGR or BGRA (mss) image."""
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise ValueError(f"expected a grey, BGR or BGRA image, got shape {image.shape}")


# --- Matching ----------------------------------------------------------------------------

def _rms(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    return float(np.sqrt(np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2)))


def _resample(image: Image, rows: int, cols: int) -> Image:
    """Resize a block of rows x cols cells so that every cell is CELL_SIZE a side."""
    return _shrink(image, cols * CELL_SIZE, rows * CELL_SIZE)


def _shrink(image: Image, width: int, height: int) -> Image:
    """Resize by area averaging (by interpolation when it grows)."""
    shrinking = image.shape[1] >= width and image.shape[0] >= height
    return np.asarray(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA
                                 if shrinking else cv2.INTER_LINEAR), np.uint8)


def cell_features(image: Image, geometry: Geometry) -> _Floats:
    """Every cell of the lattice at CELL_SIZE, one row per cell, row-major.

    :raises ValueError: if the lattice goes outside the image.
    """
    if not geometry.fits(image):
        raise ValueError(f"{geometry} goes outside the {image.shape[1]}x{image.shape[0]} image")
    x0, y0 = int(np.floor(geometry.left)), int(np.floor(geometry.top))
    width = round(geometry.cols * geometry.pitch_x)
    height = round(geometry.rows * geometry.pitch_y)
    x1, y1 = x0 + width + 2, y0 + height + 2
    dx, dy = geometry.left - x0, geometry.top - y0
    rows, cols = image.shape[:2]
    crop = image[max(0, y0):min(rows, y1), max(0, x0):min(cols, x1)]
    pads = (max(0, -y0), max(0, y1 - rows), max(0, -x0), max(0, x1 - cols))
    if any(pads):  # the edge cells of a tight crop: repeat the image's last pixels
        crop = np.asarray(cv2.copyMakeBorder(crop, *pads, cv2.BORDER_REPLICATE), np.uint8)
    # Cells are shrunk by area averaging: a board between pixels as it lies, one on a pixel
    # edge by cv2.resize, which takes the same areas faster. Cells smaller than CELL_SIZE
    # grow by interpolation instead, so such a board is first moved onto a pixel edge.
    between = dx > 0.05 or dy > 0.05
    if between and geometry.pitch_x >= CELL_SIZE and geometry.pitch_y >= CELL_SIZE:
        block = _box_means(crop, (dx, dy), (geometry.pitch_x, geometry.pitch_y),
                           (geometry.cols, geometry.rows))
    else:
        if between:
            crop = np.asarray(cv2.warpAffine(crop, np.array([[1.0, 0.0, -dx], [0.0, 1.0, -dy]]),
                                             (crop.shape[1], crop.shape[0]),
                                             flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8)
        block = _resample(crop[:height, :width], geometry.rows, geometry.cols)
    cells = block.reshape(geometry.rows, CELL_SIZE, geometry.cols, CELL_SIZE, 3)
    return cells.transpose(0, 2, 1, 3, 4).reshape(geometry.rows * geometry.cols, -1).astype(
        np.float32)


def _box_means(crop: Image, start: tuple[float, float], pitch: tuple[float, float],
               count: tuple[int, int]) -> Image:
    """What area averaging gives for a block of ``count`` (columns, rows) cells of ``pitch``
    that starts ``start`` pixels into ``crop``, between pixels: the mean of every
    CELL_SIZE-th of a cell, pixels taken as little squares, as if the block began on a
    pixel edge. A cell must be CELL_SIZE pixels or more.

    ``cv2.resize`` averages areas only from a pixel edge; moving the block there first
    (by interpolation) would blur it by up to half a pixel, which a board of small cells
    rescaled to 125% cannot afford (xbomb's 20 px cells become 25 px from x = 7.5, and
    their thin digits blur past telling apart). The means are taken down, then across:
    each is a weighted sum of the few pixels its box overlaps.
    """
    block: npt.NDArray[Any] = crop
    for axis, first, step, cells in ((0, start[1], pitch[1], count[1]),
                                     (1, start[0], pitch[0], count[0])):
        pixels, shares = _box_shares(first, step / CELL_SIZE, cells * CELL_SIZE,
                                     block.shape[axis])
        along = [-1 if other == axis else 1 for other in range(block.ndim)]
        means: _Floats | None = None
        for tap in range(pixels.shape[1]):  # whole rows first, from the bytes: cheapest
            part = np.take(block, pixels[:, tap], axis=axis).astype(np.float32, copy=False)
            part *= shares[:, tap].reshape(along)
            means = part if means is None else np.add(means, part, out=means)
        assert means is not None  # a box overlaps a pixel at least
        block = means
    return np.asarray(np.clip(np.rint(block), 0, 255), np.uint8)


def _box_shares(first: float, width: float, count: int, length: int
                ) -> tuple[npt.NDArray[np.intp], _Floats]:
    """For each of ``count`` boxes ``width`` pixels wide (1 or more), the k-th starting at
    ``first + k * width`` on a line of ``length`` pixels: the pixels from the one it starts
    in, as many as it can overlap, and the share of the box that each covers (0 past its
    end)."""
    starts = first + np.arange(count) * width
    pixels = np.floor(starts).astype(np.intp)[:, None] + np.arange(int(np.ceil(width)) + 1)
    overlap = (np.minimum(pixels + 1, (starts + width)[:, None])
               - np.maximum(pixels, starts[:, None]))
    shares = np.asarray(np.clip(overlap, 0.0, None) / width, np.float32)
    return np.minimum(pixels, length - 1), shares


@dataclass(frozen=True, slots=True)
class _Match:
    """Per cell: the closest template, its distance, and how far the cell leans towards
    the closest template of another state (see :data:`MAX_LEAN`)."""

    best: npt.NDArray[np.intp]
    distance: _Floats
    lean: _Floats
    inside: npt.NDArray[np.bool_]
    """The cell is closer to a cell template than to the window around the board."""

    def recognised(self) -> npt.NDArray[np.bool_]:
        return self.inside & (self.distance <= MAX_DISTANCE) & (self.lean <= MAX_LEAN)

    def block(self, cols: int, edges: tuple[int, int, int, int]) -> _Match:
        """The match of the cells [top:bottom, left:right] of a lattice ``cols`` wide."""
        top, left, bottom, right = edges

        def cut(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return values.reshape(-1, cols)[top:bottom, left:right].ravel()

        return _Match(cut(self.best), cut(self.distance), cut(self.lean), cut(self.inside))


def _distances(features: _Floats, skin: Skin) -> _Floats:
    """Root-mean-square distance from every cell (row) to every template (column)."""
    templates = skin.features
    # OpenCV's product, not numpy's: OpenBLAS threads stall for milliseconds on a busy machine.
    products = np.asarray(cv2.gemm(features, templates, -2.0, None,  # type: ignore[call-overload]
                                   0.0, flags=cv2.GEMM_2_T), np.float32)
    squared = (np.einsum("ij,ij->i", features, features)[:, None] + products
               + np.einsum("ij,ij->i", templates, templates)[None, :])
    distances: _Floats = np.sqrt(np.maximum(squared, 0.0) / features.shape[1]).astype(np.float32)
    return distances


def _match(features: _Floats, skin: Skin) -> _Match:
    """Each cell's closest cell template, its distance, and its lean towards another state.

    The lean is the cell's projection on the line between the two templates, from the
    three distances between them (the law of cosines): no pixel is touched again. The
    ``outside`` templates only veto: a cell closer to one of them than to any cell
    template is no cell.
    """
    distances = _distances(features, skin)
    rows = np.arange(len(distances))
    outside = skin.states == OUTSIDE
    cells = np.where(outside[None, :], np.inf, distances)
    best = np.argmin(cells, axis=1)
    other = (skin.states[None, :] != skin.states[best][:, None]) & ~outside[None, :]
    others = np.where(other, distances, np.inf)
    rival = np.argmin(others, axis=1)
    near, far = distances[rows, best], others[rows, rival]
    apart = np.maximum(skin.apart[best, rival], 1e-3)
    lean = (near * near - far * far + apart * apart) / (2 * apart * apart)
    beyond = np.where(outside[None, :], distances, np.inf).min(axis=1)
    with np.errstate(invalid="ignore"):  # no template of another state: no lean
        return _Match(best, near, np.where(np.isfinite(far), lean, 0.0).astype(np.float32),
                      near < beyond)


def read_board(image: Image, geometry: Geometry, skin: Skin) -> Reading:
    """Read every cell of ``geometry`` by matching it against the skin's templates.

    A cell whose closest template is too far, or barely closer than a template of another
    state, is listed in :attr:`Reading.unrecognized` (and unopened in the board).

    :raises ValueError: if the lattice goes outside the image.
    """
    return _reading(geometry, skin, _match(cell_features(as_bgr(image), geometry), skin))


def _reading(geometry: Geometry, skin: Skin, match: _Match) -> Reading:
    """The board that the match of every cell of ``geometry`` says."""
    recognised = match.recognised()
    states = tuple(int(skin.states[i]) if ok else UNKNOWN
                   for i, ok in zip(match.best, recognised))
    unrecognized = tuple(
        Unrecognized(Cell(*divmod(int(index), geometry.cols)),
                     skin.templates[match.best[index]].label,
                     round(float(match.distance[index]), 1))
        for index in np.flatnonzero(~recognised))
    return Reading(Board(geometry.cols, geometry.rows, states), geometry, skin.name,
                   unrecognized)


# --- Finding the lattice -----------------------------------------------------------------

_COARSE = 8
"""Cell side in the coarse search: the image is shrunk so that a cell is this big."""
_SEED_TEMPLATES = 6
"""The coarse search looks for a few templates only, as unlike each other as the skin's
looks allow, after a covered cell at each of the skin's cell sizes (those come on top of
this number): the lattice they give is then read in full."""
_SEED_DISTANCE = 24.0
"""In the coarse search, a spot this close to a grey template may be a cell..."""
_SEED_CONTRAST = 12.0
"""... if spots a few pixels away are this much further: a plain area matches a plain
template equally well everywhere, a cell only where it is."""
_SCALES = tuple(sorted({*np.geomspace(0.5, 3.0, 20).round(3).tolist(),
                        0.75, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0}))
"""Screen scales tried after the skin's own: the usual display scalings, and between them
steps of about 10%, which the fit from the seeds makes up."""
_MIN_SHARE = 0.5
"""An edge row or column belongs to the board when this share of its cells is recognised."""
_MIN_CELLS = 4
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
_MIN_RECOGNISED = 0.75
"""A lattice is a board only when this share of its cells is recognised."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    geometry: Geometry
    match: _Match = field(repr=False)
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


def locate_board(image: Image, skin: Skin) -> Geometry:
    """Find the skin's board in an image: a cropped board, a window, or a whole screen.

    The skin's own scale is tried first; when it finds no board whose every cell it
    recognises almost exactly, other scales are tried and the best board found wins.

    :raises NoBoardFound: when no lattice of the skin's cells is found.
    """
    found = _find(as_bgr(image), [skin])
    if found is None:
        raise NoBoardFound(f"no {skin.name} board found in the "
                           f"{image.shape[1]}x{image.shape[0]} image")
    return found[0].geometry


def read_screenshot(image: Image, skins: Sequence[Skin]) -> Reading:
    """Locate and read a board, with whichever of ``skins`` matches it best.

    :raises NoBoardFound: when none of the skins finds a board.
    """
    image = as_bgr(image)
    found = _find(image, skins)
    if found is None:
        names = ", ".join(skin.name for skin in skins)
        raise NoBoardFound(f"no Minesweeper board found in the {image.shape[1]}x"
                           f"{image.shape[0]} image (skins tried: {names})")
    candidate, skin = found
    return _reading(candidate.geometry, skin, candidate.match)


def _rank(candidate: _Candidate) -> float:
    """Better boards cover more of the image with recognised cells (a lattice of half the
    pitch on a board can hold more cells, but never more area), matched more closely."""
    geometry = candidate.geometry
    return (candidate.recognised * geometry.pitch_x * geometry.pitch_y
            * (1 - candidate.distance / MAX_DISTANCE))


def _find(image: Image, skins: Sequence[Skin]) -> tuple[_Candidate, Skin] | None:
    """The best board of any of the skins in the image, and its skin; or None.

    A board at one of its skin's own scales matches almost exactly, and is taken at once
    (the best such, if several skins find one). The skins whose covered cells show are
    searched for one first, and the others only if none is found (see :func:`_in_order`):
    a game being played shows covered cells, so on a screen with one game the other skins
    cost only the search for their covered look. Else the coarse search runs at every scale
    of the ladder, and only the most promising rough lattices are settled.
    """
    coarse = _Coarse(image)
    found: list[tuple[_Candidate, Skin]] = []
    for group in _in_order(coarse, skins):
        found += [(candidate, skin) for skin in group for scale in skin.scales
                  if (candidate := _best(image, skin, [
                      (weight, _on_pixels(lattice, skin, scale)) for weight, lattice
                      in _seed_lattices(coarse, skin, scale)],
                      snapped=True)) is not None]
        exact = [(candidate, skin) for candidate, skin in found if candidate.is_exact()]
        if exact:
            return max(exact, key=lambda pair: _rank(pair[0]))
    for skin in skins:
        rough = [lattice for scale in _ladder(skin)
                 for lattice in _seed_lattices(coarse, skin, scale)]
        by_area = sorted(rough, key=lambda item: -item[0] * item[1].pitch_x * item[1].pitch_y)
        by_count = sorted(rough, key=lambda item: -item[0] * np.sqrt(item[1].pitch_x
                                                                     * item[1].pitch_y))
        tried = {id(item): item for item in by_area[:_SETTLED] + by_count[:_SETTLED]}
        best = _best(image, skin, list(tried.values()))
        found += [(best, skin)] if best is not None else []
    return max(found, key=lambda pair: _rank(pair[0]), default=None)


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


def _ladder(skin: Skin) -> list[float]:
    """The scales tried for a skin: ``_SCALES`` of each of its own cell sizes (a 200%
    screen of Ace of Penguins' 48 px cells is 4 times its 24 px ones), one of any two within
    4% of each other."""
    ladder = list(_SCALES)
    for size in skin.scales[1:]:
        ladder += [scale * size for scale in _SCALES
                   if all(abs(scale * size / other - 1) > 0.04 for other in ladder)]
    return sorted(ladder)


def _best(image: Image, skin: Skin, lattices: list[tuple[float, Geometry]], *,
          snapped: bool = False) -> _Candidate | None:
    """The best board settled from rough lattices; a lattice whose middle lies on a
    board already found, every cell of it recognised, is that board, and is skipped: when
    that board was matched almost exactly, or its pitch is within a tenth of the lattice's.
    (A board matched loosely may be a lattice of half the pitch on a board of plain covered
    cells, which a lattice at the right pitch beats.) ``snapped``: see :func:`_settle`."""
    found: list[_Candidate] = []
    for weight, geometry in lattices:
        middle = geometry.centre(Cell(geometry.rows // 2, geometry.cols // 2))
        if not any(_covers(candidate.geometry, middle) and candidate.is_complete()
                   and (candidate.is_exact() or _same_pitch(candidate.geometry, geometry))
                   for candidate in found):
            candidate = _settle(image, skin, geometry, snapped=snapped, weight=weight)
            found += [candidate] if candidate is not None else []
    return max(found, key=_rank, default=None)


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
    ``_COARSE`` pixels a side, and matched there against the skin's coarse looks. Each
    size is shrunk once, for all the skins whose cells it fits (sgt-mines' cells and
    xbomb's small ones are both 20 px), and each look matched once: a skin's covered
    looks, searched for first, count again in its full search."""

    def __init__(self, image: Image) -> None:
        self.pyramid = [np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)]
        while min(self.pyramid[-1].shape) >= 64:  # halvings: shrinking a smaller one is cheaper
            self.pyramid.append(np.asarray(cv2.resize(self.pyramid[-1], None, fx=0.5, fy=0.5,
                                                      interpolation=cv2.INTER_AREA), np.uint8))
        self._shrunk: dict[tuple[int, int], tuple[_Floats, _Floats]] = {}
        self._distances: dict[tuple[Skin, int, int, bool], _Floats] = {}

    @property
    def shape(self) -> tuple[int, int]:
        """Height and width of the image."""
        return self.pyramid[0].shape[0], self.pyramid[0].shape[1]

    def distances(self, skin: Skin, width: int, height: int, *, covered: bool = False
                  ) -> _Floats:
        """The distance to the closest of the skin's coarse looks (or of its covered looks
        only) at every place of the image shrunk to ``width`` x ``height`` (see
        :func:`_coarse_distances`)."""
        key = (skin, width, height, covered)
        if key not in self._distances:
            looks = skin.covered if covered else skin.coarse[len(skin.covered):]
            parts = [] if covered or not skin.covered else [
                self.distances(skin, width, height, covered=True)]
            if looks:
                parts.append(_coarse_distances(*self.shrunk(width, height), looks))
            self._distances[key] = parts[0] if len(parts) == 1 else np.minimum(*parts)
        return self._distances[key]

    def shrunk(self, width: int, height: int) -> tuple[_Floats, _Floats]:
        """The grey image shrunk to ``width`` x ``height`` (by area averaging, from the
        smallest halving big enough), as floats, and the mean square of every
        ``_COARSE``-pixel square of it, which every template's distance there shares."""
        if (width, height) not in self._shrunk:
            level = max((grey for grey in self.pyramid
                         if grey.shape[0] >= height and grey.shape[1] >= width),
                        key=lambda grey: -grey.size, default=self.pyramid[0])
            small = np.asarray(cv2.resize(level, (width, height), interpolation=(
                cv2.INTER_AREA if level.shape[1] > width else cv2.INTER_LINEAR)), np.uint8)
            squares = cv2.sqrBoxFilter(small, cv2.CV_32F, (_COARSE, _COARSE), anchor=(0, 0))
            self._shrunk[width, height] = (small.astype(np.float32),
                                           np.asarray(squares, np.float32))
        return self._shrunk[width, height]


def _seed_lattices(coarse: _Coarse, skin: Skin, scale: float, *, covered: bool = False
                   ) -> list[tuple[float, Geometry]]:
    """Rough lattices at one scale, biggest first, with their weights, from a search on a
    shrunk grey image for the skin's coarse looks (``covered``: its covered looks only).

    The image is shrunk so that a cell of this scale is ``_COARSE`` pixels a side; every
    spot close to a template is a seed; seeds a cell apart form grids (:func:`_grids`), and
    each grid is a lattice fitted to its seeds' positions (which corrects the pitch of an
    approximate scale). A lattice weighs the cells its seeds fall on, times how closely
    they match (1 exactly, 0 at the seeds' limit): on a board of plain covered cells,
    lattices of a half or a third of the pitch find seeds everywhere too, but poorer ones.
    """
    fx = _COARSE / (skin.pitch[0] * scale)
    fy = _COARSE / (skin.pitch[1] * scale)
    height, width = round(coarse.shape[0] * fy), round(coarse.shape[1] * fx)
    if height < 2 * _COARSE or width < 2 * _COARSE or (covered and not skin.covered):
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
    highest = cv2.dilate(distance, np.ones((_COARSE - 1, _COARSE - 1), np.uint8))
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
                                           (_COARSE / fx, _COARSE / fy))
        c0, r0 = int(cols.min()), int(rows.min())
        cells = len(set(zip(cols.tolist(), rows.tolist())))
        quality = 1 - float(np.sqrt(distance[ys[group], xs[group]].mean())) / _SEED_DISTANCE
        lattices.append((cells * quality, Geometry(
            left + c0 * pitch_x, top + r0 * pitch_y, pitch_x, pitch_y,
            int(rows.max()) - r0 + 1, int(cols.max()) - c0 + 1)))
    return lattices


def _coarse_look(image: Image) -> Image:
    """A covered cell at the coarse search's size, as the mean of its looks shifted by a
    pixel each way: its edge lines fall on a shrunk screen's pixels in any phase, whole in
    one or split across two, and a line a tenth of a small cell wide (xbomb's 2 px lines
    at 20 px) is then far from either look; the mean is close to both."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    looks = [cv2.resize(np.roll(grey, shift, axis=(0, 1)), (_COARSE, _COARSE),
                        interpolation=cv2.INTER_AREA).astype(np.float32)
             for shift in ((0, 0), (1, 0), (0, 1), (1, 1))]
    return np.asarray(np.mean(looks, axis=0).round(), np.uint8)


def _coarse_distances(small: _Floats, squares: _Floats, templates: Sequence[Image]
                      ) -> _Floats:
    """The mean squared difference between the closest template and the image at every
    place a template fits (what ``cv2.matchTemplate``'s ``TM_SQDIFF`` gives, per pixel),
    given the image's mean square at every place (see :meth:`_Coarse.shrunk`). That is
    the same for every template, so it is added once, to the closest; each template's
    correlation by ``cv2.filter2D`` gives the rest of its distance in one pass (a kernel
    of -2 times the template and an offset of its own mean square, both over its area),
    several times faster than ``matchTemplate`` on templates this small."""
    area = _COARSE * _COARSE
    closest: _Floats | None = None
    for template in templates:
        kernel = template.astype(np.float32)
        rest = np.asarray(cv2.filter2D(small, -1, kernel * (-2 / area), anchor=(0, 0),
                                       delta=float((kernel * kernel).sum()) / area),
                          np.float32)
        closest = rest if closest is None else np.minimum(closest, rest, out=closest)
    assert closest is not None  # never called without templates
    closest += squares
    rows, cols = small.shape[0] - _COARSE + 1, small.shape[1] - _COARSE + 1
    return np.maximum(closest[:rows, :cols], 0.0, out=closest[:rows, :cols])


def _grids(xs: npt.NDArray[np.intp], ys: npt.NDArray[np.intp], sx: _Floats, sy: _Floats,
           shape: tuple[int, ...], most: int
           ) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]]:
    """Group seeds into grids, biggest first: two seeds are neighbours when one lies about
    a cell (``_COARSE`` pixels, give or take one) to the right of or below the other.

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
    for dx, dy in ((_COARSE, 0), (0, _COARSE)):
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
                         if inside.any() else float(_COARSE))
        cols = np.rint((sx[group] - sx[group].min()) / steps[0]).astype(np.intp)
        rows = np.rint((sy[group] - sy[group].min()) / steps[1]).astype(np.intp)
        groups.append((group, cols, rows))
    return groups


def _subpixel(distance: _Floats, ys: npt.NDArray[np.intp], xs: npt.NDArray[np.intp],
              axis: int) -> _Floats:
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
            weight: float = 0.0) -> _Candidate | None:
    """Make a rough lattice exact on the full image, and find the board's edges.

    The lattice is fitted to where its cells match their templates best; then, on the
    lattice extended by a few cells each way, its edges move in while the edge row or
    column is mostly unrecognised, and out while the one beyond is mostly recognised.
    Fitting again on the bigger board refines the pitch; this repeats until the edges
    stay. None when what is left is no board.

    A ``snapped`` lattice (see :func:`_on_pixels`) is first taken as it is, and fitted only
    when its cells do not match almost exactly (its seeds can put it a pixel or two off) and
    its seeds weigh at least ``_FIT_WEIGHT``. When its cells do not match almost exactly
    even then, it is no board at one of the skin's own scales, and None is returned at once;
    the ladder of scales settles it later if need be. (Fitting every stray lattice of every
    skin costs far more than reading a board at its own scale.)
    """
    match: _Match | None = None
    fitted = snapped  # taken as fitted until its cells say otherwise
    if snapped and weight < _FIT_WEIGHT:  # its own cells first: cheaper than grown
        clipped = _clip(geometry, image)
        if clipped is None or not _is_close(_match(cell_features(image, clipped), skin)):
            return None
    for _ in range(64):
        clipped = _clip(geometry, image)
        aligned = clipped if fitted or clipped is None else _align(image, skin, clipped)
        aligned = None if aligned is None else _clip(aligned, image)
        if aligned is None:
            return None
        reach = _REACH if min(aligned.rows, aligned.cols) > _REACH else 2 * _REACH
        grown = _clip(aligned.grown(reach, reach, reach, reach), image)
        if grown is None:
            return None
        grown_match = _match(cell_features(image, grown), skin)
        top = min(max(round((aligned.top - grown.top) / grown.pitch_y), 0), grown.rows - 1)
        left = min(max(round((aligned.left - grown.left) / grown.pitch_x), 0), grown.cols - 1)
        block = (top, left, min(top + aligned.rows, grown.rows),
                 min(left + aligned.cols, grown.cols))
        if snapped and not _is_close(grown_match.block(grown.cols, block)):
            if not fitted or weight < _FIT_WEIGHT:
                return None
            fitted = False
            continue
        edges = _edges(grown_match.recognised().reshape(grown.rows, grown.cols), *block)
        if edges is None:
            return None
        geometry = grown.grown(-edges[0], -edges[1], edges[2] - grown.rows,
                                 edges[3] - grown.cols)
        if edges == (top, left, top + aligned.rows, left + aligned.cols):
            match = grown_match.block(grown.cols, edges)
            break
    if match is None:
        match = _match(cell_features(image, geometry), skin)
    if match.distance.mean() > _PIXEL_EXACT:  # between pixels: place it finer
        geometry, match = _polish(image, skin, geometry, match)
    candidate = _Candidate(geometry, match)
    if (geometry.rows < 2 or geometry.cols < 2
            or candidate.recognised < max(_MIN_CELLS, _MIN_RECOGNISED * geometry.rows
                                          * geometry.cols)
            or not _is_lattice(image, skin, geometry, match)):
        return None
    return candidate


_FIT_WEIGHT = 2.0
"""A snapped lattice whose cells are off is fitted only if its seeds weigh this much (two
cells matched exactly); a stray lattice on some other window weighs less than one."""


def _is_close(match: _Match) -> bool:
    """True when most of the cells are recognised, and those match their templates to
    within ``_PIXEL_EXACT`` on average."""
    recognised = match.recognised()
    return bool(recognised.mean() >= _MIN_RECOGNISED
                and match.distance[recognised].mean() < _PIXEL_EXACT)


def _polish(image: Image, skin: Skin, geometry: Geometry, match: _Match
            ) -> tuple[Geometry, _Match]:
    """Move the lattice's edges by quarter pixels to where its cells are closest to their
    templates: a rescaled board sits between pixels, and a cell a third of a pixel off can
    lean away from its look. Each edge moves on its own, so the pitch is refined too: a
    pitch a thousandth off puts the far cells of a big board a third of a pixel out.
    Steps repeat while they help, at most ``_POLISH_STEPS`` times."""
    best = (float(match.distance.mean()), geometry, match)
    for _ in range(_POLISH_STEPS):
        start = best
        for moved in _edge_moves(start[1], 0.25):
            if moved.fits(image):
                moved_match = _match(cell_features(image, moved), skin)
                if moved_match.distance.mean() < best[0]:
                    best = (float(moved_match.distance.mean()), moved, moved_match)
        if best is start:
            break
    return best[1], best[2]


_POLISH_STEPS = 4


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
            beyond = {"top": (top - 1, bottom, left, right), "bottom": (top, bottom + 1, left, right),
                      "left": (top, bottom, left - 1, right), "right": (top, bottom, left, right + 1)
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


def _align(image: Image, skin: Skin, geometry: Geometry) -> Geometry | None:
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
    match = _match(features, skin)
    if geometry.rows * geometry.cols < _MIN_CELLS:
        return None
    # The better-matching half of the cells, in board order, is where the board is.
    better = np.sort(np.argsort(match.lean)[:max(_MIN_CELLS, len(match.distance) // 2)])
    chosen = better[np.linspace(0, len(better) - 1, min(most, len(better))).round().astype(int)]
    distances = np.where(skin.states == OUTSIDE, np.inf, _distances(features[chosen], skin))
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
                source = skin.templates[best].image
                scaled[best] = np.asarray(cv2.resize(source, (width, height), interpolation=(
                    cv2.INTER_AREA if source.shape[1] > width else cv2.INTER_LINEAR)), np.uint8)
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


def _is_lattice(image: Image, skin: Skin, geometry: Geometry, match: _Match) -> bool:
    """True when the cells match much worse half a cell away: fewer of them recognised,
    or twice as far from their templates. A plain area or a stripe pattern matches a
    flat template about as well wherever the lattice is put."""
    shifted = geometry.moved(geometry.pitch_x / 2, geometry.pitch_y / 2).grown(0, 0, -1, -1)
    if shifted.rows < 1 or shifted.cols < 1 or not shifted.fits(image):
        return True
    elsewhere = _match(cell_features(image, shifted), skin)
    return bool(elsewhere.recognised().mean() < 0.5 * match.recognised().mean()
                or elsewhere.distance.mean() > 2 * match.distance.mean() + 5)


# --- Learning a skin ---------------------------------------------------------------------

_VARIANT_DISTANCE = 8.0
"""Two looks of a state closer than this are kept as one template."""
_OUTSIDE_DISTANCE = 12.0
"""A look from around the board closer than this to a cell's is not kept as ``outside``."""


def learn_skin(name: str, examples: Sequence[tuple[Image, Board]]) -> Skin:
    """Make a skin from screenshots of one game and their true boards.

    For each screenshot the lattice is found from the board's size alone: the pitch and
    origin whose cells look most alike where the board says they are alike (then, after
    the first screenshot, where the looks learned so far match best). Then every
    distinct look of every state becomes a template, and so does every distinct look of
    the ring of cell-sized squares around the board, as ``outside`` (unless it looks like
    a cell, when it could not be told apart anyway).

    :raises NoBoardFound: when no lattice of the board's size fits a screenshot.
    :raises SkinError: when the boards show too little (only one state) to learn from.
    """
    templates: list[Template] = []
    fitted: list[tuple[Image, Geometry]] = []
    for image, board in examples:
        image = as_bgr(image)
        if len(set(board.states)) < 2:
            raise SkinError("a board to learn from must show at least two kinds of cell "
                            "(say unopened and opened)")
        geometry = fit_lattice(image, board)
        if templates:  # cut where the looks learned so far match best, as a reader would
            so_far = Skin(name, (geometry.pitch_x, geometry.pitch_y), tuple(templates))
            geometry = _align(image, so_far, geometry) or geometry
        fitted.append((image, geometry))
        for cell in board.cells():
            _add_look(templates, _LABEL_OF_STATE[board[cell]], image, geometry, cell)
    cells = np.stack([_resample(t.image, 1, 1).ravel() for t in templates])
    for image, geometry in fitted:
        ring = geometry.grown(1, 1, 1, 1)
        for cell in Board.empty(ring.cols, ring.rows).cells():
            inner = 0 < cell.row < ring.rows - 1 and 0 < cell.col < ring.cols - 1
            x0, y0, x1, y1 = ring.cell_box(cell)
            if inner or x0 < 0 or y0 < 0 or x1 > image.shape[1] or y1 > image.shape[0]:
                continue
            look = _resample(image[y0:y1, x0:x1], 1, 1).ravel().astype(np.float32)
            if np.sqrt(((cells - look) ** 2).mean(axis=1)).min() > _OUTSIDE_DISTANCE:
                _add_look(templates, "outside", image, ring, cell)
    pitch = fitted[0][1]
    return Skin(name, (round(pitch.pitch_x, 3), round(pitch.pitch_y, 3)),
                tuple(sorted(templates, key=lambda t: t.label)))  # as saved and loaded


def _add_look(templates: list[Template], label: str, image: Image, geometry: Geometry,
              cell: Cell) -> None:
    """Add the cell's look as a template of ``label``, unless one is already close to it."""
    x0, y0, x1, y1 = geometry.cell_box(cell)
    look = image[y0:y1, x0:x1]
    features = _resample(look, 1, 1).ravel()
    if all(_rms(_resample(t.image, 1, 1).ravel(), features) > _VARIANT_DISTANCE
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


def _combs(profile: _Floats, count: int, keep: int = 8) -> list[tuple[float, float]]:
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


def describe(reading: Reading) -> str:
    """The unrecognised cells in words, for an error or a report."""
    return "; ".join(f"({u.cell.row}, {u.cell.col}) looks most like {u.closest!r} at "
                     f"distance {u.distance}" for u in reading.unrecognized)
