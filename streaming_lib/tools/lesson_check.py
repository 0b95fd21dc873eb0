"""The checks behind the lessons' "your turn" tasks: print ✔ or ✘ with what went wrong.

A "your turn" task in a lesson is four cells: the task (markdown), the learner's
cell, a check cell, and the reference answer (collapsed) that runs the same check.
The check never raises: a learner who has not answered yet sees "✘ … not yet",
and the lesson goes on with the reference answer.

    >>> check("splits at the first colon", lambda: "data: a:b".split(":", 1), ["data", " a:b"])
    ✔ splits at the first colon
    >>> check("counts two events", lambda: None, 2)
    ✘ counts two events: got None, expected 2 (not answered yet?)
    >>> check("parses", lambda: int("x"), 1)
    ✘ parses: raised ValueError: invalid literal for int() with base 10: 'x'

Both print and return None, so a check cell shows only their lines; `passes` is the
same check, silent, for code that needs the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["check", "check_all", "passes"]

_SHOWN = 120  # characters of a value shown in a message: enough to see what differs


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def passes(what: str, compute: Callable[[], Any], expected: Any) -> bool:
    """Whether `check(what, compute, expected)` passes, printing its line.

    >>> passes("one", lambda: 1, 1)
    ✔ one
    True
    """
    try:
        got = compute()
    except Exception as error:  # a learner's bug is reported, not raised: the lesson goes on
        print(f"✘ {what}: raised {type(error).__name__}: {error}")
        return False
    if got == expected:
        print(f"✔ {what}")
        return True
    hint = " (not answered yet?)" if got is None or got is Ellipsis else ""
    print(f"✘ {what}: got {_short(got)}, expected {_short(expected)}{hint}")
    return False


def check(what: str, compute: Callable[[], Any], expected: Any) -> None:
    """Run `compute()`, compare its result with `expected` (==), print one line: ✔ `what`,
    or ✘ `what` and what went wrong.

    `what`: the rule the check pins, as the learner reads it ("a CR|LF split is one
    line ending"). A result of None or Ellipsis (a stub's) adds "not answered yet?".
    An exception from `compute` is reported by its type and message, never raised.
    """
    passes(what, compute, expected)


def check_all(checks: list[tuple[str, Callable[[], Any], Any]]) -> None:
    """Run several `check`s in order (all of them, even after a failure), then a last line
    that says how many passed.

    >>> check_all([("one", lambda: 1, 1), ("two", lambda: 2, 2)])
    ✔ one
    ✔ two
    All 2 checks pass.
    """
    passed = [passes(what, compute, expected) for what, compute, expected in checks]
    if all(passed):
        print(f"All {len(passed)} checks pass.")
    else:
        print(f"{sum(passed)} of {len(passed)} checks pass.")
