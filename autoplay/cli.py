"""The ``autoplay`` command: the only module that prints, exits or knows about click and rich.

Each command parses its options, makes one library call and renders the result. Library
errors (:class:`~autoplay.errors.AutoplayError`) become one ``Error: ...`` line and exit 1;
Ctrl-C exits 130 with ``Interrupted``, SIGTERM 143 with ``Terminated``.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import math
import os
import random
import re
import shutil
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from functools import partial
from itertools import groupby, islice
from operator import itemgetter
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from autoplay import bench as benchmarks
from autoplay import learn, locate, vision
from autoplay.annotate import draw_deduction
from autoplay.board import FLAG, MINE, UNKNOWN, Board, Cell, state_char
from autoplay.deduction import Deduction, deduce, find_layout, wrong_flags
from autoplay.desktop import LEVELS, Region, VirtualDisplay, launch_game
from autoplay.errors import (
    STOPS,
    AutoplayError,
    FailSafeStop,
    ImpossibleCount,
    InconsistentBoard,
    OutOfTime,
    SkinError,
    UnfittableClues,
    UnknownCells,
    plural,
)
from autoplay.lookahead import choose_guess
from autoplay.nonogram import Clues, Grid, solutions
from autoplay.odds import (
    ASSUMED_DENSITY,
    CLASSIC_MINES,
    Guess,
    Odds,
    assume_mines,
    count_layouts,
    mine_probabilities,
)
from autoplay.pb import ctrl_c_cancels_checks, stop_signal, stops_held, z3_version
from autoplay.player import STRATEGIES, FirstClick, GameResult, Rules, Strategy, play
from autoplay.recording import Recording
from autoplay.report import (
    Comparison,
    Configuration,
    Estimate,
    Summary,
    compare,
    first_plays,
    summarize,
)
from autoplay.report import plot as draw
from autoplay.screen import Screen, ScreenGame, find_game, playbook_of
from autoplay.screen import play_games as play_screen_games
from autoplay.sim import PRESETS, SimConfig, check_fits, game_seed, parse_board, play_games
from autoplay.stats import GameRecord, StatsStore, default_path


class _Seconds(click.FloatRange):
    """Seconds, up to a day; unlike a plain range, refuses nan, which passes every bound.
    A limit (``limit``) is more than 0: none would ever be met, and some tools read 0 as
    no limit, which here is the option left out."""

    def __init__(self, limit: bool = False) -> None:
        super().__init__(min=0, max=86_400, min_open=limit)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        seconds: float = click.FLOAT.convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail("nan is not a number of seconds", param, ctx)
        if self.min_open and seconds == 0:
            self.fail("0 s leaves no time; for no limit, leave the option out", param, ctx)
        return super().convert(seconds, param, ctx)


_SECONDS = _Seconds()
_TIME_LIMIT = _Seconds(limit=True)
_MINE_COUNT = click.IntRange(min=0, max=10**18 - 1)
"""A mine count of at most 18 digits, as a board's 'mines:' line takes."""


def _file_path(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    """A file option's path, refusing the empty name (which a Path takes for '.')."""
    if value is None:
        return None
    if not value:
        raise click.BadParameter("the file name is empty")
    return Path(value)


def _output(*suffixes: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """An option callback that checks an output file before the work that fills it: that
    its name ends in one of ``suffixes`` and its folder exists."""
    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
        path = _file_path(ctx, param, value)
        if path is None:
            return None
        if path.suffix.lower() not in suffixes:
            raise click.BadParameter(f"{value!r} must end in {', '.join(suffixes)}")
        if not path.parent.is_dir():
            raise click.BadParameter(f"there is no folder {str(path.parent)!r} to write in")
        return path
    return check


_db_option = click.option(
    "--db", type=click.Path(dir_okay=False), callback=_file_path,
    help="The statistics file (default: in the user's data directory).")


_IMAGE_OUTPUT = _output(".png", ".jpg", ".jpeg", ".bmp", ".webp")
"""The check of an option that writes a picture of the board."""


def _installed_skin(ctx: click.Context, param: click.Parameter, name: str | None
                    ) -> str | None:
    """Check a --skin option up front, even where the input turns out to need none."""
    if name is not None:
        try:
            vision.skin_folder(name)
        except SkinError as error:
            raise click.BadParameter(str(error)) from None
    return name


_COUNT_STYLES = ["dim", "blue", "green", "red", "navy_blue", "dark_red", "cyan", "white", "grey50"]


class _UsageError(click.ClickException):
    """A usage error told in one line, the help it points to included; exit code 2."""

    exit_code = 2


@contextlib.contextmanager
def _usage_in_one_line() -> Iterator[None]:
    """Tell a usage error in one line (the help Click shows for no arguments stays)."""
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise
    except click.UsageError as error:
        message = error.format_message()
        if (isinstance(error, click.NoSuchOption) and error.ctx is not None
                and error.ctx.command.name == "solve"
                and re.fullmatch(r"-[0-9]+", error.option_name)):
            # --count, whose value is optional, leaves a negative one to be read as an option
            message = f"{message.rstrip('.')}: --count's limit, when given, is at least 1"
        path = _command_path(error.ctx)
        where = f" (see '{path} --help')" if path is not None else ""
        raise _UsageError(message + where) from None


def _command_path(ctx: click.Context | None) -> str | None:
    """The command a usage error is in: its own context's, or, for an option's missing
    value (which Click's parser tells with no context), the subcommand being started."""
    if ctx is not None:
        return ctx.command_path
    current = click.get_current_context(silent=True)
    if current is None:
        return None
    sub = current.invoked_subcommand
    return current.command_path + ("" if sub is None else f" {sub}")


_VERBOSE = "More logging when playing: -v a line per game, -vv per move."
_PLAYING = ("play", "demo", "sim")
"""The commands whose help shows ``-v``: the others take it, and have nothing to log."""


class _Group(click.Group):
    """A click group that turns library and usage errors into one line, and Ctrl-C, SIGTERM
    and SIGHUP into exit codes 130, 143 and 129; its commands take ``-v`` after their name
    too, as users write it."""

    group_class = type  # its subgroups (``skin``) are such groups too

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        cmd.params.append(click.Option(["-v", "--verbose"], count=True, expose_value=False,
                                       callback=_more_logging, help=_VERBOSE,
                                       hidden=(name or cmd.name) not in _PLAYING))
        super().add_command(cmd, name)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        with _usage_in_one_line():  # the group's own options
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with _usage_in_one_line(), ctrl_c_cancels_checks():  # the command's name, options
                return super().invoke(ctx)
        except FailSafeStop as error:
            click.echo(str(error), err=True)
            ctx.exit(1)
        except AutoplayError as error:
            if ctx.meta.get("autoplay.debug"):
                raise
            raise click.ClickException(str(error)) from None
        except MemoryError:  # Python's own; Z3's is a SolverGaveUp
            raise click.ClickException("out of memory") from None
        except KeyboardInterrupt:
            signum = stop_signal() or signal.SIGINT  # none: Ctrl-C before the handler
            click.echo(STOPS[signum], err=True)
            ctx.exit(128 + signum)  # as a shell reports a process the signal killed


@click.group(cls=_Group)
@click.option("-v", "--verbose", count=True, help=_VERBOSE)
@click.option("--debug", is_flag=True, help="Show tracebacks for input errors too.")
@click.version_option(package_name="autoplay")
@click.pass_context
def cli(ctx: click.Context, verbose: int, debug: bool) -> None:
    """A Minesweeper bot that proves which cells are safe with the Z3 solver."""
    ctx.meta["autoplay.debug"] = debug
    _start_logging(_log_level(verbose))


def _start_logging(level: int) -> None:
    """Log at ``level`` to standard error: here, and in each process ``sim`` starts."""
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def _log_level(verbose: int) -> int:
    return {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)


def _more_logging(ctx: click.Context, param: click.Parameter, verbose: int) -> None:
    """``-v`` given after a command's name: as much logging as before it, or more."""
    if verbose:
        root = logging.getLogger()
        root.setLevel(min(root.level, _log_level(verbose)))


def _buffer_stdout() -> None:
    """Put standard output through a buffer when ``python -u`` or ``PYTHONUNBUFFERED`` left it
    without one, keeping it line-buffered. Unbuffered, its text layer hands each write to
    the file at once and drops whatever a partial write leaves, with no error: a reader gone
    mid-write (``| head``) then ended the run with exit code 0, its output cut short."""
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and isinstance(stream.buffer, io.FileIO):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(stream.buffer), stream.encoding,
                                      stream.errors, line_buffering=True)


def main() -> None:
    """The console entry point.

    Standard output is flushed here, before Python's exit would: a full disk is then told
    in one line, not by a traceback. Output that cannot be written ends the run with exit
    code 1, quietly for a closed pipe (``| head``), as Click does.
    """
    if sys.stdout is None:  # started with its output closed: nothing could be told
        sys.exit("Error: standard output is closed")
    _buffer_stdout()
    status: str | int | None
    try:
        cli(prog_name="autoplay")
    except SystemExit as done:
        status = done.code
    except OSError as error:  # no command catches it: a write to a full disk, say (Click
        # itself ends a closed pipe)
        status = f"Error: {error.strerror or error}" + (
            f": {error.filename}" if error.filename is not None else "")
    try:
        sys.stdout.flush()
    except OSError as error:
        status = 1 if error.errno == errno.EPIPE else (
            f"Error: cannot write to standard output: {error.strerror}")
        with contextlib.suppress(OSError, ValueError), open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), sys.stdout.fileno())  # so the flush at exit succeeds
    sys.exit(status)


