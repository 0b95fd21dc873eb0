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

A value too long to show whole also gets where it first differs, so that two results
that begin alike still show what is wrong:

    >>> check("sums", lambda: {"text": "a" * 200, "usage": {"output_tokens": 59}},
    ...       {"text": "a" * 200, "usage": {"output_tokens": 58}})  # doctest: +ELLIPSIS
    ✘ sums: got {'text': 'aaa...; first difference: ['usage']['output_tokens'] is 59, expected 58

Both print and return None, so a check cell shows only their lines; `passes` is the
same check, which also returns whether it passed, for code that needs the answer.

A check labelled in Chinese (the Chinese edition translates the labels) reports in Chinese:

    >>> check("数出两个事件", lambda: None, 2)
    ✘ 数出两个事件：得到 None，应为 2（还没有作答？）
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..language import say
from .i18n import LESSON_CHECK

__all__ = ["check", "check_all", "compare_guess", "passes"]

_SHOWN = 120  # characters of a value shown in a message: enough to see what differs
_CJK = re.compile(r"[\u4e00-\u9fff]")  # a label with Chinese in it gets Chinese messages


def _words(*labels: str) -> Mapping[str, str]:
    """The words of a check's line (`i18n.LESSON_CHECK`): Chinese for a Chinese label."""
    return LESSON_CHECK["zh" if any(_CJK.search(say(label)) for label in labels) else "en"]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _first_difference(got: Any, expected: Any, words: Mapping[str, str], where: str = "") -> str:
    """Where `got` first differs from `expected` (dicts key by key, lists and tuples item by
    item, long strings from just before the first character that differs), as a clause of a
    check's line."""
    if isinstance(got, dict) and isinstance(expected, dict):
        for key in [*expected, *(key for key in got if key not in expected)]:
            inner = f"{where}[{key!r}]"
            if key in got and key in expected:
                if got[key] != expected[key]:
                    return _first_difference(got[key], expected[key], words, inner)
            else:
                mine = _short(got[key]) if key in got else words["missing"]
                theirs = _short(expected[key]) if key in expected else words["missing"]
                return words["first"].format(where=inner, got=mine, expected=theirs)
        return ""
    if isinstance(got, list | tuple) and isinstance(expected, list | tuple):
        for index, (mine, theirs) in enumerate(zip(got, expected, strict=False)):
            if mine != theirs:
                return _first_difference(mine, theirs, words, f"{where}[{index}]")
        said = words["length at"] if where else words["length"]  # where: a list inside
        return said.format(where=where, count=len(got), expected=len(expected))
    if isinstance(got, str) and isinstance(expected, str) and max(len(got), len(expected)) > 40:
        pairs = enumerate(zip(got, expected, strict=False))
        at = next((i for i, (a, b) in pairs if a != b), min(len(got), len(expected)))
        start, end = max(0, at - 10), at + 20  # a little before the first difference
        mine, theirs = _short(got[start:end]), _short(expected[start:end])
        return words["first"].format(where=f"{where}[{start}:{end}]", got=mine, expected=theirs)
    return words["first"].format(where=where or "it", got=_short(got), expected=_short(expected))


def passes(what: str, compute: Callable[[], Any], expected: Any) -> bool:
    """Whether `check(what, compute, expected)` passes, printing its line.

    >>> passes("one", lambda: 1, 1)
    ✔ one
    True
    """
    words = _words(what)
    try:
        got = compute()
    except Exception as error:  # a learner's bug is reported, not raised: the lesson goes on
        lang = "zh" if _CJK.search(say(what)) else "en"
        said = f"{type(error).__name__}: {say(_stub_words(str(error)), lang)}"
        print("✘ " + words["raised"].format(what=what, error=said))
        return False
    if got == expected:
        print(f"✔ {what}")
        return True
    hint = words["unanswered"] if got is None or got is Ellipsis else ""
    shown, wanted = _short(got), _short(expected)
    line = words["got"].format(what=what, got=shown, expected=wanted)
    if shown.endswith("…") or wanted.endswith("…"):  # cut short: say where they differ
        line += _first_difference(got, expected, words)
    print(f"✘ {line}{hint}")
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
    words = _words(*(what for what, _, _ in checks))
    print(words["all" if all(passed) else "some"].format(count=len(passed), passed=sum(passed)))


def compare_guess(guess: Any, answer: Any, lang: str = "en") -> None:
    """Print how the learner's prediction (`guess`, typed in the cell before; `...` while
    not written) compares with `answer` (==). `lang`: "zh" for the Chinese edition.

    >>> compare_guess(..., 1)
    (no guess yet: write it in the cell above, then run this one again)
    >>> compare_guess(1, 1)
    ✔ you guessed 1: right
    >>> compare_guess("a few", 1)
    ✘ you guessed 'a few'; it is 1
    """
    words = LESSON_CHECK[lang]
    if guess is Ellipsis:
        print(words["no guess"])
    else:
        print(words["right" if guess == answer else "wrong"].format(guess=guess, answer=answer))


def _stub_words(message: str) -> str:
    """A stub's message ("write feed in my_client/lines.py (lesson 02)"), to be said in
    the check's language; any other as it is."""
    from .my_client import stub_words  # the stubs' own module: imported when one raised

    return stub_words(message)
