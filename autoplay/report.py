"""What the recorded games say: summaries per configuration, strategies compared on the same
games, and a picture of them.

A win rate means little without its uncertainty, so each comes with its 95% Wilson interval,
which stays inside [0, 1] and behaves near 0% and 100% (where Kaboom's rates live), unlike
the textbook p ± 1.96·sqrt(p(1-p)/n).

>>> low, high = wilson_interval(38, 100)
>>> round(low, 3), round(high, 3)
(0.291, 0.478)

Simulated games also get an *odds-adjusted* win rate (:func:`odds_adjusted`), which
measures the same rate with less noise: the games won, corrected for how much better or
worse their guesses fell than the odds they were taken at.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autoplay.board import Cell
from autoplay.errors import AutoplayError
from autoplay.stats import GameRecord

_Z95 = 1.959963984540054
"""The standard normal quantile of 97.5%: two-sided 95%."""


@dataclass(frozen=True, slots=True)
class Configuration:
    """What makes games comparable: who dealt them, their size, mines and rules."""

    source: str
    width: int
    height: int
    mines: int | None
    """None: a desktop game's count, neither given nor shown."""
    rules: str
    first_click: str
    first_cell: Cell | None
    strategy: str
    """How the player guessed: games of two strategies are compared, never pooled."""

    @classmethod
    def of(cls, game: GameRecord) -> Configuration:
        """The configuration a game was played in."""
        return cls(game.source, game.width, game.height, game.mines, game.rules,
                   game.first_click, game.first_cell, game.strategy)

    @property
    def board(self) -> str:
        """The board as ``WxH/M``, such as ``30x16/99`` (``9x9/?``: mines not known)."""
        return f"{self.width}x{self.height}/{'?' if self.mines is None else self.mines}"

    @property
    def opening(self) -> str:
        """The first click, such as ``safe at (0, 0)``."""
        where = "" if self.first_cell is None else f" at {tuple(self.first_cell)}"
        return f"{self.first_click}{where}"

    @property
    def game(self) -> str:
        """The game without the player, such as ``30x16/99 standard, first click safe at
        (0, 0)``."""
        source = "" if self.source == "simulator" else f"{self.source}: "
        return f"{source}{self.board} {self.rules}, first click {self.opening}"

    def __str__(self) -> str:
        """For example ``30x16/99 standard, first click safe at (0, 0), lookahead guesses``."""
        return f"{self.game}, {self.strategy} guesses"


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over games corrected by a control, with its 95% interval (the normal
    approximation)."""

    value: float
    ci95: tuple[float, float]
    coefficient: float
    """Each game's value was corrected by this many times its control."""

    @classmethod
    def controlled(cls, values: list[float], controls: list[float]) -> Estimate:
        """The mean of ``values`` less the part of it that ``controls``, whose true mean is
        0, explain: each value less ``b`` times its control, ``b`` the regression coefficient
        of values on controls in these games (0 when the controls do not vary). Whatever
        ``b`` is, the mean stays the same in expectation; this one makes the spread, and so
        the interval, the smallest (a control variate).

        >>> estimate = Estimate.controlled([1.0, 1.0, 0.0, 1.0], [0.5, 0.5, -0.5, 0.5])
        >>> estimate.coefficient, estimate.value, estimate.ci95
        (1.0, 0.5, (0.5, 0.5))
        """
        spread = statistics.variance(controls)
        b = statistics.covariance(values, controls) / spread if spread else 0.0
        corrected = [value - b * control for value, control in zip(values, controls)]
        mean = statistics.fmean(corrected)
        half = _Z95 * statistics.stdev(corrected, mean) / math.sqrt(len(corrected))
        return cls(mean, (mean - half, mean + half), b)

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        return {"value": self.value, "ci95": list(self.ci95), "coefficient": self.coefficient}


MIN_ADJUSTED = 100
"""The fewest games an odds-adjusted rate is given for."""
MIN_EACH = 10
"""The fewest games won and lost (for a difference, won by one strategy alone) an
odds-adjusted rate is given for. A normal interval needs both outcomes many times: 100
games won without a guess would make one of a single point, where the Wilson interval of
the games won says 96.3-100%."""


def luck(game: GameRecord) -> float:
    """How much better a game's guesses fell than their odds: the sum of their mine
    probabilities, less 1 if one hit a mine (the last guess of a game lost).

    In a game dealt uniformly among the layouts of its size, everything it has shown leaves
    each layout that fits it equally likely, so a guess at exact odds p hits a mine with
    chance exactly p, and a game's luck is 0 on average.

    >>> luck(GameRecord("simulator", 9, 9, 10, "standard", "safe", None, 1, False, 3,
    ...                 (0.25, 0.5), 0.01, None))
    -0.25
    """
    return sum(game.guesses) - (not game.won)