_DEFAULT_COUNT_LIMIT = 10_000


@cli.command()
@click.argument("source", required=False, type=click.Path(allow_dash=True))
@click.option("--mines", type=_MINE_COUNT, help="Total mine count (overrides the file).")
@click.option("--json", "as_json", is_flag=True, help="Print the proven cells as JSON.")
@click.option("--layout", is_flag=True, help="Print one mine layout that fits the board.")
@click.option("--count", "count", is_flag=False, flag_value=str(_DEFAULT_COUNT_LIMIT),
              default=None, metavar="[LIMIT]",
              help=f"Count the layouts that fit, up to LIMIT (default {_DEFAULT_COUNT_LIMIT}).")
@click.option("--timeout", type=_TIME_LIMIT, default=None,
              help="Seconds to spend; cells not settled by then are reported undecided.")
@click.option("--skin", "skin_name", metavar="NAME", callback=_installed_skin,
              help="Read a screenshot with this skin (default: the one that fits best).")
@click.option("--allow-unknown", is_flag=True,
              help="Deduce a screenshot even with unrecognised cells (taken as unopened).")
@click.option("--odds", is_flag=True,
              help="Also print every unopened cell's mine probability (exact, or estimated "
                   "on boards too large to count).")
@click.option("--ignore-flags", is_flag=True,
              help="Read flags as unopened cells, for a board whose flags may be wrong.")
@click.option("--annotate", type=click.Path(dir_okay=False, writable=True), metavar="OUT.png",
              callback=_IMAGE_OUTPUT,
              help="Write the screenshot with proven-safe cells and mines drawn on it.")
def solve(source: str | None, mines: int | None, as_json: bool, layout: bool,
          count: str | None, timeout: float | None, skin_name: str | None,
          allow_unknown: bool, odds: bool, ignore_flags: bool, annotate: Path | None) -> None:
    """Prove which cells of a board are safe and which are mines.

    SOURCE is a screenshot (PNG, JPEG...) or a text board ('-' for standard input): one row
    per line, 0-8 opened cells, '.', '_' or '?' unopened, 'F' flags, '*' known mines, and
    an optional first line 'mines: N'. Exits 1 when no mine layout fits the board.
    """
    source, count_limit = _split_count(source, count)
    given = [name for name, asked in (("--count", count_limit is not None), ("--layout", layout),
                                      ("--odds", odds), ("--annotate", annotate),
                                      ("--timeout", timeout is not None)) if asked]
    if given[:1] in (["--count"], ["--layout"]) and len(given) > 1:
        raise click.UsageError(f"{given[1]} does not go with {given[0]}: they ask different "
                               f"questions")
    if annotate and source not in (None, "-") and _same_file(annotate, source):
        raise click.UsageError(f"--annotate {annotate} would write over the screenshot read")
    data = _read_bytes(source)
    screenshot = _read_screenshot(data, source, skin_name, allow_unknown)
    if screenshot is None:
        for option, value in (("--annotate", annotate), ("--skin", skin_name),
                              ("--allow-unknown", allow_unknown)):
            if value:
                raise click.UsageError(f"{option} needs a screenshot, not a text board")
    about: dict[str, Any] = {}
    try:
        if screenshot:
            board = screenshot[1].board.with_mines(_screenshot_mines(screenshot[1], mines,
                                                                     as_json))
            about = _about_screenshot(screenshot[1], mines, board)
        else:
            board = Board.parse(_decode_text(data, source), mines=mines)
        if ignore_flags:
            board = board.without_flags()
    except ImpossibleCount as error:  # no layout fits: the answer of --count and --layout
        if count_limit is not None:
            _print_count(0, count_limit, as_json, about)
        if layout:
            _print_layout(error.board, as_json, None, about)
        _fail_inconsistent(error.board, str(error), as_json, about)
    if count_limit is not None:
        _print_count(count_layouts(board, count_limit), count_limit, as_json, about)
    elif layout:
        _print_layout(board, as_json, find_layout(board), about)
    else:
        def annotation(deduction: Deduction, guess: Guess | None) -> None:
            if annotate and screenshot:
                _write_image(annotate, draw_deduction(screenshot[0], screenshot[1].geometry,
                                                      deduction, _move_of(guess)))

        _print_deduction(board, timeout, as_json, odds,
                         " (--ignore-flags reads every flag as unopened)", about,
                         before=annotation)


def _same_file(path: Path, other: str) -> bool:
    """Whether ``path`` and ``other`` name one existing file (through links too)."""
    try:
        return os.path.samefile(path, other)
    except OSError:  # either one missing: not the same
        return False


def _about_screenshot(reading: vision.Reading, mines: int | None, board: Board
                      ) -> dict[str, Any]:
    """What the JSON reports of ``solve`` add for a screenshot: its skin, the image's edges
    the board reaches (see :func:`_warn_about`), and where its mine count came from
    (``--mines``, the game's level of the board's size, or nowhere)."""
    source = ("option" if mines is not None else "level" if board.mines is not None
              else None)
    return {"screenshot": {"skin": reading.skin, "edges": list(reading.edges),
                           "others": _others_json(reading), "mines_from": source}}


def _screenshot_mines(reading: vision.Reading, mines: int | None, quiet: bool) -> int | None:
    """The mine count of a screenshot's board: the one given, else the count of its game's
    level of that size for a game of fixed levels (xbomb, ace-minesweeper), said on
    standard error unless ``quiet`` (so that ``--layout`` prints a board alone)."""
    if mines is not None:
        return mines
    level = playbook_of(reading.skin).mines_of(reading.board.width, reading.board.height)
    if level is not None and not quiet:
        click.echo(f"{level} mines: the {reading.skin} board's size is one of its levels",
                   err=True)
    return level


def _split_count(source: str | None, count: str | None) -> tuple[str, int | None]:
    """Read ``--count FILE`` as a count with the default limit, not as a limit named FILE."""
    if count is not None and not re.fullmatch(r"[0-9]+", count):
        if source is not None:
            raise click.BadParameter(f"{count!r} is not a whole number", param_hint="'--count'")
        source, count = count, str(_DEFAULT_COUNT_LIMIT)
    if source is None:
        raise click.UsageError("Missing argument 'SOURCE'.")
    if count is not None and (len(count) > 18 or int(count) < 1):
        raise click.BadParameter("the limit must be at least 1, with at most 18 digits",
                                 param_hint="'--count'")
    return source, None if count is None else int(count)


MAX_INPUT = 256 << 20
"""The most bytes read from an input file: more than any screenshot of 40 megapixels
(:data:`autoplay.locate.MAX_PIXELS`) takes, and a bound on ``/dev/zero`` and the like."""
MAX_TEXT = 2 << 20
"""The most bytes of a text input: room for a board of 1000 x 1000 cells (the simulator's
largest), which already takes seconds and a gigabyte or more."""


