"""The learner's own client: `my_client/`, one file per stage, written in the lessons.

    my_client/lines.py        feed            lesson 02: bytes in, whole lines out
    my_client/sse.py          feed_line       lesson 01: the field rules and the dispatch
    my_client/accumulator.py  on_message_start, on_content_block_start / _delta / _stop,
                              on_message_delta               lesson 03: the message
    my_client/tool_input.py   tool_input      lesson 04: a tool's input at its stop
    my_client/retry.py        wait_before_retry  lesson 06: wait, or give up, after a failed try
    my_client/client.py       stream_message  lesson 06: the request, its retries, the body
                              through the learner's own stages, the typed errors
    my_client/relay.py        relay           lesson 07: the relay's streaming core

The folder sits at the repository's root (ignored by git), or where the environment
variable STREAMING_COURSE_MY_CLIENT says: the tests and nbval point it at a copy, so
they never read or write the learner's files. `ensure()` makes the folder from the
stubs in `stubs/` on first use, one missing file at a time: a file that exists is never
written over by it. Each stub raises NotImplementedError naming its function.

A lesson writes a file with a cell that starts `%%my_client lines.py` (after
`%load_ext streaming_lib.tools.my_client`): the cell's text is saved as that file, then
run in the notebook, like `%%writefile` and `%run` together. One rule keeps a learner's
work: a cell with more functions still to write (stubs raising NotImplementedError)
than the file already holds does not replace the file; the file is run instead.

From lesson 02 on, `stage(name)` says which version of a stage the lesson uses: the
learner's, when its file passes that stage's checks, else the library's, and prints
one line saying which. `python -m streaming_lib my-client` (`chain.py`) runs the
learner's stages together over every fixture and compares with the SDK; `--live`
(`live.py`) runs the learner's client.py over a socket against the replay server's
faults, the SDK beside it.
The course's reference answers, the same as the lessons' collapsed ones, are in
`reference/`: `--reference` runs them through the very same path.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ... import fast
from ...accumulator import MessageAccumulator, accumulate
from ...events import decode_event
from ...language import _
from ...sse import parse_sse
from ..fixtures import chunked, read_fixture
from . import given
from .relaying import (
    closed_when_stopped,
    first_piece_in_time,
    pieces_through,
    stop_reaches_the_upstream,
)
from .reports import named, stub_words
from .retrying import client_checks, retry_checks

__all__ = [
    "STAGES",
    "Stage",
    "accumulator_of",
    "ensure",
    "events_of",
    "first_failure",
    "folder",
    "lines_of",
    "load",
    "stage",
    "stage_module",
]

ENVIRONMENT = "STREAMING_COURSE_MY_CLIENT"  # a folder to use instead of ./my_client
HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs"
REFERENCE = HERE / "reference"
_ROOT = HERE.parents[2]  # the repository, in a clone (an editable install)
_INIT = '"""My own streaming client, written in the lessons of the streaming course."""\n'


def folder() -> Path:
    """The learner's `my_client/` folder: $STREAMING_COURSE_MY_CLIENT if set, else the
    repository's `my_client/` (in a clone), else `./my_client`."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    return (_ROOT if (_ROOT / "pyproject.toml").is_file() else Path.cwd()) / "my_client"


def ensure(where: Path | None = None) -> Path:
    """Make `where` (default: `folder()`) hold every stage's file: a missing one is copied
    from its stub; one that exists is left as it is. Returns the folder."""
    where = folder() if where is None else where
    where.mkdir(parents=True, exist_ok=True)
    if not (where / "__init__.py").exists():
        (where / "__init__.py").write_text(_INIT, encoding="utf-8")
    for stub in sorted(STUBS.glob("*.py")):
        target = where / stub.name
        if not target.exists():
            target.write_text(stub.read_text(encoding="utf-8"), encoding="utf-8")
    return where


def load(name: str, where: Path | None = None) -> ModuleType:
    """The module `my_client/<name>.py`, read afresh from its file (a stub first if missing).
    `where` = REFERENCE loads the course's reference answer instead."""
    where = ensure() if where is None else where
    path = where / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"my_client.{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the stages: how each file becomes a step of the chain, and its checks ------------


