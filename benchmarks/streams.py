"""The streams the benchmarks read: Messages API bodies (bytes) built to a given size.

Two kinds, both deterministic (same size, same bytes, every run):

- `tool_stream(size)`: a short text block, then a `write_file` tool call whose
  input JSON is about `size` bytes, sent in 16-character `input_json_delta`
  fragments. The `content` string is Python source with what real code has:
  newlines, quotes and backslashes (escaped in JSON as \\n, \\" and \\\\) and
  some non-ASCII text (sent raw, as UTF-8).
- `text_stream(size)`: one text block in `text_delta` events of a few
  characters each, until the whole body is about `size` bytes.
- `tool_stream_of(size)`: a tool stream as above whose whole body (not its
  input) is about `size` bytes, for benchmarks that scale with the bytes.
- `mixed_stream(size)`: a body of about `size` bytes in three blocks of about
  a third each: thinking, text, and a write_file call.

Not a goal: the variety of real model output (citations, several tools,
server tools). These streams stress one thing each (a long tool input, many
events), or, mixed, the three kinds of block a reply most often holds.

    >>> raw = tool_stream(4096)
    >>> raw.startswith(b"event: message_start")
    True
    >>> len(tool_fragments(4096)[0]) == FRAGMENT_CHARS
    True
"""

from __future__ import annotations

import json
from functools import cache

FRAGMENT_CHARS = 16  # characters of tool input JSON per input_json_delta (bytes for ASCII)
KiB, MiB = 1024, 1024 * 1024

# One function of "realistic" code; {n} makes each copy different. It holds
# what makes JSON strings expensive: escapes (\n, \", \\, \t) and non-ASCII
# (é, ï, the em dash "—", the arrow "→").
CODE = '''
def read_record_{n}(line: str) -> dict[str, str]:
    """Split a "key: value" line — naïve on purpose (lesson {n}, café example)."""
    key, _, value = line.partition(":")
    if not key:
        raise ValueError(f"no key in {{line!r}} (record {n})")
    # tabs → spaces, and a Windows path stays as written: C:\\\\temp\\\\{n}
    return {{"key": key.strip().lower(), "value": value.strip().replace("\\t", " ")}}
'''


