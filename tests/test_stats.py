"""The statistics store: a real SQLite file, one committed row per game, versioned."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.board import Cell
from autoplay.sim import SimConfig, game_seed, play_sim
from autoplay.stats import _MIGRATIONS, GameRecord, StatsError, StatsStore


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    """Any game a board can hold."""
    width, height = draw(st.integers(1, 100)), draw(st.integers(1, 100))
    return GameRecord(
        source=draw(st.sampled_from(["simulator", "gnome-mines", "xdemineur: classic skin"])),
        width=width, height=height, mines=draw(st.none() | st.integers(0, width * height - 1)),
        rules=draw(st.sampled_from(["standard", "kaboom"])),
        first_click=draw(st.sampled_from(["safe", "opening", "none"])),
        first_cell=draw(st.none() | st.builds(Cell, st.integers(0, height - 1),
                                              st.integers(0, width - 1))),
        seed=draw(st.none() | st.integers(0, 2**63 - 1)), won=draw(st.booleans()),
        clicks=draw(st.integers(0, 10_000)),
        guesses=tuple(draw(st.lists(st.floats(0, 1, exclude_max=True), max_size=30))),
        seconds=draw(st.floats(0, 1e5)), three_bv=draw(st.none() | st.integers(0, 10_000)),
        strategy=draw(st.sampled_from(["lookahead", "lowest-probability"])))

A_GAME = GameRecord("simulator", 9, 9, 10, "standard", "safe", None, 1, True, 5, (0.1,), 0.5, 3,
                    "lookahead")


@settings(max_examples=30, deadline=None)
@given(st.lists(records(), max_size=5))
def test_games_come_back_as_recorded(tmp_path_factory: pytest.TempPathFactory,
                                     games: list[GameRecord]) -> None:
    path = tmp_path_factory.mktemp("stats") / "stats.sqlite3"
    with StatsStore(path) as store:
        ids = [store.record(game) for game in games]
    with StatsStore(path) as store:
        back = list(store.games())
    assert ids == sorted(set(ids))
    assert [g.finished is not None for g in back] == [True] * len(games)
    assert [_without_time(g) for g in back] == games


def _without_time(game: GameRecord) -> GameRecord:
    return GameRecord(game.source, game.width, game.height, game.mines, game.rules,
                      game.first_click, game.first_cell, game.seed, game.won, game.clicks,
                      game.guesses, game.seconds, game.three_bv, game.strategy)


def test_the_file_is_real_sqlite_with_a_versioned_schema(stats_path: Path) -> None:
    record = play_sim(SimConfig(9, 9, 10), seed=11)
    with StatsStore(stats_path) as store:
        store.record(record)
    with StatsStore(stats_path) as store:  # opening again migrates nothing
        assert [g.seed for g in store.games()] == [11]
    db = sqlite3.connect(stats_path)
    assert db.execute("PRAGMA user_version").fetchone() == (3,)
    row = db.execute("SELECT source, width, height, mines, rules, first_click, first_row, "
                     "first_col, seed, result, clicks, guesses, three_bv, "
                     "three_bv_per_second IS NULL, strategy FROM games").fetchone()
    assert row == ("simulator", 9, 9, 10, "standard", "safe", 0, 0, 11,
                   "won" if record.won else "lost", record.clicks, len(record.guesses),
                   record.three_bv, not record.won, "lookahead")
    db.close()


def test_games_of_a_version_1_file_were_played_by_the_lowest_probability(
        stats_path: Path) -> None:
    db = sqlite3.connect(stats_path)
    db.execute("""CREATE TABLE games (
        id INTEGER PRIMARY KEY, finished TEXT NOT NULL, source TEXT NOT NULL,
        width INTEGER NOT NULL, height INTEGER NOT NULL, mines INTEGER NOT NULL,
        rules TEXT NOT NULL, first_click TEXT NOT NULL, first_row INTEGER, first_col INTEGER,
        seed INTEGER, result TEXT NOT NULL, clicks INTEGER NOT NULL, guesses INTEGER NOT NULL,
        guess_probabilities TEXT NOT NULL, seconds REAL NOT NULL, three_bv INTEGER,
        three_bv_per_second REAL)""")
    db.execute("CREATE INDEX games_by_configuration "
               "ON games (source, width, height, mines, rules, first_click)")
    db.execute("INSERT INTO games VALUES (1, '2026-01-01T00:00:00+00:00', 'simulator', 9, 9, "
               "10, 'standard', 'safe', 0, 0, 5, 'won', 20, 1, '[0.125]', 0.5, 15, 30.0)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with StatsStore(stats_path) as store:
        store.record(play_sim(SimConfig(9, 9, 10), seed=11))
        assert [(g.seed, g.strategy) for g in store.games()] == [
            (5, "lowest-probability"), (11, "lookahead")]
        # version 3: a desktop game's mine count may be unknown
        unknown = GameRecord("desktop/sgt-mines", 9, 9, None, "standard", "opening", None,
                             None, False, 3, (0.2,), 1.5, None, "lookahead")
        store.record(unknown)
        assert [_without_time(g) for g in store.games()][2] == unknown
    db = sqlite3.connect(stats_path)
    assert db.execute("SELECT id, mines FROM games ORDER BY id").fetchall() == [
        (1, 10), (2, 10), (3, None)]
    assert db.execute("SELECT three_bv_per_second FROM games WHERE id = 1").fetchone() == (30.0,)
    assert db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index'").fetchone() == (1,)
    db.close()


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("tables", [["games (id INTEGER PRIMARY KEY, mines TEXT)"],
                                    ["notes (id INTEGER PRIMARY KEY, text TEXT)"], []])
@pytest.mark.parametrize("read_only", [False, True])
def test_a_versioned_file_autoplay_did_not_write_is_refused_and_left_as_it_was(
        stats_path: Path, version: int, tables: list[str], read_only: bool) -> None:
    db = sqlite3.connect(stats_path)
    for table in tables:
        db.execute(f"CREATE TABLE {table}")
    db.execute(f"PRAGMA user_version = {version}")
    db.close()
    before = stats_path.read_bytes()
    with pytest.raises(StatsError, match=r"is not a statistics file: its tables \(\w*\) are "
                                         "not those autoplay writes"):
        StatsStore(stats_path, read_only=read_only)
    assert stats_path.read_bytes() == before
    assert sorted(p.name for p in stats_path.parent.iterdir()) == [stats_path.name]


@pytest.mark.parametrize("version", [-1, -3])
@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_of_a_negative_version_is_refused_and_left_as_it_was(
        stats_path: Path, version: int, read_only: bool) -> None:
    # Taken as an index from the end, -3 ran every migration on another program's file.
    db = sqlite3.connect(stats_path)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.execute(f"PRAGMA user_version = {version}")
    db.close()
    before = stats_path.read_bytes()
    with pytest.raises(StatsError, match=f"is not a statistics file: its schema version "
                                         f"{version} is not one autoplay writes"):
        StatsStore(stats_path, read_only=read_only)
    assert stats_path.read_bytes() == before


def test_a_file_from_a_newer_autoplay_is_refused(stats_path: Path) -> None:
    db = sqlite3.connect(stats_path)
    db.execute("PRAGMA user_version = 7")
    db.close()
    with pytest.raises(StatsError, match="has schema version 7, newer than the 3 this "
                                         "autoplay knows: upgrade autoplay"):
        StatsStore(stats_path)


def test_a_file_that_is_not_sqlite_is_refused(stats_path: Path) -> None:
    stats_path.write_text("not a database, but long enough to look like one " * 4)
    with pytest.raises(StatsError, match="is not a statistics file: file is not a database"):
        StatsStore(stats_path)


@pytest.mark.parametrize("kept", [0.99, 0.5])
def test_a_damaged_file_takes_no_more_games(stats_path: Path, kept: float) -> None:
    # A copy cut short: games were added to it, which no one could read back.
    with StatsStore(stats_path) as store:
        for seed in range(900):
            store.record(dataclasses.replace(A_GAME, seed=seed))
    data = stats_path.read_bytes()
    stats_path.write_bytes(data[:int(len(data) * kept)])
    before = stats_path.read_bytes()
    with pytest.raises(StatsError, match=f"^{re.escape(str(stats_path))} is damaged "
                                         r"\(SQLite: .+\): a copy cut short, say"):
        StatsStore(stats_path)
    assert stats_path.read_bytes() == before


def test_another_programs_database_is_refused_and_left_untouched(stats_path: Path) -> None:
    db = sqlite3.connect(stats_path)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.close()
    before = stats_path.read_bytes()
    with pytest.raises(StatsError,
                       match=r"is not a statistics file: it holds tables \(notes\) but no "
                             "schema version autoplay writes"):
        StatsStore(stats_path)
    assert stats_path.read_bytes() == before


def test_a_path_that_cannot_be_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    with pytest.raises(StatsError, match="cannot open statistics file"):
        StatsStore(tmp_path / "plain" / "stats.sqlite3")
    with pytest.raises(StatsError, match="cannot open statistics file"):
        StatsStore(tmp_path)


def test_a_file_another_program_holds_locked_is_one_error(
        stats_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("autoplay.stats.BUSY_SECONDS", 0.05)
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
        other = sqlite3.connect(stats_path, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StatsError, match="cannot record a game in .*: database is locked"):
            store.record(A_GAME)
        other.execute("ROLLBACK")
        store.record(A_GAME)  # the lock gone, it records again
        assert len(list(store.games())) == 2
        other.close()
    new = stats_path.with_name("new.sqlite3")  # not yet in WAL mode, where readers wait
    other = sqlite3.connect(new, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StatsError, match="cannot open statistics file .*: database is locked"):
        StatsStore(new)
    other.close()


def test_a_table_another_program_takes_away_is_one_error(stats_path: Path) -> None:
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
        with sqlite3.connect(stats_path) as other:
            other.execute("ALTER TABLE games RENAME TO kept")
        with pytest.raises(StatsError, match="cannot read .*: no such table: games$"):
            list(store.games())
        other.close()


@pytest.mark.parametrize("inside", ["x.sqlite3", "deeper/x.sqlite3"])
def test_a_file_where_the_folder_would_be_is_named(tmp_path: Path, inside: str) -> None:
    (tmp_path / "notes.txt").write_text("not a folder")
    path = tmp_path / "notes.txt" / inside
    with pytest.raises(StatsError, match=f"cannot open statistics file .*: {tmp_path}/notes.txt "
                                         "is a file, not a folder$"):
        StatsStore(path)


@pytest.mark.parametrize("read_only", [False, True])
def test_a_device_or_a_pipe_is_not_taken_for_a_statistics_file(tmp_path: Path,
                                                               read_only: bool) -> None:
    """SQLite says "disk I/O error" of both; an empty file would read as no games."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path in (Path(os.devnull), pipe):
        with pytest.raises(StatsError, match=f"^cannot open statistics file '{path}': it is "
                                             "not a regular file$"):
            StatsStore(path, read_only=read_only)


