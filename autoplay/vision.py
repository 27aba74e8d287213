"""Reading a Minesweeper board from pixels: skins, and template matching of every cell.

Pure: images come in as numpy arrays (BGR, the way OpenCV decodes files and mss grabs the
screen once its alpha channel is dropped); nothing here captures or clicks. Given where
the cells are (a :class:`Geometry`, which :mod:`autoplay.locate` finds), :func:`read_board`
matches every cell against the skin's templates and returns a :class:`Reading`: the
:class:`~autoplay.board.Board`, and the cells it could not match with confidence, which
are reported and never guessed.

Every comparison is made at one small resolution (:data:`CELL_SIZE` pixels a side): the
templates and the cells of the image are both resampled to it, so templates follow the
pitch found in the image and a rescaled screenshot compares like the original.

A skin is a folder: one PNG per cell appearance, named by what it shows (``unopened``,
``0``-``8``, ``flag``, ``mine``, ``exploded``, ``wrong-flag``, ``question``, with ``-2``,
``-3``... for other looks of the same thing), and ``skin.json`` holding the cell pitch the
images were cut at. :mod:`autoplay.learn` makes one from screenshots and their true boards.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import logging
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt
import platformdirs

from autoplay.board import EXPLODED, FLAG, MINE, UNKNOWN, WRONG_FLAG, Board, Cell
from autoplay.errors import SkinError, UnreadableImage

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
"""A picture: height x width x 3, BGR."""
Floats = npt.NDArray[np.float32]
"""Numbers per cell or per pixel, as matched."""

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
ALIGN_FROM = 12.0
"""A cell further than this from its closest template, or not recognised, is matched again
a little off the lattice (:func:`aligned`). The fixtures' cells at their games' own sizes
match within a few units."""
ALIGN_SHARE = 0.06
"""How far off the lattice :func:`aligned` looks, as a share of a cell (at least a pixel):
three pixels at GNOME Mines' 44 px."""
LINE_SHARE = 0.25
"""How far :func:`line_shift` moves a line of cells, as a share of a cell: GNOME Mines'
30x16 board at 1200x560 has its first column 7 px (a quarter of its 29 px) off the lattice
that fits the rest."""
ALIGN_GAIN = 0.75
"""A cell moved by :func:`aligned` must come this much closer to a look: a cell off the
lattice comes far closer (GNOME Mines' cells at 1100x800 from 35 to under 13), while a
rescaled board's blur moves a cell only a little either way."""
CELL_LEAN = 0.35
"""A cell leaning a little further is no longer read, but still taken for a cell of the
board where its edges are sought: shrunk to 75%, a row of sgt-mines' covered cells leans
0.31 towards an opened cell. With no bound, stray lattices of other skins grow over a
rescaled board by cells between two of their looks, and settling them took twice as long."""

COARSE = 8
"""Cell side in the coarse search of :mod:`autoplay.locate`: the image is shrunk so that a
cell is this big. A skin keeps its looks at that size (:attr:`Skin.coarse`)."""
_SEED_TEMPLATES = 6
"""The coarse search looks for a few templates only, as unlike each other as the skin's
looks allow, after a covered cell at each of the skin's cell sizes (the one at its own size
counts in this number, those at other sizes come on top): the lattice they give is then
read in full."""

TEXTURED = 30.0
"""A cell template whose middle has at least this much fine detail (:func:`fine_detail`)
is *textured*: xbomb's covered cell, a checker of one-pixel black and white dots, has 85;
no other cell look of the shipped skins of 20 px or more has more than 25 (xdemineur's
mine). Ace of Penguins' 2, 3, 5, 6 and 8 at 12 px, drawn in one-pixel strokes, have 33 to
45: that a plain cell is not read as them either is only right."""
FLAT = 2.0
"""A cell with less fine detail than this is *plain*, and is not read as a textured look,
however close it comes at :data:`CELL_SIZE`: averaged down, a checker of dots and a plain
grey are the same, and a grey desktop beside an xbomb window was read as more covered
cells. (Shrunk to half its size a checker turns plain too, so an xbomb board at 50% does
not read; in the fixtures' covered cells it stays above 6 at 75%, and 10 at 90% to
200%.)"""

SPREAD_SHARE = 0.25
"""A cell whose pixels spread less than this share of its closest template's (the standard
deviation at :data:`CELL_SIZE`) is not recognised: it is a plain area, such as a desktop
beside the window, that comes close to a cell's look only because that look's lines or
digit are thin. A white desktop beside an xbomb window read as columns of 0s, a grey one
beside a Tatham's Mines window as a GNOME Mines board. Real cells keep at least 0.54 of
their look's spread in every fixture, at 75% to 200% of their size.)"""

SIZE_SHARE = 0.05
"""Templates this close in width (a share) are cut at one scale of their skin."""
BLEND_STEPS = 20
"""The looks between two of a skin's cell sizes (:meth:`Skin.between`) are blended in this
many steps, each made once."""

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
LABEL_OF_STATE = {UNKNOWN: "unopened", FLAG: "flag", MINE: "mine", EXPLODED: "exploded",
                   WRONG_FLAG: "wrong-flag", **{n: str(n) for n in range(9)}}
_TEMPLATE_NAME = re.compile(r"(?P<label>[a-z0-9-]+?)(?:-(?P<variant>\d+))?\.png$")

SKINS_ENV = "AUTOPLAY_SKINS"
"""Environment variable naming the folder of learned skins (for tests and portable set-ups)."""


def _shipped_skins() -> Path:
    """The skins that come with autoplay: the project's ``templates/``, which a wheel
    carries inside the package and a source checkout (an editable install) beside it."""
    package = Path(__file__).resolve().parent
    inside = package / "templates"
    return inside if inside.is_dir() else package.parent / "templates"