def is_dealt_uniformly(configuration: Configuration) -> bool:
    """Whether the odds of a configuration's guesses are the chances they hit a mine: the
    simulator's standard games. Kaboom places mines against the player, and desktop games
    deal their own way (Tatham's Mines, one that needs no guess)."""
    return configuration.source == "simulator" and configuration.rules == "standard"


def odds_adjusted(games: list[GameRecord]) -> Estimate | None:
    """The odds-adjusted win rate of ``games``, all of one configuration: the share of them
    won, less the part of it their :func:`luck` explains (:meth:`Estimate.controlled`). It
    estimates the same win rate, and its interval is narrower (0.46 times as wide on
    beginner, 0.68 on expert, in the README's runs); None when the games are not dealt
    uniformly (:func:`is_dealt_uniformly`) or are too few (:data:`MIN_ADJUSTED`,
    :data:`MIN_EACH`).

    Exact in expectation when every guess's odds are exact, as they are unless a position
    ran past the counting work bound, which the run logs (never on the presets).
    """
    if not games:
        return None
    wins = sum(game.won for game in games)
    if not _adjustable(Configuration.of(games[0]), len(games), min(wins, len(games) - wins)):
        return None
    return Estimate.controlled([float(game.won) for game in games], [luck(g) for g in games])


def _adjustable(configuration: Configuration, games: int, rarer: int) -> bool:
    """Whether ``games`` of ``configuration``, the rarer of their two outcomes (lost or won;
    for a difference, won by one strategy alone) seen ``rarer`` times, get an odds-adjusted
    figure (:data:`MIN_ADJUSTED`, :data:`MIN_EACH`)."""
    return (is_dealt_uniformly(configuration) and games >= MIN_ADJUSTED
            and rarer >= MIN_EACH)


