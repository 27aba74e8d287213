"""The record of every game played: one row per game in a SQLite file.

Written by ``autoplay sim`` and by screen play (``play``, ``demo``). Each game is committed
in its own transaction as soon as it is recorded, so killing a run loses no finished game.
The schema carries its version in ``PRAGMA user_version``; opening a file migrates it step
by step.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "stats.sqlite3"
>>> with StatsStore(path) as store:
...     _ = store.record(GameRecord("simulator", 9, 9, 10, "standard", "safe", Cell(0, 0),
...                                 seed=7, won=True, clicks=20, guesses=(0.125,),
...                                 seconds=0.5, three_bv=15))
...     [(game.seed, game.guesses, game.three_bv_per_second) for game in store.games()]
[(7, (0.125,), 30.0)]
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self, get_args

import platformdirs

from autoplay.board import Cell
from autoplay.errors import AutoplayError
from autoplay.player import MAX_SIDE, FirstClick, GameResult, Rules


class StatsError(AutoplayError):
    """A statistics file that cannot be used: not SQLite, or from a newer autoplay."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game, as stored."""

    source: str
    """Who dealt the game: ``"simulator"``, or a desktop game's name or skin."""
    width: int
    height: int
    mines: int | None
    """None for a desktop game whose count was neither given nor shown at its end."""
    rules: str
    """``"standard"`` or ``"kaboom"``."""
    first_click: str
    """What the rules promise about the first click: ``"safe"``, ``"opening"``, or
    ``"none"`` (a desktop game whose first click may hold a mine)."""
    first_cell: Cell | None
    """Where the game was opened, when the player chose by the rules."""
    seed: int | None
    """Replays a simulated game (see :func:`autoplay.sim.play_sim`); None for real games."""
    won: bool
    clicks: int
    guesses: tuple[float, ...]
    """The mine probability of each cell opened without proof, in order."""
    seconds: float
    three_bv: int | None
    """The layout's 3BV (see :func:`autoplay.board.three_bv`), when the layout is known."""
    strategy: str = "lookahead"
    """How the player guessed (see :data:`autoplay.player.Strategy`)."""
    finished: datetime.datetime | None = None
    """When it was stored (UTC); set by :meth:`StatsStore.record`."""

    def __post_init__(self) -> None:
        """:raises ValueError: for a game no board could hold, which would show in
        ``autoplay stats`` as a configuration of its own."""
        if max(self.width, self.height) > MAX_SIDE:
            raise ValueError(f"a {self.width}x{self.height} board is larger than any game "
                             f"autoplay plays (at most {MAX_SIDE} cells a side)")
        if self.mines is not None and self.mines >= self.width * self.height:
            raise ValueError(f"{self.mines} mines leave no safe cell on a "
                             f"{self.width}x{self.height} board")
        if self.first_cell is not None and not (self.first_cell.row < self.height
                                                and self.first_cell.col < self.width):
            raise ValueError(f"the first cell {tuple(self.first_cell)} is off the "
                             f"{self.width}x{self.height} board")

    @classmethod
    def of(cls, result: GameResult, *, source: str, width: int, height: int, mines: int | None,
           rules: str, first_click: str, seed: int | None, three_bv: int | None) -> GameRecord:
        """The record of a game the player played."""
        return cls(source, width, height, mines, rules, first_click, result.first_cell,
                   seed, result.won, result.clicks,
                   tuple(float(g.probability) for g in result.guesses), result.seconds,
                   three_bv, result.strategy)

    @property
    def three_bv_per_second(self) -> float | None:
        """3BV over seconds, the speed measure of won games (None for a loss)."""
        if not self.won or self.three_bv is None or self.seconds <= 0:
            return None
        speed = self.three_bv / self.seconds
        return speed if math.isfinite(speed) else None  # too short a time to measure


def default_path() -> Path:
    """Where the statistics live unless told otherwise: the user's data directory."""
    return Path(platformdirs.user_data_dir("autoplay")) / "stats.sqlite3"


def _create_games(db: sqlite3.Connection) -> None:
    db.execute("""
        CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            finished TEXT NOT NULL,
            source TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            mines INTEGER NOT NULL,
            rules TEXT NOT NULL,
            first_click TEXT NOT NULL,
            first_row INTEGER,
            first_col INTEGER,
            seed INTEGER,
            result TEXT NOT NULL CHECK (result IN ('won', 'lost')),
            clicks INTEGER NOT NULL,
            guesses INTEGER NOT NULL,
            guess_probabilities TEXT NOT NULL,
            seconds REAL NOT NULL,
            three_bv INTEGER,
            three_bv_per_second REAL
        )""")
    db.execute("CREATE INDEX games_by_configuration "
               "ON games (source, width, height, mines, rules, first_click)")