SHIPPED_SKINS = _shipped_skins()
"""The skins that come with autoplay, one folder each."""


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
        x0, y0, x1, y1 = self._corners()
        return round(x0), round(y0), round(x1), round(y1)

    def cell_box(self, cell: Cell) -> tuple[int, int, int, int]:
        """The rectangle of one cell, rounded: (x0, y0, x1, y1)."""
        x, y = self.left + cell.col * self.pitch_x, self.top + cell.row * self.pitch_y
        return round(x), round(y), round(x + self.pitch_x), round(y + self.pitch_y)

    def lines(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The pixel lines between its columns and between its rows, rounded as
        :meth:`cell_box` rounds them: cell (r, c) spans ``xs[c]:xs[c + 1]`` and
        ``ys[r]:ys[r + 1]``. For every cell at once."""
        xs = np.round(self.left + np.arange(self.cols + 1) * self.pitch_x).astype(np.intp)
        ys = np.round(self.top + np.arange(self.rows + 1) * self.pitch_y).astype(np.intp)
        return xs, ys

    def near(self, other: Geometry) -> bool:
        """Whether ``other`` puts every corner of the board within half a pixel of this
        one's: a fit of the same board, not the board moved (their rounded :meth:`box` may
        still differ by a pixel, where a corner lies near a half).

        >>> board = Geometry(30.4, 55.0, 20.0, 20.0, 9, 9)
        >>> board.near(board.moved(0.2)), board.box() == board.moved(0.2).box()
        (True, False)
        >>> board.near(board.moved(-1.0)), board.near(Geometry(30.4, 55.0, 20.1, 20.0, 9, 9))
        (False, False)
        """
        return all(abs(mine - theirs) < 0.5 for mine, theirs in
                   zip(self._corners(), other._corners(), strict=True))

    def _corners(self) -> tuple[float, float, float, float]:
        """The board's pixel rectangle, unrounded: (x0, y0, x1, y1)."""
        return (self.left, self.top, self.left + self.cols * self.pitch_x,
                self.top + self.rows * self.pitch_y)

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
        return self.rows > 0 and self.cols > 0 and bool(self.inside(image).all())

    def inside(self, image: Image) -> npt.NDArray[np.bool_]:
        """For each cell (flat index), whether it lies inside the image, give or take a
        fifth of a cell at its edges, as a board of one :meth:`fits`."""
        xs, ys = self.lines()
        slack_x, slack_y = self.pitch_x / 5, self.pitch_y / 5
        across = (xs[:-1] >= -slack_x) & (xs[1:] <= image.shape[1] + slack_x)
        down = (ys[:-1] >= -slack_y) & (ys[1:] <= image.shape[0] + slack_y)
        return np.asarray(down[:, None] & across[None, :]).ravel()


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
    features: Floats = field(init=False, repr=False)
    """Every template at :data:`CELL_SIZE`, one row each, for matching."""
    states: npt.NDArray[np.int64] = field(init=False, repr=False)
    """The state of each template row."""
    apart: Floats = field(init=False, repr=False)
    """How far apart every two templates are."""
    spread: Floats = field(init=False, repr=False)
    """Per template: the standard deviation of its pixels at :data:`CELL_SIZE`."""
    textured: npt.NDArray[np.bool_] = field(init=False, repr=False)
    """Per template: whether it is :data:`TEXTURED`."""
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
        features = np.stack([resample(t.image).ravel() for t in self.templates])
        object.__setattr__(self, "features", features.astype(np.float32))
        object.__setattr__(self, "states", np.array([t.state for t in self.templates]))
        object.__setattr__(self, "apart", template_distances(self.features, self))
        object.__setattr__(self, "spread", spread(self.features))
        object.__setattr__(self, "textured", np.array(
            [t.state != OUTSIDE and fine_detail(t.image)[0] >= TEXTURED
             for t in self.templates]))
        cells = sorted((t for t in self.templates if t.state != OUTSIDE),
                       key=lambda t: t.state != UNKNOWN)
        smalls = [_coarse_look(t.image) for t in cells]
        scales = [1.0]
        for width in sorted({t.image.shape[1] for t in cells}):
            if all(abs(width / self.pitch[0] / scale - 1) > SIZE_SHARE for scale in scales):
                scales.append(round(width / self.pitch[0], 3))
        object.__setattr__(self, "scales", tuple(scales))
        # A covered cell at each of those scales (most of a board, and all of a new one,
        # has seeds only where one matches), then each time the look least like those
        # chosen: as many of those as a skin of one scale has.
        coarse: list[Image] = []
        for scale in scales:
            covered = next((small for t, small in zip(cells, smalls) if t.state == UNKNOWN
                            and abs(t.image.shape[1] / self.pitch[0] / scale - 1)
                            <= SIZE_SHARE),
                           None)
            if covered is not None and all(rms(covered, c) >= 4.0 for c in coarse):
                coarse.append(covered)
        object.__setattr__(self, "covered", tuple(coarse))
        coarse = coarse or smalls[:1]
        most = len(coarse) + _SEED_TEMPLATES - 1
        while len(coarse) < most:
            far = max(smalls, key=lambda small: min(rms(small, c) for c in coarse))
            if min(rms(far, c) for c in coarse) < 4.0:
                break
            coarse.append(far)
        object.__setattr__(self, "coarse", tuple(coarse))

    def between(self, pitch: tuple[float, float]) -> Skin | None:
        """The skin's looks at a cell ``pitch`` (width, height) between two of its own cell
        sizes, as a game that draws its cells to fit its window shows them: each look
        blended with its twin at the other size, weighted by where the pitch lies between
        the two (in :data:`BLEND_STEPS`). None at one of its own sizes, or beyond them.

        Neither size's looks alone read such cells: GNOME Mines' 16x16 at 800x600 has 32 px
        tiles, between the skin's 23 and 46, and its 1s came 18.6 from the 1 at 46 px but
        22.0 from the 2 at 23, too close to be read. The looks keep the skin's templates,
        labels and order, so a match of either means the same."""
        width = pitch[0] / self.pitch[0]  # as a scale of the skin's own cells
        if any(abs(width / scale - 1) <= SIZE_SHARE for scale in self.scales):
            return None
        low = max((scale for scale in self.scales if scale < width), default=None)
        high = min((scale for scale in self.scales if scale > width), default=None)
        if low is None or high is None:
            return None
        steps = round(BLEND_STEPS * (width - low) / (high - low))
        return _blended(self, low, high, steps, (round(pitch[0]), round(pitch[1])))

    def in_grey(self) -> Skin:
        """The skin as a greyscale screenshot shows it: its templates' colours would only
        mislead there, while the shapes of its digits still tell them apart."""
        def grey(image: Image) -> Image:
            return as_bgr(np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8))
        return Skin(self.name, self.pitch, tuple(Template(t.label, grey(t.image))
                                                  for t in self.templates), self.source)

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
        if not all(math.isfinite(side) and side > 0 for side in pitch):
            raise SkinError(f"{directory} is not a skin: its skin.json gives the pitch "
                            f"{list(pitch)}, not two sizes above 0 pixels")
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
        of a skin saved there before; ``skin.json`` last, so a folder without it was never
        finished.

        :raises SkinError: when the folder cannot be written.
        """
        counts: dict[str, int] = {}
        try:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "skin.json").unlink(missing_ok=True)
            for old in directory.glob("*.png"):
                if _TEMPLATE_NAME.fullmatch(old.name):
                    old.unlink()
            for template in self.templates:
                counts[template.label] = counts.get(template.label, 0) + 1
                suffix = "" if counts[template.label] == 1 else f"-{counts[template.label]}"
                name = f"{template.label}{suffix}.png"
                (directory / name).write_bytes(encode_image(template.image, name))
            meta = {"name": self.name, "pitch": list(self.pitch), "source": self.source,
                    "labels": sorted(counts, key=lambda label: STATE_OF_LABEL[label])}
            (directory / "skin.json").write_text(json.dumps(meta, indent=2) + "\n",
                                                 encoding="utf-8")
        except OSError as error:
            raise SkinError(f"cannot save skin {self.name!r} in {directory}: "
                            f"{error.strerror or error}") from None

    def labels(self) -> list[str]:
        """The distinct template names, in a stable order."""
        return sorted({t.label for t in self.templates})


@functools.cache
def _blended(skin: Skin, low: float, high: float, steps: int, size: tuple[int, int]) -> Skin:
    """:meth:`Skin.between`: the looks ``steps`` of :data:`BLEND_STEPS` of the way from the
    skin's scale ``low`` to ``high``, drawn ``size`` (width, height) pixels; made once."""
    cut = [min(skin.scales, key=lambda scale: abs(t.image.shape[1] / skin.pitch[0] / scale - 1))
           for t in skin.templates]

    def twin(index: int, scale: float) -> Floats:
        """The look of the template's label cut at ``scale`` that is closest to it (the
        template itself when it is cut there, or no look of its label is), at ``size``."""
        twins = [other for other, template in enumerate(skin.templates)
                 if template.label == skin.templates[index].label and cut[other] == scale]
        closest = min(twins, default=index, key=lambda other: float(
            np.sum((skin.features[other] - skin.features[index]) ** 2)))
        return shrink(skin.templates[closest].image, *size).astype(np.float32)

    share = steps / BLEND_STEPS
    looks = tuple(Template(template.label, np.asarray(np.rint(
        (1 - share) * twin(index, low) + share * twin(index, high)), np.uint8))
        for index, template in enumerate(skin.templates))
    return Skin(skin.name, (float(size[0]), float(size[1])), looks, skin.source)