@pytest.mark.parametrize(("column", "value", "why"), [
    ("guess_probabilities", "not json", "Expecting value"),
    ("guess_probabilities", '{"a": 1}', "not a list of probabilities"),
    ("guess_probabilities", "[0.5, 2]", "not a list of probabilities"),
    ("width", "nine", "width 'nine' is not a whole number"),
    ("width", -5, "width -5 is under 1"),  # shown as a -5x16 board
    ("width", 100_000_000, "a 100000000x9 board is larger than any game autoplay plays"),
    ("height", 1001, "a 9x1001 board is larger than any game autoplay plays"),
    ("clicks", -1, "clicks -1 is under 0"),
    ("seconds", "x", "seconds 'x' is not a number"),
    ("seconds", 1e400, "seconds inf is not a duration"),  # --json wrote Infinity
    ("seconds", -2.0, "seconds -2.0 is not a duration"),
    ("three_bv", "y", "three_bv 'y' is not a whole number"),
    ("first_row", "a", "first_row 'a' is not a whole number"),
    ("first_row", -3, "first_row -3 is under 0"),  # shown as "safe at (-3, 7)"
    ("first_col", None, r"the first cell \(4, None\) is half given"),
    ("mines", 100_000, "100000 mines leave no safe cell on a 9x9 board"),
    ("mines", 81, "81 mines leave no safe cell on a 9x9 board"),
    ("first_row", 9, r"the first cell \(9, 7\) is off the 9x9 board"),
    ("first_col", 9, r"the first cell \(4, 9\) is off the 9x9 board"),
    ("source", b"A", "source b'A' is not text"),
    ("result", "drawn", "result 'drawn' is not one of won, lost"),
    ("rules", "weird", "rules 'weird' is not one of standard, kaboom"),
    ("first_click", "zzz", "first_click 'zzz' is not one of safe, opening, none"),
    ("strategy", "", "the strategy has no name"),
    ("guesses", 3, r"guesses 3 is not the number of guess odds \(1\)"),
    ("guess_probabilities", "[true]", "not a list of probabilities"),
    ("guess_probabilities", "[" * 100_000 + "]" * 100_000, "recursion"),
    ("seed", 0.5, "seed 0.5 is not a whole number"),
])
def test_a_damaged_row_is_named(stats_path: Path, column: str, value: object, why: str
                                ) -> None:
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
        second = store.record(dataclasses.replace(A_GAME, first_cell=Cell(4, 7)))
    db = sqlite3.connect(stats_path)
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, second))
    db.commit()
    db.close()
    with (StatsStore(stats_path) as store,
          pytest.raises(StatsError, match=f"game {second} is damaged.*{why}")):
        list(store.games())