def _sse(event: dict) -> str:
    """One SSE event as the API writes it: compact JSON, non-ASCII sent raw."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n"


def _message_start() -> dict:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-5-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 512, "output_tokens": 1},
        },
    }


def _message_end(stop_reason: str, output_tokens: int) -> list[dict]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def tool_input_text(size: int) -> str:
    """The JSON text (str) of a write_file input of about `size` UTF-8 bytes (never more)."""
    head, tail = '{"path": "records.py", "content": "', '"}'
    budget = size - len(head) - len(tail)
    parts, used, n = [], 0, 0
    while True:
        piece = json.dumps(CODE.format(n=n), ensure_ascii=False)[1:-1]  # escaped, no quotes
        cost = len(piece.encode())
        if used + cost > budget:
            break
        parts.append(piece)
        used, n = used + cost, n + 1
    return head + "".join(parts) + tail


@cache
def tool_fragments(size: int) -> list[str]:
    """The tool input JSON cut into FRAGMENT_CHARS-character fragments (list of str)."""
    text = tool_input_text(size)
    return [text[i : i + FRAGMENT_CHARS] for i in range(0, len(text), FRAGMENT_CHARS)]


def _tool_events(index: int, size: int) -> list[dict]:
    """A write_file tool block at `index` whose input JSON is about `size` bytes:
    its start, its fragments and its stop."""
    events: list[dict] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_bench",
                "name": "write_file",
                "input": {},
            },
        }
    ]
    for fragment in tool_fragments(size):
        events.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": fragment},
            }
        )
    events.append({"type": "content_block_stop", "index": index})
    return events


@cache
def tool_stream(size: int) -> bytes:
    """A whole stream body (bytes) whose write_file input JSON is about `size` bytes."""
    events = [
        _message_start(),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "I'll write the file."},
        },
        {"type": "content_block_stop", "index": 0},
        *_tool_events(1, size),
    ]
    events += _message_end("tool_use", len(events))
    return "".join(map(_sse, events)).encode()


def _text_block(index: int, kind: str, budget: int) -> list[str]:
    """A text (or thinking: `kind`) block at `index` as SSE events (list of str),
    its start, its deltas of 1 to 8 characters and its stop, about `budget` bytes
    in all."""
    prose = "".join(CODE.format(n=n) for n in range(50))
    delta_type = f"{kind}_delta"
    events = [
        _sse(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": kind, kind: ""},
            }
        )
    ]
    end = [_sse({"type": "content_block_stop", "index": index})]
    if kind == "thinking":  # a thinking block is signed before it stops
        end.insert(
            0,
            _sse(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "signature_delta", "signature": "c2lnbmVk" * 8},
                }
            ),
        )
    used, at, k = sum(len(event.encode()) for event in events + end), 0, 0
    while used < budget:
        width = 1 + k % 8  # a few characters per token, varying
        piece = prose[at : at + width] or prose[:width]
        at = (at + width) % len(prose)
        event = _sse(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": delta_type, kind: piece},
            }
        )
        events.append(event)
        used, k = used + len(event.encode()), k + 1
    return events + end


@cache
def text_stream(size: int) -> bytes:
    """A text-only stream body (bytes) of about `size` bytes.

    Its text comes in text_delta events of 1 to 8 characters.
    """
    head = _sse(_message_start())
    tail = "".join(map(_sse, _message_end("end_turn", 9)))
    budget = size - len(head.encode()) - len(tail.encode())
    return (head + "".join(_text_block(0, "text", budget)) + tail).encode()


@cache
def tool_stream_of(size: int) -> bytes:
    """A `tool_stream` whose whole body is about `size` bytes.

    Its input is about a ninth of that.
    """
    return tool_stream(_input_size_for(size))


def _input_size_for(body: int) -> int:
    """The tool input size (bytes) whose `tool_stream` body is about `body` bytes."""
    sample = 16 * KiB  # every fragment costs the same SSE around it: the ratio holds at any size
    body_per_input_byte = len(tool_stream(sample)) / len("".join(tool_fragments(sample)).encode())
    return int(body / body_per_input_byte)


@cache
def mixed_stream(size: int) -> bytes:
    """A stream body (bytes) of about `size` bytes with a block of every common
    kind, each about a third of the bytes: thinking (signed), text, and a
    write_file call, in the deltas of the streams above."""
    third = size // 3
    head = _sse(_message_start())
    tool = _tool_events(2, _input_size_for(third))
    tail = list(map(_sse, [*tool, *_message_end("tool_use", 9)]))
    body = _text_block(0, "thinking", third) + _text_block(1, "text", third)
    return (head + "".join(body + tail)).encode()


# The shapes of tool input the snapshot preview is measured on (`shaped_tool_stream`):
# shape -> (the input's JSON text of about `size` bytes, characters per fragment).
PROSE = (
    "The stream arrives a few characters at a time, and the page shows each piece as "
    "soon as it comes, so the reader never waits for the whole answer. "
)
CJK = "流式响应一次只送来几个字，页面收到一段就显示一段，读者不必等整个回答写完。"


def _string_input(size: int, text: str) -> str:
    """A write_file input whose `content` repeats `text` to about `size` UTF-8 bytes."""
    head, tail = '{"path": "notes.md", "content": "', '"}'
    piece = json.dumps(text, ensure_ascii=False)[1:-1]
    copies = max(1, (size - len(head) - len(tail)) // len(piece.encode()))
    return head + piece * copies + tail


def _nested_input(size: int) -> str:
    """An input of many small values, objects in lists in objects, about `size` bytes:
    what a call that fills a form or a table sends."""
    rows, used, n = [], 0, 0
    while True:
        row = json.dumps(
            {"id": n, "ok": n % 3 == 0, "tags": ["a", "b"], "at": {"x": n % 7, "y": [1.5, None]}}
        )
        if used + len(row) + 20 > size:
            break
        rows.append(row)
        used, n = used + len(row) + 1, n + 1
    return '{"table": {"rows": [' + ",".join(rows) + "]}}"


SHAPES = {
    "code, 16-char fragments": (tool_input_text, FRAGMENT_CHARS),
    "code, 64-char fragments": (tool_input_text, 64),
    "ASCII prose": (lambda size: _string_input(size, PROSE), FRAGMENT_CHARS),
    "CJK text": (lambda size: _string_input(size, CJK), FRAGMENT_CHARS),
    "nested small values": (_nested_input, FRAGMENT_CHARS),
}


@cache
def shaped_tool_stream(size: int, shape: str) -> bytes:
    """A stream body (bytes) with one tool call whose input is `SHAPES[shape]`: its
    JSON of about `size` bytes, sent in fragments of the shape's width (characters).

        >>> sorted(len(shaped_tool_stream(4096, shape)) > 4096 for shape in SHAPES)
        [True, True, True, True, True]
    """
    make, width = SHAPES[shape]
    text = make(size)
    events: list[dict] = [
        _message_start(),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_shape", "name": "fill", "input": {}},
        },
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": text[at : at + width]},
        }
        for at in range(0, len(text), width)
    ]
    events += [{"type": "content_block_stop", "index": 0}, *_message_end("tool_use", 9)]
    return "".join(map(_sse, events)).encode()
