"""The learner's client beside the chat page (lesson 07): it reads the very bytes the relay
passes on, and its verdicts are the ones the page shows.

The chat app (`streaming_lib.chat.build_app(..., reader=...)`) hands each piece of the
upstream's body to a `Reading` as it relays it (a tee: the page gets the same pieces,
untouched), and `Reading.finish` runs the learner's stages on them once the body has
ended, been cut or been stopped:

    bytes -> lines -> SSE events -> the message -> each tool call's verdict
      (my_client/lines.py, sse.py, accumulator.py, tool_input.py, verdict.py)

each stage the learner's when it passes its lesson's checks, else the library's (`stage`,
which says which). The report (a JSON-able dict) says whose each stage was, whether the
learner's message is the library's for the same bytes (or the first difference), and
the learner's verdict on each tool call; the page shows it under the answer.

The library's verdict reads any accumulator's state, the learner's or the library's:

    >>> from streaming_lib.events import iter_events
    >>> from streaming_lib.tools.fixtures import read_fixture
    >>> acc = MessageAccumulator()
    >>> for event in iter_events([read_fixture("fixture")]):
    ...     acc.feed(event)
    >>> library_verdict(acc, 1), library_verdict(acc, 0)
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ...accumulator import MessageAccumulator, accumulate
from ...language import _
from ...tool_calls import schema_mismatch, tool_call_verdict
from ..sdk import compare_messages
from . import _decoded, accumulator_of, load, stage
from .given import TOOL_BLOCKS
from .reports import named

__all__ = ["BESIDE_STAGES", "Reading", "library_verdict", "readings"]

# The stages that read the relayed bytes, in the order they run.
BESIDE_STAGES = ("lines", "sse", "accumulator", "tool_input", "verdict")


def library_verdict(acc: Any, index: int, schema: dict[str, Any] | None = None) -> bool:
    """The library's verdict (`tool_calls.tool_call_verdict`) on block `index`, read from any
    accumulator's state: the learner's (`given.Accumulator`) or a `MessageAccumulator`."""
    error = acc.input_errors.get(index)
    return tool_call_verdict(
        acc.message,
        index,
        complete=acc.complete,
        stopped=index in acc.stopped,
        input_error=None if error is None else (getattr(error, "problem", "") or str(error)),
        schema=schema,
    ).runnable


class Reading:
    """One relayed answer, read by the learner's client beside the page.

    `runs`: stage name -> (whether it is the learner's, its function), as `readings`
    chose them; `new_accumulator`: a fresh accumulator (`.feed(event)`, `.final_message()`,
    its state in `.state` or itself). `feed(piece)` keeps each relayed piece (bytes)
    as it came; `finish(cut, schemas)` reads them all and returns the report."""

    def __init__(
        self,
        runs: Mapping[str, tuple[bool, Callable[..., Any]]],
        new_accumulator: Callable[[], Any],
    ) -> None:
        self.runs = runs
        self.new_accumulator = new_accumulator
        self.pieces: list[bytes] = []

    def feed(self, piece: bytes) -> None:
        self.pieces.append(bytes(piece))

    def finish(self, cut: bool, schemas: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        """The report: {"stages": {name: "yours" | "library"}, "message": {"matches": bool,
        "said": str}, "verdicts": {block index (str): bool}, "cut": bool}. `cut`: the body
        did not end cleanly (a cut, or the page's Stop); the message then says how each
        client ended. `schemas`: tool name -> input_schema, for the verdicts. The
        learner's errors are reported, never raised."""
        whose = {name: "yours" if mine else "library" for name, (mine, _run) in self.runs.items()}
        acc = self.new_accumulator()
        state = getattr(acc, "state", acc)
        try:
            lines = self.runs["lines"][1](self.pieces)
            for event in _decoded(self.runs["sse"][1](lines)):
                acc.feed(event)
            mine: Any = acc.final_message()
        except Exception as error:  # a StreamError, or the learner's bug: compared, not raised
            mine = error
        if all(found == "library" for found in whose.values()):
            said = {"matches": False, "said": str(_("no stage of your client is yours yet"))}
        else:
            said = self._compared(mine)
        verdicts = {}
        content = (state.message or {}).get("content") or []
        for index, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") in TOOL_BLOCKS:
                try:
                    schema = schemas.get(block.get("name", ""))
                    verdicts[str(index)] = bool(self.runs["verdict"][1](state, index, schema))
                except Exception:  # the learner's verdict failed: no verdict of theirs
                    continue
        return {"stages": whose, "message": said, "verdicts": verdicts, "cut": cut}

    def _compared(self, mine: Any) -> dict[str, Any]:
        """The learner's message (or error) against the library's on the same bytes."""
        try:
            theirs: Any = accumulate(self.pieces)
        except Exception as error:
            theirs = error
        if isinstance(mine, BaseException) or isinstance(theirs, BaseException):
            same = type(mine) is type(theirs)
            what = named(mine) if isinstance(mine, BaseException) else _("a message")
            if same:
                said = _("your client ended as the library did: {what}", what=what)
            else:
                said = _("your client: {what}; the library's differs", what=what)
            return {"matches": same, "said": str(said)}
        differences = compare_messages(mine, theirs)
        if not differences:
            return {"matches": True, "said": str(_("your client: the message matches"))}
        first = differences[0].replace("in the SDK's", "in the library's")
        said = _("your client: the message differs: {first}", first=first)
        return {"matches": False, "said": str(said)}


def readings(where: Path | None = None) -> Callable[[], Reading]:
    """The learner's client as a reader for the chat app: chooses each stage as the lessons
    do (`stage`, one line printed for each: yours, or the library's and why), then gives a
    factory of `Reading`s that use those choices."""
    chosen = {name: stage(name, where) for name in BESIDE_STAGES}
    schema_mismatch({}, {})  # jsonschema loads now, not while the first answer ends
    runs = {name: (found.mine, found.run) for name, found in chosen.items()}
    if not chosen["verdict"].mine:  # the library's, on whichever accumulator's state
        runs["verdict"] = (False, library_verdict)

    def new_accumulator() -> Any:
        if chosen["accumulator"].mine:
            return accumulator_of(load("accumulator", where), chosen["tool_input"].run)()
        return MessageAccumulator()

    return lambda: Reading(runs, new_accumulator)