def lines_of(module: ModuleType) -> Callable[[Iterable[bytes]], list[str]]:
    """The learner's line stage: chunks (bytes) -> lines (list of str), with their `feed`."""
    decoder_class = type("LineDecoder", (given.LineDecoder,), {"feed": module.feed})

    def run(chunks: Iterable[bytes]) -> list[str]:
        decoder = decoder_class()
        lines = [line for chunk in chunks for line in decoder.feed(chunk)]
        return lines + decoder.flush()

    return run


def events_of(module: ModuleType) -> Callable[[Iterable[str]], list[Any]]:
    """The learner's SSE stage: lines -> the events dispatched (list), with their `feed_line`."""

    def run(lines: Iterable[str]) -> list[Any]:
        decoder = given.SSEDecoder()
        return [event for line in lines if (event := module.feed_line(decoder, line)) is not None]

    return run


HANDLED = ["message_start", "content_block_start", "content_block_delta"]
HANDLED += ["content_block_stop", "message_delta"]


def message_of(
    module: ModuleType, tool_input: Callable[..., Any] | None = None
) -> Callable[[Iterable[Any]], dict[str, Any]]:
    """The learner's accumulator: SSE events -> the final message (dict). Each event's JSON
    is decoded as the library does (a leaf); `tool_input`: the tool-input stage to use
    (default: the course's reference answer)."""
    handlers = {kind: getattr(module, f"on_{kind}") for kind in HANDLED}
    tool_input = tool_input or load("tool_input", REFERENCE).tool_input

    def run(events: Iterable[Any]) -> dict[str, Any]:
        acc = given.Accumulator(handlers, tool_input)
        for number, sse in enumerate(events, 1):
            event = decode_event(sse, number)
            if event is not None:
                acc.feed(event)
        return acc.final_message()

    return run


def accumulator_of(
    module: ModuleType, tool_input: Callable[..., Any] | None = None
) -> Callable[[], Any]:
    """The learner's accumulator (`module`: their accumulator.py) as a zero-argument factory;
    each call gives a fresh accumulator object with:

      `.feed(event: dict)`       one decoded Messages API event (dict as on the wire); raises
                                 the library's typed StreamErrors (EventOrderError,
                                 APIStreamError, ...)
      `.message`                 the message so far (dict) or None before message_start
      `.final_message() -> dict` raises IncompleteStreamError before message_stop

    `tool_input`: the tool-input stage to use (default: the course's reference answer)."""
    handlers = {kind: getattr(module, f"on_{kind}") for kind in HANDLED}
    tool_input = tool_input or load("tool_input", REFERENCE).tool_input
    return lambda: given.Accumulator(handlers, tool_input)


Check = tuple[str, Callable[[], Any], Any]


@dataclass(frozen=True)
class Stage:
    """One stage of the client, as a lesson uses it.

    `name`: its file, `my_client/<name>.py`; `mine`: the learner's (True) or the library's
    (False); `run`: the stage as a function (lines: chunks -> lines; sse: lines -> events;
    accumulator: events -> message; tool_input: fragments, index -> input).
    """

    name: str
    mine: bool
    run: Callable[..., Any]


def _event_tuples(events: Iterable[Any]) -> list[tuple[Any, ...]]:
    return [(event.event, event.data, event.id, event.retry) for event in events]


def lines_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 02's rules, on a line stage `run` (chunks -> lines)."""
    raw = read_fixture("fixture")
    library = list(fast.iter_lines([raw]))
    return [
        ("a line cut between chunks waits", lambda: run([b"da", b"ta: x\n"]), ["data: x"]),
        ("LF, CRLF and CR end lines", lambda: run([b"a\nb\r\nc\rd\n"]), ["a", "b", "c", "d"]),
        ("CR | LF is one line ending", lambda: run([b"a\r", b"\nb\n"]), ["a", "b"]),
        ("only one LF is skipped", lambda: run([b"a\r", b"\n", b"\n"]), ["a", ""]),
        ("an empty chunk changes nothing", lambda: run([b"a\r", b"", b"\nb\n"]), ["a", "b"]),
        ("a character cut in two waits", lambda: run([b"\xe6\x89", b"\xbe\n"]), ["\u627e"]),
        ("the fixture, 1 byte at a time", lambda: run(chunked(raw, 1)), library),
        ("the fixture, 7 bytes at a time", lambda: run(chunked(raw, 7)), library),
    ]


