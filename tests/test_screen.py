"""Real games on a real (virtual) X server, played with real clicks: no mocks.

sgt-mines boards are made here, as descriptive game IDs, so the layout is known; the games
with random layouts (xdemineur) are checked against what they show at the end.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from autoplay import desktop
from autoplay.board import EXPLODED, UNKNOWN, Board, Cell, three_bv
from autoplay.cli import cli
from autoplay.deduction import deduce
from autoplay.desktop import LEVELS, GameWindow, Region, VirtualDisplay, launch_game, xdotool
from autoplay.errors import (
    BoardCut,
    DesktopError,
    InconsistentBoard,
    UnknownCells,
    WindowLost,
    plural,
)
from autoplay.player import GameResult, play
from autoplay.screen import (
    PLAYBOOKS,
    SIGNS,
    Face,
    Screen,
    ScreenGame,
    StatusText,
    _lost_at,
    _same_game,
    find_game,
    judge,
    layout_shown,
    play_games,
)
from autoplay.sim import SimGame
from autoplay.stats import StatsStore
from autoplay.vision import load_skins
from tests.processes import is_running, run_autoplay

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "fixtures" / "screenshots"

BEGINNER = ["""
*..*.....
....*....
.........
..*......
.*.......
.........
....*....
.*.*....*
...*.....
""", """
.***.....
.........
.........
*........
*........
.*.......
...*.....
*........
.....*.*.
""", """
.........
.........
.........
.**......
.......*.
........*
.........
..*.**...
*....*..*
"""]
INTERMEDIATE = ["""
.......*.*....*.
.....*.*........
........*..*....
......*.........
*...*.........*.
.*..........**.*
.*..*.........*.
.*........*.....
...*.*..........
.*...........*..
....*.......*...
....*..*........
..*..*..........
......*.*.....*.
..**.*......*..*
...........*.*..
""", """
......*.........
................
..*......**.***.
...........**...
................
...*......*.**..
......*...*.*...
..*...*.........
.....**.....*...
.....*..........
*...............
*....*..........
*....**...*.*...
...**...........
..........**.*.*
.*.......**.*...
"""]


def parse_layout(text: str) -> tuple[int, int, frozenset[Cell]]:
    rows = text.strip().splitlines()
    mines = frozenset(Cell(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row)
                      if ch == "*")
    return len(rows[0]), len(rows), mines


def start_cell(width: int, height: int) -> Cell:
    return Cell(height // 2, width // 2)


def game_id(width: int, height: int, mines: frozenset[Cell], start: Cell | None) -> str:
    """sgt-mines' plain descriptive ID: ``WxH:x,y,u`` and the mine bitmap in hex, row-major,
    four cells a digit, the square at (x, y) opened at the start (``WxH:u...``, every
    square covered, without ``start``)."""
    bits = "".join("1" if Cell(*divmod(i, width)) in mines else "0"
                   for i in range(width * height))
    bits += "0" * (-len(bits) % 4)
    digits = "".join(f"{int(bits[i:i + 4], 2):x}" for i in range(0, len(bits), 4))
    opened = "" if start is None else f"{start.col},{start.row},"
    return f"{width}x{height}:{opened}u{digits}"


def solvable_without_guessing(width: int, height: int, mines: frozenset[Cell],
                              start: Cell) -> bool:
    """Play the layout on the simulator from ``start`` with proven cells only."""
    sim = SimGame.with_layout(width, height, mines)
    sim.reveal(start)
    while sim.outcome == "playing":
        safe = deduce(sim.observe()).safe
        if not safe:
            return False
        for cell in safe:
            if sim.observe()[cell] == UNKNOWN:
                sim.reveal(cell)
    return sim.outcome == "won"


def inside(click_x: int, click_y: int, game: ScreenGame) -> bool:
    x0, y0, x1, y1 = game.geometry.box()
    return x0 <= click_x < x1 and y0 <= click_y < y1


@pytest.fixture
def screen(xvfb: str) -> Iterator[Screen]:
    opened = Screen(xvfb)
    yield opened
    opened.close()


def sgt(xvfb: str, layout: str) -> tuple[GameWindow, int, int, frozenset[Cell]]:
    width, height, mines = parse_layout(layout)
    return (launch_game("sgt-mines", xvfb, [game_id(width, height, mines,
                                                     start_cell(width, height))]),
            width, height, mines)


# Flagged too on intermediate, where flags are drawn beside fresh openings.
@pytest.mark.parametrize(("layout", "flag"),
                         [(layout, False) for layout in BEGINNER + INTERMEDIATE]
                         + [(layout, True) for layout in INTERMEDIATE])
def test_made_sgt_mines_boards_are_won_without_a_guess(xvfb: str, screen: Screen, layout: str,
                                                       flag: bool, stats_path: Path) -> None:
    width, height, mines = parse_layout(layout)
    assert solvable_without_guessing(width, height, mines, start_cell(width, height))
    window, *_ = sgt(xvfb, layout)
    with window, StatsStore(stats_path) as store:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        board = game.observe()
        assert board[start_cell(width, height)] == 0  # the ID opened the start square
        for record in play_games(game, 1, lambda g: play(g, rng=random.Random(1),
                                                         flag_mines=flag)):
            store.record(record)
        [stored] = list(store.games())
    assert stored.won and stored.guesses == () and game.sign_seen  # "COMPLETED!"
    assert (stored.source, stored.width, stored.height, stored.mines) == (
        "desktop/sgt-mines", width, height, len(mines))
    assert stored.clicks == len(game.clicks) > 0
    assert all(inside(click.x, click.y, game) for click in game.clicks)
    assert any(click.button == "right" for click in game.clicks) == flag
    clicked = {game.geometry.centre(cell) for cell in game.observe().cells()}
    assert all((c.x, c.y) in {(round(x), round(y)) for x, y in clicked} for c in game.clicks)
    final = game.observe()
    assert set(final.flags()) == mines  # the game flags every mine when it is won
    assert stored.three_bv == three_bv(width, height, mines)


@pytest.mark.parametrize("tile", [10, 16])
def test_a_game_won_with_tiles_whose_flags_the_skin_misses_is_recorded_won(
        xvfb: str, screen: Screen, tile: int, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Tatham's Mines at tiles under 20 px (``MINES_TILESIZE``) draws flags its 20 px skin
    does not recognise, and it flags every mine once a game is won: the game stopped, won,
    with "10 cells ... not recognised" until its status words were taken for the win; it
    is taken as soon as they are, rather than waited on for a board that reads whole."""
    monkeypatch.setenv("MINES_TILESIZE", str(tile))
    window, width, height, mines = sgt(xvfb, BEGINNER[0])
    with window, caplog.at_level(logging.INFO, logger="autoplay.screen"):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        assert (round(game.geometry.pitch_x), game.geometry.cols, game.geometry.rows) == (
            tile, width, height)
        still = screen.capture.still
        looks_after = []  # the clicks sent by each wait for the board to hold still

        def counted_still(*args: Any, **kwargs: Any) -> np.ndarray:
            looks_after.append(len(game.clicks))
            return still(*args, **kwargs)

        monkeypatch.setattr(screen.capture, "still", counted_still)
        [record] = play_games(game, 1, lambda g: play(g, rng=random.Random(1)))
        final = game.observe()
    assert record.won and game.sign_seen  # "COMPLETED!"
    assert set(final.flags()) == mines and not final.unknown_cells()
    assert caplog.text.count(f"{len(mines)} cells not recognised taken for the game's flags") == 1
    # Its won board never reads whole: waiting for it, up to 2 s at a time, looked some 190
    # times once the last click was sent, and the game ended 4 to 6 s late.
    assert looks_after.count(len(game.clicks)) < 40


