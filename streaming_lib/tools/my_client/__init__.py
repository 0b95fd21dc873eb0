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

Each stage's checks are one list (`sse_checks`, `lines_checks`, ...): the lesson's check
cell runs it, and so do `stage` and `my-client`, so the three cannot disagree. From lesson
02 on, `stage(name)` says which version of a stage the lesson uses: the learner's, when
its file passes that list, else the library's, and prints one line saying which; the
lesson's later checks run through `Stage.check`, which runs them only on the learner's
(on the library's they would test the library against itself). `python -m streaming_lib
my-client` (`chain.py`) judges the learner's stages on every fixture, each against the
library's, the message against the SDK's; `work.py` counts the work of a `feed`; `--live`
(`live.py`) runs the learner's client.py over a socket against the replay server's
faults, the SDK beside it.
The course's reference answers, the same as the lessons' collapsed ones, are in
`reference/`: `--reference` runs them through the very same path.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ... import fast
from ...accumulator import MessageAccumulator, accumulate
from ...errors import StreamError, ToolInputJSONError
from ...events import decode_event
from ...language import _
from ...sse import parse_sse
from ..fixtures import chunked, read_fixture
from ..lesson_check import check_all
from . import given, work
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
    "checks_of",
    "ensure",
    "events_of",
    "first_failure",
    "folder",
    "lines_of",
    "load",
    "message_of",
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


class LineStage:
    """The learner's line stage, made of their `feed`: called with chunks (bytes), the lines
    (list of str), as a client reads them (the chunks, then `flush`)."""

    def __init__(self, feed: Callable[..., list[str]]) -> None:
        self.feed = feed
        self.decoder_class = type("LineDecoder", (given.LineDecoder,), {"feed": feed})

    def __call__(self, chunks: Iterable[bytes]) -> list[str]:
        decoder = self.decoder_class()
        lines = [line for chunk in chunks for line in decoder.feed(chunk)]
        return lines + decoder.flush()


def lines_of(feed: Callable[..., list[str]]) -> LineStage:
    """The line stage (chunks -> lines) made of a `feed` (lesson 02's function)."""
    return LineStage(feed)


class EventStage:
    """The learner's SSE stage, made of their `feed_line`: called with lines (str), the
    events dispatched (list); `decoder()`: the buffers it fills (lesson 01's)."""

    def __init__(self, feed_line: Callable[..., Any]) -> None:
        self.feed_line = feed_line

    def decoder(self) -> given.SSEDecoder:
        return given.SSEDecoder()

    def __call__(self, lines: Iterable[str], decoder: given.SSEDecoder | None = None) -> list[Any]:
        decoder = decoder or self.decoder()
        events = (self.feed_line(decoder, line) for line in lines)
        return [event for event in events if event is not None]


def events_of(feed_line: Callable[..., Any]) -> EventStage:
    """The SSE stage (lines -> events) made of a `feed_line` (lesson 01's function)."""
    return EventStage(feed_line)


class LearnersAccumulator:
    """The learner's accumulator (`my_client/accumulator.py`, lesson 03) as one object:
    `.feed(event)` one decoded event (a dict, as on the wire; the learner's `feed`, which
    raises the library's typed errors), `.message` the message so far (dict, or None before
    `message_start`: the partial message when a stream breaks), `.final_message()` the
    learner's `final_message` (IncompleteStreamError before `message_stop`). The state is
    `given.Accumulator`'s, in `.state`."""

    def __init__(self, module: ModuleType, make_input: Callable[..., Any]) -> None:
        self.module = module
        self.state = given.Accumulator(make_input)

    @property
    def message(self) -> dict[str, Any] | None:
        return self.state.message

    def feed(self, event: dict[str, Any]) -> None:
        self.module.feed(self.state, event)

    def final_message(self) -> dict[str, Any]:
        return self.module.final_message(self.state)


def accumulator_of(
    module: ModuleType, tool_input: Callable[..., Any] | None = None
) -> Callable[[], LearnersAccumulator]:
    """A factory of the learner's accumulators: each call gives a fresh `LearnersAccumulator`
    (`.feed(event)`, `.message`, `.final_message()`). `tool_input`: the tool-input stage to
    use (default: the course's reference answer)."""
    make_input = tool_input or load("tool_input", REFERENCE).tool_input
    return lambda: LearnersAccumulator(module, make_input)


def _decoded(events: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Each event as a dict: an SSE event's JSON decoded as the library does (a leaf; one
    without a Messages API type is None and skipped), a dict as it is."""
    for number, event in enumerate(events, 1):
        decoded = event if isinstance(event, dict) else decode_event(event, number)
        if decoded is not None:
            yield decoded


def message_of(
    module: ModuleType, tool_input: Callable[..., Any] | None = None
) -> Callable[[Iterable[Any]], dict[str, Any]]:
    """The learner's accumulator as a stage: events (SSE events, or dicts already decoded)
    -> the final message (dict). `tool_input`: as for `accumulator_of`."""
    new = accumulator_of(module, tool_input)

    def run(events: Iterable[Any]) -> dict[str, Any]:
        acc = new()
        for event in _decoded(events):
            acc.feed(event)
        return acc.final_message()

    return run


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

    def check(self, checks: list[Check]) -> None:
        """A lesson's checks of this stage (`check_all`) when it is the learner's; when it is
        still the library's, one line saying so instead: the checks would test the library
        against itself, and no ✔ may read as the learner's."""
        if self.mine:
            check_all(checks)
        else:
            print(
                _(
                    "Not run: {name} is the library's for now, so these checks would test "
                    "the library, not your code.",
                    name=self.name,
                )
            )


def _event_tuples(events: Iterable[Any]) -> list[tuple[Any, ...]]:
    return [(event.event, event.data, event.id, event.retry) for event in events]


def lines_checks(run: LineStage) -> list[Check]:
    """Lesson 02's checks, all of them (the lesson's check cell runs this very list), on a
    line stage `run` (`lines_of(feed)`)."""
    raw = read_fixture("fixture")
    library = list(fast.iter_lines([raw]))

    def linear(case: Callable[[int], list[bytes]]) -> Callable[[], str]:
        def judged() -> str:
            ratio = work.work_ratio(run.feed, case)
            if ratio <= work.LINEAR:
                return _("linear")
            return _("{ratio}x the work for 4x the bytes", ratio=round(ratio))

        return judged

    return [
        (_("a line cut between chunks waits"), lambda: run([b"da", b"ta: x\n"]), ["data: x"]),
        (
            _("LF, CRLF and CR end lines"),
            lambda: run([b"a\nb\r\nc\rd\n"]),
            ["a", "b", "c", "d"],
        ),
        (
            _("a CR ends its line at once, with no LF to wait for"),
            lambda: run.decoder_class().feed(b"a\rb\r"),
            ["a", "b"],
        ),
        (_("CR | LF is one line ending"), lambda: run([b"a\r", b"\nb\n"]), ["a", "b"]),
        (_("only one LF is skipped"), lambda: run([b"a\r", b"\n", b"\n"]), ["a", ""]),
        (_("an empty chunk changes nothing"), lambda: run([b"a\r", b"", b"\nb\n"]), ["a", "b"]),
        (_("a character cut in two waits"), lambda: run([b"\xe6\x89", b"\xbe\n"]), ["\u627e"]),
        (_("the fixture, 1 byte at a time"), lambda: run(chunked(raw, 1)), library),
        (_("the fixture, 7 bytes at a time"), lambda: run(chunked(raw, 7)), library),
        (
            _("linear work: one long line in 16-byte chunks"),
            linear(work.long_line),
            _("linear"),
        ),
        (_("linear work: many lines in one chunk"), linear(work.many_lines), _("linear")),
    ]


NOT_DIGITS = "\uff13\uff10\uff10\uff10, 1.5, -1, ' 10', +5, 1_000"  # int() takes all but 1.5
RETRY_VALUES = ["\uff13\uff10\uff10\uff10", "1.5", "-1", " 10", "+5", "1_000", "0250"]


def sse_checks(run: EventStage) -> list[Check]:
    """Lesson 01's checks, all of them (the lesson's check cell runs this very list), on an
    SSE stage `run` (`events_of(feed_line)`)."""
    fields = list(fast.iter_lines([read_fixture("sse_fields")]))
    library = _event_tuples(parse_sse(fields))

    def parsed(lines: list[str], decoder: Any = None) -> list[tuple[Any, ...]]:
        return _event_tuples(run(lines, decoder))

    def at_once() -> tuple[Any, ...]:  # (the events, the reconnection time after them)
        decoder = run.decoder()
        return parsed(["retry: 3000", ""], decoder), decoder.reconnection_time

    def retries() -> list[tuple[Any, ...]]:  # (the event's retry, the reconnection time)
        found = []
        for value in RETRY_VALUES:
            decoder = run.decoder()
            events = parsed(["retry: 2000", f"retry: {value}", "data: x", ""], decoder)
            found.append((events[0][3] if events else None, decoder.reconnection_time))
        return found

    return [
        (
            _("a blank line dispatches; data lines join with LF"),
            lambda: parsed(["data: a", "data: b", ""]),
            [("message", "a\nb", None, None)],
        ),
        (
            _("one space after the colon is removed, no more"),
            lambda: parsed(["data:  a", "data:b", "data:\tc", ""]),
            [("message", " a\nb\n\tc", None, None)],
        ),
        (
            _("the event type is reset at dispatch"),
            lambda: [e[0] for e in parsed(["event: x", "data: 1", "", "data: 2", ""])],
            ["x", "message"],
        ),
        (
            _("no data, no event; an unfinished event is dropped"),
            lambda: parsed(["event: x", "", "data: a"]),
            [],
        ),
        (
            _("comments and unknown fields are ignored"),
            lambda: parsed([": hi", "Data: x", "data: a", ""]),
            [("message", "a", None, None)],
        ),
        (
            _("the last event ID stays; an id with NUL is ignored"),
            lambda: [e[2] for e in parsed(["id: 7", "data: a", "", "id: 8\0", "data: b", ""])],
            ["7", "7"],
        ),
        (_("retry sets the reconnection time at once"), at_once, ([], 3000)),
        (
            _("retry: only ASCII digits count (not {values})", values=NOT_DIGITS),
            retries,
            [(2000, 2000)] * 6 + [(250, 250)],
        ),
        (_("sse_fields: the library's events"), lambda: parsed(fields), library),
    ]


def api_events(name: str) -> list[dict[str, Any]]:
    """Fixture `name`'s Messages API events, decoded by the library (fresh dicts each call)."""
    return list(_decoded(parse_sse(fast.iter_lines([read_fixture(name)]))))


def outcome(run: Callable[..., Any], events: list[Any]) -> str:
    """What `run(events)` does, as a word to compare: "a message", or the name of the
    library's error it raised (an error event adds its type: "APIStreamError overloaded_error").
    Any other exception propagates, to be reported as the learner's bug."""
    try:
        run(events)
    except StreamError as error:
        kind = getattr(error, "error_type", None)
        return f"{type(error).__name__} {kind}" if kind else type(error).__name__
    return "a message"


def accumulator_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 03's rules, on an accumulator stage `run` (events -> message), in the order a
    learner writes them: the order rule, each handler in the order of the events, the end."""
    stop = {"type": "message_stop"}
    ping = {"type": "ping"}

    def events(name: str, upto: int | None = None, *more: dict[str, Any]) -> list[Any]:
        return [*api_events(name)[:upto], *more]

    def library(name: str) -> dict[str, Any]:
        return accumulate(read_fixture(name))

    def part(name: str, *keys: Any) -> Callable[[], Any]:
        def get() -> Any:
            found: Any = run(events(name))
            for key in keys:
                found = found[key]
            return found

        return get

    def untouched_event() -> Any:  # the message_start event's own dict, after the stream
        stream = events("fixture")
        run(stream)
        return stream[0]["message"]

    first = api_events("fixture")
    block_1 = first[9]["content_block"]  # content_block_start of the tool block
    gap = {"type": "content_block_start", "index": 1, "content_block": block_1}
    after_stop = {"type": "content_block_delta", "index": 0}
    after_stop["delta"] = {"type": "text_delta", "text": "late"}
    late_delta = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
    unknown = {"type": "content_block_pause", "index": 0}  # a type from after this code
    return [
        (
            str(_("feed: an event before message_start is refused")),
            lambda: outcome(run, events("fixture")[1:]),
            "EventOrderError",
        ),
        (
            str(_("message_start: the message kept, content []")),
            lambda: run(events("fixture", 1, stop)),
            first[0]["message"],
        ),
        (
            str(_("a second message_start is refused")),
            lambda: outcome(run, events("fixture", 1, first[0])),
            "EventOrderError",
        ),
        (
            str(_("ping may come before message_start, and is skipped")),
            lambda: run([ping, *events("fixture", 1, stop)]),
            first[0]["message"],
        ),
        (
            str(_("content_block_start: block 1 opens, input {{}} for now")),
            lambda: run(events("fixture", 10, stop))["content"][1],
            block_1,
        ),
        (
            str(_("a block must start at the next free index")),
            lambda: outcome(run, events("fixture", 1, gap)),
            "EventOrderError",
        ),
        (
            str(_("text deltas are appended to their block")),
            part("text_only", "content"),
            library("text_only")["content"],
        ),
        (
            str(_("a delta for a block never started is refused")),
            lambda: outcome(run, events("delta_before_start")),
            "EventOrderError",
        ),
        (
            str(_("a delta after its block's stop is refused")),
            lambda: outcome(run, events("fixture", 9, after_stop)),
            "EventOrderError",
        ),
        (
            str(_("thinking appended, its signature set")),
            part("thinking", "content"),
            library("thinking")["content"],
        ),
        (
            str(_("content_block_stop: the tool's input is set")),
            part("fixture", "content", 1, "input"),
            library("fixture")["content"][1]["input"],
        ),
        (
            str(_("each tool's fragments go to its own block")),
            part("two_tools", "content"),
            library("two_tools")["content"],
        ),
        (
            str(_("message_delta: stop_reason and stop_sequence copied")),
            lambda: [run(events("stop_sequence"))[key] for key in ("stop_reason", "stop_sequence")],
            ["stop_sequence", "</answer>"],
        ),
        (
            str(_("output_tokens is a total: 58 replaces 1")),
            part("fixture", "usage", "output_tokens"),
            58,
        ),
        (
            str(_("the later total wins, a field left out stays")),
            part("two_message_deltas", "usage"),
            library("two_message_deltas")["usage"],
        ),
        (
            str(_("the message_start event is copied, never shared")),
            untouched_event,
            first[0]["message"],
        ),
        (
            str(_("an event after message_stop is refused")),
            lambda: outcome(run, events("fixture", None, late_delta)),
            "EventOrderError",
        ),
        (
            str(_("unknown event, block and delta types are skipped")),
            lambda: run(events("unknown_types", 1, unknown, *api_events("unknown_types")[1:])),
            library("unknown_types"),
        ),
        (
            str(_("an error event raises APIStreamError with its type")),
            lambda: outcome(run, events("error_mid_stream")),
            "APIStreamError overloaded_error",
        ),
        (
            str(_("no message_stop: IncompleteStreamError")),
            lambda: outcome(run, events("truncated")),
            "IncompleteStreamError",
        ),
        (
            str(_("tool input that is not JSON: ToolInputJSONError")),
            lambda: outcome(run, events("bad_tool_json")),
            "ToolInputJSONError",
        ),
        (
            str(_("max_tokens cut a tool: its best partial input")),
            part("max_tokens_tool"),
            library("max_tokens_tool"),
        ),
        (
            str(_("a tool stopped with its JSON cut by max_tokens: no error, its best input")),
            part("max_tokens_tool_stopped"),
            library("max_tokens_tool_stopped"),
        ),
        (str(_("the whole fixture: the library's message")), part("fixture"), library("fixture")),
    ]


def input_fragments(name: str, index: int) -> list[str]:
    """The `partial_json` fragments of block `index` in fixture `name`, as they came (str)."""
    return [
        event["delta"]["partial_json"]
        for event in api_events(name)
        if event["type"] == "content_block_delta"
        and event["index"] == index
        and event["delta"]["type"] == "input_json_delta"
    ]


def tool_input_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 04's rules, on a tool-input stage `run` (fragments, index -> input)."""

    def library(name: str) -> Any:
        return accumulate(read_fixture(name))["content"][1]["input"]

    def refused(fragments: list[str]) -> Any:  # the error's name, and the text it keeps
        try:
            run(fragments, 1)
        except ToolInputJSONError as error:
            return [type(error).__name__, error.raw]
        return str(_("no error"))

    single_quotes = ['{"to": ', "'new.txt'}"]
    return [
        (
            str(_("the fixture's five fragments")),
            lambda: run(input_fragments("fixture", 1), 1),
            library("fixture"),
        ),
        (
            str(_("cut inside escapes: the same as whole")),
            lambda: run(input_fragments("tool_escape_split", 1), 1),
            library("tool_escape_split"),
        ),
        (
            str(_("no fragments, or one empty one: {{}}")),
            lambda: [run([], 0), run([""], 1)],
            [{}, {}],
        ),
        (
            str(_("not JSON: ToolInputJSONError, the text kept as raw")),
            lambda: refused(single_quotes),
            ["ToolInputJSONError", "".join(single_quotes)],
        ),
    ]


# The input schema of the fixture's write_file tool (lesson 04's verdict checks).
WRITE_FILE = {
    "type": "object",
    "required": ["path", "content"],
    "additionalProperties": False,
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
}


def accumulated(raw: bytes, upto: int | None = None, *, skip: str = "") -> MessageAccumulator:
    """A library accumulator that has read the first `upto` events of `raw` (all: None),
    leaving out any event whose JSON text is `skip`."""
    acc = MessageAccumulator()
    for event in list(_decoded(parse_sse(fast.iter_lines([raw]))))[:upto]:
        if json.dumps(event, separators=(",", ":")) != skip:
            acc.feed(event)
    return acc


def verdict_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 04's six rules for running a tool call, on a verdict `run` (acc, index, schema
    -> bool), one check per rule, then the library's verdict after every event."""
    raw = read_fixture("fixture")
    end_turn = raw.replace(b'"stop_reason":"tool_use"', b'"stop_reason":"end_turn"')
    # a server's tool call in a message that stops for tool_use: still not the client's to run
    server = read_fixture("web_search").replace(b'"end_turn"', b'"tool_use"')
    unstopped = '{"type":"content_block_stop","index":1}'  # block 1's stop, left out

    def same_verdicts(name: str) -> bool:  # the learner's and the library's, after every event
        events = list(_decoded(parse_sse(fast.iter_lines([read_fixture(name)]))))
        acc, same = MessageAccumulator(), []
        for event in events:
            acc.feed(event)
            for index in range(len(acc.message["content"])):  # type: ignore[index]
                same.append(
                    run(acc, index, WRITE_FILE) == acc.is_safe_to_execute(index, WRITE_FILE)
                )
        return all(same)

    mode = {"type": "object", "required": ["mode"]}
    fixtures = ["fixture", "two_tools", "max_tokens_tool", "tool_no_input", "web_search"]
    return [
        (
            str(_("the fixture: write_file may run")),
            lambda: run(accumulated(raw), 1, WRITE_FILE),
            True,
        ),
        (
            str(_("1. a server tool's call is never yours")),
            lambda: run(accumulated(server), 1),
            False,
        ),
        (
            str(_("2. not before its content_block_stop")),
            lambda: run(accumulated(raw, skip=unstopped), 1),
            False,
        ),
        (
            str(_("3. not an input that is not JSON")),
            lambda: run(accumulated(read_fixture("bad_tool_json")), 1),
            False,
        ),
        (
            str(_("3. not an input cut by max_tokens")),
            lambda: run(accumulated(read_fixture("max_tokens_tool_stopped")), 1),
            False,
        ),
        (
            str(_("4. not an input the schema refuses")),
            lambda: run(accumulated(raw), 1, mode),
            False,
        ),
        (
            str(_("5. not before message_stop")),
            lambda: run(accumulated(raw, 17), 1, WRITE_FILE),
            False,
        ),
        (str(_("6. not under end_turn")), lambda: run(accumulated(end_turn), 1, WRITE_FILE), False),
        (
            str(_("the library's verdict, after every event")),
            lambda: all(map(same_verdicts, fixtures)),
            True,
        ),
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
    for event in _decoded(events):
        acc.feed(event)
    return acc.final_message()


@dataclass(frozen=True)
class _Spec:
    build: Callable[[ModuleType], Callable[..., Any]]  # the learner's module -> the stage
    checks: Callable[[Any], list[Check]]  # the checks the built stage must pass
    library: Callable[..., Any]  # the library's stage, used until the learner's passes


def _reference(file: str, function: str) -> Callable[..., Any]:
    """The course's answer `function` of `reference/<file>.py`, loaded when first called."""
    return lambda *args, **kwargs: getattr(load(file, REFERENCE), function)(*args, **kwargs)


# Each stage, in lesson order (01 to 07). A lesson converted later adds its stage here.
STAGES: dict[str, _Spec] = {
    "sse": _Spec(
        lambda module: events_of(module.feed_line),
        sse_checks,
        lambda lines: list(parse_sse(lines)),
    ),
    "lines": _Spec(
        lambda module: lines_of(module.feed),
        lines_checks,
        lambda chunks: list(fast.iter_lines(chunks)),
    ),
    "accumulator": _Spec(message_of, accumulator_checks, _library_message),
    "tool_input": _Spec(
        lambda module: module.tool_input,
        tool_input_checks,
        lambda fragments, index: load("tool_input", REFERENCE).tool_input(fragments, index),
    ),
    "verdict": _Spec(
        lambda module: module.may_run,
        verdict_checks,
        lambda acc, index, schema=None: acc.is_safe_to_execute(index, schema),
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


def checks_of(name: str, where: Path | None = None) -> list[Check]:
    """Stage `name`'s lesson checks ("lines", "sse", "accumulator", ...) on the learner's file
    `my_client/<name>.py` as saved: the very list that the lesson's check cell runs with
    `check_all`, that `stage` uses to choose, and that `my-client` reports. Each is
    (what it tests, a function computing the result, the result expected)."""
    spec = STAGES[name]
    return spec.checks(spec.build(load(name, where)))


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
        kept = _(
            "my_client/{file} kept: it holds answers this cell does not "
            "(delete the file to start it again from this cell)",
            file=file_name,
        )
        return kept, old
    target.write_text(text, encoding="utf-8")
    return _("my_client/{file} saved", file=file_name), text


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