def sse_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 01's rules, on an SSE stage `run` (lines -> events)."""
    fields = list(fast.iter_lines([read_fixture("sse_fields")]))
    library = _event_tuples(parse_sse(fields))

    def ids(lines: list[str]) -> list[Any]:
        return [event.id for event in run(lines)]

    return [
        (
            "a blank line dispatches",
            lambda: _event_tuples(run(["data: a", ""])),
            [("message", "a", None, None)],
        ),
        (
            "data lines join with LF",
            lambda: [e.data for e in run(["data: a", "data: b", ""])],
            ["a\nb"],
        ),
        ("no data, no event", lambda: run(["event: x", ""]), []),
        (
            "the last event ID stays",
            lambda: ids(["id: 7", "data: a", "", "data: b", ""]),
            ["7", "7"],
        ),
        ("sse_fields: the library's events", lambda: _event_tuples(run(fields)), library),
    ]


def accumulator_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 03's rules, on an accumulator stage `run` (events -> message)."""

    def message_of_fixture(name: str) -> Callable[[], Any]:
        return lambda: run(parse_sse(fast.iter_lines([read_fixture(name)])))

    names = ("text_only", "fixture", "two_message_deltas", "thinking")
    return [
        (f"{name}: the library's message", message_of_fixture(name), accumulate(read_fixture(name)))
        for name in names
    ]


def tool_input_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 04's rules, on a tool-input stage `run` (fragments, index -> input)."""
    return [
        (
            "fragments join into one object",
            lambda: run(['{"path": "ca', 'lc.py"}'], 1),
            {"path": "calc.py"},
        ),
        ("no fragments: the empty input", lambda: run([], 1), {}),
    ]


def relay_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 07's rules, on a relay core `run` (an upstream response -> its pieces), against
    the replay server on 127.0.0.1 (`relaying.py`: each check takes a few seconds at most)."""
    pieces = [b"event: ping\n", b"data: {", b'"type": "ping"}\n\n']
    return [
        ("each piece passes on at once, untouched", lambda: pieces_through(run, pieces)[0], pieces),
        ("the upstream is closed at the end", lambda: pieces_through(run, pieces)[1], True),
        ("stopped, it closes the upstream", lambda: closed_when_stopped(run, pieces), True),
        ("the first piece before the upstream's last", lambda: first_piece_in_time(run), True),
        ("on Stop the upstream sees the disconnect", lambda: stop_reaches_the_upstream(run), True),
    ]


def _library_message(events: Iterable[Any]) -> dict[str, Any]:
    acc = MessageAccumulator()
    for number, sse in enumerate(events, 1):
        event = decode_event(sse, number)
        if event is not None:
            acc.feed(event)
    return acc.final_message()


@dataclass(frozen=True)
class _Spec:
    build: Callable[[ModuleType], Callable[..., Any]]  # the learner's module -> the stage
    checks: Callable[[Callable[..., Any]], list[Check]]  # checks a stage function must pass
    library: Callable[..., Any]  # the library's stage, used until the learner's passes


def _reference(file: str, function: str) -> Callable[..., Any]:
    """The course's answer `function` of `reference/<file>.py`, loaded when first called."""
    return lambda *args, **kwargs: getattr(load(file, REFERENCE), function)(*args, **kwargs)


# Each stage, in lesson order (01 to 07). A lesson converted later adds its stage here.
STAGES: dict[str, _Spec] = {
    "sse": _Spec(events_of, sse_checks, lambda lines: list(parse_sse(lines))),
    "lines": _Spec(lines_of, lines_checks, lambda chunks: list(fast.iter_lines(chunks))),
    "accumulator": _Spec(message_of, accumulator_checks, _library_message),
    "tool_input": _Spec(
        lambda module: module.tool_input,
        tool_input_checks,
        lambda fragments, index: load("tool_input", REFERENCE).tool_input(fragments, index),
    ),
    "retry": _Spec(
        lambda module: module.wait_before_retry,
        retry_checks,
        _reference("retry", "wait_before_retry"),
    ),
    "client": _Spec(
        lambda module: module.stream_message,
        client_checks,
        _reference("client", "stream_message"),
    ),
    "relay": _Spec(
        lambda module: module.relay,
        relay_checks,
        lambda upstream: load("relay", REFERENCE).relay(upstream),
    ),
}