@pytest.mark.parametrize("tile", [18, 19])
def test_a_new_game_with_18_or_19_px_tiles_is_found(
        xvfb: str, screen: Screen, tile: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 17 to 19 px the covered tiles' bevel is 1 px wide, the skin's (20 px) 2: fitted
    to every look, the lattice of a new game, every cell covered, settled a pixel or so off
    it, where the plain empty look matched better, and all its cells read as empty: "no
    Minesweeper board found". Fitted again to the covered look alone, it is found; at 18 px
    the polish then left it 0.4 px off, its corner cell not recognised, and on whole pixels
    every cell is."""
    monkeypatch.setenv("MINES_TILESIZE", str(tile))
    with launch_game("sgt-mines", xvfb, ["9x9n10"]):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=10,
                         timeout=5)
        assert (round(game.geometry.pitch_x), game.geometry.cols, game.geometry.rows) == (
            tile, 9, 9)
        assert len(game.observe().unknown_cells()) == 81


def test_counts_the_skin_misses_stop_the_game_as_unrecognised_not_as_a_board_gone(
        xvfb: str, screen: Screen, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 11 px the skin finds Tatham's covered board but reads none of its 1s: after the
    first click the board is not found again, and the bot said it was gone from the
    screen ("closed, covered, paused or moved away"). Read where it was, it is the same
    game with a few cells not recognised, and that is what stops it."""
    monkeypatch.setenv("MINES_TILESIZE", "11")
    width, height, mines = parse_layout(BEGINNER[0])
    with launch_game("sgt-mines", xvfb, [game_id(width, height, mines, None)]):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        assert len(game.observe().unknown_cells()) == width * height
        with pytest.raises(UnknownCells, match="cells? of the sgt-mines board not "
                                               "recognised, so not guessed: .* '1'"):
            play(game, rng=random.Random(1))
        assert len(game.clicks) == 1


def test_flags_the_skin_misses_are_no_win_while_the_game_goes_on(
        xvfb: str, screen: Screen, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's own flags, unrecognised at 16 px, are not taken for a won game's: the
    status words do not say won, so the game stops at the first flag it cannot read."""
    monkeypatch.setenv("MINES_TILESIZE", "16")
    window, *_, mines = sgt(xvfb, INTERMEDIATE[0])
    with window:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        with pytest.raises(UnknownCells, match="1 cell of the sgt-mines board not "
                                               "recognised.*'flag'"):
            play(game, rng=random.Random(1), flag_mines=True)
        assert game.outcome == "playing"


def test_a_lost_game_that_hides_its_mines_is_stored_with_its_count_unknown(
        xvfb: str, screen: Screen, stats_path: Path) -> None:
    """sgt-mines shows only the mine that went off: without --mines, no count is known."""
    width, height, mines = parse_layout(BEGINNER[0])
    window, *_ = sgt(xvfb, BEGINNER[0])
    mine = min(mines)

    def step_on_a_mine(game: ScreenGame) -> GameResult:
        game.reveal(mine)
        return GameResult(False, 1, (), 0.5, None, game.observe())

    with window, StatsStore(stats_path) as store:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), timeout=5)
        for record in play_games(game, 1, step_on_a_mine):
            store.record(record)
        [stored] = list(store.games())
    assert game.outcome == "lost" and game.observe()[mine] == EXPLODED
    assert (stored.width, stored.height, stored.mines, stored.three_bv) == (
        width, height, None, None)


def test_a_game_over_on_the_screen_is_not_recorded_a_new_one_is_played(
        xvfb: str, screen: Screen) -> None:
    with launch_game("sgt-mines", xvfb, ["9x9n10"]):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=10,
                         timeout=5)
        [first] = play_games(game, 1, lambda g: play(g, rng=random.Random(1),
                                                     first_cell=g.first_cell))
        # Time to spare: on a loaded machine it was once not found within 5 s.
        again = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=10,
                          timeout=15)
        assert again.outcome == ("won" if first.won else "lost")
        shown = CliRunner().invoke(cli, ["play", "--dry-run", "--mines", "10"])
        assert shown.exit_code == 0, shown.output
        assert shown.stdout.splitlines()[9:] == [
            f"the game is over ({again.outcome}): no move to show; play would start a new game"]
        [second] = play_games(again, 1, lambda g: play(g, rng=random.Random(2),
                                                       first_cell=g.first_cell))
    assert first.first_cell == second.first_cell == again.first_cell is not None
    assert second.clicks > 0 and second.seconds > 0


def test_a_second_game_on_the_screen_is_named(xvfb: str, screen: Screen,
                                             caplog: pytest.LogCaptureFixture) -> None:
    """Two games side by side: the larger board is played, and the other named."""
    with (launch_game("sgt-mines", xvfb, ["16x16n40"]) as sgt_mines,
          launch_game("xdemineur", xvfb, ["-geometry", "12x9", "-m", "15"]) as xdemineur):
        sgt_mines.place(0, 0)
        xdemineur.place(sgt_mines.region().width + 40, 0)
        # Drawn where it was moved to: under load it once was not yet, and went unnamed.
        find_game(screen, xdemineur.region(), load_skins("xdemineur"), timeout=5)
        with caplog.at_level(logging.WARNING, logger="autoplay.screen"):
            game = find_game(screen, screen.search_area(), load_skins(), timeout=5)
    assert (game.skin.name, game.geometry.cols, game.geometry.rows) == ("sgt-mines", 16, 16)
    assert [record.getMessage() for record in caplog.records] == [
        ("the area of the screen searched shows another board, xdemineur 12x9 at x=436, "
         "y=81, besides the sgt-mines 16x16 at x=30, y=55, which is read (--region narrows "
         "the search)")]


def test_a_mine_count_the_board_cannot_hold_is_refused_before_a_click(
        xvfb: str, screen: Screen) -> None:
    with launch_game("sgt-mines", xvfb, ["9x9n10"]):
        with pytest.raises(DesktopError, match="81 mines do not fit the 9x9 sgt-mines board "
                                               "with a cell to open: is the mine count right"):
            find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=81,
                      timeout=5)
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=80,
                         timeout=5)
        assert game.clicks == [] and game.outcome == "playing"


@pytest.mark.parametrize("words_seen", [True, False])
def test_a_win_the_game_does_not_confirm_is_not_recorded(xvfb: str, screen: Screen,
                                                         words_seen: bool) -> None:
    """With too many mines given, the board looks won while cells are left: sgt-mines does
    not say COMPLETED!, so the game is not taken as won once its words have been seen in
    the run (on a desktop whose font they do not match, never), nor, before, since it
    leaves cells covered where a game won has every mine flagged."""
    width, height, mines = parse_layout(BEGINNER[0])
    sim = SimGame.with_layout(width, height, mines)
    sim.reveal(start_cell(width, height))
    safe = next(c for c in sim.observe().unknown_cells() if c not in mines)
    sim.reveal(safe)
    left = len(sim.observe().unknown_cells())
    window, *_ = sgt(xvfb, BEGINNER[0])
    with window:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=left,
                         timeout=5)
        assert game.outcome == "playing"
        game._sign_read = words_seen  # as once a game's end has shown: the words match
        with pytest.raises(DesktopError, match=f"the board looks won with {left} mines, but "
                                               "sgt-mines did not say so within 3.0 s: is the "
                                               "mine count right"):
            game.reveal(safe)


WALLED = """
..**.**..
..*...*..
..*......
..*......
..*......
..*......
..*......
..*......
..*......
"""
"""Two columns walled off by mines, which no number reaches. Told that every covered cell
but one is a mine, the bot proves (0, 4) that cell, the one both 2s beside it share."""


def test_a_win_the_bot_flagged_itself_is_not_recorded(xvfb: str, screen: Screen) -> None:
    """Under --flag, with too many mines given (every covered cell but one), the bot flags
    every cell but the one it opens, the walled-off safe ones too: none is left covered,
    as in a game won, but sgt-mines still takes a move (a flag right-clicked comes off,
    and is put back), which it does not once a game is over."""
    *_, mines = parse_layout(WALLED)
    window, *_ = sgt(xvfb, WALLED)
    with window:
        covered = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                            timeout=5).observe().unknown_cells()
        given = len(covered) - 1
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=given,
                         timeout=5)
        with pytest.raises(DesktopError, match=f"the board looks won with {given} mines, "
                                               "but sgt-mines did not say so within 3.0 s"):
            play(game, rng=random.Random(1), flag_mines=True)
        board = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                          timeout=5).observe()
    assert len(board.flags()) == given and not board.unknown_cells()  # the flag tried is back
    assert set(covered) - set(board.flags()) - mines  # flagged safe cells: not won


def test_a_win_whose_words_are_not_read_is_a_win(xvfb: str, screen: Screen,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """On a desktop whose font the words COMPLETED! do not match, a game won with every
    cell left flagged by the bot is told from one still played: sgt-mines takes no move
    once over."""
    monkeypatch.setattr(StatusText, "read", lambda self, strip: None)
    *_, mines = parse_layout(INTERMEDIATE[0])
    window, *_ = sgt(xvfb, INTERMEDIATE[0])
    with window, caplog.at_level(logging.WARNING, logger="autoplay.screen"):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        [record] = play_games(game, 1, lambda g: play(g, rng=random.Random(1),
                                                      flag_mines=True))
    assert record.won and not game.sign_seen
    assert game.clicks[-1].button == "right"  # a flag tried, which stayed
    assert [r.getMessage() for r in caplog.records] == [
        "sgt-mines did not show that the game is won within 3.0 s"]


@pytest.mark.parametrize(("name", "flagged"), [("xdemineur", True), ("gnome-mines", False),
                                             ("gnome-mines", True)])
def test_a_game_played_on_takes_a_move(xvfb: str, screen: Screen, name: str,
                                       flagged: bool) -> None:
    """How a board that looks won is told from one won when the game's face or window
    says nothing (or not yet: its look is read only once it has shown an end in the run):
    with a mine count too high, the cells left all look like mines once the last safe
    ones but a few are open. A game played on takes a move: a covered cell right-clicked
    changes (a flag comes, or goes; in GNOME Mines through a question mark), and is put
    back. (The tests of wins without a sign show that a game over takes none.)"""
    level = LEVELS[name]["beginner"]
    with launch_game(name, xvfb, level.args):
        game = find_game(screen, screen.search_area(), load_skins(name), mines=level.mines,
                         timeout=10)
        if flagged:
            game.flag(game.observe().unknown_cells()[0])
        before = game.observe()
        assert game._still_played(game._frame)
        assert game.clicks[-1].button == "right"
        again = find_game(screen, screen.search_area(), load_skins(name), timeout=10)
        assert again.observe().states == before.states  # the cell tried is back


def played_to_a_win(xvfb: str, screen: Screen, name: str) -> tuple[list[bool], ScreenGame]:
    """Up to six beginner games of ``name``, played until one is won: whether each was
    won, and the game on the screen."""
    level = LEVELS[name]["beginner"]
    outcomes = []
    with launch_game(name, xvfb, level.args):
        game = find_game(screen, screen.search_area(), load_skins(name), mines=level.mines,
                         timeout=10)
        for record in play_games(game, 6, lambda g: play(g, rng=random.Random(4),
                                                         first_cell=g.first_cell)):
            outcomes.append(record.won)
            if record.won:
                break
    return outcomes, game


def test_a_win_whose_face_is_not_seen_is_a_win(xvfb: str, screen: Screen,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """xdemineur's face looked for where it is not (as in a window laid out otherwise):
    a game won is told by the game taking no move once over."""
    monkeypatch.setattr(Face, "region", lambda self, geometry: Region(-50, -50, 20, 20))
    outcomes, game = played_to_a_win(xvfb, screen, "xdemineur")
    assert outcomes[-1] and not game.sign_seen, outcomes
    assert game.clicks[-1].button == "right"  # a flag tried, which stayed


def test_a_mine_count_the_board_contradicts_is_named(xvfb: str, tmp_path: Path) -> None:
    width, height, mines = parse_layout(BEGINNER[0])
    sim = SimGame.with_layout(width, height, mines)
    sim.reveal(start_cell(width, height))
    with pytest.raises(InconsistentBoard):  # the counts shown need more than one mine
        deduce(sim.observe().with_mines(1))
    window, *_ = sgt(xvfb, BEGINNER[0])
    with window:
        result = CliRunner().invoke(cli, ["play", "--mines", "1", "--db",
                                          str(tmp_path / "s.sqlite3")])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].startswith("Error: no mine layout fits this board")
    assert result.stderr.endswith(" (is --mines 1 the game's count?)\n")


def test_a_gnome_mines_win_without_its_window_is_a_win(
        xvfb: str, screen: Screen, monkeypatch: pytest.MonkeyPatch) -> None:
    """GNOME Mines opens its Congratulations window only for a time in its top ten."""
    def with_best_times(home: Path, display: str, settings: Mapping[str, str | int | bool]
                        ) -> dict[str, str]:
        scores = home / "data" / "gnome-mines" / "scores" / "8-8-10"
        scores.parent.mkdir(parents=True)
        scores.write_text("0 1700000000\n" * 10)  # ten wins in no time: none to beat
        return private_environment(home, display, settings)

    private_environment = desktop._private_environment
    monkeypatch.setattr(desktop, "_private_environment", with_best_times)
    outcomes, game = played_to_a_win(xvfb, screen, "gnome-mines")
    assert outcomes[-1] and not game.sign_seen, outcomes
    assert game.clicks[-1].button == "right"  # a cell tried, which did not change


@pytest.mark.parametrize("preset", ["beginner", "intermediate", "expert"])
def test_a_lit_cell_under_the_pointer_is_not_read_as_opened(xvfb: str, screen: Screen,
                                                            preset: str) -> None:
    """GNOME Mines lights the covered cell under the pointer, which then looks opened."""
    level = LEVELS["gnome-mines"][preset]
    with launch_game("gnome-mines", xvfb, level.args) as window:
        if level.window_size:
            window.resize(*level.window_size)
        skins = load_skins("gnome-mines")
        game = find_game(screen, screen.search_area(), skins, timeout=10)
        x, y = game.geometry.centre(Cell(1, 1))
        screen.move(round(x), round(y))
        time.sleep(0.5)
        game = find_game(screen, screen.search_area(), skins, timeout=10)
        assert all(state == UNKNOWN for state in game.observe().states)


def test_a_display_that_cannot_be_reached_is_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(cli, ["play"], env={"DISPLAY": ":987"}, prog_name="autoplay")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot reach display :987: ")
    monkeypatch.setenv("PATH", "")
    with pytest.raises(DesktopError, match="xdotool is not installed"):
        xdotool(":987", "getactivewindow")

@pytest.mark.parametrize("region", ["1,2", "0,0,0,10", "a,b,c,d"])
def test_a_malformed_region_is_refused_before_the_display_is_looked_for(region: str) -> None:
    result = CliRunner().invoke(cli, ["play", "--region", region], env={"DISPLAY": ":987"},
                                prog_name="autoplay")
    assert result.exit_code == 2 and result.stdout == ""
    assert "Invalid value for '--region': expected X,Y,W,H such as 0,0,800,600, got " \
           f"{region!r}" in result.stderr



def test_a_win_in_a_window_too_narrow_for_its_words_is_seen(
        xvfb: str, screen: Screen, caplog: pytest.LogCaptureFixture) -> None:
    """A board four cells wide leaves sgt-mines' window as narrow as its menu bar, whose
    status bar cuts the words: "[0:00] COMPLET..."."""
    layout = "*..*\n....\n....\n...."
    width, height, mines = parse_layout(layout)
    assert solvable_without_guessing(width, height, mines, start_cell(width, height))
    window, *_ = sgt(xvfb, layout)
    with window, caplog.at_level(logging.WARNING, logger="autoplay.screen"):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        [record] = play_games(game, 1, lambda g: play(g, rng=random.Random(1)))
    assert record.won and game.sign_seen
    assert caplog.records == []


def test_the_status_words_tell_won_from_lost() -> None:
    sign = PLAYBOOKS["sgt-mines"].sign
    assert isinstance(sign, StatusText)
    assert all((SIGNS / name).is_file() for _, name in sign.images)
    for name, expected in [("9x9-won", "won"), ("16x16-lost", "lost"), ("30x16-won", "won"),
                           ("30x16-lost", "lost"), ("9x9-mid", None), ("16x16-new", None)]:
        image = cv2.imread(str(SCREENSHOTS / "sgt-mines" / f"{name}.png"))
        height = image.shape[0]
        assert sign.read(np.asarray(image[height - 60:], np.uint8)) == expected, name


def test_a_moved_window_is_found_again_and_a_closed_one_stops_the_game(
        xvfb: str, screen: Screen, caplog: pytest.LogCaptureFixture) -> None:
    window, _, _, mines = sgt(xvfb, BEGINNER[0])
    with window, caplog.at_level(logging.WARNING, logger="autoplay.screen"):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        before = game.geometry
        window.place(300, 200)
        result = play(game, rng=random.Random(2))
        assert result.won and game.geometry == before.moved(300, 200)
        assert all(inside(c.x, c.y, game) for c in game.clicks)
    x0, y0, x1, y1 = before.box()
    assert [r.getMessage() for r in caplog.records] == [
        (f"the sgt-mines board moved from {(x0, y0, x1, y1)} to "
         f"{(x0 + 300, y0 + 200, x1 + 300, y1 + 200)}")]
    window, *_ = sgt(xvfb, BEGINNER[1])
    with window:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"),
                         mines=len(mines), timeout=5)
        window.close()
        with pytest.raises(WindowLost, match="board is gone"):
            play(game, rng=random.Random(2))
        assert game.clicks == []


def test_a_board_found_again_a_fraction_of_a_pixel_off_has_not_moved(
        xvfb: str, screen: Screen, caplog: pytest.LogCaptureFixture) -> None:
    """Found again (a read failed, say), a board is fitted anew, to a fraction of a pixel
    off the last fit: a warning that it moved "from (24, 49, 168, 193) to (24, 49, 168,
    193)" would only puzzle."""
    window, *_ = sgt(xvfb, BEGINNER[0])
    with window, caplog.at_level(logging.WARNING, logger="autoplay.screen"):
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), timeout=5)
        fitted = game.geometry
        game.geometry = dataclasses.replace(fitted, left=fitted.left + 0.2)
        game._relocate(None, game._read(game._frame))
    assert game.geometry == fitted
    assert caplog.records == []