def _read_bytes(source: str) -> bytes:
    try:
        if source == "-":
            if sys.stdin is None:
                raise click.ClickException("standard input is closed")
            data = sys.stdin.buffer.read(MAX_INPUT + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_INPUT + 1)
    except OSError as error:
        raise click.ClickException(f"cannot read {source}: {error.strerror}") from None
    if len(data) > MAX_INPUT:
        raise click.ClickException(f"{_input_name(source)} is larger than "
                                   f"{MAX_INPUT >> 20} MiB")
    return data


def _input_name(source: str) -> str:
    return "standard input" if source == "-" else source


def _decode_text(data: bytes, source: str) -> str:
    if len(data) > MAX_TEXT:
        raise click.ClickException(f"{_input_name(source)} is larger than {MAX_TEXT >> 20} MiB, "
                                   f"too large for a board or clues")
    try:
        return data.decode("utf-8-sig")  # the byte order mark some editors write is no cell
    except UnicodeDecodeError:
        what = "standard input is not text" if source == "-" else f"{source} is not a text file"
        raise click.ClickException(f"{what} (not UTF-8)") from None


def _read_text(source: str) -> str:
    return _decode_text(_read_bytes(source), source)


def _read_screenshot(data: bytes, source: str, skin_name: str | None, allow_unknown: bool
                     ) -> tuple[vision.Image, vision.Reading] | None:
    """The image and what it reads as, when ``data`` is an image file (by its first bytes,
    or its name: a file named as an image that holds none is told so, not read as a text
    board whose first character is no cell).

    :raises UnknownCells: when cells are not recognised and ``allow_unknown`` is not set.
    """
    if not vision.is_image(data) and not source.lower().endswith(vision.IMAGE_SUFFIXES):
        return None
    image = _decode_image(data, source)
    reading = locate.read_screenshot(image, vision.load_skins(skin_name))
    if reading.unrecognized and not allow_unknown:
        raise UnknownCells(f"{plural(len(reading.unrecognized), 'cell')} of "
                           f"{_input_name(source)} not recognised (--allow-unknown takes them "
                           f"as unopened): "
                           f"{vision.describe(reading)}", reading)
    _warn_about(reading)
    return image, reading


def _warn_about(reading: vision.Reading) -> None:
    """Say which edges of the image the board reaches (see :attr:`vision.Reading.edges`),
    and which other boards the image shows (:attr:`vision.Reading.others`)."""
    if reading.edges:
        click.echo(f"warning: the board reaches the image's "
                   f"{locate.edges_in_words(reading.edges)}: if the image cuts it there, "
                   f"cells beyond are not shown, and what is proven next to the cut may be "
                   f"false", err=True)
    if reading.others:
        click.echo(f"warning: the image shows {locate.others_in_words(reading)}: crop the "
                   f"image to the board to read", err=True)


def _decode_image(data: bytes, source: str) -> vision.Image:
    """Decode an image file unless its header declares too many pixels, with the C
    libraries' own error output silenced: libpng prints a line of its own for a damaged
    PNG, and the error raised already says so."""
    locate.check_declared_size(data)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        return vision.decode_image(data, _input_name(source))
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _write_image(path: Path, image: vision.Image) -> None:
    data = vision.encode_image(image, str(path))
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise click.ClickException(f"cannot write {path}: {error.strerror}") from None


def _print_deduction(board: Board, timeout: float | None, as_json: bool, show_odds: bool,
                     flags_remedy: str = "", about: Mapping[str, Any] | None = None, *,
                     before: Callable[[Deduction, Guess | None], None] | None = None) -> None:
    """Print what is proven and, when nothing is safe, the best guess and its odds;
    ``flags_remedy`` follows the names of wrong flags, and ``about`` adds to a JSON report
    (see :func:`_about_screenshot`). ``before`` takes the answer before a word is printed:
    the --annotate image is then written even when the reader goes (``| head``)."""
    try:
        deduction = deduce(board, timeout=timeout)
        guessing = _needs_guess(board, deduction)
        # Guesses and odds need a count; proofs do not (see assume_mines).
        guessed = assume_mines(board) if guessing or show_odds else board
        guess = choose_guess(guessed, random.Random(0), proven=deduction) if guessing else None
        odds = mine_probabilities(guessed, proven=deduction) if show_odds else None
    except InconsistentBoard as error:
        _fail_inconsistent(board, _inconsistency(board, error, flags_remedy), as_json, about)
    assumed = None if guessed is board else guessed.mines
    if before is not None:
        before(deduction, guess)
    if as_json:
        report = _json_report(board, deduction)
        if assumed is not None:
            report["assumed_mines"] = assumed
        if guess is not None:
            report["guess"] = {"cell": list(guess.cell), "probability": float(guess.probability),
                               "exact": guess.exact, "reason": guess.reason}
        if odds is not None:
            report["odds"] = [[*cell, float(p)] for cell, p in odds.probabilities.items()]
            report["odds_exact"] = odds.exact
        _echo_report(report, about)
        return
    # soft_wrap: a row wider than the terminal, or than 80 columns in a pipe, stays one line;
    # in a terminal the sentences wrap between words, not wherever the terminal cuts them
    console = Console(highlight=False, soft_wrap=True)
    piped = not console.is_terminal
    console.print(_render(board, deduction))
    console.print(_summary(board, deduction), soft_wrap=piped)
    if guess is not None:
        given = "" if assumed is None else f" if the board holds {plural(assumed, 'mine')}"
        console.print(f"nothing is proven safe: the best guess is {_cell_list({guess.cell})}, "
                      f"a mine with probability {_percent(guess.probability)}{given} "
                      f"({_WHY.get(guess.reason, guess.reason)}"
                      f"{'' if guess.exact else ', estimated'})", soft_wrap=piped)
    if odds is not None:
        console.print("mine probability of each unopened cell, in percent"
                      + ("" if odds.exact else " (estimated: the exact count was too long)"),
                      soft_wrap=piped)
        click.echo(_render_odds(board, odds, None if piped else console.width))
    if assumed is not None:
        console.print(f"the mine count is not known, so the guess and odds take it as "
                      f"{assumed} ({_assumption(board, assumed)}): give the game's own count "
                      f"with --mines N, or a first line 'mines: N'", soft_wrap=piped)


def _move_of(guess: Guess | None) -> tuple[Cell, float] | None:
    """A guess as :func:`~autoplay.annotate.draw_deduction` marks it: its cell and odds."""
    return None if guess is None else (guess.cell, float(guess.probability))


def _assumption(board: Board, assumed: int) -> str:
    """Where an assumed mine count comes from (see :func:`~autoplay.odds.assume_mines`)."""
    usual = CLASSIC_MINES.get((board.width, board.height))
    if usual is None:
        return f"as near {ASSUMED_DENSITY} of the cells as the board allows"
    if usual == assumed:
        return f"the usual count of a {board.width}x{board.height} board"
    return f"as near the usual {usual} as the board allows"


def _needs_guess(board: Board, deduction: Deduction) -> bool:
    """Whether the position needs a guess: nothing proven safe, the proof complete, and
    some unknown cell not a proven mine."""
    return not deduction.safe and deduction.is_complete() and any(
        cell not in deduction.mines for cell in board.unknown_cells())


_WHY = {"forced guess": "forced guess: no click elsewhere can ever tell it from its twin, "
                        "so its risk must be taken anyway, and now costs nothing"}
"""What a guess's reason means, where its name alone would puzzle: a forced guess may be
riskier than another cell."""


def _percent(probability: Fraction) -> str:
    """To a tenth of a percent; 0% and 100% mean exactly that (an odd that only rounds to
    them shows as ``<0.1%`` or ``>99.9%``)."""
    text = f"{float(probability) * 100:.1f}"
    if text == "0.0" and probability > 0:
        return "<0.1%"
    return ">99.9%" if text == "100.0" and probability < 1 else f"{text}%"


