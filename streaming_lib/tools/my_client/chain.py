"""`python -m streaming_lib my-client`: the learner's client, stage by stage, on every fixture.

The learner's stages (`my_client/`: lines, sse, accumulator, tool_input) run on every
fixture whose message the library itself gets the same as the SDK (`fixtures/NAME.sdk.json`),
with the bytes in chunks of 1 and 7 bytes and whole. Each stage gets the same input as the
library's stage, so a difference is the stage's own:

- sse (lesson 01): the learner's events from the library's lines; each event's type, data,
  id and retry against the library's (which pass the WHATWG corpus);
- lines (lesson 02): the learner's lines from the chunks against the library's, and the work
  its `feed` does (`work.py`): the stream with every line twice as long, twice over (4 times
  the bytes), may cost about 4 times the work, not the square;
- accumulator and tool_input (lessons 03, 04): the learner's message from the library's
  events against the SDK's (`compare_messages`).

Equal at every stage means equal chained: the learner's whole client gives the SDK's message.
A row names its first difference in lesson order (01, 02, 03, 04), and the "Next:" line under
the table names the first stage, in the same order, still to write or to fix:

    fixture          1 byte  7 bytes  whole  first difference
    ---------------  ------  -------  -----  ----------------
    cjk_emoji        ✔       ✔        ✔
    fixture          ✘       ✘        ✘      message.usage.output_tokens: 59 here, 58 in the SDK's

    32 of 33 fixtures pass every stage at every chunk size
    Next: fix my_client/accumulator.py: fixture: message.usage.output_tokens: 59 here, ...

A stage still a stub fails every fixture: the table names the function to write instead of
a traceback. A stage written but wrong is named before the table by the first of its
lesson's checks it fails. `--reference` runs the course's reference answers (`reference/`)
through the very same path. A lesson run before a later stage's own lesson (03 before 04's
`tool_input`) passes that stage in `given`: the course's answer stands in for it, and the
report says so. The exit status is 0 only when every fixture passes and every stage passes
its lesson's checks, with `--summary` too (`make progress` ignores it: a report).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from ... import fast
from ...accumulator import accumulate
from ...language import _, current_language, word
from ...sse import parse_sse
from ..fixtures import FIXTURES_DIR, chunked, fixture_names, read_fixture
from ..i18n import Table
from ..sdk import compare_messages
from ..trace import cut
from ..trace import width as columns
from . import (
    REFERENCE,
    STAGES,
    EventStage,
    LineStage,
    events_of,
    first_failure,
    lines_of,
    load,
    message_of,
    named,
    stub_words,
    work,
)
from .reports import STUB_MESSAGE

CHUNK_SIZES: list[int | None] = [1, 7, None]  # None: the whole body as one chunk
HEADERS = Table(
    word("my_client_fixture", "fixture"),
    word("my_client_1", "1 byte"),
    word("my_client_7", "7 bytes"),
    word("my_client_whole", "whole"),
    word("my_client_difference", "first difference"),
)


@dataclass(frozen=True)
class Row:
    """One fixture: ✔ or ✘ per chunk size, and the first difference found (or ""), in
    lesson order, with the stage it is in."""

    fixture: str
    matches: list[bool]
    difference: str
    stage: str = ""  # the stage of the first difference ("sse", "lines", ...), "" if none


def sdk_message(name: str, directory: Path = FIXTURES_DIR) -> dict[str, Any] | None:
    """The SDK's final message for fixture `name` (its .sdk.json), or None if it raised."""
    verdict = json.loads((directory / f"{name}.sdk.json").read_text(encoding="utf-8"))
    return verdict.get("message")


def passed_by_the_library(directory: Path = FIXTURES_DIR) -> list[str]:
    """The fixtures whose message the library gets exactly as the SDK does (sorted names)."""
    names = []
    for name in fixture_names(directory):
        theirs = sdk_message(name, directory)
        try:
            ours = accumulate(read_fixture(name, directory))
        except Exception:  # the library refuses it (a StreamError): not a test of the chain
            continue
        if theirs is not None and not compare_messages(ours, theirs):
            names.append(name)
    return names


@dataclass(frozen=True)
class Client:
    """The learner's stages, each a function: chunks -> lines, lines -> events, events ->
    the final message (their accumulator with their tool input)."""

    lines: LineStage
    sse: EventStage
    message: Callable[[Iterable[Any]], dict[str, Any]]


def client(modules: dict[str, ModuleType]) -> Client:
    """The learner's stages, from their modules (lines, sse, accumulator, tool_input)."""
    return Client(
        lines_of(modules["lines"].feed),
        events_of(modules["sse"].feed_line),
        message_of(modules["accumulator"], modules["tool_input"].tool_input),
    )