def test_a_game_no_board_could_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="^81 mines leave no safe cell on a 9x9 board$"):
        dataclasses.replace(A_GAME, mines=81)
    with pytest.raises(ValueError, match=r"^the first cell \(2, 9\) is off the 9x9 board$"):
        dataclasses.replace(A_GAME, first_cell=Cell(2, 9))
    assert dataclasses.replace(A_GAME, width=1000, height=1000).width == 1000


def test_a_game_too_short_to_time_has_no_speed() -> None:
    game = dataclasses.replace(A_GAME, seconds=1e-320)  # 3BV / seconds overflows
    assert game.won and game.three_bv and game.three_bv_per_second is None


def test_sqlites_own_tables_do_not_make_a_file_anothers(stats_path: Path) -> None:
    """ANALYZE (or PRAGMA optimize, as the sqlite3 shell may run) adds sqlite_stat1."""
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
    db = sqlite3.connect(stats_path)
    db.execute("ANALYZE")
    db.close()
    with StatsStore(stats_path, read_only=True) as store:
        assert [_without_time(g) for g in store.games()] == [A_GAME]


def test_a_table_named_like_sqlites_own_is_anothers(stats_path: Path) -> None:
    """Only the sqlite_ prefix is SQLite's: another program's table may start with SQLite."""
    db = sqlite3.connect(stats_path)
    db.execute("CREATE TABLE SQLiteNotes (text TEXT)")
    db.close()
    before = stats_path.read_bytes()
    with pytest.raises(StatsError, match=r"it holds tables \(SQLiteNotes\) but no schema version"):
        StatsStore(stats_path)
    assert stats_path.read_bytes() == before