def test_no_click_can_leave_the_board(xvfb: str, screen: Screen,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    window, *_ = sgt(xvfb, BEGINNER[2])
    with window:
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), timeout=5)
        x0, y0, x1, y1 = game.geometry.box()
        # Refused in an area not the board's, and in the board's own rectangle, a pixel off.
        for area in [Region(0, 0, 1280, 1024), game._region()]:
            for x, y in [(x0 - 1, y0), (x1, y0), (x0, y1), (x0, y0 - 1), (0, 0)]:
                with pytest.raises(DesktopError, match="refusing to click"):
                    game._press(x, y, "left", area)
        with pytest.raises(DesktopError, match="not a cell"):
            game.reveal(Cell(9, 0))
        assert game.clicks == []
        pressed: list[tuple[int, int]] = []
        monkeypatch.setattr(game.screen, "click", lambda x, y, button: pressed.append((x, y)))
        for x, y in [(x0, y0), (x1 - 1, y1 - 1)]:  # the board's first and last pixels
            game._press(x, y, "left", game._region())
        assert pressed == [(x0, y0), (x1 - 1, y1 - 1)]


def test_a_board_the_area_searched_cuts_is_not_played(xvfb: str, screen: Screen) -> None:
    """As with a window partly off the screen: the counts beside the cut touch hidden
    cells, so what is proven there may be false."""
    window, *_ = sgt(xvfb, BEGINNER[2])
    with window:
        skins = load_skins("sgt-mines")
        geometry = find_game(screen, screen.search_area(), skins, timeout=5).geometry
        edge = geometry.box()[2] - 2 * round(geometry.pitch_x)  # two columns off
        for right in [edge, edge + 1]:  # the edge of a cell, and inside one
            with pytest.raises(BoardCut, match="the sgt-mines board reaches the right edge of "
                                               "the area searched, so part of it may be "
                                               "hidden: move its window fully into view, or "
                                               "widen --region"):
                find_game(screen, Region(0, 0, right, 1024), skins)


