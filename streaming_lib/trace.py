"""The trace command: one row per event, showing what each stage made of it.

    python -m streaming_lib trace [FILE] [--chunk-size N] [--sdk]

A front end: it only reads the stages' state, it decides nothing itself.
For each event it prints its number, name, `[index]`, the delta as received,
and then the running text of a text block, whether a tool block's JSON buffer
parses yet (✘/✔), the tool input at `content_block_stop`, and `stop_reason`
and `output_tokens` at `message_delta`. A stream that fails prints the error
and the partial message instead of a traceback.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .accumulator import MessageAccumulator, decode_event, load_json
from .errors import StreamError
from .fixtures import chunked
from .lines import LineDecoder
from .sse import SSEDecoder

COLUMNS = (4, 20, 5, 37)  # widths of: number, event, [index], delta (the state follows)


def width(text: str) -> int:
    """Columns `text` takes in a terminal: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def cell(text: Any, size: int) -> str:
    """`text` (a value that is not a str is shown as JSON) cut or padded to `size` terminal columns, then one space."""
    text = printable(text) if isinstance(text, str) else show(text)
    used = 0
    for end, char in enumerate(text):
        used += width(char)
        if used > size - 1 and end < len(text) - 1 or used > size:
            text = text[:end] + "…"
            break
    return text + " " * (size - width(text) + 1)


def show(value: Any) -> str:
    return printable(json.dumps(value, ensure_ascii=False))


def printable(text: str) -> str:
    """`text` with any lone surrogate (valid in JSON's \\u escapes, not in UTF-8) written as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def describe_delta(event: dict[str, Any]) -> str:
    """The part of an event worth showing in the delta column."""
    kind = event.get("type")
    if kind == "content_block_delta":
        delta = dict(event["delta"])
        delta.pop("type", None)
        return " ".join(show(v) for v in delta.values())
    if kind == "content_block_start":
        return event["content_block"].get("type", "?")
    if kind == "message_start":
        return event["message"].get("id", "")
    if kind == "message_delta":
        return show(event.get("delta", {}))
    return ""


def describe_state(acc: MessageAccumulator, event: dict[str, Any]) -> str:
    """What the accumulator holds after `event`, for the state column."""
    kind, index = event.get("type"), event.get("index")
    if kind == "message_delta":
        usage, reason = acc.message.get("usage"), acc.message.get("stop_reason")  # type: ignore[union-attr]
        tokens = usage.get("output_tokens") if isinstance(usage, dict) else None
        reason = printable(reason) if isinstance(reason, str) else reason if reason is None else show(reason)
        return f"stop_reason={reason} output_tokens={tokens}"
    if index is None or kind not in ("content_block_delta", "content_block_stop"):
        return ""
    block = acc.message["content"][index]  # type: ignore[index]
    if index in acc.input_parsers:
        if kind == "content_block_stop":
            return "input: " + show(block.get("input"))
        try:
            load_json(acc.json_buffers[index])  # as the accumulator will at the block's stop
            return "✔ parses"
        except ValueError:  # not JSON, or too deep, or an integer too long
            return "✘ not JSON yet"
    if block.get("type") == "text":
        return "text: " + show(block.get("text", ""))
    if block.get("type") == "thinking":
        return "thinking: " + show(block.get("thinking", ""))
    return ""


def trace(raw: bytes, *, chunk_size: int | None = None, out: Callable[[str], None] = print) -> MessageAccumulator:
    """Print the trace of stream `raw` (bytes) delivered in `chunk_size`-byte chunks.

    Returns the accumulator; raises the `StreamError` that ended the stream,
    after printing it and the partial message.
    """
    lines, sse, acc = LineDecoder(), SSEDecoder(), MessageAccumulator()
    out("".join(cell(h, w) for h, w in zip(("#", "event", "idx", "delta"), COLUMNS)) + "state")
    try:
        for chunk in chunked(raw, chunk_size or max(len(raw), 1)) + [None]:
            new_lines = lines.feed(chunk) if chunk is not None else lines.flush()
            for line in new_lines:
                dispatched = sse.feed_line(line)
                event = None if dispatched is None else decode_event(dispatched, acc.event_number + 1)
                if event is None:
                    continue
                acc.feed(event)
                index = f"[{event['index']}]" if "index" in event else ""
                row = (str(acc.event_number), event.get("type", "?"), index, describe_delta(event))
                out("".join(cell(text, w) for text, w in zip(row, COLUMNS)) + describe_state(acc, event))
        acc.final_message()
    except StreamError as error:
        acc.fill_partial(error)
        out("")
        out(f"{type(error).__name__}: {error}")
        out("partial message: " + printable(json.dumps(error.partial, ensure_ascii=False, indent=2)))
        raise
    return acc


def run(path: Path, *, chunk_size: int | None, with_sdk: bool, out: Callable[[str], None] = print) -> int:
    """The `trace` command: returns the exit status (0 ok, 1 stream error or SDK mismatch)."""
    raw = path.read_bytes()
    try:
        acc = trace(raw, chunk_size=chunk_size, out=out)
    except StreamError:
        if with_sdk:
            from .sdk import sdk_verdict  # the SDK only checks, and loads only when asked

            verdict = sdk_verdict(raw)
            if "error" in verdict:
                said = "raises {class}: {message}".format(**verdict["error"])
            else:
                said = f"returns a message with stop_reason {show(verdict['message'].get('stop_reason'))}"
            out(f"the SDK, on the same bytes, {said}")
        return 1
    for index in acc.incomplete_blocks():
        out(f"⚠ block {index} never got its content_block_stop: incomplete, not safe to execute")
    if not with_sdk:
        return 0
    from .sdk import compare_messages, sdk_verdict

    verdict = sdk_verdict(raw)
    if "error" in verdict:  # we finished the message where the SDK did not
        out("✘ the SDK, on the same bytes, raises {class}: {message}".format(**verdict["error"]))
        return 1
    ours, theirs = acc.final_message(), verdict["message"]
    for block in theirs["content"]:
        if "input" in block:
            out(f"SDK tool input ({block.get('name')}): {show(block['input'])}")
    differences = compare_messages(ours, theirs)
    if differences:
        out("✘ the hand-built message differs from the SDK's:")
        for line in differences:
            out("  " + line)
        return 1
    out("✔ the hand-built message equals the SDK's final message")
    return 0
