"""Timing on a busy machine: best of several runs, contenders interleaved, slopes.

Other programs share the CPU, so one run can be slowed down at any moment.
Two habits make the comparison fair anyway:

- **interleave**: the contenders take turns (ours, the SDK's, ours, ...), so
  a burst of load hits all of them alike instead of one whole series;
- **best of n**: noise only ever adds time, so the fastest run is the
  closest to the true cost.

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
import time
from collections.abc import Callable, Sequence
from typing import Any


def interleaved_best(
    contenders: dict[str, tuple[Callable[[], Any], int]],
) -> dict[str, tuple[float, Any]]:
    """Run every contender (name -> (function, runs)) in turns.

    Returns name -> (best seconds, last result). A contender with fewer runs simply
    drops out of the later turns.
    """
    best: dict[str, float] = {name: math.inf for name in contenders}
    results: dict[str, Any] = {}
    for turn in range(max(runs for _, runs in contenders.values())):
        for name, (function, runs) in contenders.items():
            if turn >= runs:
                continue
            results[name] = None  # free the previous result before the next run
            gc.collect()  # start every run with the same (empty) garbage
            start = time.perf_counter()
            results[name] = function()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: (best[name], results[name]) for name in contenders}


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
