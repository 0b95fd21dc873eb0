"""The trace command: one row per event, showing what each stage made of it.

    python -m streaming_lib trace [FILE|NAME] [--chunk-size N] [--sdk] [--lang zh]

A front end: it only reads the stages' state, it decides nothing itself.
For each event it prints its number, name, `[index]`, the delta as received
(cut to its column), and then what the event did to its block:

- a text (or thinking) delta: what it added and the running length
  (`+3 chars, 21 so far`), then the end of the text so far (at most
  `TAIL_CHARS` characters);
- a tool block's `input_json_delta`: the same counts, whether `json.loads`
  accepts the buffer yet (✘/✔), and what the fragment changed in the partial
  input (`input["path"] += "ca"`), from the accumulator's incremental parser;
- `content_block_stop`: the block's length, or the tool input it parsed to;
- `message_delta`: `stop_reason` and `output_tokens`.

Every row costs what its event brought (a block's stop: that block, once),
never the length of the stream so far: `block_progress.Progress` keeps the counts,
no text is re-joined and no JSON re-parsed per row. A row is at most
`ROW_COLUMNS` terminal columns wide, so a 2 MB text stream prints about 2 MB
of trace, a short row per event. A stream that fails prints the error and the
partial message instead of a traceback.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from ..accumulator import MessageAccumulator, end_of_body
from ..errors import APIStreamError, NotAnEventStreamError, StreamError
from ..events import BODY_HEAD_BYTES, decode_event
from ..language import _
from ..language import say as in_lang
from ..lines import LineDecoder
from ..partial_json import AppendString, Change, SetValue
from ..sse import SSEDecoder
from .block_progress import BlockProgress, Progress
from .files import read_stream_file
from .i18n import TRACE, words

# What the SDK's bare `AssertionError` on such a body means: its stream never
# saw a `message_start`, so `get_final_message()` fails an internal assert
# (anthropic/lib/streaming/_messages.py) that carries no text.
SDK_ASSERTION_MEANS = _(
    "(an assert inside the SDK with no message: no message_start arrived, "
    "so it has no message to return)"
)
COLUMNS = (4, 20, 5, 37)  # widths of: number, event, [index], delta (the state follows)
STATE_COLUMNS = 100  # the state column is cut (with "…") past this many terminal columns
ROW_COLUMNS = sum(size + 1 for size in COLUMNS) + STATE_COLUMNS
CHANGE_CHARS = 24  # characters of a string shown in one change (input["content"] += "…")


def width(text: str) -> int:
    """Columns `text` takes in a terminal: CJK characters take two."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def cut(text: str, size: int) -> str:
    """`text` cut to at most `size` terminal columns, its end replaced by "…" if cut.

    >>> cut("找到原因了", 7)
    '找到原…'
    """
    if text.isascii():
        return text if len(text) <= size else text[: size - 1] + "…"
    used = 0
    for end, char in enumerate(text):
        used += 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if used > size - 1 and end < len(text) - 1 or used > size:
            return text[:end] + "…"
    return text


def cell(text: Any, size: int) -> str:
    """`text` (a value that is not a str is shown as JSON) cut or padded to `size` terminal columns,
    then one space."""
    text = cut(printable(text) if isinstance(text, str) else show(text), size)
    return text + " " * (size - width(text) + 1)


def show(value: Any) -> str:
    return printable(json.dumps(value, ensure_ascii=False))