def _add_strategy(db: sqlite3.Connection) -> None:
    # Every game recorded before the strategy was asked for guessed by the lowest probability.
    db.execute("ALTER TABLE games ADD COLUMN strategy TEXT NOT NULL "
               "DEFAULT 'lowest-probability'")


def _allow_unknown_mines(db: sqlite3.Connection) -> None:
    # A desktop game may end without showing its count: NULL, where version 2 wrote the
    # mines it saw. SQLite changes a column's constraint only by copying the table, so the
    # copy is made from the table's own schema, that one constraint dropped.
    [(table,)] = db.execute("SELECT sql FROM sqlite_master WHERE name = 'games'").fetchall()
    indexes = [sql for (sql,) in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'games'")]
    relaxed = table.replace("mines INTEGER NOT NULL", "mines INTEGER", 1)
    if relaxed == table:
        raise sqlite3.DatabaseError("its games table has no mines column as autoplay wrote it")
    db.execute("ALTER TABLE games RENAME TO games_2")  # its indexes go with it
    db.execute(relaxed)
    db.execute("INSERT INTO games SELECT * FROM games_2")
    db.execute("DROP TABLE games_2")
    for index in indexes:
        db.execute(index)


_MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _create_games, _add_strategy, _allow_unknown_mines)
"""Migration n takes a file from schema version n to n + 1; never edit one, append."""


@functools.cache
def _columns(version: int) -> tuple[str, ...]:
    """The columns of the games table at schema ``version``, as the migrations make them."""
    db = sqlite3.connect(":memory:")
    try:
        for migrate in _MIGRATIONS[:version]:
            migrate(db)
        return tuple(name for _, name, *_ in db.execute("PRAGMA table_info(games)"))
    finally:
        db.close()


BUSY_SECONDS = 5.0
"""How long opening or writing the file waits while another program holds it locked."""