def test_two_runs_creating_one_file_at_once_both_open_it(stats_path: Path) -> None:
    """The second waits for the first's migration, then finds the file made."""
    stats_path.touch()
    first = sqlite3.connect(stats_path, isolation_level=None)
    first.execute("BEGIN IMMEDIATE")  # as a run that has begun to create the table
    opened: list[list[GameRecord] | BaseException] = []

    def second() -> None:
        try:
            with StatsStore(stats_path) as store:
                store.record(A_GAME)
                opened.append(list(store.games()))
        except BaseException as error:  # noqa: BLE001 - handed to the test below
            opened.append(error)

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(0.5)  # it has read version 0, and waits for the lock
    for migrate in _MIGRATIONS:
        migrate(first)
    first.execute(f"PRAGMA user_version = {len(_MIGRATIONS)}")
    first.execute("COMMIT")
    first.close()
    thread.join()
    [games] = opened
    assert isinstance(games, list), games
    assert [_without_time(g) for g in games] == [A_GAME]


def test_a_damaged_page_is_one_error(stats_path: Path) -> None:
    """Opening reads only the first page: a damaged later one shows when the games are read."""
    with StatsStore(stats_path) as store:
        for _ in range(300):
            store.record(A_GAME)
    with stats_path.open("r+b") as file:
        file.seek(2 * 4096)
        file.write(b"\xa5" * 4096)
    with (StatsStore(stats_path, read_only=True) as store,
          pytest.raises(StatsError, match="is damaged: database disk image is malformed")):
        list(store.games())


