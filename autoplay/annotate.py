"""Drawing what is proven over the screenshot it was read from.

A person checking the bot looks at the game, not at a text board: :func:`draw_deduction`
marks each proven-safe cell green and each proven mine red, in place on a copy of the
screenshot, and, when the caller has chosen a guess, rings its cell and writes its mine
probability beside it. Pure: an image in, a new image out.
"""

from __future__ import annotations

import cv2
import numpy as np

from autoplay.board import Cell
from autoplay.deduction import Deduction
from autoplay.vision import Geometry, Image

SAFE = (60, 180, 60)
"""BGR colour of proven-safe cells."""
MINE = (40, 40, 220)
"""BGR colour of proven mines."""
GUESS = (0, 200, 255)
"""BGR colour of the guessed cell and its probability."""
_SHADE = 0.45
"""How much of a marked cell's colour the mark covers."""


def draw_deduction(image: Image, geometry: Geometry, deduction: Deduction,
                   guess: tuple[Cell, float] | None = None) -> Image:
    """A copy of ``image`` with the deduction drawn on the cells of ``geometry``.

    Safe cells are tinted green and framed, mines tinted red and crossed; ``guess``, a
    cell and its mine probability, gets a thick frame and the probability as a percentage
    above it (below it on the top row).
    """
    tint = image.copy()
    for cells, colour in ((deduction.safe, SAFE), (deduction.mines, MINE)):
        for cell in cells:
            x0, y0, x1, y1 = geometry.cell_box(cell)
            cv2.rectangle(tint, (x0, y0), (x1 - 1, y1 - 1), colour, cv2.FILLED)
    out = np.asarray(cv2.addWeighted(tint, _SHADE, image, 1 - _SHADE, 0.0), np.uint8)
    line = max(1, round(min(geometry.pitch_x, geometry.pitch_y) / 14))
    for cell in deduction.safe:
        x0, y0, x1, y1 = geometry.cell_box(cell)
        cv2.rectangle(out, (x0 + line, y0 + line), (x1 - 1 - line, y1 - 1 - line), SAFE, line)
    for cell in deduction.mines:
        x0, y0, x1, y1 = geometry.cell_box(cell)
        inset = max(line, round((x1 - x0) / 4))
        cv2.line(out, (x0 + inset, y0 + inset), (x1 - 1 - inset, y1 - 1 - inset), MINE, line,
                 cv2.LINE_AA)
        cv2.line(out, (x0 + inset, y1 - 1 - inset), (x1 - 1 - inset, y0 + inset), MINE, line,
                 cv2.LINE_AA)
    if guess is not None:
        _draw_guess(out, geometry, *guess, thickness=2 * line)
    return out


def _draw_guess(out: Image, geometry: Geometry, cell: Cell, probability: float,
                thickness: int) -> None:
    x0, y0, x1, y1 = geometry.cell_box(cell)
    cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), GUESS, thickness)
    text = f"{probability:.0%}"
    scale = max(0.35, geometry.pitch_y / 40)
    (width, height), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    left = int(np.clip(x0, 0, max(0, out.shape[1] - width - 4)))
    top = y0 - height - base - 4 if y0 - height - base - 4 >= 0 else y1
    cv2.rectangle(out, (left, top), (left + width + 4, top + height + base + 4), (0, 0, 0),
                  cv2.FILLED)
    cv2.putText(out, text, (left + 2, top + height + 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                GUESS, 1, cv2.LINE_AA)
