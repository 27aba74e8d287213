"""Drawing the deduction over a screenshot: marked cells change, the others do not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from autoplay.annotate import GUESS, MINE, SAFE, draw_deduction
from autoplay.board import Cell
from autoplay.deduction import Deduction
from autoplay.vision import Geometry, Image, decode_image

SCREENSHOT = Path(__file__).resolve().parent.parent / "fixtures" / "screenshots" / "sgt-mines"
GEOMETRY = Geometry(30, 55, 20, 20, 9, 9)
"""Where sgt-mines draws a 9x9 board in its window."""


@pytest.fixture
def screenshot() -> Image:
    return decode_image((SCREENSHOT / "9x9-mid.png").read_bytes())


def cell(image: Image, where: Cell) -> Image:
    x0, y0, x1, y1 = GEOMETRY.cell_box(where)
    return image[y0:y1, x0:x1]


def share_of(colour: tuple[int, int, int], pixels: Image) -> float:
    return float(np.mean(np.all(pixels == colour, axis=2)))


def share_in_shades_of(colour: tuple[int, int, int], pixels: Image) -> float:
    """The share of pixels that are ``colour`` at half to full strength over black: text
    drawn anti-aliased, whose exact colour OpenCV's versions may never draw whole."""
    ink = np.array(colour, float)
    values = pixels.reshape(-1, 3).astype(float)
    strength = values @ ink / (ink @ ink)
    shade = np.abs(values - strength[:, None] * ink).max(axis=1) <= 12
    return float(np.mean(shade & (strength >= 0.5)))


def distance_to(colour: tuple[int, int, int], pixels: Image) -> float:
    return float(np.mean(np.abs(pixels.astype(int) - np.array(colour))))


def test_safe_cells_and_mines_are_marked_in_their_colours(screenshot: Image) -> None:
    deduction = Deduction(safe=frozenset({Cell(0, 0)}), mines=frozenset({Cell(8, 8)}))
    drawn = draw_deduction(screenshot, GEOMETRY, deduction)
    for where, colour in ((Cell(0, 0), SAFE), (Cell(8, 8), MINE)):
        before = distance_to(colour, cell(screenshot, where))
        assert distance_to(colour, cell(drawn, where)) < 0.6 * before
    assert share_of(SAFE, cell(drawn, Cell(0, 0))) > 0.1


def test_cells_without_a_proof_are_left_as_they_were(screenshot: Image) -> None:
    deduction = Deduction(safe=frozenset({Cell(2, 2)}), mines=frozenset({Cell(3, 3)}))
    drawn = draw_deduction(screenshot, GEOMETRY, deduction)
    outside = np.ones(screenshot.shape[:2], bool)
    for marked in (Cell(2, 2), Cell(3, 3)):
        x0, y0, x1, y1 = GEOMETRY.cell_box(marked)
        outside[y0:y1, x0:x1] = False
    assert np.array_equal(drawn[outside], screenshot[outside])


def test_the_guess_is_framed_and_its_probability_written(screenshot: Image) -> None:
    nothing = Deduction(safe=frozenset(), mines=frozenset())
    plain = draw_deduction(screenshot, GEOMETRY, nothing)
    guessed = draw_deduction(screenshot, GEOMETRY, nothing, guess=(Cell(4, 4), 0.083))
    assert np.array_equal(plain, screenshot)
    assert share_of(GUESS, cell(guessed, Cell(4, 4))) > 0.2
    x0, y0, x1, _ = GEOMETRY.cell_box(Cell(4, 4))
    label = guessed[max(0, y0 - 20):y0, x0:x1 + 20]
    assert share_of((0, 0, 0), label) > 0.3 and share_in_shades_of(GUESS, label) > 0.02
    other = draw_deduction(screenshot, GEOMETRY, nothing, guess=(Cell(4, 4), 0.5))
    assert not np.array_equal(other[max(0, y0 - 20):y0], guessed[max(0, y0 - 20):y0])


def test_a_guess_with_no_room_above_is_labelled_below(screenshot: Image) -> None:
    board = np.ascontiguousarray(screenshot[55:235, 30:210])
    at_corner = Geometry(0, 0, 20, 20, 9, 9)
    nothing = Deduction(safe=frozenset(), mines=frozenset())
    drawn = draw_deduction(board, at_corner, nothing, guess=(Cell(0, 4), 0.2))
    x0, _, x1, y1 = at_corner.cell_box(Cell(0, 4))
    assert share_of((0, 0, 0), drawn[y1:y1 + 12, x0:x1]) > 0.3


def test_the_input_is_not_changed(screenshot: Image) -> None:
    before = screenshot.copy()
    draw_deduction(screenshot, GEOMETRY, Deduction(frozenset({Cell(1, 1)}), frozenset()),
                   guess=(Cell(5, 5), 0.3))
    assert np.array_equal(before, screenshot)