class StatsStore:
    """A statistics file, opened (and created or migrated) for reading and recording, or
    with ``read_only`` for reading alone: then it is not changed (a file on read-only
    media reads too, and an empty file stays empty) unless its schema is older than this
    version's, when it is migrated as for recording (where it cannot be written, a copy
    in memory is migrated instead).

    With ``make_folder``, a missing folder for the file is made (the default one, say); a
    folder the user names must exist, so that a mistyped one is not made.

    :raises StatsError: when the file is not a SQLite database, or its schema is newer
        than this version of autoplay knows.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False,
                 make_folder: bool = False) -> None:
        self.path = Path(path)
        self._db = self._connect(read_only, make_folder)
        try:
            if not read_only:  # said now, not once a game is played and cannot be recorded
                if (why := self._unwritable()) is not None:
                    raise StatsError(f"cannot open statistics file {str(self.path)!r}: {why}")
                self._refuse_damaged()
            try:
                version = self._version()
            except sqlite3.OperationalError:
                if not read_only or os.access(self.path.parent, os.W_OK):  # locked, say
                    raise
                # On read-only media: the write-ahead log needs a file beside the database
                # that cannot be made there; and no one can write there either. Opened
                # as immutable, the database is read without its log, so a log holding
                # games (a run killed before it folded them in) is refused, not ignored.
                self._db.close()
                log = Path(f"{self.path}-wal")
                if log.is_file() and log.stat().st_size > 0:
                    raise StatsError(f"cannot read {self.path} here: its latest games are in "
                                     f"{log.name}, which SQLite reads only in a folder it "
                                     f"can write to; copy both files to one")
                self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?immutable=1",
                                           uri=True, isolation_level=None)
                version = self._version()
            if read_only and 0 < version < len(_MIGRATIONS):
                if self._unwritable() is None:
                    self._db.close()
                    self._db = self._connect(read_only=False)
                else:  # migrated in memory, for reading: the file stays as it is
                    copy = sqlite3.connect(":memory:", isolation_level=None)
                    self._db.backup(copy)
                    self._db.close()
                    self._db = copy
                read_only = False
            self._migrate(version, read_only)
            self._empty = read_only and version == 0  # an empty file, read alone
        except sqlite3.OperationalError as error:  # locked by another program, say
            self._db.close()
            # Where it cannot be written, SQLite says only "unable to open database file".
            reason = (None if read_only else self._unwritable()) or str(error)
            raise StatsError(f"cannot open statistics file {str(path)!r}: {reason}") from None
        except sqlite3.DatabaseError as error:
            self._db.close()
            if getattr(error, "sqlite_errorname", None) == "SQLITE_CORRUPT":
                raise self._damaged(str(error)) from None
            raise StatsError(f"{self.path} is not a statistics file: {error}") from None
        except StatsError:
            self._db.close()
            raise

    def _refuse_damaged(self) -> None:
        """Refuse to record in a damaged file: games added to it could not be read back (a
        second of checking for a million games). A row that breaks the table's checks is
        named when it is read."""
        self._db.execute("PRAGMA ignore_check_constraints = ON")
        found = self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
        self._db.execute("PRAGMA ignore_check_constraints = OFF")
        if found != "ok":
            found = " ".join(line for line in found.splitlines() if not line.startswith("***"))
            raise self._damaged(found, "; no game is recorded in it")

    def _damaged(self, found: str, then: str = "") -> StatsError:
        return StatsError(f"{self.path} is damaged (SQLite: {found}): a copy cut short, "
                          f"say{then}")

    def _unwritable(self) -> str | None:
        """Why SQLite cannot change the file (it writes a journal beside it), or None."""
        if not os.access(self.path.parent, os.W_OK):
            return f"the folder {str(self.path.parent)!r} cannot be written to"
        if self.path.exists() and not os.access(self.path, os.W_OK):
            return "it cannot be written to"
        return None

    def _version(self) -> int:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _connect(self, read_only: bool, make_folder: bool = False) -> sqlite3.Connection:
        folder = self.path.parent
        if self.path.exists() and not self.path.is_file():  # a device or a pipe: SQLite
            # would say "disk I/O error" (a folder is refused by the command line)
            reason = "it is not a regular file"
        else:
            try:
                if make_folder and not read_only:
                    folder.mkdir(parents=True, exist_ok=True)
                # Autocommit: each game's INSERT is a transaction of its own, committed at once.
                return sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_SECONDS)
            except (OSError, sqlite3.Error) as error:
                file = next((p for p in self.path.parents if p.is_file()), None)
                if file is not None:
                    reason = f"{file} is a file, not a folder"
                elif not folder.is_dir():
                    reason = f"there is no folder {str(folder)!r}"
                elif not self.path.exists() and (unwritable := self._unwritable()):
                    reason = unwritable
                else:
                    reason = str(error.strerror if isinstance(error, OSError) else error)
        raise StatsError(f"cannot open statistics file {str(self.path)!r}: {reason}")

    def _migrate(self, version: int, read_only: bool) -> None:
        self._check(version)
        if read_only:  # the current schema, or an empty file
            return
        if version < len(_MIGRATIONS):  # in one transaction: no file is left between versions
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if (locked := self._version()) != version:  # another autoplay migrated it
                    version = locked
                    self._check(version)
                for migrate in _MIGRATIONS[version:]:
                    migrate(self._db)
                self._db.execute(f"PRAGMA user_version = {len(_MIGRATIONS)}")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        # Write-ahead logging: a commit is one append, and readers never block the writer.
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")

    def _check(self, version: int) -> None:
        """Refuse, before anything is written, a file from a newer autoplay, or whose tables
        are not those autoplay made at its version: another program's database is left as
        it was. (SQLite's own tables, such as ANALYZE's statistics, do not count.)"""
        if version < 0:
            raise StatsError(f"{self.path} is not a statistics file: its schema version "
                             f"{version} is not one autoplay writes")
        if version > len(_MIGRATIONS):
            raise StatsError(f"{self.path} has schema version {version}, newer than the "
                             f"{len(_MIGRATIONS)} this autoplay knows: upgrade autoplay")
        tables = [name for (name,) in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name")]
        if version == 0 and tables:
            raise StatsError(f"{self.path} is not a statistics file: it holds tables "
                             f"({', '.join(tables)}) but no schema version autoplay writes")
        columns = tuple(name for _, name, *_ in self._db.execute("PRAGMA table_info(games)"))
        if version > 0 and (tables != ["games"] or columns != _columns(version)):
            raise StatsError(f"{self.path} is not a statistics file: its tables "
                             f"({', '.join(tables) or 'none'}) are not those autoplay writes")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the file; every recorded game is already committed."""
        self._db.close()

    def record(self, game: GameRecord) -> int:
        """Store one finished game in its own transaction; its row id.

        :raises StatsError: when the file cannot be written (another program holding it
            locked for :data:`BUSY_SECONDS`, a full disk).
        """
        finished = datetime.datetime.now(datetime.UTC)
        first = game.first_cell
        try:
            cursor = self._db.execute(
                "INSERT INTO games (finished, source, width, height, mines, rules, "
                "first_click, first_row, first_col, seed, result, clicks, guesses, "
                "guess_probabilities, seconds, three_bv, three_bv_per_second, strategy) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (finished.isoformat(), game.source, game.width, game.height, game.mines,
                 game.rules, game.first_click, None if first is None else first.row,
                 None if first is None else first.col, game.seed,
                 "won" if game.won else "lost", game.clicks, len(game.guesses),
                 json.dumps(game.guesses), game.seconds, game.three_bv,
                 game.three_bv_per_second, game.strategy))
        except sqlite3.Error as error:
            raise StatsError(f"cannot record a game in {self.path}: {error}") from None
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def games(self) -> Iterator[GameRecord]:
        """Every stored game, oldest first.

        :raises StatsError: on a row no version of autoplay could have written, a damaged
            file, or one that cannot be read (locked by another program for
            :data:`BUSY_SECONDS`, say).
        """
        if self._empty:
            return
        try:
            rows = self._db.execute(
                "SELECT id, source, width, height, mines, rules, first_click, first_row, "
                "first_col, seed, result, clicks, guesses, guess_probabilities, seconds, "
                "three_bv, strategy, finished FROM games ORDER BY id")
            for row_id, *row in rows:
                try:
                    record = _record_of(*row)
                except (ValueError, TypeError, RecursionError) as error:
                    raise StatsError(f"{self.path}: game {row_id} is damaged ({error})"
                                     ) from None
                yield record
        except sqlite3.OperationalError as error:  # locked, or its table taken away
            raise StatsError(f"cannot read {self.path}: {error}") from None
        except sqlite3.DatabaseError as error:  # a damaged page, read only now
            raise StatsError(f"{self.path} is damaged: {error}") from None