def _render_odds(board: Board, odds: Odds, width: int | None = None) -> str:
    """Each unknown cell's mine probability, in percent, laid out as the board: plain text,
    so that a pipe gets every row whole. In a terminal too narrow for a row (``width``
    columns), the grid comes in bands of columns, each headed by the columns it holds, instead
    of rows the terminal would wrap. An opened cell shows as ``-``, since its count would read
    as a probability; 0 and 100 mean proven, so an odd that only rounds to them shows as
    ``<1`` or ``>99``."""
    def text(cell: Cell) -> str:
        p = odds.probabilities.get(cell)
        if p is not None:
            percent = round(float(p) * 100)
            return ("<1" if percent == 0 < p else ">99" if percent == 100 and p < 1
                    else str(percent))
        return "-" if board[cell] >= 0 else state_char(board[cell])

    def grid(first: int, stop: int) -> str:
        return "\n".join(" ".join(f"{text(Cell(r, c)):>3}" for c in range(first, stop))
                         for r in range(board.height))

    per_band = board.width if width is None else max(1, (width + 1) // 4)  # 3 wide, 1 apart
    if per_band >= board.width:
        return grid(0, board.width)
    return "\n".join(f"columns {first}-{min(first + per_band, board.width) - 1}:\n"
                     + grid(first, min(first + per_band, board.width))
                     for first in range(0, board.width, per_band))


def _fail_inconsistent(board: Board, message: str, as_json: bool,
                       about: Mapping[str, Any] | None = None) -> NoReturn:
    """Report a board no layout fits: as JSON with ``"consistent": false`` (and ``about``),
    or one line."""
    if as_json:
        _echo_report(_json_report(board, None) | {"error": message}, about)
        sys.exit(1)
    raise click.ClickException(message)


def _inconsistency(board: Board, error: InconsistentBoard, remedy: str) -> str:
    """The error's message, naming the wrong flags when the flags are what is wrong, and then
    ``remedy`` (how to leave them out, where there is a way)."""
    if not board.flags():
        return str(error)
    try:
        wrong = wrong_flags(board)
    except InconsistentBoard:
        return str(error)
    if wrong:
        return (f"{error}; without the flags it fits, and these flags cannot be mines: "
                f"{_cell_list(wrong)}{remedy}")
    return f"{error}; without the flags it fits: the flags cannot all be mines at once{remedy}"


def _cell_list(cells: Iterable[Cell]) -> str:
    return ", ".join(f"({r}, {c})" for r, c in sorted(cells))


def _echo_report(report: dict[str, Any], about: Mapping[str, Any] | None) -> None:
    """Print one of ``solve``'s JSON reports, with what ``about`` adds to every one (see
    :func:`_about_screenshot`)."""
    click.echo(json.dumps(report | dict(about or {})))


def _json_report(board: Board, deduction: Deduction | None) -> dict[str, Any]:
    def pairs(cells: frozenset[Cell]) -> list[list[int]]:
        return [[r, c] for r, c in sorted(cells)]

    empty: frozenset[Cell] = frozenset()
    return {
        "rows": board.height,
        "cols": board.width,
        "mines": board.mines,
        "consistent": False if deduction is None else deduction.consistent,
        "safe": pairs(deduction.safe if deduction else empty),
        "mine": pairs(deduction.mines if deduction else empty),
        "not_determined": pairs(_not_determined(board, deduction) if deduction else empty),
        "undecided": pairs(deduction.undecided if deduction else empty),
    }


def _not_determined(board: Board, deduction: Deduction) -> frozenset[Cell]:
    """The unopened cells proven to hold a mine in some layouts and not in others."""
    return (frozenset(board.unknown_cells()) - deduction.safe - deduction.mines
            - deduction.undecided)


def _render(board: Board, deduction: Deduction) -> Text:
    """The board with proven-safe cells as '+' and proven mines as '!', each run of equally
    styled cells one span: a board of a million cells renders in a second, not in twenty."""
    def mark(cell: Cell) -> tuple[str, str]:
        state = board[cell]
        if cell in deduction.safe:
            return "+", "bold green"
        if cell in deduction.mines:
            return "!", "bold red"
        if state >= 0:
            return str(state), _COUNT_STYLES[state]
        if state == UNKNOWN:
            return ".", "dim"
        return state_char(state), "yellow" if state == FLAG else "magenta"

    text = Text()
    for r in range(board.height):
        marks = [mark(Cell(r, c)) for c in range(board.width)]
        for style, run in groupby(marks, key=itemgetter(1)):
            text.append("".join(char for char, _ in run), style=style)
        text.append("\n")
    text.rstrip()
    return text


def _summary(board: Board, deduction: Deduction) -> str:
    unknown = len(board.unknown_cells())
    summary = (f"{len(deduction.safe)} safe (+), {plural(len(deduction.mines), 'mine')} (!), "
               f"{len(_not_determined(board, deduction))} not determined, of "
               f"{plural(unknown, 'unopened cell')}")
    if deduction.undecided:
        summary += f"; {len(deduction.undecided)} undecided when the time ran out"
    if deduction.consistent is None:
        summary += (", before a layout that fits was found: the board may have none, and "
                    "then nothing here holds")
    return summary


def _print_layout(board: Board, as_json: bool, mines: frozenset[Cell] | None,
                  about: Mapping[str, Any] | None = None) -> None:
    """The layout ``mines`` found to fit the board, or 'no layout fits' (as ``--count`` says)
    and exit 1 for None; ``about`` adds to the JSON."""
    if as_json:
        _echo_report({"rows": board.height, "cols": board.width, "mines": board.mines,
                      "layout": None if mines is None else [[r, c] for r, c in sorted(mines)]},
                     about)
    elif mines is not None:
        click.echo(str(board.with_mines(None).with_states({cell: MINE for cell in mines})))
    else:
        click.echo("no layout fits")
    if mines is None:
        sys.exit(1)


def _print_count(count: int, limit: int, as_json: bool,
                 about: Mapping[str, Any] | None = None) -> None:
    """How many layouts fit, ``count`` (counted up to ``limit``); exit 1 when none does;
    ``about`` adds to the JSON."""
    if as_json:
        _echo_report({"layouts": min(count, limit), "more": count > limit, "limit": limit},
                     about)
    elif count > limit:
        click.echo(f"more than {plural(limit, 'layout')} fit{'' if limit > 1 else 's'}")
    elif count == 0:
        click.echo("no layout fits")
    else:
        click.echo("exactly one layout fits" if count == 1 else f"{count} layouts fit")
    if count == 0:
        sys.exit(1)


@cli.command("bench")
@click.option("--suite", "suites", multiple=True, type=click.Choice(list(benchmarks.SUITES)),
              help="Run only this suite (repeatable); all by default.")
@click.option("--repeat", type=click.IntRange(min=1), default=25, show_default=True,
              help="Timed runs per item; the median is kept.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def bench_command(suites: tuple[str, ...], repeat: int, as_json: bool) -> None:
    """Time the deducer (and other parts) against reference methods, in one run.

    Speeds are medians, each compared with a reference timed on the same items in the same
    run where there is one, so the ratio holds on a busy machine where absolute times do
    not; a row without one (a screen at 150%, which only autoplay reads) gives its time.
    """
    results = benchmarks.run(tuple(dict.fromkeys(suites)) or tuple(benchmarks.SUITES),
                             repeat=repeat)  # each suite once, however often it is named
    if as_json:
        click.echo(json.dumps({"z3": z3_version(), "repeat": repeat, "results": [
            {"suite": m.suite, "name": m.name, "count": m.count, "median_ms": m.median_ms,
             "reference_ms": m.reference_ms, "ratio": m.ratio, "detail": m.detail}
            for m in results]}, indent=2))
        return
    table = Table(title=f"autoplay bench (medians, {plural(repeat, 'run')} per item, "
                        f"Z3 {z3_version()})")
    for column in ("suite", "what", "items", "ours (ms)", "reference (ms)", "ratio", "found"):
        table.add_column(column, justify="right" if "ms" in column or column in
                         ("items", "ratio") else "left")
    for m in results:
        table.add_row(m.suite, m.name, str(m.count), f"{m.median_ms:.2f}",
                      "" if m.reference_ms is None else f"{m.reference_ms:.1f}",
                      "" if m.ratio is None else f"{m.ratio:.0f}x", m.detail)
    _print_table(_table_console(), table, map(_measurement_in_words, results))


def _measurement_in_words(m: benchmarks.Measurement) -> str:
    """A row of the benchmark table as a paragraph."""
    reference = "" if m.reference_ms is None else (
        f", the reference {m.reference_ms:.1f} ms ({m.ratio:.0f}x)")
    return (f"{m.suite}: {m.name}, {plural(m.count, 'item')}: {m.median_ms:.2f} ms"
            f"{reference}{'; ' if m.detail else ''}{m.detail}")


def _table_console() -> Console:
    """A terminal's console, or for a file or a pager one at least 180 columns wide, so that
    a table piped there is not cut to the 80 columns rich takes for anything but a
    terminal."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(
        highlight=False, width=max(180, shutil.get_terminal_size().columns))


def _print_table(console: Console, table: Table, rows_in_words: Iterable[str]) -> None:
    """The table, or in a terminal too narrow for it its title and rows in words, a
    paragraph each: rich would squeeze the columns that may not wrap to nothing."""
    if console.measure(table, options=console.options.update_width(10_000)).maximum <= (
            console.width):
        console.print(table)
        return
    console.print(table.title)
    for paragraph in rows_in_words:
        console.print(f"\n{paragraph}")
    console.print()


_SOLUTION_COUNTS = {"none": "no solution", "one": "one solution: it is unique",
                    "several": "several solutions: it is not unique"}


@cli.command("nonogram")
@click.argument("source", type=click.Path(allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the grid as JSON rows of 0/1.")
@click.option("--count", is_flag=True, help="Say whether the solution is unique.")
@click.option("--timeout", type=_TIME_LIMIT, default=None,
              help="Seconds to spend; a puzzle not settled by then is an error.")
def nonogram_command(source: str, as_json: bool, count: bool, timeout: float | None) -> None:
    """Solve a nonogram: fill the grid its row and column clues describe.

    SOURCE ('-' for standard input) has a 'rows:' and a 'columns:' section, one line of
    group lengths per stripe, separated by spaces ('0' for an empty stripe). Exits 1 when
    no grid fits, or when --timeout runs out first.
    """
    try:
        clues = Clues.parse(_read_text(source))
    except UnfittableClues as error:  # no grid: with --json, the answer of one found none
        if not as_json:
            raise
        click.echo(json.dumps({"rows": error.rows, "cols": error.cols} | _grids_json([], count)
                              | {"error": str(error)}))
        sys.exit(1)
    size = {"rows": clues.height, "cols": clues.width}
    found: list[Grid] = []
    try:
        # extend() keeps the grids appended before the search for the next runs out
        found.extend(islice(solutions(clues, timeout), 2 if count else 1))
    except OutOfTime as error:
        message = (f"one solution found, but whether it is unique: {error}" if found
                   else str(error))
        if not as_json:
            raise click.ClickException(message) from None
        unsettled = {"solutions": "at least one" if found else None} if count else {
            "solved": None, "grid": None}
        click.echo(json.dumps(size | unsettled | {"error": message}))
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(size | _grids_json(found, count)))
    elif count:
        click.echo(_SOLUTION_COUNTS[_how_many(found)])
    else:
        click.echo(str(found[0]) if found else "no solution")
    if not found:
        sys.exit(1)


def _how_many(found: list[Grid]) -> str:
    """How many solutions the grids found (up to two) show: a key of _SOLUTION_COUNTS."""
    return ("none", "one", "several")[len(found)]


def _grids_json(found: list[Grid], count: bool) -> dict[str, Any]:
    """What ``nonogram --json`` says of the grids found (up to two with ``count``): how
    many, or the first one's rows of 0/1."""
    if count:
        return {"solutions": _how_many(found)}
    return {"solved": bool(found),
            "grid": [[int(filled) for filled in row] for row in found[0].filled] if found
            else None}


_CELL = re.compile(r"([0-9]{1,18}),([0-9]{1,18})")  # int() takes at most 4300 digits


@cli.command("sim")
@click.option("--preset", type=click.Choice(list(PRESETS)),
              help="beginner 9x9/10, intermediate 16x16/40 or expert 30x16/99.")
@click.option("--board", "size", metavar="WxH/M", help="Any board: width x height / mines.")
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--first-click", type=click.Choice(["safe", "opening"]), default="safe",
              show_default=True, help="The first cell holds no mine, or opens an area.")
@click.option("--rules", type=click.Choice(["standard", "kaboom"]), default="standard",
              show_default=True, help="kaboom: mines are placed as you click, cruel but fair.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="lookahead",
              show_default=True,
              help="Guess looking past the next click, or by the lowest probability alone.")
@click.option("--first-cell", metavar="ROW,COL",
              help="Open the game here (zero-based) instead of where the rules say.")
@click.option("--seed", type=int, help="Replays a run exactly (random when not given).")
@click.option("--resume", is_flag=True,
              help="Play only the games of this run (--seed) not yet in the statistics "
                   "file, as after a stop; the summary counts them all.")
@click.option("--workers", type=click.IntRange(min=1),
              help="Processes; all cores by default, and never more.")
@_db_option
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def sim_command(preset: str | None, size: str | None, games: int, first_click: FirstClick,
                rules: Rules, strategy: Strategy, first_cell: str | None, seed: int | None,
                resume: bool, workers: int | None, db: Path | None, quiet: bool,
                as_json: bool) -> None:
    """Play simulated games and record every one in the statistics file.

    Game i of a run is dealt from a seed made of --seed and i alone, so a run replays the
    same games with any number of workers, and a stopped run can be finished (--resume).
    """
    config = _sim_config(preset, size, rules, first_click, strategy, first_cell)
    if resume and seed is None:
        raise click.UsageError("--resume finishes a run: give its --seed")
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    path = db or default_path()
    records: list[GameRecord] = []
    with StatsStore(path, make_folder=db is None) as store:
        earlier = _recorded_games(store, config, seed, games) if resume else []
        left = games - len(earlier)
        cores = _cores()
        if workers is not None and workers > cores:  # more would only share the cores,
            # and slow each game's clock down
            click.echo(f"--workers {workers}: {plural(cores, 'core')} here, so "
                       f"{plural(cores, 'worker')}", err=True)
        workers = min(workers or cores, cores, max(left, 1))
        setup = partial(_start_logging, logging.getLogger().level)
        with (_kept_told(records, path, f"--seed {seed} --resume plays the rest"),
              _progress(left, quiet) as advance,
              contextlib.closing(play_games(config, games, seed=seed, workers=workers,
                                            setup=setup, skip={g.seed for g in earlier})
                                 ) as run):
            for record in run:
                with stops_held():  # so that the count told is the games recorded
                    store.record(record)
                    records.append(record)
                advance(record.won)
    summary = summarize(earlier + records)[0]
    if as_json:
        click.echo(json.dumps({"preset": preset} | summary.as_dict()
                              | {"seed": seed, "workers": workers, "db": str(path),
                                 "played": len(records)}))
        return
    resumed = (f"{plural(len(earlier), 'game')} recorded before, {len(records)} played now, "
               if resume else "")
    click.echo(f"{summary.configuration}, seed {seed}\n{_summary_in_words(summary)}\n"
               f"{resumed}recorded in {path}")


def _recorded_games(store: StatsStore, config: SimConfig, seed: int,
                    games: int) -> list[GameRecord]:
    """The games of the run seeded ``seed`` (its first ``games``) that ``store`` holds,
    played as ``config`` says: each deal's first play, as ``autoplay stats`` counts them."""
    run = {game_seed(seed, i) for i in range(games)}
    wanted = Configuration("simulator", config.width, config.height, config.mines,
                           config.rules, config.first_click, config.first_cell,
                           config.strategy)
    return [game for game in first_plays(store.games())[0]
            if game.seed in run and Configuration.of(game) == wanted]


def _summary_in_words(summary: Summary) -> str:
    """A summary's figures as lines of prose (the odds-adjusted rate on one of its own, where
    there is one), for ``sim`` and for a terminal too narrow for the table."""
    speed = summary.three_bv_per_second
    adjusted = summary.odds_adjusted
    return (f"won {summary.wins} of {plural(summary.games, 'game')}: "
            f"{100 * summary.win_rate:.1f}% (95% interval {_win_interval(summary)}), "
            f"{summary.guesses_per_game:.2f} guesses per game\n"
            + ("" if adjusted is None else
               f"odds-adjusted win rate {_adjusted_text(adjusted)} (corrected for the luck of "
               f"the guesses)\n")
            + f"{1000 * summary.median_seconds:.1f} ms per game (median), "
            f"{1000 * summary.seconds_per_game:.1f} ms mean"
            + ("" if speed is None else f", {_speed_text(speed)} 3BV/s in won games"))


def _adjusted_text(estimate: Estimate) -> str:
    """An odds-adjusted win rate and its interval, such as ``91.71% (91.66-91.77%)``: to
    hundredths, since its interval is narrower than the games won's."""
    low, high = estimate.ci95
    return f"{100 * estimate.value:.2f}% ({100 * low:.2f}-{100 * high:.2f}%)"


def _speed_text(speed: float) -> str:
    """3BV/s in whole numbers, but to hundredths under 10: a game of a huge board, its
    whole 3BV a few clicks, makes well under one a second.

    >>> _speed_text(123.4), _speed_text(3.444), _speed_text(0.0432)
    ('123', '3.44', '0.04')
    """
    return f"{speed:.0f}" if speed >= 10 else f"{speed:.2f}"


def _cores() -> int:
    """The cores this process may run on (fewer than the machine's under ``taskset``)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def _sim_config(preset: str | None, size: str | None, rules: Rules, first_click: FirstClick,
                strategy: Strategy, first_cell: str | None) -> SimConfig:
    if (preset is None) == (size is None):
        raise click.UsageError("give one of --preset and --board")
    cell = None
    if first_cell is not None:
        match = _CELL.fullmatch(first_cell)
        if match is None:
            raise click.BadParameter(f"expected ROW,COL such as 3,3, got {first_cell!r}",
                                     param_hint="'--first-cell'")
        cell = Cell(*map(int, match.groups()))
    if preset is not None:
        chosen = PRESETS[preset]
        width, height, mines = chosen.width, chosen.height, chosen.mines
    else:
        parsed = parse_board(size or "")
        if parsed is None:
            raise click.BadParameter(f"expected WxH/M such as 30x16/99, got {size!r}",
                                     param_hint="'--board'")
        width, height, mines = parsed
        try:  # even the first click that clears the fewest cells: the board is at fault
            check_fits(width, height, mines, first_click)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--board'") from None
    try:
        return SimConfig(width, height, mines, rules, first_click, strategy, cell)
    except ValueError as error:
        if cell is not None:
            raise click.BadParameter(str(error), param_hint="'--first-cell'") from None
        # The default first cell, then: a corner's first click fits (checked above)
        raise click.BadParameter(f"{error}; a first click in a corner clears fewer cells "
                                 f"(--first-cell 0,0)", param_hint="'--board'") from None


@contextlib.contextmanager
def _progress(games: int, quiet: bool) -> Iterator[Callable[[bool], None]]:
    """A progress bar on the terminal (games done, running win rate, ETA), or nothing."""
    console = Console(stderr=True)
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TextColumn("won {task.fields[rate]}"),
               TimeRemainingColumn())
    wins = done = 0
    with Progress(*columns, console=console,
                  disable=quiet or not console.is_terminal) as progress:
        task = progress.add_task("games", total=games, rate="-")

        def advance(won: bool) -> None:
            nonlocal wins, done
            wins, done = wins + won, done + 1
            progress.update(task, advance=1, rate=f"{100 * wins / done:.1f}%")

        yield advance


def _summary_table(summaries: list[Summary], title: str) -> Table:
    """One row per configuration: games, wins with their interval, guesses and speed."""
    table = Table(title=title)
    table.caption = ("guesses, ms and 3BV/s per game; ms: median and mean; 3BV/s: won games; "
                     "odds-adjusted: corrected for the luck of the guesses, with its 95% "
                     "interval")
    for column in ("source", "board", "rules", "first click", "strategy", "games", "won",
                   "95% interval", "odds-adjusted", "guesses", "ms", "ms mean", "3BV/s"):
        table.add_column(column, justify="right" if column[0] in "gw9om3" else "left",
                         no_wrap=True)
    for s in summaries:
        speed = s.three_bv_per_second
        c = s.configuration
        table.add_row(c.source, c.board, c.rules, c.opening, c.strategy, str(s.games),
                      f"{100 * s.win_rate:.1f}%", _win_interval(s),
                      "" if s.odds_adjusted is None else _adjusted_text(s.odds_adjusted),
                      f"{s.guesses_per_game:.2f}", f"{1000 * s.median_seconds:.1f}",
                      f"{1000 * s.seconds_per_game:.1f}",
                      "" if speed is None else _speed_text(speed))
    return table


def _win_interval(summary: Summary) -> str:
    """The win rate's 95% interval in percent, such as ``87.2-93.7%``."""
    low, high = summary.ci95
    return f"{100 * low:.1f}-{100 * high:.1f}%"


def _row_in_words(summary: Summary) -> str:
    """A row of the summary table as a paragraph."""
    return f"{summary.configuration}\n{_summary_in_words(summary)}"


def _comparison_in_words(comparison: Comparison) -> str:
    """A row of the comparison table as a paragraph."""
    first, second = comparison.strategies
    rate_first, rate_second, difference, interval = _comparison_figures(comparison)
    adjusted = comparison.odds_adjusted
    return (f"{comparison.configuration.game}, {plural(comparison.games, 'game')}: {first} "
            f"won {rate_first}, {second} {rate_second}, a difference of {difference} points "
            f"(95% interval {interval}); {comparison.only[0]} won by {first} alone, "
            f"{comparison.only[1]} by {second} alone"
            + ("" if adjusted is None else
               f"; odds-adjusted, a difference of {_points(adjusted)}"))


def _points(estimate: Estimate) -> str:
    """A difference of odds-adjusted rates in points, with its interval, to hundredths (see
    :func:`_adjusted_text`), such as ``+0.18 (+0.16 to +0.19)``."""
    return f"{100 * estimate.value:+.2f} ({_signed_range(*estimate.ci95, places=2)})"


def _signed_range(low: float, high: float, *, places: int = 1) -> str:
    """An interval of differences in points, such as ``-0.3 to +1.2``."""
    return f"{100 * low:+.{places}f} to {100 * high:+.{places}f}"


def _comparison_figures(comparison: Comparison) -> tuple[str, str, str, str]:
    """The two win rates, the difference in points and its 95% interval, as shown."""
    first, second = (f"{100 * wins / comparison.games:.1f}%" for wins in comparison.wins)
    return (first, second, f"{100 * comparison.difference:+.1f}",
            _signed_range(*comparison.ci95))


def _comparison_table(comparisons: list[Comparison]) -> Table:
    """Strategies side by side on the same seeds."""
    table = Table(title="strategies on the same games (same seeds)")
    table.caption = ("difference: the first's win rate minus the second's, with its paired "
                     "95% interval; odds-adjusted: the same of the odds-adjusted rates")
    for column in ("board", "rules", "first click", "games", "first", "won", "second", "won",
                   "difference", "95% interval", "odds-adjusted", "only first", "only second"):
        table.add_column(column, justify="left" if column in (
            "board", "rules", "first click", "first", "second") else "right", no_wrap=True)
    for comparison in comparisons:
        c = comparison.configuration
        first, second, difference, interval = _comparison_figures(comparison)
        table.add_row(c.board, c.rules, c.opening, str(comparison.games),
                      comparison.strategies[0], first, comparison.strategies[1], second,
                      difference, interval, "" if comparison.odds_adjusted is None
                      else _points(comparison.odds_adjusted), str(comparison.only[0]),
                      str(comparison.only[1]))
    return table


@cli.command("stats")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print the summaries as JSON.")
@click.option("--plot", type=click.Path(dir_okay=False),
              callback=_output(".png", ".svg", ".pdf"),
              help="Also draw them into this image (PNG, SVG or PDF).")
def stats_command(db: Path | None, as_json: bool, plot: Path | None) -> None:
    """Summarize the recorded games: one row per configuration."""
    path = db or default_path()
    if not path.exists():
        raise click.ClickException(f"no statistics file at {path}: play some games first")
    with StatsStore(path, read_only=True) as store:
        games, replays = first_plays(store.games())
    summaries = summarize(games)
    comparisons = compare(games)
    if plot is not None:
        if not games:
            raise click.ClickException(f"no games recorded in {path}: nothing to plot")
        draw(games, plot)
    if as_json:
        click.echo(json.dumps({"db": str(path), "configurations": [
            s.as_dict() for s in summaries], "comparisons": [c.as_dict() for c in comparisons],
            "replays": replays}))
        return
    if not games:
        click.echo(f"no games recorded in {path}")
        return
    console = _table_console()
    _print_table(console, _summary_table(summaries, f"{len(games) + replays} games recorded in "
                                                    f"{path}"), map(_row_in_words, summaries))
    if replays:
        console.print(f"{plural(replays, 'game')} replayed a seed already played in the same "
                      f"configuration: the same deal, counted once (its first play)")
    if comparisons:
        _print_table(console, _comparison_table(comparisons),
                     map(_comparison_in_words, comparisons))
    if plot is not None:
        click.echo(f"plot saved to {plot}")


@cli.command("read")
@click.argument("image", type=click.Path(allow_dash=True))
@click.option("--skin", "skin_name", metavar="NAME", callback=_installed_skin,
              help="Read with this skin (default: the installed skin that fits best).")
@click.option("--json", "as_json", is_flag=True, help="Print the board and where it is as JSON.")
def read_command(image: str, skin_name: str | None, as_json: bool) -> None:
    """Read the Minesweeper board in a screenshot and print it as a text board.

    IMAGE may show the board alone, the game's window or a whole desktop, at any display
    scale. Cells that match no template with confidence are printed as '?' and listed.
    """
    picture = _decode_image(_read_bytes(image), image)
    reading = locate.read_screenshot(picture, vision.load_skins(skin_name))
    if as_json:
        click.echo(json.dumps(_reading_json(reading)))
    else:
        click.echo(reading.text())
        if reading.unrecognized:
            click.echo(f"{plural(len(reading.unrecognized), 'cell')} not recognised (shown as "
                       f"'?'): {vision.describe(reading)}", err=True)
    _warn_about(reading)  # on stderr, as solve --json gives it


def _reading_json(reading: vision.Reading) -> dict[str, Any]:
    return {
        "skin": reading.skin,
        **_geometry_json(reading.geometry),
        "board": reading.text().splitlines(),
        "unrecognized": [[u.cell.row, u.cell.col] for u in reading.unrecognized],
        "closest": [{"cell": [u.cell.row, u.cell.col], "label": u.closest,
                     "distance": u.distance} for u in reading.unrecognized],
        "edges": list(reading.edges),
        "others": _others_json(reading),
    }


def _others_json(reading: vision.Reading) -> list[dict[str, Any]]:
    """The other boards a reading met: skin, size and where, as the board's own."""
    return [{"skin": skin, **_geometry_json(geometry)} for skin, geometry in reading.others]


def _geometry_json(geometry: vision.Geometry) -> dict[str, Any]:
    return {"rows": geometry.rows, "cols": geometry.cols,
            "origin": [round(geometry.left, 2), round(geometry.top, 2)],
            "pitch": [round(geometry.pitch_x, 3), round(geometry.pitch_y, 3)]}


@cli.group("skin")
def skin_group() -> None:
    """The looks of the games autoplay can read: list them, or learn a new one."""


@skin_group.command("learn")
@click.argument("image", type=click.Path())
@click.option("--board", "board_path", required=True, type=click.Path(),
              help="The true board shown in IMAGE, as a text board.")
@click.option("--name", required=True, help="The new skin's name (letters, digits, '-', '_').")
@click.option("--replace", is_flag=True,
              help="Put it in place of an installed skin of that name (shipped or learned).")
def learn_command(image: str, board_path: str, name: str, replace: bool) -> None:
    """Learn a new skin from one screenshot of a game and its true board.

    Every look of every cell state in the screenshot becomes a template; afterwards
    'autoplay read --skin NAME' reads other screenshots of that game.
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise click.BadParameter(f"{name!r} is not a plain name", param_hint="'--name'")
    installed = vision.skin_folders().get(name)
    if installed is not None and not replace:  # a shipped game's skin, or a learned one
        raise click.BadParameter(f"a skin called {name!r} is installed, in {installed} "
                                 f"(--replace puts the new one in its place)",
                                 param_hint="'--name'")
    if image == board_path == "-":
        raise click.UsageError("IMAGE and --board cannot both be standard input ('-')")
    board = Board.parse(_read_text(board_path))
    skin = learn.learn_skin(name, [(_decode_image(_read_bytes(image), image), board)])
    folder = vision.learned_skins_dir() / name
    skin.save(folder)
    labels = skin.labels()
    click.echo(f"learned skin {name!r} ({len(skin.templates)} templates of "
               f"{len(labels)} looks: {', '.join(labels)}) in {folder}"
               + ("" if installed is None else ", over the one learned before"
                  if installed == folder else f", in place of the one in {installed}"))


@skin_group.command("list")
def list_command() -> None:
    """List the installed skins and where they are, and any that cannot be loaded."""
    for name, folder in vision.skin_folders().items():
        try:
            vision.Skin.load(folder)
        except SkinError as error:
            click.echo(f"{name}\t{folder}\t(left out: {error})")
        else:
            click.echo(f"{name}\t{folder}")


_REGION = re.compile(r"(-?[0-9]+),(-?[0-9]+),([0-9]+),([0-9]+)")


def _region(ctx: click.Context, param: click.Parameter, text: str | None) -> Region | None:
    """Check --region up front, before the display is looked for."""
    if text is None:
        return None
    match = _REGION.fullmatch(text)
    if match is None or int(match[3]) == 0 or int(match[4]) == 0:
        raise click.BadParameter(f"expected X,Y,W,H such as 0,0,800,600, got {text!r}")
    return Region(*map(int, match.groups()))


@cli.command("play")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play; each next one is started the game's own way.")
@click.option("--flag", "flag_mines", is_flag=True, help="Flag proven mines, as a person would.")
@click.option("--speed", type=_SECONDS, default=0.0, show_default=True,
              metavar="SECONDS", help="Pause after each click, to watch.")
@click.option("--skin", "skin_name", metavar="NAME", callback=_installed_skin,
              help="The game's skin (default: the installed skin that fits best).")
@click.option("--mines", type=_MINE_COUNT,
              help="The game's mine count, when known: more is proven, and wins are seen.")
@click.option("--monitor", type=click.IntRange(min=0), default=0, show_default=True,
              help="Look for the game on this monitor (0: all of them).")
@click.option("--region", metavar="X,Y,W,H", callback=_region,
              help="Look for the game in this rectangle of the screen only.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="lookahead",
              show_default=True, help="How to guess when nothing is proven safe.")
@click.option("--seed", type=int, help="Seed for breaking ties between equal guesses.")
@_db_option
@click.option("--dry-run", is_flag=True, help="Read the board and show the next moves; no click.")
@click.option("--annotate", type=click.Path(dir_okay=False, writable=True), metavar="OUT.png",
              callback=_IMAGE_OUTPUT,
              help="With --dry-run: write the board with the next moves drawn on it.")
def play_command(games: int, flag_mines: bool, speed: float, skin_name: str | None,
                 mines: int | None, monitor: int, region: Region | None, strategy: Strategy,
                 seed: int | None, db: Path | None, dry_run: bool, annotate: Path | None) -> None:
    """Play the Minesweeper game on the screen, and record every game.

    It finds the board, reads it, clicks only cells proven safe (guessing only when none
    is), inside the board only. Move the mouse to a screen corner to stop it (pyautogui's
    fail-safe); Ctrl-C stops it too, with the finished games saved.
    """
    if annotate and not dry_run:
        raise click.UsageError("--annotate goes with --dry-run")
    screen = Screen()
    try:
        search = screen.search_area(monitor, region)
        game = find_game(screen, search, vision.load_skins(skin_name), mines=mines, speed=speed)
        x0, y0, x1, y1 = game.geometry.box()
        click.echo(f"the {game.geometry.cols}x{game.geometry.rows} {game.skin.name} board at "
                   f"{x0},{y0}, {x1 - x0}x{y1 - y0} pixels (--region looks elsewhere)", err=True)
        if dry_run:
            board = game.observe()
            first = game.first_cell if board.is_new() else None

            def annotation(deduction: Deduction, move: tuple[Cell, float] | None) -> None:
                if annotate:  # before the output, which a reader can stop (| head)
                    _write_image(annotate, draw_deduction(game.frame, game.local_geometry(),
                                                          deduction, move))

            nothing = Deduction(frozenset(), frozenset())
            if game.outcome != "playing":
                annotation(nothing, None)
                Console(highlight=False, soft_wrap=True).print(_render(board, nothing))
                click.echo(f"the game is over ({game.outcome}): no move to show; play would "
                           f"start a new game")
            elif first is None:
                _print_deduction(board, None, False, False, before=lambda deduction, guess:
                                 annotation(deduction, _move_of(guess)))
            else:  # what play would do: open where the game's rules promise no mine
                annotation(nothing, (first, 0.0))
                Console(highlight=False, soft_wrap=True).print(_render(board, nothing))
                promise = "an opening" if game.playbook.first_click == "opening" else "no mine"
                click.echo(f"a new game: the first click is {_cell_list({first})}, where "
                           f"{game.skin.name} promises {promise}")
            return
        if game.mines is None:
            click.echo(f"the mine count is not given (--mines N): proofs do without it, and "
                       f"guesses take the usual count of the board's size, or {ASSUMED_DENSITY} "
                       f"of its cells", err=True)
        try:
            _play_on_screen(game, games, flag_mines=flag_mines, strategy=strategy,
                            seed=seed, db=db, quiet=False)
        except InconsistentBoard as error:
            if mines is None or not _fits_without_count(game):
                raise
            raise InconsistentBoard(f"{error} (is --mines {mines} the game's count?)") from None
    finally:
        screen.close()


def _fits_without_count(game: ScreenGame) -> bool:
    """Whether a layout fits the board on the screen once its mine count is left out: then
    the count given is what no layout fits."""
    try:
        deduce(game.observe().with_mines(None))
    except AutoplayError:  # InconsistentBoard, or the board gone meanwhile
        return False
    return True


def _play_on_screen(game: ScreenGame, games: int, *, flag_mines: bool, strategy: Strategy,
                    seed: int | None, db: Path | None, quiet: bool) -> list[GameRecord]:
    """Play and store the games one by one (an interrupted run keeps the finished ones),
    printing a line per game unless ``quiet``."""
    rng = random.Random(seed)
    path = db or default_path()
    records: list[GameRecord] = []

    def one(game: ScreenGame) -> GameResult:
        return play(game, rng=rng, first_cell=game.first_cell, flag_mines=flag_mines,
                    strategy=strategy)

    with StatsStore(path, make_folder=db is None) as store, _kept_told(records, path):
        for record in play_screen_games(game, games, one):
            with stops_held():  # so that the count told is the games recorded
                store.record(record)
                records.append(record)
            if not quiet:
                click.echo(f"game {len(records)}: {'won' if record.won else 'lost'} "
                           f"{record.width}x{record.height} in {record.seconds:.2f} s, "
                           f"{plural(record.clicks, 'click')}, "
                           f"{plural(len(record.guesses), 'guess', 'guesses')}", err=True)
    if not quiet:
        click.echo(f"recorded in {path}", err=True)
    return records


@contextlib.contextmanager
def _kept_told(records: Sequence[GameRecord], path: Path,
               rest: str | None = None) -> Iterator[None]:
    """Tell how many games a run stopped early had finished, and where they are (and
    ``rest``, how to play the others), before the stop's own word: on Ctrl-C (or a
    signal), or on an error once a game was kept (a window or display gone, a statistics
    file locked)."""
    try:
        yield
    except (KeyboardInterrupt, AutoplayError) as stop:
        if records or isinstance(stop, KeyboardInterrupt):
            click.echo(f"{plural(len(records), 'game')} finished, recorded in {path}"
                       + ("" if rest is None else f"; {rest}"), err=True)
        raise


def _window_size(ctx: click.Context, param: click.Parameter,
                 value: str | None) -> tuple[int, int] | None:
    """``--window``'s WxH as two whole pixel counts, each from 100 to 8192."""
    if value is None:
        return None
    match = re.fullmatch(r"(\d{3,4})x(\d{3,4})", value)
    if match is None or not all(100 <= int(n) <= 8192 for n in match.groups()):
        raise click.BadParameter(f"expected WxH in pixels such as 1440x868, each from 100 to "
                                 f"8192, got {value!r}")
    return int(match[1]), int(match[2])


