"""Timing on a busy machine: best of several runs, contenders interleaved, slopes.

Other programs share the CPU, so one run can be slowed down at any moment.
Two habits make the comparison fair anyway:

- **interleave**: the contenders take turns (ours, the SDK's, ours, ...), so
  a burst of load hits all of them alike instead of one whole series;
- **best of n**: noise only ever adds time, so the fastest run is the
  closest to the true cost.

Where two contenders are compared by a ratio on a busy machine, `paired_ratio`
takes the median of their turn-by-turn ratios, which the load moves less than
the ratio of two bests.

`slope` fits a straight line to (size, time) on log-log axes: a slope of 1 is
linear time, 2 quadratic. `extrapolate` uses that line to predict a run too
slow to make (the SDK's re-parse on a large tool input).

    >>> round(slope([1, 2, 4], [3.0, 12.0, 48.0]), 6)
    2.0
    >>> round(extrapolate([1, 2], [3.0, 12.0], 8), 6)
    192.0
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def interleaved_best(
    contenders: dict[str, tuple[Callable[[], Any], int]],
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, tuple[float, Any]]:
    """Run every contender (name -> (function, runs)) in turns.

    Returns name -> (best seconds, last result). A contender with fewer runs simply
    drops out of the later turns. `clock`: wall time unless told (see `interleaved_runs`).
    """
    runs = interleaved_runs(contenders, clock)
    return {name: (min(times), result) for name, (times, result) in runs.items()}


def interleaved_runs(
    contenders: dict[str, tuple[Callable[[], Any], int]],
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, tuple[list[float], Any]]:
    """Run every contender (name -> (function, runs)) in turns; return name ->
    (the seconds of each of its runs, in turn order; its last result).

    `clock`: wall time unless told; `time.process_time` counts only the CPU time
    this process used, so the time other programs hold the CPU is left out
    (for contenders that never wait on anything).
    """
    times: dict[str, list[float]] = {name: [] for name in contenders}
    results: dict[str, Any] = {}
    for turn in range(max(runs for _, runs in contenders.values())):
        for name, (function, runs) in contenders.items():
            if turn >= runs:
                continue
            results[name] = None  # free the previous result before the next run
            gc.collect()  # start every run with the same (empty) garbage
            start = clock()
            results[name] = function()
            times[name].append(clock() - start)
    return {name: (times[name], results[name]) for name in contenders}


def paired_ratio(times: Sequence[float], against: Sequence[float]) -> float:
    """The median, over the turns of `interleaved_runs`, of one contender's time
    over another's in the same turn: the two ran a few milliseconds apart, under
    the same load, so a burst that slows one run only moves one ratio.

        >>> paired_ratio([2.0, 2.2, 9.0], [1.0, 2.0, 1.0])
        2.0
    """
    return statistics.median(mine / theirs for mine, theirs in zip(times, against, strict=True))


def _fit(sizes: Sequence[float], times: Sequence[float]) -> tuple[float, float]:
    """Least squares on (log size, log time): (slope, intercept)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    covariance = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = covariance / sum((x - mx) ** 2 for x in xs)
    return slope, my - slope * mx


def slope(sizes: Sequence[float], times: Sequence[float]) -> float:
    """The log-log slope of time against size (1: linear, 2: quadratic); needs two sizes or more."""
    return _fit(sizes, times)[0]


def extrapolate(sizes: Sequence[float], times: Sequence[float], size: float) -> float:
    """The time the fitted log-log line predicts at `size` (seconds)."""
    fitted_slope, intercept = _fit(sizes, times)
    return math.exp(intercept + fitted_slope * math.log(size))