def test_a_window_too_small_for_its_board_is_not_played(xvfb: str, screen: Screen) -> None:
    """GNOME Mines at a custom size, with no window manager to fit its window to the board,
    shows 19 of its 20 columns and part of the last: read as 19x12, the board's counts
    beside the cut touched hidden cells, and play stopped after a click, the board
    inconsistent."""
    with launch_game("gnome-mines", xvfb,
                     settings={"mode": 3, "xsize": 20, "ysize": 12, "nmines": 40}) as window:
        window.move(200, 200)
        window.key("4")  # the custom screen, which its settings fill in
        time.sleep(0.5)
        window.click(304, 309)  # Play Game
        window.move(600, 470)  # off the board, which lights the cell under the pointer
        with pytest.raises(BoardCut, match="the gnome-mines board stops part way into a line "
                                           "of covered cells at its right side"):
            find_game(screen, screen.search_area(), load_skins("gnome-mines"), timeout=2)


def test_the_board_tells_the_end() -> None:
    assert judge(Board.parse("mines: 2\n1F\n.2")) == "won"
    assert judge(Board.parse("mines: 3\n1F\n.2")) == "playing"
    assert judge(Board.parse("1X\n..")) == "lost"


# An xbomb expert game as the bot saw it before it opened (5, 21), and as xbomb drew it
# once the mine there went off: the whole board uncovered, green lines over the opened
# cells, and the 5 at (13, 6) read as a 0 through them.
XBOMB_BEFORE_LOSS = """\
00000012210001.1001.2.........
0001111..101132200112.........
1111.2222112.4.2011112........
2.212.21001.4..312.22.........
2.2012.10012.333.212..........
111112111222111.21023.........
1111.2123..200111001.2........
1.2212.2...2000112122.........
12.1012444321002.4.22.........
0222112..43.1002..............
01.23.44...332223.............
133....43322..3.2.............
........20124.312.............
....335.301.21101.............
.....12.201110012.............
.....11110000001.............."""
XBOMB_LOST = """\
00000012210001*1001*2*102**2**
0001111**1011322001122223*4443
1111*2222112*4*2011112*2*33**1
2*212*21001*4**312*22*332*3342
2*2012*10012*333*212*4*2212*2*
111112111222111*21023X3*112221
1111*2123**200111001*22122*100
1*2212*2***20001121222112*2211
12*1012444321002*4*22*11*211*1
0222112**43*1002**3*2222110111
01*23*44***33222322112*2000011
1334***43322**3*211013*200001*
*2**4***20124*312*213*32111121
2333330*301*2110112*5*31*11*10
2*21*12*201110012333**31111121
2*21111110000001***23*2000001*"""


