"""How far each content block has got, followed event by event in O(1) work per event.

The front ends (`trace`, the stepper) say after every event what a block
holds. Reading the whole text again (`acc.message` joins it) or parsing the
whole tool input again (`json.loads(acc.json_buffers[i])`) at every event
costs the length so far each time: quadratic, minutes on a long stream.
`Progress` follows a `MessageAccumulator` instead and keeps, per block:

- `length`: characters received so far (of the text, the thinking, or the
  tool input's JSON text), and `added`, what the last event added;
- `tail`: the last `TAIL_CHARS` characters of a text or thinking block;
- `parses` (tool blocks): would `json.loads` accept the JSON buffer now?

`parses` is read from the accumulator's incremental `PartialJSONParser`
(`acc.input_parsers`, `acc.input_changes`), never from a re-parse per event:

- no value has ended yet: no (`json.loads` needs a whole value), except that
  a top-level number is whole as it stands (`12` parses; the parser reports
  it only when the next character arrives, so its snapshot is asked, which
  costs the number's few digits);
- the parser stopped (`parser.error`: not JSON, too deep, too many digits): no;
- the value has just ended (`parser.done`): the buffer is parsed once, as the
  accumulator will at the block's stop (text after the value, such as a stray
  `}`, makes it fail), and from then on it stays as it is while only JSON
  whitespace follows.

    >>> from streaming_lib import MessageAccumulator
    >>> acc, progress = MessageAccumulator(), Progress()
    >>> for event in [
    ...     {"type": "message_start", "message": {"content": []}},
    ...     {
    ...         "type": "content_block_start",
    ...         "index": 0,
    ...         "content_block": {"type": "tool_use", "input": {}},
    ...     },
    ...     {
    ...         "type": "content_block_delta",
    ...         "index": 0,
    ...         "delta": {"type": "input_json_delta", "partial_json": '{"a": 1'},
    ...     },
    ... ]:
    ...     acc.feed(event)
    ...     progress.follow(acc, event)
    >>> block = progress.blocks[0]
    >>> block.length, block.parses
    (7, False)
    >>> delta = {"type": "input_json_delta", "partial_json": "} "}
    >>> event = {"type": "content_block_delta", "index": 0, "delta": delta}
    >>> acc.feed(event); progress.follow(acc, event)
    >>> block.length, block.added, block.parses
    (9, 2, True)

Deliberately not handled here: printing or drawing (`trace.py`, `stepper/`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..accumulator import TEXT_DELTAS, TEXT_FIELDS, MessageAccumulator
from ..events import load_json
from ..partial_json import PartialJSONError

TAIL_CHARS = 24  # characters of a text block's end kept for a preview
JSON_WHITESPACE = " \t\n\r"  # RFC 8259, section 2: what may follow a value


@dataclass
class BlockProgress:
    """One block's progress: see the module docstring."""

    kind: str  # "text", "thinking", "tool" (JSON input) or "other"
    length: int = 0  # characters so far
    added: int = 0  # characters the last event for this block added
    tail: str = ""  # the last TAIL_CHARS characters (text and thinking blocks)
    parses: bool = False  # tool blocks: json.loads accepts the buffer now
    # Tool blocks: the top-level value has started (a change at path ()), and
    # the value ended at some event, so the buffer was parsed once then.
    started: bool = False
    ended: bool = False


class Progress:
    """Per-block progress of a stream, kept up to date by `follow(acc, event)` after each
    `acc.feed(event)`."""

    def __init__(self) -> None:
        self.blocks: dict[int, BlockProgress] = {}

    def follow(self, acc: MessageAccumulator, event: dict[str, Any]) -> None:
        """Take in `event`, which `acc` has just accepted (dict, a decoded Messages API event)."""
        kind = event.get("type")
        # An int in a content block event (`acc` has checked it), else None.
        index: Any = event.get("index")
        if kind == "content_block_start":
            block = event["content_block"]
            field = TEXT_FIELDS.get(block.get("type"))
            if index in acc.input_parsers:
                self.blocks[index] = BlockProgress("tool")
            elif field is not None:
                text = block.get(field) or ""
                self.blocks[index] = BlockProgress(field, len(text), len(text), text[-TAIL_CHARS:])
            else:
                self.blocks[index] = BlockProgress("other")
        elif kind == "content_block_delta" and index in self.blocks:
            delta, block = event["delta"], self.blocks[index]
            if delta["type"] == "input_json_delta":
                self._fragment(acc, index, block, delta["partial_json"])
            elif delta["type"] in TEXT_DELTAS:
                self._text(block, acc.text_added)  # as appended: split surrogate halves joined
            else:
                block.added = 0
        elif kind == "content_block_stop" and index in self.blocks and acc.text_added:
            self._text(self.blocks[index], acc.text_added)  # a half left unpaired: U+FFFD

    def _text(self, block: BlockProgress, piece: str) -> None:
        block.added = len(piece)
        block.length += len(piece)
        block.tail = (block.tail + piece[-TAIL_CHARS:])[-TAIL_CHARS:]

    def _fragment(
        self, acc: MessageAccumulator, index: int, block: BlockProgress, fragment: str
    ) -> None:
        block.added = len(fragment)
        block.length += len(fragment)
        parser = acc.input_parsers[index]
        block.started = block.started or any(change.path == () for change in acc.input_changes)
        if parser.error is not None:
            block.parses = False
        elif parser.done:
            if not block.ended:  # the value ended in this fragment: one parse, as at the stop
                block.ended = True
                try:
                    load_json(acc.json_buffers[index])
                    block.parses = True
                except ValueError:  # text after the value, too deep, too many digits
                    block.parses = False
            elif fragment.strip(JSON_WHITESPACE):
                block.parses = False  # text after a whole value: json.loads says "Extra data"
        elif not block.started:
            try:  # only a number can be whole here: its snapshot costs its few digits
                acc.input_snapshot(index)
                block.parses = True
            except PartialJSONError:
                block.parses = False
        else:
            block.parses = False
