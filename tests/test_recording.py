"""Recordings of what the bot saw: every frame comes back, in order, kept small meanwhile."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as Picture

from autoplay.errors import AutoplayError
from autoplay.recording import END_MS, MOVE_MS, SHEET_FRAMES, Recording
from autoplay.vision import Image


def _frame(height: int, width: int, shade: int) -> Image:
    """A board-like frame: a few flat colours, which a GIF's palette holds exactly."""
    frame = np.full((height, width, 3), (192, 192, 192), np.uint8)
    frame[::8, :] = (128, 128, 128)
    frame[2:6, 2:6] = (shade, 0, 255 - shade)
    return frame


def _recorded(games: list[list[Image]]) -> Recording:
    recording = Recording()
    for frames in games:
        for i, frame in enumerate(frames):
            recording.add(frame, first=i == 0)
    return recording


GAMES = [[_frame(40, 60, 10 * i) for i in range(5)], [_frame(48, 50, 200 + i) for i in range(3)]]


def test_the_gif_holds_every_frame_in_order_with_the_end_of_each_game_held(
        tmp_path: Path) -> None:
    path = tmp_path / "run.gif"
    _recorded(GAMES).save(path)
    with Picture.open(path) as gif:
        assert gif.n_frames == 8 and gif.size == (60, 48)
        shown = []
        for index in range(gif.n_frames):
            gif.seek(index)
            shown.append((np.asarray(gif.convert("RGB"))[:, :, ::-1], gif.info["duration"]))
    expected = [frame for frames in GAMES for frame in frames]
    for (picture, duration), frame, end in zip(shown, expected,
                                               [0, 0, 0, 0, 1, 0, 0, 1], strict=True):
        height, width = frame.shape[:2]
        assert np.array_equal(picture[:height, :width], frame)
        assert (picture[height:] == 255).all() and (picture[:, width:] == 255).all()
        assert duration == (END_MS if end else MOVE_MS)


def test_the_contact_sheet_has_a_row_per_game(tmp_path: Path) -> None:
    path = tmp_path / "run.png"
    _recorded(GAMES).save(path)
    sheet = np.asarray(Picture.open(path))[:, :, ::-1]
    gap = 6
    assert sheet.shape == (2 * (48 + gap) + gap, SHEET_FRAMES * (60 + gap) + gap, 3)
    # Five frames spread over six places: each frame once, the first and the last included.
    for column, frame in enumerate(GAMES[0]):
        left = gap + column * (60 + gap)
        assert np.array_equal(sheet[gap:gap + 40, left:left + 60], frame)
    top = gap + 48 + gap
    assert np.array_equal(sheet[top:top + 48, gap + 2 * (60 + gap):][:, :50], GAMES[1][2])


def test_frames_are_kept_compressed() -> None:
    """An expert board grabbed after each move of a long run must not fill the memory."""
    frame = _frame(400, 700, 50)
    recording = _recorded([[frame] * 10])
    assert sum(map(sys.getsizeof, recording.games[0])) < frame.nbytes / 20


def test_nothing_recorded_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(AutoplayError, match="nothing to record in .*: no move was played"):
        Recording().save(tmp_path / "run.gif")