def _shown(mine: Any, theirs: Any) -> tuple[str, str]:
    """Both values as short reprs; two long strings from a little before where they differ."""
    if isinstance(mine, str) and isinstance(theirs, str) and max(len(mine), len(theirs)) > 30:
        pairs = enumerate(zip(mine, theirs, strict=False))
        at = next((i for i, (a, b) in pairs if a != b), min(len(mine), len(theirs)))
        start = max(0, at - 8)
        mine, theirs = mine[start : start + 24], theirs[start : start + 24]
        prefix = "…" if start else ""
        return f"{prefix}{mine!r}", f"{prefix}{theirs!r}"
    return repr(mine), repr(theirs)


def line_difference(mine: list[str], theirs: list[str]) -> str:
    """Where the learner's lines first differ from the library's ("" if they do not)."""
    for number, (a, b) in enumerate(zip(mine, theirs, strict=False), 1):
        if a != b:
            here, there = _shown(a, b)
            return _(
                "lines: line {number} is {mine} here, {theirs} in the library's",
                number=number,
                mine=here,
                theirs=there,
            )
    if len(mine) != len(theirs):
        return _(
            "lines: {count} lines here, {expected} in the library's",
            count=len(mine),
            expected=len(theirs),
        )
    return ""


FIELDS = ("type", "data", "id", "retry")  # of an event, as the SSE spec names them


def event_difference(mine: list[Any], theirs: list[Any]) -> str:
    """Where the learner's events first differ from the library's: an event's type, data,
    id or retry ("" if they do not)."""
    for number, (a, b) in enumerate(zip(mine, theirs, strict=False), 1):
        for field, x, y in zip(FIELDS, _fields(a), _fields(b), strict=True):
            if x != y:
                here, there = _shown(x, y)
                return _(
                    "events: event {number}'s {field} is {mine} here, {theirs} in the library's",
                    number=number,
                    field=field,
                    mine=here,
                    theirs=there,
                )
    if len(mine) != len(theirs):
        return _(
            "events: {count} events here, {expected} in the library's",
            count=len(mine),
            expected=len(theirs),
        )
    return ""


def _fields(event: Any) -> tuple[Any, ...]:
    return (event.event, event.data, event.id, event.retry)


def judged(stage: str, compute: Callable[[], str]) -> tuple[str, str]:
    """(the stage to fix, what differs: "" if nothing) for one stage's comparison. A stub's
    NotImplementedError names its own file's stage; any other error is reported as raised."""
    try:
        return stage, compute()
    except NotImplementedError as error:  # a stub: "write feed in my_client/lines.py ..."
        match = STUB_MESSAGE.fullmatch(str(error))
        named_stage = Path(match["path"]).stem if match else stage
        return named_stage, stub_words(str(error))
    except Exception as error:  # the learner's bug: shown in the table, never raised
        return stage, _("{stage}: raised {error}", stage=STAGE_WORDS[stage], error=named(error))


# What each stage gives, as a row names it: "events: raised ValueError: ...".
STAGE_WORDS = {"sse": _("events"), "lines": _("lines"), "accumulator": _("message")}


def lines_judged(run: LineStage, raw: bytes, size: int | None, library: list[str]) -> str:
    """The learner's lines of `raw` in chunks of `size` against the library's, then the work
    of their `feed` on the stretched stream against `raw`'s (4 times the bytes)."""

    def cut(body: bytes) -> list[bytes]:
        return chunked(body, size) if size else [body]

    lines, done = work.lines_and_work(run.feed, cut(raw))
    difference = line_difference(lines, library)
    if difference:
        return difference
    ratio = work.lines_and_work(run.feed, cut(work.stretched(raw)))[1] / max(1, done)
    if ratio > work.LINEAR:
        return _(
            "lines: {ratio}x the work for 4x the bytes (every line twice as long, twice over)",
            ratio=round(ratio),
        )
    return ""


def compare(run: Client, name: str) -> Row:
    """Fixture `name` through the learner's stages, each against the library's (or, for
    the message, the SDK's), at every chunk size."""
    raw, theirs = read_fixture(name), sdk_message(name)
    lines = list(fast.iter_lines([raw]))
    events = list(parse_sse(lines))
    sse = judged("sse", lambda: event_difference(run.sse(lines), events))
    message = judged(
        "accumulator", lambda: next(iter(compare_messages(run.message(events), theirs)), "")
    )
    matches, first = [], ("", "")
    for size in CHUNK_SIZES:
        line = judged("lines", partial(lines_judged, run.lines, raw, size, lines))
        found = next((judgement for judgement in (sse, line, message) if judgement[1]), ("", ""))
        matches.append(not found[1])
        first = first if first[1] else found
    return Row(name, matches, first[1], first[0])


STAGE_NAMES = ("lines", "sse", "accumulator", "tool_input")