def test_a_mine_going_off_where_the_bot_clicked_ends_the_same_game() -> None:
    """Only the loss excuses an opened cell read with another count, and only when the
    mine went off in the cell just opened: otherwise the board is another game. Only
    xbomb draws over its cells at a loss; in the others such a board stays a misread."""
    assert [name for name, book in PLAYBOOKS.items() if book.marks_loss] == ["xbomb"]
    before, lost = Board.parse(XBOMB_BEFORE_LOSS), Board.parse(XBOMB_LOST)
    assert (before[Cell(13, 6)], lost[Cell(13, 6)], lost[Cell(5, 21)]) == (5, 0, EXPLODED)
    assert not _same_game(before, lost)
    assert _lost_at(before, lost, Cell(5, 21))
    assert _lost_at(before, lost.with_states({Cell(13, 6): UNKNOWN}), Cell(5, 21))  # unread
    assert not _lost_at(before, lost, None)
    assert not _lost_at(before, lost, Cell(0, 29))  # not where the mine went off
    assert not _lost_at(before, lost.with_states({Cell(5, 21): UNKNOWN}), Cell(5, 21))
    assert not _lost_at(lost, lost, Cell(5, 21))  # it had gone off before
    assert not _lost_at(Board.parse("1."), Board.parse("0X\n.."), Cell(0, 1))  # size