def printable(text: str) -> str:
    """`text` with any lone surrogate (valid in JSON's \\u escapes, not in UTF-8) written as its
    escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def shown_start(text: str, chars: int) -> str:
    """`text` as JSON, only its first `chars` characters (then "…"): the cost stays `chars` whatever
    its length."""
    return show(text[:chars]) + ("…" if len(text) > chars else "")


def describe_delta(event: dict[str, Any]) -> str:
    """The part of an event worth showing in the delta column (at most a column's worth of each
    value)."""
    kind = event.get("type")
    if kind == "content_block_delta":
        delta = dict(event["delta"])
        delta.pop("type", None)
        return " ".join(
            shown_start(v, COLUMNS[3]) if isinstance(v, str) else show(v) for v in delta.values()
        )
    if kind == "content_block_start":
        return event["content_block"].get("type", "?")
    if kind == "message_start":
        return event["message"].get("id", "")
    if kind == "message_delta":
        return show(event.get("delta", {}))
    return ""


def path_text(path: tuple) -> str:
    """A path in the tool input, as Python would index it: ("files", 0) -> 'input["files"][0]'."""
    return "input" + "".join(f"[{show(key)}]" for key in path)


def describe_change(change: Change) -> str | None:
    """What a change did to the partial input, short ('input["path"] += "ca"'); None for the
    changes a reader need not see (a new empty string, list or object; a value that ended)."""
    if isinstance(change, AppendString):
        return f"{path_text(change.path)} += {shown_start(change.text, CHANGE_CHARS)}"
    if isinstance(change, SetValue) and not isinstance(change.value, (str, list, dict)):
        return f"{path_text(change.path)} = {show(change.value)}"
    return None


def counts(block: BlockProgress) -> str:
    return f"+{block.added:,} chars, {block.length:,} so far"


def running_text(block: BlockProgress) -> str:
    """The end of a text block so far: all of it if short, else "…" and its last TAIL_CHARS
    characters."""
    return ("…" if block.length > len(block.tail) else "") + show(block.tail)


def describe_state(acc: MessageAccumulator, event: dict[str, Any], progress: Progress) -> str:
    """What `event` did to the message, for the state column (before it is cut to STATE_COLUMNS)."""
    kind = event.get("type")
    # An int in a content block event (`acc` has checked it), else None.
    index: Any = event.get("index")
    if kind == "message_delta":
        usage, reason = acc.message.get("usage"), acc.message.get("stop_reason")  # type: ignore[union-attr]
        tokens = usage.get("output_tokens") if isinstance(usage, dict) else None
        reason = (
            printable(reason)
            if isinstance(reason, str)
            else reason
            if reason is None
            else show(reason)
        )
        return f"stop_reason={reason} output_tokens={tokens}"
    block = (
        progress.blocks.get(index)
        if kind in ("content_block_delta", "content_block_stop")
        else None
    )
    if block is None:
        return ""
    if block.kind == "tool":
        if kind == "content_block_stop":
            if index in acc.input_errors:  # judged at the end of the stream, by its stop reason
                return f"✘ input {acc.input_errors[index].problem}"
            return "input: " + show(acc.message["content"][index].get("input"))  # type: ignore[index]
        parser = acc.input_parsers[index]
        if parser.error is not None:
            verdict = f"✘ not JSON: {parser.error}"
        elif block.ended and not block.parses:
            verdict = "✘ not JSON: more text after the value"
        else:
            verdict = "✔ parses" if block.parses else "✘ not JSON yet"
        changes = filter(
            None, map(describe_change, acc.input_changes[:16])
        )  # more would be cut anyway
        return " · ".join([counts(block), verdict, *changes])
    if block.kind in ("text", "thinking"):
        if kind == "content_block_stop":
            return f"{block.kind} done, {block.length:,} chars: {running_text(block)}"
        return f"{block.kind} {counts(block)}: {running_text(block)}"
    return ""


def chunking(size: int, chunk_size: int) -> str:
    """How a stream of `size` bytes is cut into chunks of `chunk_size` bytes, in words.

    >>> chunking(2351, 7)
    '2,351 bytes in 336 chunks of 7 bytes'
    >>> chunking(5, 1), chunking(3, 8)
    ('5 bytes in 5 chunks of 1 byte', '3 bytes in 1 chunk of 8 bytes')
    """
    count = -(-size // chunk_size)  # the last chunk may be shorter
    return (
        f"{size:,} {'byte' if size == 1 else 'bytes'} in {count:,} "
        f"{'chunk' if count == 1 else 'chunks'} of {chunk_size:,} "
        f"{'byte' if chunk_size == 1 else 'bytes'}"
    )


def chunks_of(raw: bytes, size: int) -> Iterator[bytes]:
    """`raw` in chunks of `size` bytes, one at a time (a list of them all would hold the stream
    twice)."""
    for start in range(0, len(raw), size):
        yield raw[start : start + size]


def trace(
    raw: bytes,
    *,
    chunk_size: int | None = None,
    out: Callable[[str], None] = print,
    lang: str = "en",
) -> MessageAccumulator:
    """Print the trace of stream `raw` (bytes) delivered in `chunk_size`-byte chunks, its column
    headers in `lang` ("en" or "zh": `i18n.TRACE`; the rows are the same in both).

    Returns the accumulator; raises the `StreamError` that ended the stream,
    after printing it and the partial message.
    """
    say = words(TRACE, lang)
    lines, sse, acc, progress = LineDecoder(), SSEDecoder(), MessageAccumulator(), Progress()
    header = (say["number"], say["event"], say["index"], say["delta"])
    out("".join(cell(h, w) for h, w in zip(header, COLUMNS, strict=True)) + say["state"])
    try:
        for chunk in chain(chunks_of(raw, chunk_size or max(len(raw), 1)), [None]):
            if acc.complete:
                # As `accumulate`: the message ended at message_stop; what follows is not read.
                break
            new_lines = lines.feed(chunk) if chunk is not None else lines.flush()
            for line in new_lines:
                if acc.complete:
                    break
                dispatched = sse.feed_line(line)
                event = (
                    None if dispatched is None else decode_event(dispatched, acc.next_event_number)
                )
                if event is None:
                    continue
                acc.feed(event)
                progress.follow(acc, event)
                index = f"[{event['index']}]" if "index" in event else ""
                row = (str(acc.event_number), event.get("type", "?"), index, describe_delta(event))
                state = cut(describe_state(acc, event, progress), STATE_COLUMNS)
                cells = "".join(cell(text, w) for text, w in zip(row, COLUMNS, strict=True))
                out((cells + state).rstrip())
        end_of_body(acc, raw[:BODY_HEAD_BYTES])  # no event at all: was it an event stream?
        acc.final_message()
    except StreamError as error:
        acc.fill_partial(error)
        out("")
        out(f"{type(error).__name__}: {in_lang(error.args[0], lang) if error.args else ''}")
        if acc.event_number == 0 and isinstance(error, (NotAnEventStreamError, APIStreamError)):
            out(in_lang(not_a_stream(error), lang))  # no event came: there is no partial message
            raise
        partial = printable(json.dumps(error.partial, ensure_ascii=False, indent=2))
        out(in_lang(_("partial message: {message}", message=partial), lang))
        raise
    return acc


def not_a_stream(error: StreamError) -> str:
    """The line under the error of a body that held no event, so that nobody reads it
    as a dropped connection: what the server sent instead, and whether to retry."""
    if isinstance(error, APIStreamError) and error.retryable:
        return _("(no event: the server answered with a JSON error object, worth retrying)")
    if isinstance(error, APIStreamError):
        return _(
            "(no event: the server answered with a JSON error object, not worth retrying as it is)"
        )
    return _("(no event: the server answered with something other than an event stream)")


def sdk_raises(error: dict[str, str]) -> str:
    """What the SDK raised, in words: "raises ValueError: ..."; an exception with no
    text (the SDK's bare `AssertionError`) is followed by what it means.

    >>> sdk_raises({"class": "AssertionError", "message": ""})[:40]
    'raises AssertionError (an assert inside '
    """
    if error["message"]:
        return _("raises {kind}: {message}", kind=error["class"], message=error["message"])
    if error["class"] == "AssertionError":
        return _("raises AssertionError {means}", means=SDK_ASSERTION_MEANS)
    return _("raises {kind} (with no message)", kind=error["class"])


def run(
    path: Path,
    *,
    chunk_size: int | None,
    with_sdk: bool,
    out: Callable[[str], None] = print,
    lang: str = "en",
) -> int:
    """The `trace` command: returns the exit status (0 ok, 1 stream error or SDK mismatch).
    `lang`: the language of the column headers ("en" or "zh").

    With a `chunk_size`, the first line says how the bytes were cut, e.g.
    "fixture.sse: 2,351 bytes in 336 chunks of 7 bytes". Raises `files.FileRefused` for a
    path that is not a regular file of at most `files.MAX_STREAM_BYTES` that can be read."""
    raw = read_stream_file(path)
    if chunk_size is not None:
        out(f"{path.name}: {chunking(len(raw), chunk_size)}")
    try:
        acc = trace(raw, chunk_size=chunk_size, out=out, lang=lang)
    except StreamError:
        if with_sdk:
            from .sdk import sdk_verdict  # the SDK only checks, and loads only when asked

            verdict = sdk_verdict(raw)
            if "error" in verdict:
                said = sdk_raises(verdict["error"])
            else:
                reason = show(verdict["message"].get("stop_reason"))
                said = _("returns a message with stop_reason {reason}", reason=reason)
            out(in_lang(_("the SDK, on the same bytes, {said}", said=said), lang))
        return 1
    for index in acc.incomplete_blocks():
        out(
            in_lang(
                _(
                    "⚠ block {index} is incomplete: no content_block_stop, "
                    "or an input that is not a JSON object",
                    index=index,
                ),
                lang,
            )
        )
    for index in sorted(acc.input_parsers):  # every block whose input streamed: the calls
        call = acc.tool_call_verdict(index)
        name = acc.message["content"][index].get("name")  # type: ignore[index]
        if call.runnable:
            said = _(
                "✔ [{index}] {name} may run: {reason}", index=index, name=name, reason=call.reason
            )
        else:
            said = _(
                "✘ [{index}] {name} may not run: {reason}",
                index=index,
                name=name,
                reason=call.reason,
            )
        out(in_lang(said, lang))
    if not with_sdk:
        return 0
    from .sdk import compare_messages, sdk_verdict

    verdict = sdk_verdict(raw)
    if "error" in verdict:  # we finished the message where the SDK did not
        said = _("the SDK, on the same bytes, {said}", said=sdk_raises(verdict["error"]))
        out("✘ " + in_lang(said, lang))
        return 1
    ours, theirs = acc.final_message(), verdict["message"]
    for block in theirs["content"]:
        if "input" in block:
            said = _(
                "SDK tool input ({name}): {input}",
                name=block.get("name"),
                input=show(block["input"]),
            )
            out(in_lang(said, lang))
    differences = compare_messages(ours, theirs)
    if differences:
        out(in_lang(_("✘ the hand-built message differs from the SDK's:"), lang))
        for line in differences:
            out("  " + line)
        return 1
    out(in_lang(_("✔ the hand-built message equals the SDK's final message"), lang))
    return 0