def rows(where: Path | None, given: Iterable[str] = ()) -> list[Row]:
    """One row per fixture the library passes, for the stages in `where` (None: my_client/);
    the stages named in `given` are the course's reference answers instead. A file that
    does not even load (a syntax error) fails every fixture, naming the file."""
    given = set(given)
    names = passed_by_the_library()
    modules = {}
    for stage in STAGE_NAMES:
        try:
            modules[stage] = load(stage, REFERENCE if stage in given else where)
        except Exception as error:  # the learner's file: reported in the table, never raised
            why = _(
                "my_client/{stage}.py does not load: {error}",
                stage=stage,
                error=named(error),
            )
            return [Row(name, [False] * len(CHUNK_SIZES), why, stage) for name in names]
    run = client(modules)
    return [compare(run, name) for name in names]


def table(
    results: list[Row],
    width: int = 70,
    *,
    next_step: str | None = None,
    stages: tuple[int, int] | None = None,
) -> str:
    """The report: one row per fixture, then `N of M fixtures pass every stage at every chunk
    size` and what to do next (`summary`), in the language in use."""
    headers = list(HEADERS[current_language()].values())
    names = max([columns(headers[0]), *(len(row.fixture) for row in results)])
    sizes = [columns(header) for header in headers[1:4]]
    lines = [
        "  ".join(
            [
                pad(headers[0], names),
                *(pad(h, s) for h, s in zip(headers[1:4], sizes, strict=True)),
                headers[4],
            ]
        ),
        "  ".join(["-" * names, *("-" * s for s in sizes), "-" * columns(headers[4])]),
    ]
    for row in results:
        marks = ["✔" if match else "✘" for match in row.matches]
        cells = [
            row.fixture.ljust(names),
            *(m.ljust(s) for m, s in zip(marks, sizes, strict=True)),
            cut(str(row.difference), width),
        ]
        lines.append("  ".join(cells).rstrip())
    lines += ["", summary(results, next_step, stages)]
    return "\n".join(lines)


def pad(text: str, size: int) -> str:
    """`text` and spaces to fill `size` terminal columns (a CJK character takes two)."""
    return text + " " * (size - columns(text))


def summary(
    results: list[Row], next_step: str | None = None, stages: tuple[int, int] | None = None
) -> str:
    """`N of M fixtures pass every stage at every chunk size`, then, given `stages` (passed,
    checked), `K of L stages pass their lesson's checks` (a rule no fixture shows, such as
    the copy of `message_start`, fails only there), and `next_step` (what to write or fix
    next, `next_step()`) on a line of its own.

    >>> stub = "write feed in my_client/lines.py (lesson 02)"
    >>> print(summary([Row("text_only", [True] * 3, ""), Row("fixture", [False] * 3, stub)], stub))
    1 of 2 fixtures pass every stage at every chunk size
    Next: write feed in my_client/lines.py (lesson 02).
    """
    done = sum(all(row.matches) for row in results)
    line = str(
        _(
            "{done} of {count} fixtures pass every stage at every chunk size",
            done=done,
            count=len(results),
        )
    )
    if stages is not None:
        passed, checked = stages
        line += "; " + str(
            _("{done} of {count} stages pass their lesson's checks", done=passed, count=checked)
        )
    if next_step:
        line += "\n" + str(_("Next: {what}.", what=next_step))
    return line


LESSONS = {"sse": "01", "lines": "02", "accumulator": "03", "tool_input": "04", "verdict": "04"}
IN_LESSON_ORDER = sorted(LESSONS, key=LESSONS.__getitem__)


def checked_stages(where: Path | None, given: Iterable[str] = ()) -> Iterator[tuple[str, str]]:
    """(stage, its first failed check) for each stage of lessons 01-04 that fails one, in
    lesson order; a stub's failure reads "write ...". A file that does not load is skipped:
    the table says so."""
    for name in IN_LESSON_ORDER:
        if name in given:
            continue
        spec = STAGES[name]
        try:
            failed = first_failure(spec.checks(spec.build(load(name, where))))
        except Exception:  # a file that does not load: the table says so
            continue
        if failed is not None:
            yield name, failed


def failing_line(name: str, failed: str) -> str:
    """`lines: my_client/lines.py fails 'only one LF is skipped' (lesson 02's checks)`."""
    return str(
        _(
            "{name}: my_client/{name}.py {failure} (lesson {lesson}'s checks)",
            name=name,
            failure=failed,
            lesson=LESSONS[name],
        )
    )


def failing_stages(where: Path | None, given: Iterable[str] = ()) -> list[str]:
    """One line for each stage the learner has written (its file no longer only a stub)
    that fails one of its lesson's checks, in lesson order, e.g.
    `lines: my_client/lines.py fails 'only one LF is skipped' (lesson 02's checks)`."""
    return [
        failing_line(name, failed)
        for name, failed in checked_stages(where, given)
        if not failed.startswith("write ")
    ]