def consistent(board: Board, mines: frozenset[Cell]) -> bool:
    """Every count shown is the number of mines around it."""
    return all(board[cell] == sum(n in mines for n in board.neighbours(cell))
               for cell in board.cells() if board[cell] >= 0)


def check_end(game: ScreenGame, mines: int) -> Board:
    """The end the bot saw is the end the game shows: its face changed, a mine went off
    exactly when it is lost, and the mines it shows fit every count and the mine total."""
    board = game.observe()
    assert game.outcome != "playing" and game.sign_seen
    assert (game.outcome == "lost") == (EXPLODED in board.states)
    shown = layout_shown(board, game.outcome, game.playbook)
    assert shown is not None and len(shown) == mines and consistent(board, shown)
    deduce(board.with_mines(mines))  # no InconsistentBoard
    return board


def test_xdemineur_games_end_as_the_game_says(xvfb: str, screen: Screen,
                                              stats_path: Path) -> None:
    """In each window: a game played by the bot and recorded, then one played by random
    clicks, which ends (almost always) in a loss. A game stopped on a cell no template
    knows is reported and not recorded, and the next window is tried."""
    played, lost, stopped = [], 0, 0
    rng = random.Random(5)
    with StatsStore(stats_path) as store:
        while (len(played) < 2 or not lost) and stopped < 8:
            with launch_game("xdemineur", xvfb, ["-geometry", "12x9", "-m", "10"]):
                try:  # the area it opens by itself may show a count with no template yet
                    game = find_game(screen, screen.search_area(), load_skins("xdemineur"),
                                     mines=10, timeout=1)
                    for record in play_games(game, 1, lambda g: play(g, rng=random.Random(3))):
                        store.record(record)
                        board = check_end(game, 10)
                        played.append(record)
                        assert record.won == (game.outcome == "won")
                        assert record.three_bv == three_bv(12, 9, layout_shown(
                            board, game.outcome, game.playbook) or set())
                    game.new_game()
                    while game.outcome == "playing":
                        game.reveal(rng.choice(game.observe().unknown_cells()))
                    check_end(game, 10)
                    lost += game.outcome == "lost"
                except UnknownCells:
                    stopped += 1
        stored = list(store.games())
    assert len(played) >= 2 and lost, f"{len(played)} played, {lost} lost, {stopped} stopped"
    assert [(r.won, r.clicks, r.three_bv, r.source, r.mines) for r in played] == [
        (s.won, s.clicks, s.three_bv, s.source, s.mines) for s in stored]


def test_ace_minesweeper_is_read_below_its_bar_and_its_games_end_as_it_says(
        xvfb: str, screen: Screen, stats_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Ace of Penguins starts on its 32x32 level, whose plain green bar above the board is
    two rows of cells high (one at 16x16): it is no row of opened cells. The game calls a
    game won only once every mine is flagged, and then puts sunglasses on its penguin:
    those flags count in the game's clicks, and the log says so."""
    caplog.set_level(logging.INFO, logger="autoplay.screen")
    skins = load_skins("ace-minesweeper")
    outcomes, results = [], []

    def play_one(game: ScreenGame) -> GameResult:
        results.append(play(game, rng=random.Random(1)))
        return results[-1]

    with StatsStore(stats_path) as store, launch_game("ace-minesweeper", xvfb) as window:
        game = find_game(screen, screen.search_area(), skins, timeout=5)
        assert (game.geometry.cols, game.geometry.rows, game.mines) == (32, 32, 200)
        window.choose("3")
        game = find_game(screen, screen.search_area(), skins, timeout=5)
        assert (game.geometry.cols, game.geometry.rows, game.mines) == (16, 16, 45)
        for record in play_games(game, 12, play_one):
            store.record(record)
            check_end(game, 45)
            outcomes.append(game.outcome)
            if "won" in outcomes:
                break
    # About 3 games in 5 are won (a corner opened blind, then 72% with a safe first
    # click: autoplay sim --board 16x16/45): twelve losses in a row, 1 run in 40,000.
    assert "won" in outcomes, outcomes
    flags = record.clicks - results[-1].clicks
    assert 0 < flags <= 45
    assert (f"{plural(flags, 'flag')} more on the ace-minesweeper board, which flags every "
            f"mine to call a game won") in caplog.text


@pytest.mark.parametrize("region", ["1200,1000,100,100", "-5,0,100,100", "0,0,99999,99999"])
def test_a_region_beyond_the_screen_is_refused_in_one_line(xvfb: str, region: str) -> None:
    """mss cannot grab beyond the screen (the screen here is 1280x1024)."""
    result = CliRunner().invoke(cli, ["play", "--dry-run", "--region", region])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"Error: the region {region} is not all on the screen, "
                             f"0,0,1280,1024 (X,Y,W,H)\n")