def first_failure(checks: list[Check]) -> str | None:
    """The first check that fails, as one line, or None if all pass. Silent: a stub's
    NotImplementedError gives its message ("write feed in my_client/lines.py (lesson 02)").

    >>> first_failure([("one is one", lambda: 1, 1), ("two is two", lambda: 1, 2)])
    "fails 'two is two'"
    >>> first_failure([("one is one", lambda: 1, 1)]) is None
    True
    """
    for what, compute, expected in checks:
        try:
            got = compute()
        except NotImplementedError as error:  # a stub: its message says what to write
            return stub_words(str(error))
        except Exception as error:  # a learner's bug is reported, never raised
            return _("fails {check!r}: {error}", check=what, error=named(error))
        if got != expected:
            return _("fails {check!r}", check=what)
    return None


def stage(name: str, where: Path | None = None) -> Stage:
    """Stage `name` ("lines", "sse", ...) for a lesson: the learner's `my_client/<name>.py`
    when it passes the stage's checks, else the library's. Prints one line saying which."""
    spec = STAGES[name]
    try:
        run = spec.build(load(name, where))
        failed = first_failure(spec.checks(run))
    except Exception as error:  # a file that does not even load: the library's, and why
        failed = f"{type(error).__name__}: {error}"
    path = f"my_client/{name}.py"
    if failed is None:
        count = len(spec.checks(run))
        print(
            _("{name}: yours, {path} (its {count} checks pass)", name=name, path=path, count=count)
        )
        return Stage(name, True, run)
    if not failed.startswith("write "):
        failed = _("{path} {failure}", path=path, failure=failed)
    print(_("{name}: the library's, for now: {failure}", name=name, failure=failed))
    return Stage(name, False, spec.library)


def stage_module(name: str, where: Path) -> ModuleType:
    """The module of stage `name` ("lines", "sse", "accumulator", "tool_input") for a file of
    `where` that builds on it (client.py, lesson 06): the learner's `<where>/<name>.py` when it
    passes its lesson's checks (`stage`, which prints one line saying which), else the course's
    reference answer, standing in as the library does in the lessons. For the reference answers
    themselves, their own, silently."""
    if where.resolve() == REFERENCE:
        return load(name, REFERENCE)
    return load(name, where) if stage(name, where).mine else load(name, REFERENCE)


# -- the cell magic: %%my_client FILE --------------------------------------------------

_STUB_MARK = re.compile(r"raise NotImplementedError\(")


def save_cell(file_name: str, cell: str, where: Path | None = None) -> tuple[str, str]:
    """Save a lesson cell's text as `my_client/<file_name>`, unless that would lose answers:
    a cell with more functions still to write than the file holds leaves the file as it is.
    Returns (what happened, the code to run: the cell's, or the kept file's)."""
    where = ensure(where)
    target = where / file_name
    if target.parent != where or target.suffix != ".py":
        raise ValueError(f"{file_name!r}: a file name such as lines.py, in my_client/")
    old = target.read_text(encoding="utf-8") if target.exists() else ""
    text = cell if cell.endswith("\n") else cell + "\n"
    if old and len(_STUB_MARK.findall(text)) > len(_STUB_MARK.findall(old)):
        return (
            f"my_client/{file_name} kept: it holds answers this cell does not "
            "(delete the file to start it again from this cell)",
            old,
        )
    target.write_text(text, encoding="utf-8")
    return f"my_client/{file_name} saved", text


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext streaming_lib.tools.my_client`: defines the cell magic `%%my_client FILE`,
    which saves the cell as my_client/FILE (see `save_cell`), then runs it in the notebook."""

    def my_client(line: str, cell: str) -> None:
        said, code = save_cell(line.strip(), cell)
        print(said)
        # Run as the file: `__file__` names it (client.py loads the stages beside it).
        before = ipython.user_ns.get("__file__")
        ipython.user_ns["__file__"] = str(folder() / line.strip())
        try:
            ipython.run_cell(code, store_history=False)
        finally:
            if before is None:
                ipython.user_ns.pop("__file__", None)
            else:
                ipython.user_ns["__file__"] = before

    ipython.register_magic_function(my_client, magic_kind="cell", magic_name="my_client")