@pytest.fixture
def read_only_media(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system mounted read-only, filled while it was writable."""
    media = tmp_path / "media"
    media.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(media)],
                      capture_output=True, check=False).returncode != 0:
        pytest.skip("mounting a file system needs root")
    try:
        yield media
    finally:
        subprocess.run(["umount", str(media)], check=True)


def _remount_read_only(media: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(media)], check=True)


def test_a_new_file_on_read_only_media_is_refused_saying_why(read_only_media: Path) -> None:
    _remount_read_only(read_only_media)
    with pytest.raises(StatsError, match=f"cannot open statistics file .*: the folder "
                                         f"'{read_only_media}' cannot be written to$"):
        StatsStore(read_only_media / "new.sqlite3")


def test_a_file_on_read_only_media_is_refused_for_recording_saying_why(
        stats_path: Path, read_only_media: Path) -> None:
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
    shutil.copy(stats_path, read_only_media)
    _remount_read_only(read_only_media)
    with pytest.raises(StatsError, match=f"cannot open statistics file .*: the folder "
                                         f"'{read_only_media}' cannot be written to$"):
        StatsStore(read_only_media / stats_path.name)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root, to run a process without its right to override modes")
def test_a_file_that_cannot_be_written_is_refused_before_a_game_is_played(
        stats_path: Path) -> None:
    # sim played its first game, then stopped: "attempt to write a readonly database".
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
    stats_path.chmod(0o444)
    run = subprocess.run(  # root without CAP_DAC_OVERRIDE: the file's mode applies to it
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-m",
         "autoplay", "sim", "--preset", "beginner", "--games", "3", "--workers", "1",
         "--quiet", "--db", str(stats_path)], check=False, capture_output=True, text=True,
        timeout=120)
    assert (run.returncode, run.stderr) == (1, (f"Error: cannot open statistics file "
                                                f"'{stats_path}': it cannot be written to\n"))
    stats_path.chmod(0o644)
    with StatsStore(stats_path, read_only=True) as store:
        assert len(list(store.games())) == 1


def test_a_missing_folder_is_made_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "new" / "stats.sqlite3"
    with pytest.raises(StatsError, match=f"there is no folder '{tmp_path}/new'$"):
        StatsStore(path)
    with StatsStore(path, make_folder=True) as store:
        store.record(A_GAME)
    assert path.is_file()


def test_a_file_on_read_only_media_reads(stats_path: Path, read_only_media: Path) -> None:
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
    shutil.copy(stats_path, read_only_media)
    _remount_read_only(read_only_media)
    with StatsStore(read_only_media / stats_path.name, read_only=True) as store:
        assert [_without_time(g) for g in store.games()] == [A_GAME]


def test_an_older_file_on_read_only_media_reads_migrated_in_memory(
        stats_path: Path, read_only_media: Path) -> None:
    # Migrating it for reading wrote to it: "attempt to write a readonly database".
    db = sqlite3.connect(read_only_media / stats_path.name)
    _MIGRATIONS[0](db)
    db.execute("INSERT INTO games VALUES (1, '2026-01-01T00:00:00+00:00', 'simulator', 9, 9, "
               "10, 'standard', 'safe', 0, 0, 5, 'won', 20, 1, '[0.125]', 0.5, 15, 30.0)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    before = (read_only_media / stats_path.name).read_bytes()
    _remount_read_only(read_only_media)
    with StatsStore(read_only_media / stats_path.name, read_only=True) as store:
        assert [(g.seed, g.won, g.strategy) for g in store.games()] == [
            (5, True, "lowest-probability")]
    assert (read_only_media / stats_path.name).read_bytes() == before


def test_games_in_a_log_on_read_only_media_are_not_left_out(
        stats_path: Path, read_only_media: Path) -> None:
    """A run killed before its log was folded in leaves games in ``-wal`` alone, which
    SQLite cannot read where it cannot write its index beside it."""
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
        shutil.copy(stats_path, read_only_media)  # still open: the game is in the log
        shutil.copy(f"{stats_path}-wal", read_only_media)
    assert os.path.getsize(read_only_media / f"{stats_path.name}-wal") > 0
    _remount_read_only(read_only_media)
    with pytest.raises(StatsError, match="its latest games are in stats.sqlite3-wal, which "
                                         "SQLite reads only in a folder it can write to"):
        StatsStore(read_only_media / stats_path.name, read_only=True)


def test_killing_a_run_loses_no_finished_game(stats_path: Path) -> None:
    with subprocess.Popen(
            [sys.executable, "-m", "autoplay", "sim", "--board", "9x9/10", "--games", "100000",
             "--seed", "3", "--workers", "1", "--quiet", "--db", str(stats_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as run:
        try:
            seen = _count_when_at_least(stats_path, 25, run)
        finally:
            run.kill()  # SIGKILL: no handler, no clean-up, no last commit
    with StatsStore(stats_path) as store:
        games = list(store.games())
    assert len(games) >= seen >= 25
    # Played in order, one worker: exactly the first games of the run, each complete.
    assert [g.seed for g in games] == [game_seed(3, i) for i in range(len(games))]
    replay = play_sim(SimConfig(9, 9, 10), games[-1].seed or 0)
    assert (replay.won, replay.clicks, replay.guesses) == (
        games[-1].won, games[-1].clicks, games[-1].guesses)
    db = sqlite3.connect(stats_path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def _count_when_at_least(path: Path, count: int, run: subprocess.Popen[bytes]) -> int:
    """Poll the file (as another reader) until it holds ``count`` games."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert run.poll() is None, run.stderr.read().decode() if run.stderr else ""
        if path.exists():
            try:
                db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                seen: int = db.execute("SELECT count(*) FROM games").fetchone()[0]
                db.close()
                if seen >= count:
                    return seen
            except sqlite3.OperationalError:
                pass  # the table is not created yet
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} games recorded in a minute")


def test_reading_alone_writes_nothing(stats_path: Path) -> None:
    """``autoplay stats`` opens the file for reading alone: it reads on read-only media."""
    with StatsStore(stats_path) as store:
        store.record(A_GAME)
    before = {path.name: path.read_bytes() for path in stats_path.parent.iterdir()}
    with StatsStore(stats_path, read_only=True) as store:
        assert [_without_time(g) for g in store.games()] == [A_GAME]
    assert {path.name: path.read_bytes() for path in stats_path.parent.iterdir()} == before


def test_an_empty_file_read_alone_has_no_games_and_stays_empty(stats_path: Path) -> None:
    stats_path.write_bytes(b"")
    with StatsStore(stats_path, read_only=True) as store:
        assert list(store.games()) == []
    assert stats_path.read_bytes() == b""


def test_a_version_1_file_read_alone_is_migrated_first(stats_path: Path) -> None:
    db = sqlite3.connect(stats_path)
    _MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with StatsStore(stats_path, read_only=True) as store:
        assert list(store.games()) == []
    db = sqlite3.connect(stats_path)
    assert db.execute("PRAGMA user_version").fetchone() == (3,)
    db.close()