def _screen_for(window: tuple[int, int] | None) -> tuple[int, int]:
    """The virtual screen's size: the default, or larger, to hold a window of ``window``."""
    width, height = window or (0, 0)
    return max(1280, width), max(1024, height)


@cli.command("demo")
@click.option("--game", "game_name", type=click.Choice(list(LEVELS)), default="sgt-mines",
              show_default=True, help="The desktop game to start.")
@click.option("--preset", type=click.Choice(list(PRESETS)), default="beginner",
              show_default=True, help="The level (the game's own nearest; see the README).")
@click.option("--games", type=click.IntRange(min=1), default=5, show_default=True)
@click.option("--flag", "flag_mines", is_flag=True, help="Flag proven mines, as a person would.")
@click.option("--speed", type=_SECONDS, default=0.0, show_default=True,
              metavar="SECONDS", help="Pause after each click.")
@click.option("--seed", type=int, help="Seed for breaking ties between equal guesses.")
@_db_option
@click.option("--record", "record_path", type=click.Path(dir_okay=False),
              callback=_output(".gif", ".png"), metavar="FILE",
              help="Save the boards after every move: FILE.gif animated, or FILE.png as a "
              "contact sheet.")
@click.option("--window", "window_size", metavar="WxH", callback=_window_size,
              help="Give the game's window this size first, such as 1440x868 (a maximized "
              "window on a 1440x900 screen): GNOME Mines draws its tiles to fit it.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def demo_command(game_name: str, preset: str, games: int, flag_mines: bool, speed: float,
                 seed: int | None, db: Path | None, record_path: Path | None,
                 window_size: tuple[int, int] | None, as_json: bool) -> None:
    """Play a real desktop game on a virtual screen (Xvfb), no display needed.

    It starts the X server and the game, plays --games games of --preset, records them
    in the statistics file and prints their summary.
    """
    level = LEVELS[game_name][preset]
    size = window_size or level.window_size
    recording = None if record_path is None else Recording()
    try:
        with VirtualDisplay(*_screen_for(size)) as display, launch_game(
                game_name, display.name, level.args) as window:
            if size:
                window.place(0, 0)
                window.resize(*size)
            if level.keys:
                window.choose(*level.keys)
            screen = Screen(display.name)
            try:
                game = find_game(screen, screen.search_area(), vision.load_skins(game_name),
                                 mines=level.mines, speed=speed, timeout=10.0,
                                 on_frame=None if recording is None else recording.add)
                records = _play_on_screen(game, games, flag_mines=flag_mines,
                                          strategy="lookahead", seed=seed, db=db, quiet=as_json)
            finally:
                screen.close()
    except BaseException:  # stopped, or the game lost: the moves played are kept too
        if recording is not None and record_path is not None and recording.games:
            recording.save(record_path)
            click.echo(f"the moves played are saved to {record_path}", err=True)
        raise
    if recording is not None and record_path is not None:
        recording.save(record_path)
    summary = summarize(records)[0]
    if as_json:
        click.echo(json.dumps({"game": game_name, "preset": preset} | summary.as_dict()
                              | {"db": str(db or default_path())}))
        return
    _print_table(_table_console(), _summary_table(
        [summary], f"autoplay demo: {game_name}, {preset} ({level.width}x{level.height}/"
                   f"{level.mines})"), [_row_in_words(summary)])
    if record_path is not None:
        click.echo(f"recording saved to {record_path}")