def first_stub(where: Path | None, given: Iterable[str] = ()) -> str | None:
    """What to write next, in lesson order ("write feed_line in my_client/sse.py
    (lesson 01)"), or None when no stage of lessons 01-04 is still a stub."""
    stubs = (failed for _, failed in checked_stages(where, given) if failed.startswith("write "))
    return next(stubs, None)


def next_step(results: list[Row], failed: dict[str, str]) -> str | None:
    """What to do next, the first in lesson order: a file that does not load; else, stage by
    stage (01 to 04), a stub to write, a lesson check it fails (`failed`: stage -> its first
    failed check, from `checked_stages`), or the first fixture it fails. None: nothing."""
    broken = [row.difference for row in results if " does not load: " in row.difference]
    if broken:  # the first thing to fix, whole: the table cuts its line number
        return broken[0]
    for name in IN_LESSON_ORDER:
        if name in failed:
            return failed[name] if failed[name].startswith("write ") else failing_line(
                name, failed[name]
            )
        row = next((row for row in results if row.stage == name and row.difference), None)
        if row is not None:
            return str(
                _(
                    "fix my_client/{name}.py: {fixture}: {difference}",
                    name=name,
                    fixture=row.fixture,
                    difference=row.difference,
                )
            )
    return None


def run(
    where: Path | None = None,
    *,
    reference: bool = False,
    summary_only: bool = False,
    given: Iterable[str] = (),
) -> int:
    """Print the report for my_client/ (or `where`, or the reference answers); 0 if every
    fixture passes every stage and every stage its lesson's checks, else 1. `given`: stages
    whose lesson comes later, taken from the course's reference answers (one line says which)."""
    given = sorted(set(given) & set(LESSONS))
    results = rows(REFERENCE if reference else where, given)
    for name in given:
        print(
            _(
                "{name}: the course's answer here (my_client/{name}.py comes in a later lesson)",
                name=name,
            )
        )
    failed = dict(checked_stages(REFERENCE if reference else where, given))
    for name, failure in failed.items():
        if not failure.startswith("write "):
            print(failing_line(name, failure))
    step = next_step(results, failed)
    stages = (len(LESSONS) - len(given) - len(failed), len(LESSONS) - len(given))
    if summary_only:
        print(summary(results, step, stages))
    else:
        print(table(results, next_step=step, stages=stages))
    return 0 if all(all(row.matches) for row in results) and not failed else 1


def first_failing(results: list[Row], failed: dict[str, str]) -> str | None:
    """The first stage, in lesson order, that fails a fixture or its lesson's checks
    ("sse", "lines", "accumulator", "tool_input" or "verdict"); None when none does."""
    for name in IN_LESSON_ORDER:
        if name in failed or any(row.stage == name and row.difference for row in results):
            return name
    return None


def report(where: Path | None = None, *, reference: bool = False) -> dict[str, Any]:
    """The report of `run` as data (JSON-ready): `fixtures` (one entry per fixture: its
    name, `matches` by chunk size "1", "7", "whole", the first `difference` and its `stage`),
    `passed` of `count` fixtures, `stages_passed` of `stages_checked` stages passing their
    lesson's checks, `failing_stages` (stage -> its first failed check), `first_failing_stage`
    and its `lesson` ("01" to "04"; null when none), and `next` (what to do next, or null).
    Anything the learner's code prints on the way goes to stderr, never into the report."""
    source = REFERENCE if reference else where
    with contextlib.redirect_stdout(sys.stderr):
        results = rows(source)
        failed = dict(checked_stages(source))
    step = next_step(results, failed)
    first = first_failing(results, failed)
    sizes = ["whole" if size is None else str(size) for size in CHUNK_SIZES]
    return {
        "fixtures": [
            {
                "fixture": row.fixture,
                "matches": dict(zip(sizes, row.matches, strict=True)),
                "difference": str(row.difference),
                "stage": row.stage,
            }
            for row in results
        ],
        "passed": sum(all(row.matches) for row in results),
        "count": len(results),
        "stages_passed": len(LESSONS) - len(failed),
        "stages_checked": len(LESSONS),
        "failing_stages": {name: str(failure) for name, failure in failed.items()},
        "first_failing_stage": first,
        "lesson": LESSONS[first] if first else None,
        "next": str(step) if step else None,
    }


def run_json(where: Path | None = None, *, reference: bool = False) -> int:
    """`my-client --json`: print `report` as one JSON object; the exit status of `run`."""
    found = report(where, reference=reference)
    print(json.dumps(found, ensure_ascii=False, sort_keys=True, indent=1))
    return 0 if found["passed"] == found["count"] and not found["failing_stages"] else 1