def _coarse_look(image: Image) -> Image:
    """A cell at the coarse search's size, as the mean of its looks shifted by a pixel
    each way: its lines fall on a shrunk screen's pixels in any phase, whole in one or
    split across two, and a line a tenth of a small cell wide (xbomb's 2 px lines at
    20 px) is then far from either look; the mean is close to both. Every look is made
    so, not only the covered one: with the others plain, Ace of Penguins' won boards of
    48 px cells gave seeds in some phases of the screen's pixels and none in others, so
    that a won game was found or not by where its window stood."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    looks = [cv2.resize(np.roll(grey, shift, axis=(0, 1)), (COARSE, COARSE),
                        interpolation=cv2.INTER_AREA).astype(np.float32)
             for shift in ((0, 0), (1, 0), (0, 1), (1, 1))]
    return np.asarray(np.mean(looks, axis=0).round(), np.uint8)


def skin_folders(*, learned: bool = True) -> dict[str, Path]:
    """Every installed skin by name: the shipped ones, then the learned ones (a learned skin
    with a shipped skin's name replaces it), unless ``learned`` is false."""
    folders: dict[str, Path] = {}
    for root in (SHIPPED_SKINS, learned_skins_dir()) if learned else (SHIPPED_SKINS,):
        if root.is_dir():
            for folder in sorted(root.iterdir()):
                if (folder / "skin.json").is_file():
                    folders[folder.name] = folder
    return folders


def skin_folder(name: str) -> Path:
    """The folder of the installed skin called ``name``.

    :raises SkinError: when none is called ``name``.
    """
    folders = skin_folders()
    if name not in folders:
        raise SkinError(f"no skin called {name!r} (installed: {', '.join(folders) or 'none'})")
    return folders[name]


def load_skins(name: str | None = None, *, learned: bool = True) -> list[Skin]:
    """The installed skins, or only the one called ``name``; the shipped ones alone when
    ``learned`` is false (``tools/reading_faults.py`` measures those).

    :raises SkinError: when no skin is installed, or none is called ``name``.
    """
    if name is not None:
        return [Skin.load(skin_folder(name))]
    folders = skin_folders(learned=learned)
    if not folders:
        raise SkinError(f"no skins installed (looked in {SHIPPED_SKINS} and "
                        f"{learned_skins_dir()})")
    skins = []
    for folder in folders.values():
        try:
            skins.append(Skin.load(folder))
        except SkinError as error:
            if folder.parent == SHIPPED_SKINS:  # the package itself is broken
                raise
            # A learned skin gone bad must not stop the others from reading every game.
            log.warning("%s; left out", error)
    if not skins:
        raise SkinError("no installed skin could be loaded")
    return skins


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
    edges: tuple[str, ...] = ()
    """The image's edges ("top", "bottom", "left", "right") that the board's cells reach:
    nothing shows whether the board goes on past them
    (see :func:`autoplay.locate.edges_reached`)."""
    others: tuple[tuple[str, Geometry], ...] = ()
    """Other boards the search met in the image (skin name and where), not read: the
    best board is read. The search stops early, so it may miss some."""

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


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
"""The file name endings of the formats :func:`is_image` knows."""


def is_image(data: bytes) -> bool:
    """True when ``data`` starts like an image file (PNG, JPEG, BMP, GIF, TIFF or WebP).

    >>> is_image(b"\\x89PNG\\r\\n\\x1a\\n...") , is_image(b"..1\\n.F1\\n")
    (True, False)
    """
    return data.startswith(_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def decode_image(data: bytes, name: str = "image") -> Image:
    """Decode an image file's bytes into a BGR array.

    :raises UnreadableImage: when the bytes are not an image, or a damaged or cut-short one,
        or one whose header claims more pixels than OpenCV decodes (a few bytes can claim
        a gigapixel).
    """
    if not data:
        raise UnreadableImage(f"{name} is empty, not an image")
    if not is_image(data):
        raise UnreadableImage(f"{name} is not an image (not PNG, JPEG, BMP, GIF, TIFF or "
                              f"WebP data)")
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        raise UnreadableImage(f"{name} cannot be decoded: it is damaged, or its header "
                              f"claims more pixels than OpenCV decodes") from None
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


GREY_SPREAD = 8
"""An image whose colour channels differ nowhere by more than this is grey (a JPEG's
colour noise aside)."""


def is_grey(image: Image) -> bool:
    """Whether a BGR image has no colour: a greyscale screenshot, or a board all of grey."""
    blue, green, red = cv2.split(image)
    return all(int(cv2.absdiff(blue, other).max()) <= GREY_SPREAD for other in (green, red))


def as_bgr(image: npt.NDArray[np.uint8]) -> Image:
    """A grey, BGR or BGRA (mss) image as BGR: a BGR one as it is, the others copied."""
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise ValueError(f"expected a grey, BGR or BGRA image, got shape {image.shape}")


# --- Matching ----------------------------------------------------------------------------

def rms(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> float:
    """The root-mean-square difference of two images of one shape (0-255)."""
    return float(np.sqrt(np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2)))


def resample(image: Image) -> Image:
    """Resize the image of one cell to CELL_SIZE a side."""
    return shrink(image, CELL_SIZE, CELL_SIZE)


def shrink(image: Image, width: int, height: int) -> Image:
    """Resize by area averaging (by interpolation when it grows)."""
    shrinking = image.shape[1] >= width and image.shape[0] >= height
    return np.asarray(cv2.resize(image, (width, height), interpolation=_resizing(shrinking)),
                      np.uint8)


def _resizing(shrinking: bool) -> int:
    """How cv2.resize should resize: area averaging to shrink, interpolation to grow."""
    return cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR


def cell_features(image: Image, geometry: Geometry) -> Floats:
    """Every cell of the lattice at CELL_SIZE, one row per cell, row-major.

    :raises ValueError: if the lattice goes outside the image.
    """
    _check_fits(image, geometry)
    x0, y0, x1, y1 = _crop_box(geometry)
    dx, dy = geometry.left - x0, geometry.top - y0
    crop = _padded_crop(image, x0, y0, x1, y1)
    if not _is_read_whole(geometry):
        block = _box_means(crop, (dx, dy), (geometry.pitch_x, geometry.pitch_y),
                           (geometry.cols, geometry.rows))
    else:
        if _lies_between(geometry):
            crop = np.asarray(cv2.warpAffine(crop, np.array([[1.0, 0.0, -dx], [0.0, 1.0, -dy]]),
                                             (crop.shape[1], crop.shape[0]),
                                             flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8)
        # By scale factors, not to a size: resized from round(cols * pitch) pixels, the
        # far cells of a board 30 cells wide shrunk to 75% fell up to half a pixel off.
        scale_x, scale_y = CELL_SIZE / geometry.pitch_x, CELL_SIZE / geometry.pitch_y
        block = np.asarray(cv2.resize(crop, None, fx=scale_x, fy=scale_y, interpolation=(
            _resizing(scale_x <= 1 and scale_y <= 1))), np.uint8)
        block = block[:geometry.rows * CELL_SIZE, :geometry.cols * CELL_SIZE]
    return _cells_of(block, geometry)


def _check_fits(image: Image, geometry: Geometry) -> None:
    """:raises ValueError: if the lattice goes outside the image."""
    if not geometry.fits(image):
        raise ValueError(f"{geometry} goes outside the {image.shape[1]}x{image.shape[0]} image")


def _crop_box(geometry: Geometry) -> tuple[int, int, int, int]:
    """The pixels :func:`cell_features` reads for a lattice, (x0, y0, x1, y1): from the
    pixel its first cell starts in, a pixel past its last cell and one more."""
    x0, y0 = int(np.floor(geometry.left)), int(np.floor(geometry.top))
    return (x0, y0, x0 + round(geometry.cols * geometry.pitch_x) + 2,
            y0 + round(geometry.rows * geometry.pitch_y) + 2)


def _cells_of(block: Image, geometry: Geometry) -> Floats:
    """The features of a block of the lattice's cells at CELL_SIZE, one row per cell."""
    cells = block.reshape(geometry.rows, CELL_SIZE, geometry.cols, CELL_SIZE, 3)
    return cells.transpose(0, 2, 1, 3, 4).reshape(geometry.rows * geometry.cols, -1).astype(
        np.float32)


class NearbyFeatures:
    """:func:`cell_features` of one image for lattices moved from another along one axis
    only, as the polish moves an edge (see :func:`autoplay.locate._polish`), for a
    fraction of the work.

    Between pixels, a lattice's cells are area means taken down its rows, then across
    its columns (:func:`_box_means`), and the first pass, over every pixel of the block,
    is the costly one. The means down a lattice's rows hold for any lattice with those
    rows, whatever its columns, and the means across its columns likewise; so each is
    kept, for a margin either way, and a lattice moved along one axis takes only the
    other pass, over the few rows or columns the first left. Moved along x, that is the
    order of :func:`cell_features`; moved along y, the other order, whose sums can differ
    in their last bits and so round a box's mean to the next level. A lattice on pixel
    edges is taken so too, where :func:`cell_features` has cv2.resize take the same
    means, rounded its own way. So the features are for comparing moves, and a match
    kept should come from :func:`cell_features`. Cells smaller than CELL_SIZE, which
    grow by interpolation, are read by it.
    """

    MARGIN = 16
    """Pixels kept either way along the axis a lattice may move along."""

    def __init__(self, image: Image) -> None:
        self.image = image
        self._kept: dict[bool, tuple[tuple[float, float, int], int, Floats]] = {}
        """By pass (True: down the rows), the lattice's rows or columns it was taken for
        (start, pitch, count), the first pixel of the other axis it covers, and the
        means, the other axis first."""

    def __call__(self, geometry: Geometry, near: Geometry) -> Floats:
        """The features :func:`cell_features` gives for ``geometry``, a lattice moved
        from ``near`` (but for the few means rounded the other way).

        :raises ValueError: if the lattice goes outside the image.
        """
        if not _shrinks(geometry):
            return cell_features(self.image, geometry)
        _check_fits(self.image, geometry)
        box = x0, y0, x1, y1 = _crop_box(geometry)
        if _rows_of(geometry) == _rows_of(near):
            start, down = self._first_pass(geometry, box, down=True)
            block: Floats = np.asarray(cv2.transpose(_means_down(
                down[x0 - start:x1 - start], geometry.left - x0, geometry.pitch_x,
                geometry.cols)), np.float32)
        elif _columns_of(geometry) == _columns_of(near):
            start, across = self._first_pass(geometry, box, down=False)
            block = _means_down(across[y0 - start:y1 - start], geometry.top - y0,
                                geometry.pitch_y, geometry.rows)
        else:
            return cell_features(self.image, geometry)
        return _cells_of(_as_levels(block), geometry)

    def _first_pass(self, geometry: Geometry, box: tuple[int, int, int, int], *, down: bool
                    ) -> tuple[int, Floats]:
        """The means down the lattice's rows (``down``) or across its columns, for at
        least the pixels of its crop ``box`` (:func:`_crop_box`) along the other axis, and
        the first pixel they cover."""
        x0, y0, x1, y1 = box
        low, high = (x0, x1) if down else (y0, y1)
        lines = _rows_of(geometry) if down else _columns_of(geometry)
        kept = self._kept.get(down)
        if kept is None or kept[0] != lines or not kept[1] <= low < high <= kept[1] + len(
                kept[2]):
            low, high = low - self.MARGIN, high + self.MARGIN
            if down:
                crop = _padded_crop(self.image, low, y0, high, y1).astype(np.float32)
                means = _means_down(crop, geometry.top - y0, geometry.pitch_y, geometry.rows)
            else:
                crop = _padded_crop(self.image, x0, low, x1, high).astype(np.float32)
                means = _means_down(np.asarray(cv2.transpose(crop)), geometry.left - x0,
                                    geometry.pitch_x, geometry.cols)
            kept = self._kept[down] = lines, low, np.asarray(cv2.transpose(means))
        return kept[1], kept[2]


def _rows_of(geometry: Geometry) -> tuple[float, float, int]:
    return geometry.top, geometry.pitch_y, geometry.rows


def _columns_of(geometry: Geometry) -> tuple[float, float, int]:
    return geometry.left, geometry.pitch_x, geometry.cols


def _padded_crop(image: Image, x0: int, y0: int, x1: int, y1: int) -> Image:
    """The image's pixels [y0:y1, x0:x1], its last pixels repeated where that goes past its
    edges (the edge cells of a tight crop)."""
    rows, cols = image.shape[:2]
    crop = image[max(0, y0):min(rows, y1), max(0, x0):min(cols, x1)]
    pads = (max(0, -y0), max(0, y1 - rows), max(0, -x0), max(0, x1 - cols))
    if any(pads):
        crop = np.asarray(cv2.copyMakeBorder(crop, *pads, cv2.BORDER_REPLICATE), np.uint8)
    return crop


def _lies_between(geometry: Geometry) -> bool:
    """Whether the lattice's origin is more than a twentieth of a pixel past a pixel edge."""
    return bool(geometry.left - np.floor(geometry.left) > 0.05
                or geometry.top - np.floor(geometry.top) > 0.05)


def _is_read_whole(geometry: Geometry) -> bool:
    """Whether :func:`cell_features` reads the lattice as one block, resized whole to
    CELL_SIZE a cell at its pitch exactly; else cell by cell.

    Cells are shrunk by area averaging: a board between pixels as it lies, one on a pixel
    edge by cv2.resize, which takes the same areas faster. Cells smaller than CELL_SIZE
    grow by interpolation instead, so such a board is first moved onto a pixel edge."""
    return not (_lies_between(geometry) and _shrinks(geometry))


def _shrinks(geometry: Geometry) -> bool:
    """Whether the lattice's cells are CELL_SIZE or more each way, and so shrunk to it by
    area averaging; smaller cells grow by interpolation."""
    return geometry.pitch_x >= CELL_SIZE and geometry.pitch_y >= CELL_SIZE


def _box_means(crop: Image, start: tuple[float, float], pitch: tuple[float, float],
               count: tuple[int, int]) -> Image:
    """What area averaging gives for a block of ``count`` (columns, rows) cells of ``pitch``
    that starts ``start`` pixels into ``crop``, between pixels: the mean of every
    CELL_SIZE-th of a cell, pixels taken as little squares, as if the block began on a
    pixel edge. A cell must be CELL_SIZE pixels or more.

    ``cv2.resize`` averages areas only from a pixel edge; moving the block there first
    (by interpolation) would blur it by up to half a pixel, which a board of small cells
    rescaled to 125% cannot afford (xbomb's 20 px cells become 25 px from x = 7.5, and
    their thin digits blur past telling apart). The means are taken down, the block
    turned, then down again (:func:`_means_down`), and turned back.
    """
    block = crop.astype(np.float32)
    for first, step, cells in ((start[1], pitch[1], count[1]), (start[0], pitch[0], count[0])):
        block = np.asarray(cv2.transpose(_means_down(block, first, step, cells)))
    return _as_levels(block)


def _as_levels(block: Floats) -> Image:
    """Means rounded to the nearest pixel level."""
    return np.asarray(np.clip(np.rint(block), 0, 255), np.uint8)


def _means_down(block: Floats, first: float, pitch: float, cells: int) -> Floats:
    """The means down ``block`` of ``cells`` cells of ``pitch`` pixels from ``first``, each
    in CELL_SIZE boxes (1 pixel or more): each cell's boxes are weighted sums of the rows
    it overlaps, so one small matrix product a cell gives them all, on those rows as they
    lie in the block. Rows past the block's end repeat its last.

    (Taking every box's few pixels one share at a time instead, as numpy's gathers and
    sums, made :func:`cell_features` of GNOME Mines' boards between pixels 1.5 to 1.75
    times as slow: the polish of a big board reads it some hundred times. Gathering every
    cell's rows into one array for a single product made the first pass twice as slow.)"""
    width = pitch / CELL_SIZE
    starts = (first + np.arange(cells * CELL_SIZE) * width).reshape(cells, CELL_SIZE, 1)
    rows = np.floor(starts[:, 0]) + np.arange(int(np.ceil(pitch)) + 2)  # cell, row it spans
    overlap = np.minimum(rows[:, None] + 1, starts + width) - np.maximum(rows[:, None], starts)
    weights = np.asarray(np.clip(overlap, 0.0, None) / width, np.float32)  # cell, box, row
    lines = block.reshape(len(block), -1)
    sums = np.empty((cells, CELL_SIZE, lines.shape[1]), np.float32)
    span = rows.shape[1]
    for cell, top in enumerate(rows[:, 0].astype(np.intp).tolist()):
        spanned = (lines[top:top + span] if 0 <= top and top + span <= len(lines) else
                   lines[np.minimum(rows[cell], len(lines) - 1).astype(np.intp)])
        np.matmul(weights[cell], spanned, out=sums[cell])
    return sums.reshape(cells * CELL_SIZE, *block.shape[1:])


@dataclass(frozen=True, slots=True)
class Match:
    """Per cell: the closest template, its distance, and how far the cell leans towards
    the closest template of another state (see :data:`MAX_LEAN`)."""

    best: npt.NDArray[np.intp]
    distance: Floats
    lean: Floats
    inside: npt.NDArray[np.bool_]
    """The cell is closer to a cell template than to the window around the board."""
    too_plain: npt.NDArray[np.bool_]
    """The cell spreads far less than its closest template (:data:`SPREAD_SHARE`)."""

    def recognised(self) -> npt.NDArray[np.bool_]:
        """Per cell: whether it is read as its closest template's state."""
        return self.is_cell() & (self.lean <= MAX_LEAN)

    def is_cell(self) -> npt.NDArray[np.bool_]:
        """Per cell: whether it looks like a cell of the skin, though perhaps not clearly
        enough to be read: it may lean up to :data:`CELL_LEAN` towards another state."""
        return (self.inside & ~self.too_plain & (self.distance <= MAX_DISTANCE)
                & (self.lean <= CELL_LEAN))

    def loose(self) -> npt.NDArray[np.bool_]:
        """Per cell: whether it looks like a cell (closer to a cell's look than to the
        window's, and not far plainer than its look) but does not match closely: not
        recognised, or further than :data:`ALIGN_FROM` from its look. :func:`aligned`
        matches these again off the lattice."""
        return (self.inside & ~self.too_plain
                & (~self.recognised() | (self.distance > ALIGN_FROM)))

    def same_as(self, other: Match) -> npt.NDArray[np.bool_]:
        """Per cell: whether ``other``, a match of the same cells, matched it alike."""
        same = np.ones(len(self.best), bool)
        for each in dataclasses.fields(self):
            same &= getattr(self, each.name) == getattr(other, each.name)
        return same

    def copy(self) -> Match:
        """A match of the same cells whose arrays can be changed apart from these."""
        return Match(*(getattr(self, each.name).copy() for each in dataclasses.fields(self)))

    def with_cells(self, cells: npt.NDArray[np.intp], found: Match) -> Match:
        """A copy with the match of some of the cells (flat indices) replaced by
        ``found``, theirs in the same order."""
        changed = self.copy()
        for each in dataclasses.fields(self):
            getattr(changed, each.name)[cells] = getattr(found, each.name)
        return changed

    def of(self, cells: npt.NDArray[np.intp]) -> Match:
        """The match of some of the cells (flat indices)."""
        return Match(*(getattr(self, each.name)[cells] for each in dataclasses.fields(self)))

    def block(self, cols: int, edges: tuple[int, int, int, int]) -> Match:
        """The match of the cells [top:bottom, left:right] of a lattice ``cols`` wide."""
        top, left, bottom, right = edges

        def cut(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return values.reshape(-1, cols)[top:bottom, left:right].ravel()

        return Match(*(cut(getattr(self, each.name)) for each in dataclasses.fields(self)))


def squared_norms(features: Floats) -> Floats:
    """The sum of the squares of each row."""
    return np.asarray(np.einsum("ij,ij->i", features, features), np.float32)


def spread(features: Floats, norms: Floats | None = None) -> Floats:
    """The standard deviation of each row, from its :func:`squared_norms` (``norms``, when
    the caller has them for :func:`template_distances`) and its mean."""
    norms = squared_norms(features) if norms is None else norms
    means = cv2.reduce(features, 1, cv2.REDUCE_AVG, dtype=cv2.CV_64F).ravel()
    variances = norms.astype(np.float64) / features.shape[1] - means * means
    return np.asarray(np.sqrt(np.maximum(variances, 0.0)), np.float32)


def template_distances(features: Floats, skin: Skin, norms: Floats | None = None) -> Floats:
    """Root-mean-square distance from every cell (row) to every template (column);
    ``norms``: the cells' :func:`squared_norms`, when the caller has them."""
    return distances_between(features, skin.features, norms)


def distances_between(rows: Floats, columns: Floats, norms: Floats | None = None) -> Floats:
    """Root-mean-square distance from every row of ``rows`` to every row of ``columns``,
    as |a|² + |b|² - 2ab; ``norms``: the :func:`squared_norms` of ``rows``, when the
    caller has them."""
    norms = squared_norms(rows) if norms is None else norms
    # OpenCV's product, not numpy's: OpenBLAS threads stall for milliseconds on a busy machine.
    products = np.asarray(cv2.gemm(rows, columns, -2.0, None,  # type: ignore[call-overload]
                                   0.0, flags=cv2.GEMM_2_T), np.float32)
    squared = norms[:, None] + products + squared_norms(columns)[None, :]
    distances: Floats = np.sqrt(np.maximum(squared, 0.0) / rows.shape[1]).astype(np.float32)
    return distances


def match_cells(features: Floats, skin: Skin,
                plain: npt.NDArray[np.bool_] | None = None) -> Match:
    """Each cell's closest cell template, its distance, and its lean towards another state.

    The lean is the cell's projection on the line between the two templates, from the
    three distances between them (the law of cosines): no pixel is touched again. The
    ``outside`` templates only veto: a cell closer to one of them than to any cell
    template is no cell; so does a cell far plainer than its closest template
    (:data:`SPREAD_SHARE`). The cells marked ``plain`` are not matched to textured
    templates.
    """
    norms = squared_norms(features)
    distances = template_distances(features, skin, norms)
    if plain is not None:
        distances[np.ix_(plain, skin.textured)] = np.inf
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
    too_plain = spread(features, norms) < SPREAD_SHARE * skin.spread[best]
    with np.errstate(invalid="ignore"):  # no template of another state: no lean
        return Match(best, near, np.where(np.isfinite(far), lean, 0.0).astype(np.float32),
                      near < beyond, too_plain)


def fine_detail(image: Image, geometry: Geometry | None = None,
                cells: npt.NDArray[np.intp] | None = None) -> Floats:
    """How much the middle of each of ``cells`` (flat indices of ``geometry``'s cells; all
    of them by default; the whole image as one cell without a lattice) varies from pixel
    to pixel both ways: the mean difference from the blur of three pixels across, and the
    one from the blur of three down, the lesser of the two, in grey levels, over the cell's
    inner three fifths, clear of the lines between cells.

    A checker of dots varies both ways; a straight edge only across it, so a plain area
    with a window's frame at its side stays plain (a grey desktop beside an xbomb window
    shrunk to 75%, where that frame fell inside the middle of a column of cells beyond the
    board, read as more covered cells)."""
    if geometry is None:
        geometry = Geometry(0.0, 0.0, float(image.shape[1]), float(image.shape[0]), 1, 1)
    cells = np.arange(geometry.rows * geometry.cols) if cells is None else cells
    left, top, right, bottom = geometry.box()  # only the lattice's pixels are looked at
    left, top = max(left - 1, 0), max(top - 1, 0)
    image = image[top:max(bottom + 1, top), left:max(right + 1, left)]
    geometry = geometry.moved(-left, -top)
    height, width = image.shape[:2]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    rows, cols = np.divmod(cells, geometry.cols)
    x0 = np.clip(np.rint(geometry.left + (cols + 0.2) * geometry.pitch_x), 1, width - 1)
    x1 = np.clip(np.rint(geometry.left + (cols + 0.8) * geometry.pitch_x), 1, width - 1)
    y0 = np.clip(np.rint(geometry.top + (rows + 0.2) * geometry.pitch_y), 1, height - 1)
    y1 = np.clip(np.rint(geometry.top + (rows + 0.8) * geometry.pitch_y), 1, height - 1)
    x0, x1, y0, y1 = (a.astype(np.intp) for a in (x0, x1, y0, y1))
    area = np.maximum((x1 - x0) * (y1 - y0), 1)
    details = []
    for size in ((3, 1), (1, 3)):  # across, then down
        sums = cv2.integral(np.abs(grey - cv2.blur(grey, size)))
        details.append((sums[y1, x1] - sums[y0, x1] - sums[y1, x0] + sums[y0, x0]) / area)
    return np.asarray(np.minimum(*details), np.float32)


def match_lattice(image: Image, geometry: Geometry, skin: Skin,
                  features: Floats | None = None) -> Match:
    """:func:`match_cells` for the cells of ``geometry`` in ``image`` (their ``features``,
    when already taken), a plain cell (:data:`FLAT`) matched to the looks that are not
    :data:`TEXTURED`.

    :raises ValueError: if the lattice goes outside the image.
    """
    return _match_some(image, geometry, skin, np.arange(geometry.rows * geometry.cols),
                       cell_features(image, geometry) if features is None else features)


def _match_some(image: Image, geometry: Geometry, skin: Skin, cells: npt.NDArray[np.intp],
                features: Floats) -> Match:
    """:func:`match_lattice` for some of the lattice's cells (flat indices), given their
    features."""
    match = match_cells(features, skin)
    suspects = np.flatnonzero(skin.textured[match.best])
    if not len(suspects) or skin.textured[skin.states != OUTSIDE].all():
        return match  # (a skin of textured looks alone has no other look to take)
    plain = np.zeros(len(match.best), bool)
    plain[suspects] = fine_detail(image, geometry, cells[suspects]) < FLAT
    return match_cells(features, skin, plain) if plain.any() else match


def moved_features(image: Image, geometry: Geometry, cells: npt.NDArray[np.intp],
                   reach: int) -> Floats:
    """The :func:`cell_features` of some of the lattice's cells (flat indices), the lattice
    moved by every whole number of pixels up to ``reach`` each way: ``[dx + reach, dy +
    reach, i]`` for the i-th cell. For cells of :data:`CELL_SIZE` or more, which
    :func:`cell_features` shrinks by area averaging as they lie.

    The means come from a summed-area table: the sum over a box, between pixels or not, is
    the table at its corners, interpolated (exactly: within a pixel the table grows
    linearly each way). A move by whole pixels keeps every corner's fraction of a pixel,
    so the table is interpolated across, and differenced, once for all moves, and then
    down. (The two ways agree to a grey level, and that rarely.) Past the image's edges its
    last pixels repeat, as in :func:`cell_features`, and a lattice it reads as on a pixel
    edge (:func:`_lies_between`) is taken there.
    """
    if not _lies_between(geometry):
        geometry = Geometry(float(np.floor(geometry.left)), float(np.floor(geometry.top)),
                            geometry.pitch_x, geometry.pitch_y, geometry.rows, geometry.cols)
    moves = np.arange(-reach, reach + 1)
    rows, cols = np.divmod(cells, geometry.cols)
    steps = np.arange(CELL_SIZE + 1) / CELL_SIZE  # the edges of each cell's boxes
    xs = geometry.left + (cols[:, None] + steps) * geometry.pitch_x
    ys = geometry.top + (rows[:, None] + steps) * geometry.pitch_y
    x0, y0 = int(np.floor(xs.min())) - reach - 1, int(np.floor(ys.min())) - reach - 1
    x1, y1 = int(np.ceil(xs.max())) + reach + 2, int(np.ceil(ys.max())) + reach + 2
    crop = _padded_crop(image, x0, y0, x1, y1)
    table = cv2.integral(crop, sdepth=cv2.CV_64F)  # (h + 1) x (w + 1) x 3
    last, row = table.shape[0] - 1, table.shape[1]
    table = table.reshape(-1, 3)  # gathered by flat index (np.take): far faster
    xs, ys = xs - x0, ys - y0
    ix, iy = np.floor(xs).astype(np.intp), np.floor(ys).astype(np.intp)
    fx, fy = xs - ix, ys - iy
    span = int((iy[:, -1] - iy[:, 0]).max()) + 2 * reach + 2  # the rows a cell's moves use
    scale = CELL_SIZE * CELL_SIZE / (geometry.pitch_x * geometry.pitch_y)
    features = np.empty((len(moves), len(moves), len(cells), CELL_SIZE * CELL_SIZE * 3),
                        np.float32)
    for part in range(0, len(cells), _CELLS_AT_ONCE):
        some = slice(part, part + _CELLS_AT_ONCE)
        count = min(_CELLS_AT_ONCE, len(cells) - part)
        band = np.minimum(iy[some, :1] - reach + np.arange(span), last)
        at = (band[:, :, None, None] * row + ix[some, None, None, :]
              + moves[:, None]).ravel()  # cell, band row, dx, corner
        left, right = np.take(table, at, axis=0), np.take(table, at + 1, axis=0)
        rows_across = (count, span, len(moves), CELL_SIZE + 1, 3)
        corners = left.reshape(rows_across) + fx[some, None, None, :, None] * (
            right - left).reshape(rows_across)
        across = np.diff(corners, axis=3)  # each box's sum above a band row: cell, row, dx, x
        down = ((np.arange(count) * span)[:, None, None]
                + (iy[some] - iy[some, :1] + reach)[:, None, :] + moves[:, None]).ravel()
        lines = across.reshape(count * span, -1)
        shape = (count, len(moves), CELL_SIZE + 1, len(moves), CELL_SIZE, 3)
        upper = np.take(lines, down, axis=0).reshape(shape)  # cell, dy, y, dx, x, bgr
        lower = np.take(lines, down + 1, axis=0).reshape(shape)
        sums = np.diff(upper + fy[some, None, :, None, None, None] * (lower - upper), axis=2)
        means = np.clip(np.rint(sums * scale), 0, 255)  # cell, dy, y, dx, x, bgr
        features[:, :, some] = means.transpose(3, 1, 0, 2, 4, 5).reshape(
            len(moves), len(moves), count, -1)
    return features


_CELLS_AT_ONCE = 32
"""Cells whose moved features :func:`moved_features` computes together: at GNOME Mines'
44 px and 7 moves each way, each array of their corners down takes 10 MB."""


def aligned(image: Image, geometry: Geometry, skin: Skin, match: Match, *,
            settled: npt.NDArray[np.bool_] | None = None) -> Match:
    """``match`` (of ``geometry``'s cells), with each cell that does not match closely
    (:data:`ALIGN_FROM`) matched again a few pixels off the lattice, up to
    :data:`ALIGN_SHARE` of a cell each way: where it matches best, if it matches clearly
    better there (:data:`ALIGN_GAIN`). The cells ``settled`` marks are left as ``match``
    has them (see :class:`ReadCache`).

    A game may not space its cells evenly: GNOME Mines hands the pixels its window has
    to spare to its first tiles (at 1100x800 its 16x16 tiles are 45 px apart, then 44), so
    no lattice meets every one, and a cell two pixels off showed its ``2`` closer to a
    ``3``. Cells that already match closely keep their reading, so that an exact board
    costs nothing more; so do those that look like no cell (closer to the window around
    the board, or far plainer than their closest look): moved, a plain white area beside
    xbomb's window took in the lines of the ``0`` beside it and read as one. A cell that
    moved matches only a little better is left as it was: in Tatham's Mines shrunk to 75%,
    a covered cell moved a pixel came a little closer to an opened one (15.2 to 14.0).
    """
    cells = np.flatnonzero(match.loose() if settled is None else match.loose() & ~settled)
    if not len(cells):
        return match
    reach = align_reach(geometry)
    # Cells shrunk by area averaging are matched again alone; smaller ones grow by
    # interpolation, which cell_features does over the whole lattice.
    moved = moved_features(image, geometry, cells, reach) if _shrinks(geometry) else None
    bar = ALIGN_GAIN * match.distance[cells]
    best = match
    for dx, dy in itertools.product(range(-reach, reach + 1), repeat=2):
        there = geometry.moved(dx, dy)
        if (not dx and not dy) or not there.fits(image):  # no move, or off the image's edge
            continue
        found = (match_lattice(image, there, skin).of(cells) if moved is None else
                 _match_some(image, there, skin, cells, moved[dx + reach, dy + reach]))
        better = found.distance < np.minimum(best.distance[cells], bar)
        if better.any():
            best = best.with_cells(cells[better], found.of(np.flatnonzero(better)))
    return best


def align_reach(geometry: Geometry) -> int:
    """How many whole pixels :func:`aligned` moves a cell each way: :data:`ALIGN_SHARE` of
    a cell, at least one."""
    return max(1, round(ALIGN_SHARE * min(geometry.pitch_x, geometry.pitch_y)))


LineShifts = dict[tuple[str, int], int]
"""Where lines of a lattice lie off it, found by :func:`line_shift`: ``("col", 3)`` or
``("row", 0)`` to whole pixels across or down. A game draws its lines where they are for
as long as its window keeps its size, so a player reading one window move after move
finds each line once (see :class:`ReadCache`)."""

_BESIDE_MOVES = 3
"""Pixels past a cell's own, beyond its moves, that its match may take in: the next pixel
that interpolating between pixels reads, a pixel more for the corners of the summed-area
table of :func:`moved_features`, and one for rounding."""


class _Placed(NamedTuple):
    """What :func:`at_lines_kept` and :func:`aligned` made of a lattice's cells in a
    frame, with one looks."""

    looks: Skin
    geometry: Geometry
    frame: Image
    lines: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
    on_lattice: Match
    found: Match


@dataclass(eq=False)
class ReadCache:
    """What a read of a lattice leaves for the next read of it in the same window, as a
    player reads its window move after move: the lines found off the lattice
    (:data:`LineShifts`), and with each looks the frame and where its cells were matched.

    Matching the cells that match loosely again around the lattice is most of a read when
    a game draws its cells at a size between the skin's (Tatham's Mines' expert board in
    a 1440x868 window: 60 of the 77 s a game took under a profiler), and a click redraws
    a few cells: that game went from 0.35-0.38 s a click to 0.09 (the README). A
    cell whose pixels, as far around it as it is moved, are those of the frame before,
    whose lines are kept where they were, and whose match on the lattice is the same,
    keeps the match found for it there: the same answer, without the work."""

    shifts: LineShifts = field(default_factory=dict)
    _placed: dict[int, _Placed] = field(default_factory=dict, init=False, repr=False)

    def placed(self, image: Image, geometry: Geometry, looks: Skin, match: Match) -> Match:
        """``match`` (of ``geometry``'s cells) matched where the lines kept lie
        (:func:`at_lines_kept`), then around the lattice (:func:`aligned`), but for the
        cells the frame before settles."""
        lines = _line_moves(geometry, self.shifts)
        before = self._placed.get(id(looks))
        settled, found = None, match
        if (before is not None and before.looks is looks and before.geometry == geometry
                and before.frame.shape == image.shape):
            margin = (align_reach(geometry) + _BESIDE_MOVES
                      + max(map(abs, self.shifts.values()), default=0))
            settled = (unchanged_cells(before.frame, image, geometry, margin)
                       & before.on_lattice.same_as(match)
                       & (lines[0] == before.lines[0]) & (lines[1] == before.lines[1]))
            kept = np.flatnonzero(settled)
            found = match.with_cells(kept, before.found.of(kept))
        if self.shifts:
            found = at_lines_kept(image, geometry, looks, found, self.shifts, settled=settled)
        found = aligned(image, geometry, looks, found, settled=settled)
        self._placed[id(looks)] = _Placed(looks, geometry, image.copy(), lines, match, found)
        return found


def unchanged_cells(before: Image, after: Image, geometry: Geometry,
                    margin: int) -> npt.NDArray[np.bool_]:
    """Per cell (flat index) of ``geometry``: whether no pixel of it, nor within ``margin``
    pixels of it, differs between two frames of one size."""
    height, width = after.shape[:2]
    # Each row's colours side by side: a pixel is three columns of the table.
    changed = cv2.integral(np.not_equal(before.reshape(height, -1),
                                        after.reshape(height, -1)).view(np.uint8))
    xs, ys = geometry.lines()
    x0, x1 = 3 * np.clip(xs[:-1] - margin, 0, width), 3 * np.clip(xs[1:] + margin, 0, width)
    y0, y1 = np.clip(ys[:-1] - margin, 0, height), np.clip(ys[1:] + margin, 0, height)
    sums = (changed[np.ix_(y1, x1)] - changed[np.ix_(y0, x1)] - changed[np.ix_(y1, x0)]
            + changed[np.ix_(y0, x0)])
    return np.asarray(sums == 0).ravel()


def read_board(image: Image, geometry: Geometry, skin: Skin, *,
               cache: ReadCache | None = None) -> Reading:
    """Read every cell of ``geometry`` by matching it against the skin's templates, each
    cell a little off the lattice where that matches better (:func:`aligned`).

    A cell whose closest template is too far, or barely closer than a template of another
    state, is listed in :attr:`Reading.unrecognized` (and unopened in the board).

    ``cache`` keeps what this read finds for the next read of the same lattice in the
    same window (:class:`ReadCache`): the lines found off the lattice
    (:func:`lines_aligned`), whose finding took a 30x16 board of GNOME Mines in a 1440x868
    window more than a second a read, and the cells matched around it.

    :raises ValueError: if the lattice goes outside the image.
    """
    image = as_bgr(image)
    return read_matched(image, geometry, skin, match_lattice(image, geometry, skin),
                        cache=cache)


def read_matched(image: Image, geometry: Geometry, skin: Skin, match: Match, *,
                 cache: ReadCache | None = None) -> Reading:
    """:func:`read_board`, given the match of the cells on the lattice.

    When cells are left unrecognised, two more tries, for games that draw their cells to
    fit their window. If the pitch lies between two of the skin's cell sizes, the board is
    read again with the looks between them (:meth:`Skin.between`), and whichever reading
    leaves fewer cells unrecognised is kept; not at once, since a display scaling shows a
    game's own looks scaled, and those read such a board as they are. Then the cells still
    unrecognised are matched again where their lines lie (:func:`lines_aligned`).

    With a ``cache``, each reading first matches the cells of lines already found off the
    lattice where those lie (:func:`at_lines_kept`), with either looks: a board whose
    cells the blended looks read, read again with its lines kept, would else keep its
    own looks and lose a cell they do not read."""
    def placed(looks: Skin, match: Match) -> Match:
        if cache is None:
            return aligned(image, geometry, looks, match)
        return cache.placed(image, geometry, looks, match)

    match = placed(skin, match)
    if match.recognised().all():
        return reading_of(geometry, skin, match)
    looks = skin.between((geometry.pitch_x, geometry.pitch_y))
    if looks is not None:
        again = placed(looks, match_lattice(image, geometry, looks))
        if again.recognised().sum() > match.recognised().sum():
            skin, match = looks, again
    shifts = None if cache is None else cache.shifts
    return reading_of(geometry, skin, lines_aligned(image, geometry, skin, match, shifts))


def lines_aligned(image: Image, geometry: Geometry, skin: Skin, match: Match,
                  shifts: LineShifts | None = None) -> Match:
    """``match`` (of ``geometry``'s cells, :func:`aligned`), with each cell that does not
    match closely (unrecognised, or further than :data:`ALIGN_FROM`) matched again where
    its row and its column lie: each line moved whole, up to :data:`LINE_SHARE` of a cell,
    to where its cells match best together, and the cell then a few pixels around that
    (:func:`aligned`); read there if it comes clearly closer (:data:`ALIGN_GAIN`). Called
    when some cell is not recognised: a cell off by a quarter of a cell can also pass for
    another look (a 1 for a 0).

    A game may space its lines unevenly by more than :func:`aligned` reaches: GNOME Mines
    hands the pixels its window has to spare to its first tiles, and at 1200x560 its 30x16
    board's first 8 columns are 30 px apart and the rest 29, so that the lattice fitted to
    most of them is 7 px off the first column. A line is moved only as far as its cells
    together say, so a board evenly spaced keeps its lines, and only lines holding a cell
    not matching closely are looked at. Lines found are kept in ``shifts``, and those it
    holds are not looked for again (see :func:`line_shift`)."""
    cells = np.flatnonzero(~match.recognised() | (match.distance > ALIGN_FROM))
    if match.recognised().all():
        return match
    rows, cols = np.divmod(cells, geometry.cols)
    across = {col: line_shift(image, geometry, skin, ("col", col), shifts) for col in set(cols)}
    down = {row: line_shift(image, geometry, skin, ("row", row), shifts) for row in set(rows)}
    best = match
    for index, row, col in zip(cells, rows, cols):
        if not across[col] and not down[row]:
            continue  # where aligned has matched it already
        cell = Geometry(geometry.left + col * geometry.pitch_x + across[col],
                        geometry.top + row * geometry.pitch_y + down[row],
                        geometry.pitch_x, geometry.pitch_y, 1, 1)
        if not cell.fits(image):
            continue
        found = aligned(image, cell, skin, match_lattice(image, cell, skin))
        if found.distance[0] < ALIGN_GAIN * best.distance[index]:
            best = best.with_cells(np.array([index]), found)
    return best


def at_lines_kept(image: Image, geometry: Geometry, skin: Skin, match: Match,
                  shifts: LineShifts, *, settled: npt.NDArray[np.bool_] | None = None) -> Match:
    """``match`` (of ``geometry``'s cells), with each cell in a line that ``shifts`` keeps
    off the lattice matched where its row and its column lie, and read there if it is
    recognised there and comes closer. The cells of one move are matched together, from
    one summed-area table (:func:`moved_features`); cells smaller than CELL_SIZE are left
    to :func:`lines_aligned`, cell by cell, and those ``settled`` marks as ``match`` has
    them (see :class:`ReadCache`).

    A player reads one window move after move: its lines found once, every cell is then
    read where it lies, and :func:`aligned` and :func:`lines_aligned` have next to nothing
    left to look for. GNOME Mines' 30x16 in a 1440x868 window has its last 9 columns up to
    9 px off the lattice, so that without this some 220 of its 480 cells were matched again
    around the lattice, twice, each read. A cell not recognised where its lines lie is
    left to those two as before: at 1200x560 a flag in the second column came from 41 to
    18 there, and would then have been held to a bar a quarter under 18, which the flag
    a pixel further off does not pass."""
    if not _shrinks(geometry):
        return match
    across, down = _line_moves(geometry, shifts)
    open_ = np.ones(len(across), bool) if settled is None else ~settled
    best = match
    for dx, dy in sorted(set(zip(across[open_].tolist(), down[open_].tolist())) - {(0, 0)}):
        there = geometry.moved(dx, dy)
        cells = np.flatnonzero((across == dx) & (down == dy) & open_ & there.inside(image))
        if len(cells):
            features = moved_features(image, there, cells, 0)[0, 0]
            found = _match_some(image, there, skin, cells, features)
            closer = np.flatnonzero(found.recognised() & (found.distance < best.distance[cells]))
            best = best.with_cells(cells[closer], found.of(closer))
    return best


def _line_moves(geometry: Geometry, shifts: LineShifts
                ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Per cell (flat index): how far ``shifts`` moves its column across and its row down."""
    rows, cols = np.divmod(np.arange(geometry.rows * geometry.cols), geometry.cols)
    across = np.array([shifts.get(("col", col), 0) for col in range(geometry.cols)], np.intp)
    down = np.array([shifts.get(("row", row), 0) for row in range(geometry.rows)], np.intp)
    return across[cols], down[rows]


def line_shift(image: Image, geometry: Geometry, skin: Skin, line: tuple[str, int],
               known: LineShifts | None = None) -> int:
    """How many whole pixels across (a column, ``("col", index)``) or down (a row,
    ``("row", index)``), up to :data:`LINE_SHARE` of a cell each way, the lattice's
    ``line`` moves to where its cells match closest in all; the least move of those that
    match as closely.

    The answer is taken from ``known`` when it holds the line, and put there when some
    cell of the line, moved so, is recognised as a cell other than an opened empty one: a
    line of those matches as closely wherever it is moved, and may lie elsewhere once a
    count shows in it."""
    if known is not None and line in known:
        return known[line]
    reach = max(1, round(LINE_SHARE * min(geometry.pitch_x, geometry.pitch_y)))
    kind, index = line
    across = kind == "col"
    cells = (Geometry(geometry.left + index * geometry.pitch_x, geometry.top,
                      geometry.pitch_x, geometry.pitch_y, geometry.rows, 1) if across else
             Geometry(geometry.left, geometry.top + index * geometry.pitch_y,
                      geometry.pitch_x, geometry.pitch_y, 1, geometry.cols))
    matches = {}
    for shift in range(-reach, reach + 1):
        moved = cells.moved(shift, 0) if across else cells.moved(0, shift)
        if moved.fits(image):
            matches[shift] = match_lattice(image, moved, skin)
    if not matches:
        return 0
    totals = {shift: float(found.distance.sum()) for shift, found in matches.items()}
    best = min(totals, key=lambda shift: (totals[shift], abs(shift)))
    found = matches[best]
    if known is not None and reads_beyond_empty(skin, found):
        known[line] = best
    return best


def reads_beyond_empty(skin: Skin, match: Match) -> bool:
    """Whether a recognised cell is covered, flagged, a mine or a count: not all of them
    opened empty cells, which look alike wherever they are cut. Every game has a mine,
    shown covered, flagged or opened, and its neighbours count it, so cells all read as
    opened and empty are no game's board but other things: rows of buttons read as
    xbomb's plain 0 at four times its size, the window beside them as more of it."""
    return bool((skin.states[match.best][match.recognised()] != 0).any())


def reading_of(geometry: Geometry, skin: Skin, match: Match) -> Reading:
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


DESCRIBED = 5
"""How many unrecognised cells :func:`describe` names: an error stays one readable line."""


def describe(reading: Reading) -> str:
    """The unrecognised cells in words, the first :data:`DESCRIBED` of them, for an error
    or a report."""
    named = "; ".join(f"({u.cell.row}, {u.cell.col}) looks most like {u.closest!r} at "
                      f"distance {u.distance}" for u in reading.unrecognized[:DESCRIBED])
    more = len(reading.unrecognized) - DESCRIBED
    return named + (f"; and {more} more" if more > 0 else "")