def _record_of(source: str, width: int, height: int, mines: int | None, rules: str,
               first_click: str, first_row: int | None, first_col: int | None,
               seed: int | None, result: str, clicks: int, guess_count: int, guesses: str,
               seconds: float, three_bv: int | None, strategy: str, finished: str
               ) -> GameRecord:
    """A row as a record; ValueError or TypeError when a field is not what was written
    (RecursionError for odds nested beyond reading)."""
    for name, text in (("source", source), ("rules", rules), ("first_click", first_click),
                       ("result", result), ("guess odds", guesses), ("strategy", strategy),
                       ("finished", finished)):
        if not isinstance(text, str):
            raise TypeError(f"{name} {text!r} is not text")
    for name, text, words in (("result", result, ("won", "lost")),
                              ("rules", rules, get_args(Rules)),
                              ("first_click", first_click, (*get_args(FirstClick), "none"))):
        if text not in words:
            raise ValueError(f"{name} {text!r} is not one of {', '.join(words)}")
    if not strategy:  # any other name: tools/tune.py names its variants of the player
        raise ValueError("the strategy has no name")
    for name, value, least in (("width", width, 1), ("height", height, 1), ("mines", mines, 0),
                               ("clicks", clicks, 0), ("three_bv", three_bv, 0),
                               ("first_row", first_row, 0), ("first_col", first_col, 0),
                               ("seed", seed, -math.inf)):
        if not isinstance(value, int) and not (name not in _REQUIRED and value is None):
            raise TypeError(f"{name} {value!r} is not a whole number")
        if value is not None and value < least:
            raise ValueError(f"{name} {value} is under {least}")
    if (first_row is None) != (first_col is None):
        raise ValueError(f"the first cell ({first_row}, {first_col}) is half given")
    if not isinstance(seconds, int | float):
        raise TypeError(f"seconds {seconds!r} is not a number")
    if not 0 <= seconds < math.inf:  # NaN too: --json could not write it
        raise ValueError(f"seconds {seconds!r} is not a duration")
    odds = json.loads(guesses)
    if not isinstance(odds, list) or not all(type(p) in (int, float) and 0 <= p <= 1
                                             for p in odds):
        raise TypeError(f"guess odds {guesses!r} are not a list of probabilities")
    if guess_count != len(odds):
        raise ValueError(f"guesses {guess_count!r} is not the number of guess odds ({len(odds)})")
    first = None if first_row is None or first_col is None else Cell(first_row, first_col)
    return GameRecord(source, width, height, mines, rules, first_click, first, seed,
                      result == "won", clicks, tuple(odds), seconds, three_bv, strategy,
                      datetime.datetime.fromisoformat(finished))


_REQUIRED = ("width", "height", "clicks")
"""The whole-number columns that cannot be NULL."""