@dataclass(frozen=True, slots=True)
class Summary:
    """The games of one configuration, summed up."""

    configuration: Configuration
    games: int
    wins: int
    guesses_per_game: float
    seconds_per_game: float
    """The mean, which sets how long a run takes."""
    median_seconds: float
    """The median, the usual speed figure: a few long games do not move it."""
    three_bv_per_second: float | None
    """The mean over won games whose 3BV is known; None if there are none."""
    odds_adjusted: Estimate | None = None
    """The odds-adjusted win rate (see :func:`odds_adjusted`), where there is one."""

    @property
    def win_rate(self) -> float:
        """The share of games won."""
        return self.wins / self.games

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        c = self.configuration
        return {
            "source": c.source, "width": c.width, "height": c.height, "mines": c.mines,
            "rules": c.rules, "first_click": c.first_click,
            "first_cell": None if c.first_cell is None else list(c.first_cell),
            "strategy": c.strategy,
            "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
            "ci95": list(self.ci95), "guesses_per_game": self.guesses_per_game,
            "seconds_per_game": self.seconds_per_game, "median_seconds": self.median_seconds,
            "three_bv_per_second": self.three_bv_per_second,
            "odds_adjusted": None if self.odds_adjusted is None
            else self.odds_adjusted.as_dict(),
        }


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of ``successes`` in ``trials``.

    :raises ValueError: when there are no trials.
    """
    if trials <= 0:
        raise ValueError(f"a rate needs at least one trial, got {trials}")
    rate = successes / trials
    spread = _Z95 ** 2 / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = _Z95 * math.sqrt(rate * (1 - rate) / trials + spread / (4 * trials)) / (1 + spread)
    # The interval always holds the rate itself; min and max only undo rounding at 0 and 1.
    return max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half))


def first_plays(games: Iterable[GameRecord]) -> tuple[list[GameRecord], int]:
    """The games with each deal once, and how many replays were left out.

    A seed played again in the same configuration (a run replayed into the same file) deals
    the same board: counted twice, it would narrow the intervals with no new evidence. The
    first play of each seed stays; games without a seed (desktop games) all count.
    """
    kept: list[GameRecord] = []
    seen: set[tuple[Configuration, int]] = set()
    replays = 0
    for game in games:
        if game.seed is not None:
            deal = (Configuration.of(game), game.seed)
            if deal in seen:
                replays += 1
                continue
            seen.add(deal)
        kept.append(game)
    return kept, replays


def summarize(games: Iterable[GameRecord]) -> list[Summary]:
    """One summary per configuration: by source, standard rules first, board size, then a
    first click that is safe before one that opens."""
    groups: dict[Configuration, list[GameRecord]] = {}
    for game in games:
        groups.setdefault(Configuration.of(game), []).append(game)
    summaries = []
    for configuration, group in sorted(groups.items(), key=lambda item: _order(item[0])):
        speeds = [s for s in (g.three_bv_per_second for g in group) if s is not None]
        seconds = [g.seconds for g in group]
        summaries.append(Summary(
            configuration, len(group), sum(g.won for g in group),
            statistics.fmean(len(g.guesses) for g in group), statistics.fmean(seconds),
            statistics.median(seconds), statistics.fmean(speeds) if speeds else None,
            odds_adjusted(group)))
    return summaries


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two strategies on the same games: one configuration, the seeds both played.

    Paired, so the luck of the deal cancels: only the games one strategy won and the other
    lost tell them apart.
    """

    configuration: Configuration
    """The configuration, with the first strategy."""
    strategies: tuple[str, str]
    games: int
    """Seeds played by both."""
    wins: tuple[int, int]
    only: tuple[int, int]
    """Games won by one strategy and lost by the other."""
    odds_adjusted: Estimate | None = None
    """The first strategy's odds-adjusted win rate less the second's, game by game (see
    :func:`odds_adjusted`), where there is one."""

    @property
    def difference(self) -> float:
        """The first strategy's win rate less the second's, on these games."""
        return (self.wins[0] - self.wins[1]) / self.games

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% interval of the difference, for paired games: Newcombe's hybrid score
        interval (his method 10, 1998). The normal approximation shrinks to a point when
        no game, or few, was won by one strategy alone, as if 20 games settled it; this one
        joins the two rates' Wilson intervals, weighed by how the games pair."""
        n = self.games
        first, second = self.only
        both = self.wins[0] - first
        neither = n - both - first - second
        rate1, rate2 = self.wins[0] / n, self.wins[1] / n
        low1, high1 = wilson_interval(self.wins[0], n)
        low2, high2 = wilson_interval(self.wins[1], n)
        margins = self.wins[0] * (n - self.wins[0]) * self.wins[1] * (n - self.wins[1])
        excess = both * neither - first * second
        corrected = excess if excess < 0 else max(excess - n / 2, 0)  # Newcombe's correction
        phi = corrected / math.sqrt(margins) if margins else 0.0
        below = math.sqrt(max(0.0, (rate1 - low1) ** 2 + (high2 - rate2) ** 2
                              - 2 * phi * (rate1 - low1) * (high2 - rate2)))
        above = math.sqrt(max(0.0, (high1 - rate1) ** 2 + (rate2 - low2) ** 2
                              - 2 * phi * (high1 - rate1) * (rate2 - low2)))
        return self.difference - below, self.difference + above

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        return {"game": self.configuration.game,
                "strategies": list(self.strategies), "games": self.games,
                "wins": list(self.wins), "only": list(self.only),
                "difference": self.difference, "ci95": list(self.ci95),
                "odds_adjusted": None if self.odds_adjusted is None
                else self.odds_adjusted.as_dict()}


def compare(games: Iterable[GameRecord]) -> list[Comparison]:
    """Each pair of strategies played on the same seeds in the same configuration.

    A seed played twice by one strategy counts once (its first game, see :func:`first_plays`).
    """
    by_strategy: dict[Configuration, dict[str, dict[int, GameRecord]]] = {}
    for game in first_plays(games)[0]:
        if game.seed is None:
            continue
        bare = dataclasses.replace(Configuration.of(game), strategy="")
        by_strategy.setdefault(bare, {}).setdefault(game.strategy, {})[game.seed] = game
    comparisons = []
    for bare, results in sorted(by_strategy.items(), key=lambda item: _order(item[0])):
        for first, second in itertools.combinations(sorted(results), 2):
            seeds = results[first].keys() & results[second].keys()
            if not seeds:
                continue
            pairs = [(results[first][seed], results[second][seed]) for seed in seeds]
            a = [x.won for x, _ in pairs]
            b = [y.won for _, y in pairs]
            only = (sum(x and not y for x, y in zip(a, b)), sum(y and not x for x, y in zip(a, b)))
            adjusted = None
            if _adjustable(bare, len(pairs), sum(only)):
                adjusted = Estimate.controlled([float(x.won) - y.won for x, y in pairs],
                                               [luck(x) - luck(y) for x, y in pairs])
            comparisons.append(Comparison(
                dataclasses.replace(bare, strategy=first), (first, second), len(seeds),
                (sum(a), sum(b)), only, adjusted))
    return comparisons


def _order(c: Configuration) -> tuple[str, bool, int, int, bool, tuple[int, ...], str]:
    return (c.source, c.rules != "standard", c.width * c.height, -1 if c.mines is None else c.mines,
            c.first_click != "safe", tuple(c.first_cell or ()), c.strategy)


