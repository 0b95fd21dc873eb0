"""`python -m streaming_lib my-client`: the learner's client against the SDK, on every fixture.

The learner's stages (`my_client/`: lines, sse, accumulator, tool_input) run chained,
bytes -> lines -> events -> message, on every fixture whose message the library itself
gets the same as the SDK (`fixtures/NAME.sdk.json`), with the bytes in chunks of 1 and
7 bytes and whole. Each final message is compared with the SDK's (`compare_messages`).

    fixture          1 byte  7 bytes  whole  first difference
    ---------------  ------  -------  -----  ----------------
    cjk_emoji        ✔       ✔        ✔
    fixture          ✘       ✘        ✘      message.usage.output_tokens: 59 here, 58 in the SDK's

    24 of 25 fixtures match the SDK at every chunk size

A stage still a stub fails every fixture: the table then names the first function
still to write, instead of a traceback. A stage written but wrong is named before the
table by the first of its lesson's checks it fails: behind a later stub, its fixtures
would show only the stub. `--reference` runs the course's reference
answers (`reference/`) through the very same path. A lesson run before a later stage's
own lesson (03 before 04's `tool_input`) passes that stage in `given`: the course's
answer stands in for it, and the report says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ...accumulator import accumulate
from ...language import _, current_language, word
from ..fixtures import FIXTURES_DIR, chunked, fixture_names, read_fixture
from ..i18n import Table
from ..sdk import compare_messages
from ..trace import cut
from ..trace import width as columns
from . import (
    REFERENCE,
    STAGES,
    events_of,
    first_failure,
    lines_of,
    load,
    message_of,
    named,
    stub_words,
)

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
    """One fixture: ✔ or ✘ per chunk size, and the first difference found (or "")."""

    fixture: str
    matches: list[bool]
    difference: str


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


def client(modules: dict[str, ModuleType]) -> Callable[[list[bytes]], dict[str, Any]]:
    """The chain of the learner's stages: chunks (bytes) -> the final message (dict)."""
    lines = lines_of(modules["lines"])
    events = events_of(modules["sse"])
    message = message_of(modules["accumulator"], modules["tool_input"].tool_input)
    return lambda chunks: message(events(lines(chunks)))


def compare(run: Callable[[list[bytes]], dict[str, Any]], name: str) -> Row:
    raw, theirs = read_fixture(name), sdk_message(name)
    matches, difference = [], ""
    for size in CHUNK_SIZES:
        try:
            found = compare_messages(run(chunked(raw, size) if size else [raw]), theirs)
        except NotImplementedError as error:  # a stub: "write feed in my_client/lines.py ..."
            found = [stub_words(str(error))]
        except Exception as error:  # the learner's bug: shown in the table, never raised
            found = [_("raised {error}", error=named(error))]
        matches.append(not found)
        difference = difference or (found[0] if found else "")
    return Row(name, matches, difference)


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
            return [Row(name, [False] * len(CHUNK_SIZES), why) for name in names]
    run = client(modules)
    return [compare(run, name) for name in names]


def table(results: list[Row], width: int = 70, *, next_stub: str | None = None) -> str:
    """The report: one row per fixture, then `N of M fixtures match the SDK at every chunk size`
    and what to write next (`summary`), in the language in use."""
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
    lines += ["", summary(results, next_stub)]
    return "\n".join(lines)


def pad(text: str, size: int) -> str:
    """`text` and spaces to fill `size` terminal columns (a CJK character takes two)."""
    return text + " " * (size - columns(text))


def summary(results: list[Row], first_stub: str | None = None) -> str:
    """`N of M fixtures match the SDK at every chunk size`, and what to write next if a stub
    stopped a fixture (or what to fix first, whole, if a file does not even load).
    `first_stub`: the function still to write of the earliest lesson (`first_stub()`),
    named instead of the stub the bytes met first (the pipeline's order is not the lessons').

    >>> stub = "write feed in my_client/lines.py (lesson 02)"
    >>> print(summary([Row("text_only", [True] * 3, ""), Row("fixture", [False] * 3, stub)]))
    1 of 2 fixtures match the SDK at every chunk size
    Next: write feed in my_client/lines.py (lesson 02).
    """
    done = sum(all(row.matches) for row in results)
    line = str(
        _(
            "{done} of {count} fixtures match the SDK at every chunk size",
            done=done,
            count=len(results),
        )
    )
    broken = [row.difference for row in results if " does not load: " in row.difference]
    stubs = [row.difference for row in results if row.difference.startswith("write ")]
    if broken or stubs:  # a file that does not load first: the table cuts its line number
        line += "\n" + str(_("Next: {what}.", what=(broken or [first_stub or stubs[0]])[0]))
    return line


LESSONS = {"sse": "01", "lines": "02", "accumulator": "03", "tool_input": "04"}


def checked_stages(where: Path | None, given: Iterable[str] = ()) -> Iterator[tuple[str, str]]:
    """(stage, its first failed check) for each stage of lessons 01-04 that fails one, in
    lesson order; a stub's failure reads "write ...". A file that does not load is skipped:
    the table says so."""
    for name in sorted(LESSONS, key=LESSONS.__getitem__):
        if name in given:
            continue
        spec = STAGES[name]
        try:
            failed = first_failure(spec.checks(spec.build(load(name, where))))
        except Exception:  # a file that does not load: the table says so
            continue
        if failed is not None:
            yield name, failed


def failing_stages(where: Path | None, given: Iterable[str] = ()) -> list[str]:
    """One line for each stage the learner has written (its file no longer only a stub)
    that fails one of its lesson's checks, in lesson order, e.g.
    `lines: my_client/lines.py fails 'only one LF is skipped' (lesson 02's checks)`."""
    return [
        str(
            _(
                "{name}: my_client/{name}.py {failure} (lesson {lesson}'s checks)",
                name=name,
                failure=failed,
                lesson=LESSONS[name],
            )
        )
        for name, failed in checked_stages(where, given)
        if not failed.startswith("write ")
    ]


def first_stub(where: Path | None, given: Iterable[str] = ()) -> str | None:
    """What to write next, in lesson order ("write feed_line in my_client/sse.py
    (lesson 01)"), or None when no stage of lessons 01-04 is still a stub."""
    stubs = (failed for _, failed in checked_stages(where, given) if failed.startswith("write "))
    return next(stubs, None)


def run(
    where: Path | None = None,
    *,
    reference: bool = False,
    summary_only: bool = False,
    given: Iterable[str] = (),
) -> int:
    """Print the report for my_client/ (or `where`, or the reference answers); 0 if every
    fixture matches, else 1. `given`: stages whose lesson comes later, taken from the
    course's reference answers (one line says which)."""
    given = sorted(set(given) & set(STAGE_NAMES))
    results = rows(REFERENCE if reference else where, given)
    for name in given:
        print(
            _(
                "{name}: the course's answer here (my_client/{name}.py comes in a later lesson)",
                name=name,
            )
        )
    next_stub = None
    if not reference:
        for line in failing_stages(where, given):
            print(line)
        next_stub = first_stub(where, given)
    print(summary(results, next_stub) if summary_only else table(results, next_stub=next_stub))
    return 0 if all(all(row.matches) for row in results) else 1