def test_a_screen_without_a_board_is_named_as_the_area_searched(xvfb: str) -> None:
    """Not as "the 400x300 image": the user gave no image."""
    result = CliRunner().invoke(cli, ["play", "--dry-run", "--region", "0,0,400,300"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: no Minesweeper board found in the 400x300 area of "
                                    "the screen searched (skins tried: "), result.stderr
    assert "image" not in result.stderr


def test_dry_run_shows_the_next_moves_and_changes_nothing(xvfb: str, screen: Screen,
                                                          tmp_path: Path) -> None:
    window, *_ = sgt(xvfb, INTERMEDIATE[0])
    with window:
        before = screen.capture.still(Region(0, 0, 1280, 1024))
        out = tmp_path / "moves.png"
        result = CliRunner().invoke(cli, ["play", "--dry-run", "--mines", "40", "--annotate",
                                          str(out), "--db", str(tmp_path / "s.sqlite3")])
        after = screen.capture.still(Region(0, 0, 1280, 1024))
        assert result.exit_code == 0, result.output
        assert np.array_equal(before, after)
        rows = result.stdout.splitlines()
        assert [len(row) for row in rows[:16]] == [16] * 16 and "+" in "".join(rows[:16])
        assert "safe (+)" in rows[16]
        assert cv2.imread(str(out)).shape[:2] == (320, 320)
        assert not (tmp_path / "s.sqlite3").exists()


def test_dry_run_on_a_new_game_shows_the_first_click_play_makes(
        xvfb: str, screen: Screen) -> None:
    with launch_game("sgt-mines", xvfb, ["9x9n10"]):
        result = CliRunner().invoke(cli, ["play", "--dry-run", "--mines", "10"])
        game = find_game(screen, screen.search_area(), load_skins("sgt-mines"), mines=10)
        first = game.first_cell
        assert first is not None
        played = play(game, rng=random.Random(0), first_cell=first)
    assert result.exit_code == 0, result.output
    said = (f"a new game: the first click is ({first.row}, {first.col}), where sgt-mines "
            f"promises an opening")
    assert result.stdout.splitlines()[9:] == [said]
    assert played.first_cell == first


def test_the_fail_safe_stops_the_run(xvfb: str, screen: Screen, tmp_path: Path) -> None:
    window, *_ = sgt(xvfb, INTERMEDIATE[1])
    with window:
        area = window.region()
        start = window.grab_still()
        process = run_autoplay("play", "--mines", "40", "--speed", "0.3", "--db",
                               str(tmp_path / "s.sqlite3"), display=xvfb)
        deadline = time.monotonic() + 30
        while np.array_equal(window.grab(), start) and time.monotonic() < deadline:
            time.sleep(0.05)
        xdotool(xvfb, "mousemove", "0", "0")
        try:
            _, err = process.communicate(timeout=30)
        finally:
            xdotool(xvfb, "mousemove", "640", "900")  # out of the corner, for the next tests
        moved_on = window.grab_still()
    assert process.returncode == 1
    found, stopped = err.splitlines(keepends=True)
    assert says_board_found(found, area, 16, 16)
    assert stopped == ("stopped: the mouse is in a screen corner (pyautogui's fail-safe): "
                       "move it away to play\n")
    assert not np.array_equal(moved_on, start)  # it had played, then stopped
    assert not (tmp_path / "s.sqlite3").exists() or not list(
        StatsStore(tmp_path / "s.sqlite3").games())


def says_board_found(line: str, area: Region, cols: int, rows: int) -> bool:
    """Whether ``line`` is what ``play`` says of the sgt-mines board in the window at
    ``area``: its size, and a rectangle on the screen of 20 pixels a cell, within the
    window."""
    found = re.fullmatch(rf"the {cols}x{rows} sgt-mines board at (\d+),(\d+), (\d+)x(\d+) "
                         rf"pixels \(--region looks elsewhere\)\n", line)
    if found is None:
        return False
    x, y, width, height = map(int, found.groups())
    return ((width, height) == (20 * cols, 20 * rows) and area.left <= x
            and x + width <= area.left + area.width and area.top <= y
            and y + height <= area.top + area.height)


def test_ctrl_c_keeps_the_finished_games(xvfb: str, tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with launch_game("sgt-mines", xvfb, ["9x9n10"]) as window:
        area = window.region()
        process = run_autoplay("play", "--games", "20", "--mines", "10", "--db", str(path),
                               display=xvfb)
        assert process.stderr is not None
        lines = []
        while not lines or lines[-1].startswith("the "):  # the board found, then the game
            ready, _, _ = select.select([process.stderr], [], [], 60)
            lines.append(process.stderr.readline() if ready else "")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert says_board_found(lines[0], area, 9, 9)
    assert lines[1].startswith("game 1: won 9x9")
    games = list(StatsStore(path).games())
    assert process.returncode == 130 and err.endswith(
        f"{plural(len(games), 'game')} finished, recorded in {path}\nInterrupted\n"), err
    assert 1 <= len(games) < 20 and all(g.width == 9 and g.mines == 10 for g in games)


def test_a_display_that_ends_mid_run_is_one_error_line(tmp_path: Path) -> None:
    """Its X server gone, mss's next grab finds no reply (mss 10 asserts one came): one
    line, and the games finished before kept."""
    path = tmp_path / "s.sqlite3"
    with VirtualDisplay() as display:
        window = launch_game("sgt-mines", display.name, ["9x9n10"])
        process = run_autoplay("play", "--games", "50", "--mines", "10", "--db", str(path),
                               display=display.name)
        assert process.stderr is not None
        first = ""
        while not first.startswith("game 1: "):
            ready, _, _ = select.select([process.stderr], [], [], 60)
            first = process.stderr.readline() if ready else "game 1: none in 60 s"
        display.close()
    _, err = process.communicate(timeout=60)
    window.close()
    kept = len(list(StatsStore(path).games()))
    assert (process.returncode, err.splitlines()[-2:]) == (1, [
        f"{plural(kept, 'game')} finished, recorded in {path}",
        f"Error: the display {display.name} stopped answering (has its X server ended?)"])
    assert "Traceback" not in err
    assert 1 <= kept < 50


def run_demo(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``autoplay demo`` as a user runs it, with no display of its own to borrow."""
    return subprocess.run([sys.executable, "-m", "autoplay", "demo", *arguments],
                          capture_output=True, text=True, check=False,
                          env={k: v for k, v in os.environ.items() if k != "DISPLAY"})


def test_demo_plays_on_its_own_display_and_records(tmp_path: Path) -> None:
    gif = tmp_path / "demo.gif"
    result = run_demo("--games", "2", "--json", "--db", str(tmp_path / "s.sqlite3"),
                      "--record", str(gif))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    sim = CliRunner().invoke(cli, ["sim", "--preset", "beginner", "--games", "1", "--json",
                                   "--workers", "1", "--db", str(tmp_path / "sim.sqlite3")])
    assert set(json.loads(sim.stdout)) - {"seed", "workers", "played"} <= set(summary)
    assert summary["games"] == 2 and summary["wins"] == 2 and summary["source"] == (
        "desktop/sgt-mines")
    from PIL import Image
    with Image.open(gif) as picture:
        assert picture.n_frames > 4


def test_demo_gives_the_window_the_size_asked(tmp_path: Path) -> None:
    """GNOME Mines draws its tiles to fit its window: at 850x640 a new 8x8 board's tiles
    are 69 px (46 at its first size), and a lattice of half that pitch read its quarter
    tiles as a 16x16 board of covered cells, gone at the first click. Played, the frames
    recorded hold the board at its new size."""
    gif = tmp_path / "demo.gif"
    result = run_demo("--game", "gnome-mines", "--window", "850x640", "--games", "1",
                      "--json", "--db", str(tmp_path / "s.sqlite3"), "--record", str(gif))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["games"], summary["width"], summary["height"]) == (1, 8, 8)
    from PIL import Image
    with Image.open(gif) as picture:
        assert min(picture.size) >= 8 * 65, picture.size


def test_a_stopped_demo_keeps_its_recording(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    gif = tmp_path / "demo.gif"
    monkeypatch.delenv("DISPLAY", raising=False)  # as run_demo: a display of its own
    with run_autoplay("demo", "--games", "50", "--db", str(tmp_path / "s.sqlite3"),
                      "--record", str(gif)) as process:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 120)  # the first game's line
        first = process.stderr.readline() if ready else ""
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert first.startswith("game 1: "), first
    assert process.returncode == 130
    kept = len(list(StatsStore(tmp_path / "s.sqlite3").games()))
    assert err.endswith(f"{plural(kept, 'game')} finished, recorded in {tmp_path / 's.sqlite3'}"
                        f"\nthe moves played are saved to {gif}\nInterrupted\n"), err
    from PIL import Image
    with Image.open(gif) as picture:
        assert picture.n_frames > 4
    assert 1 <= kept < 50


def test_a_demo_killed_outright_leaves_no_server_or_game_behind(
        xvfb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kill -9`` runs no clean-up: Linux stops the server, and the game loses its display.
    The game's private home is left, and deleted when the next game is launched."""
    monkeypatch.delenv("DISPLAY", raising=False)  # as run_demo: a display of its own
    with run_autoplay("demo", "--games", "50", "--db", str(tmp_path / "s.sqlite3")) as process:
        assert process.stderr is not None
        try:
            ready, _, _ = select.select([process.stderr], [], [], 120)
            assert ready and process.stderr.readline().startswith("game 1: ")
            children = [int(pid) for pid in subprocess.run(
                ["pgrep", "-P", str(process.pid)], capture_output=True, text=True,
                check=False).stdout.split()]
            names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in children}
        finally:
            process.kill()
    assert names == {"Xvfb", "sgt-mines"}, names
    deadline = time.monotonic() + 10
    while any(map(is_running, children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in children if is_running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left
    homes = list(Path(tempfile.gettempdir()).glob(f"autoplay-sgt-mines-{process.pid}-*"))
    assert len(homes) == 1
    with launch_game("sgt-mines", xvfb, ["9x9n10"]):
        assert not homes[0].exists()


def test_gnome_mines_games_end_at_its_dialog(tmp_path: Path) -> None:
    # A won GNOME Mines game is told by its Congratulations window, which covers the board
    # at once: the game is judged won from it, and the window closed for the next game.
    result = run_demo("--game", "gnome-mines", "--games", "3", "--json", "--db",
                      str(tmp_path / "s.sqlite3"))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 3 and summary["source"] == "desktop/gnome-mines"
    games = list(StatsStore(tmp_path / "s.sqlite3").games())
    assert [(g.width, g.height, g.mines) for g in games] == [(8, 8, 10)] * 3


def test_demo_chooses_a_level_by_key_in_a_game_without_options(tmp_path: Path) -> None:
    # Ace of Penguins takes no options and starts on its 32x32 level: '1' picks 8x8/6.
    result = run_demo("--game", "ace-minesweeper", "--games", "2", "--json", "--db",
                      str(tmp_path / "s.sqlite3"))
    assert result.returncode == 0, result.stderr
    games = list(StatsStore(tmp_path / "s.sqlite3").games())
    assert [(g.width, g.height, g.mines, g.first_click) for g in games] == [(8, 8, 6, "none")] * 2


def test_demo_makes_the_window_the_size_a_level_needs(tmp_path: Path) -> None:
    # GNOME Mines' 30x16 opens in a window that shows 20 of its 30 columns; at 1000x460
    # its tiles are the 23 px of its 16x16.
    result = run_demo("--game", "gnome-mines", "--preset", "expert", "--games", "1",
                      "--json", "--db", str(tmp_path / "s.sqlite3"))
    assert result.returncode == 0, result.stderr
    games = list(StatsStore(tmp_path / "s.sqlite3").games())
    assert [(g.width, g.height, g.mines) for g in games] == [(30, 16, 99)]


def test_a_game_of_fixed_levels_knows_its_mine_count_from_the_boards_size(
        xvfb: str, screen: Screen) -> None:
    # xbomb has three levels and no others: its 8x8 board holds 10 mines.
    with launch_game("xbomb", xvfb, ["-square", "-1"]):
        game = find_game(screen, screen.search_area(), load_skins("xbomb"), timeout=5)
        assert game.mines == 10 and game.observe().mines == 10
    with launch_game("xbomb", xvfb, ["-square", "-1"]):
        # Any other count is wrong: too high, a board that only looks won would be a win.
        with pytest.raises(DesktopError, match="^the 8x8 xbomb board is its level of 10 "
                                               "mines, not 11: is the mine count right"):
            find_game(screen, screen.search_area(), load_skins("xbomb"), mines=11, timeout=5)
        game = find_game(screen, screen.search_area(), load_skins("xbomb"), mines=10, timeout=5)
        assert game.mines == 10 and game.clicks == []