_FEW = 5
"""Fewer won (or lost) games of a configuration than this are drawn one by one too."""


def plot(games: Iterable[GameRecord], path: str | Path) -> None:
    """Draw the win rate of each configuration with its interval, beside how long its won
    and lost games ran (in clicks and in seconds), and save it as an image at ``path``.
    A deal played twice counts once (its first game, see :func:`first_plays`).

    :raises AutoplayError: when the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.patches import Patch

    games = first_plays(games)[0]
    summaries = summarize(games)
    rows = range(len(summaries))
    labels = [str(s.configuration).replace(", ", "\n", 1) for s in summaries]
    by_configuration: dict[Configuration, list[GameRecord]] = {}
    for game in games:
        by_configuration.setdefault(Configuration.of(game), []).append(game)
    height = 1.6 + 0.75 * len(summaries)
    figure, (rates, clicks, seconds) = plt.subplots(
        1, 3, figsize=(15, height), sharey=True, gridspec_kw={"width_ratios": [1.4, 1, 1]},
        layout=ConstrainedLayoutEngine(wspace=0.04))
    won_colour, lost_colour = "#2a9d8f", "#e76f51"

    lows = [s.win_rate - s.ci95[0] for s in summaries]
    highs = [s.ci95[1] - s.win_rate for s in summaries]
    rates.barh(rows, [100.0] * len(summaries), color=lost_colour, alpha=0.25, height=0.6)
    rates.barh(rows, [100 * s.win_rate for s in summaries], color=won_colour, alpha=0.9,
               height=0.6)
    rates.errorbar([100 * s.win_rate for s in summaries], rows,
                   xerr=[[100 * x for x in lows], [100 * x for x in highs]], fmt="none",
                   ecolor="black", capsize=5, linewidth=1.2)
    for row, s in zip(rows, summaries):
        low, high = s.ci95
        rates.text(103, row,
                   f"{100 * s.win_rate:.1f}%  [{100 * low:.1f}, {100 * high:.1f}]\n"
                   f"{s.games:,} game{'' if s.games == 1 else 's'}\n"
                   f"{s.guesses_per_game:.2f} guesses/game",
                   va="center", fontsize=8.5, clip_on=True)
    rates.set_xlim(0, 178)
    rates.set_xticks(range(0, 101, 20))
    rates.set_xlabel("games won (%)\n(black bars: 95% Wilson interval)")
    rates.set_yticks(list(rows), labels, fontsize=9)
    rates.invert_yaxis()
    rates.set_title("Win rate", loc="left", fontweight="bold")

    for axes, measure, title, unit in (
            (clicks, lambda g: float(g.clicks), "Game length", "clicks per game"),
            (seconds, lambda g: 1000 * g.seconds, "Time per game", "milliseconds, log scale")):
        for offset, won, colour in ((-0.17, True, won_colour), (0.17, False, lost_colour)):
            data = [[measure(g) for g in by_configuration[s.configuration] if g.won == won]
                    for s in summaries]
            present = [i for i, values in enumerate(data) if values]
            if not present:
                continue
            parts = axes.boxplot([data[i] for i in present],
                                 positions=[i + offset for i in present],
                                 orientation="horizontal", widths=0.28, patch_artist=True,
                                 showfliers=False, manage_ticks=False)
            for box in parts["boxes"]:
                box.set(facecolor=colour, alpha=0.8, edgecolor="black", linewidth=0.8)
            for median in parts["medians"]:
                median.set(color="black", linewidth=1.4)
            for i in present:  # a box of so few games is a line: each is a dot of its colour
                if len(data[i]) < _FEW:
                    axes.scatter(data[i], [i + offset] * len(data[i]), s=30, color=colour,
                                 edgecolors="black", linewidths=0.6, zorder=3)
        axes.set_xlabel(f"{unit}\n(box: the middle half of the games; line: median)")
        axes.set_title(title, loc="left", fontweight="bold")
        axes.grid(axis="x", alpha=0.3)
    seconds.set_xscale("log")
    figure.legend(handles=[Patch(color=won_colour, label="games won"),
                           Patch(color=lost_colour, label="games lost")],
                  loc="outside upper right", ncols=2, fontsize=9, frameon=False)
    figure.suptitle(f"autoplay: {len(games):,} games (a replayed deal counted once)",
                    x=0.01, ha="left", fontsize=12, fontweight="bold")
    made = not Path(path).exists()
    try:
        figure.savefig(path, dpi=110)
    except OSError as error:
        if made:  # a file begun on a disk that filled leaves no empty picture behind
            Path(path).unlink(missing_ok=True)
        raise AutoplayError(f"cannot write {path}: {error.strerror}") from None
    finally:
        plt.close(figure)
