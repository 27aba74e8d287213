"""What the bot saw while it played, saved for a person to watch.

:class:`Recording` keeps the board after every move (the frames a
:class:`~autoplay.screen.ScreenGame` hands to its ``on_frame``), and writes them as an
animated GIF, one frame per move with the last of each game held longer, or, for a file
ending in ``.png``, as a contact sheet: the frames of every game side by side, a few per
game, so a whole run fits in one picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autoplay.errors import AutoplayError
from autoplay.vision import Image, decode_image, encode_image

MOVE_MS = 120
"""How long each move is shown in the GIF."""
END_MS = 1500
"""How long the last picture of a game is shown."""
SHEET_FRAMES = 6
"""Frames per game on a contact sheet: evenly spaced, the first and the last included."""


@dataclass(slots=True)
class Recording:
    """The frames of the games played, one list per game, each kept as PNG bytes: an expert
    board grabbed after each of a run's thousands of moves would take gigabytes as arrays."""

    games: list[list[bytes]] = field(default_factory=list)

    def add(self, frame: Image, first: bool = False) -> None:
        """Keep one frame (BGR, as grabbed); ``first`` starts a new game."""
        if first or not self.games:
            self.games.append([])
        self.games[-1].append(encode_image(frame, "frame.png"))

    def save(self, path: Path) -> None:
        """Write the frames: an animated GIF, or a contact sheet for a ``.png`` name.

        :raises AutoplayError: when nothing was recorded, or the file cannot be written.
        """
        games = [frames for frames in self.games if frames]
        if not games:
            raise AutoplayError(f"nothing to record in {path}: no move was played")
        from PIL import Image as Picture  # Pillow is needed only to write a recording

        try:
            if path.suffix.lower() == ".png":
                Picture.fromarray(_sheet(games)).save(path)
                return
            size = _largest(games)
            # In the palette the GIF is written in, at once: a third of the memory of RGB.
            pictures = [Picture.fromarray(_rgb(_pad(decode_image(f), size))).convert(
                "P", palette=Picture.Palette.ADAPTIVE) for g in games for f in g]
            durations = [END_MS if i == len(g) - 1 else MOVE_MS for g in games
                         for i in range(len(g))]
            pictures[0].save(path, format="GIF", save_all=True, append_images=pictures[1:],
                             duration=durations, loop=0, optimize=False)
        except OSError as error:
            raise AutoplayError(f"cannot write {path}: {error}") from None


def _largest(games: list[list[bytes]]) -> tuple[int, int]:
    """The height and width that hold every frame, read from the PNG headers (width, then
    height, from byte 16) rather than by decoding each frame."""
    return (max(int.from_bytes(f[20:24], "big") for g in games for f in g),
            max(int.from_bytes(f[16:20], "big") for g in games for f in g))


def _rgb(frame: Image) -> Image:
    return np.ascontiguousarray(frame[:, :, ::-1])


def _pad(frame: Image, size: tuple[int, int]) -> Image:
    """The frame on a white canvas of ``size`` (height, width), top-left aligned."""
    canvas = np.full((*size, 3), 255, np.uint8)
    canvas[:frame.shape[0], :frame.shape[1]] = frame
    return canvas


def _sheet(games: list[list[bytes]]) -> Image:
    """One row per game, of up to :data:`SHEET_FRAMES` evenly spaced frames, in RGB."""
    height, width = _largest(games)
    gap = 6
    sheet = np.full((len(games) * (height + gap) + gap, SHEET_FRAMES * (width + gap) + gap, 3),
                    255, np.uint8)
    for row, frames in enumerate(games):
        picks = sorted({round(i) for i in np.linspace(0, len(frames) - 1, SHEET_FRAMES)})
        for column, index in enumerate(picks):
            top, left = gap + row * (height + gap), gap + column * (width + gap)
            frame = decode_image(frames[index])
            sheet[top:top + frame.shape[0], left:left + frame.shape[1]] = frame
    return _rgb(sheet)
