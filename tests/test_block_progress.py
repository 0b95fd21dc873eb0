"""Progress: running lengths, text tails and the json.loads verdict of tool buffers.

Followed event by event.
"""

import pytest

from streaming_lib import MessageAccumulator
from streaming_lib.events import load_json
from streaming_lib.tools.block_progress import TAIL_CHARS, Progress

START = {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}}


def follow(block, deltas):
    """Feed a block start and its deltas; yield (progress of block 0, acc) after each delta."""
    acc, progress = MessageAccumulator(), Progress()
    for event in [START, {"type": "content_block_start", "index": 0, "content_block": block}]:
        acc.feed(event)
        progress.follow(acc, event)
    for delta in deltas:
        event = {"type": "content_block_delta", "index": 0, "delta": delta}
        acc.feed(event)
        progress.follow(acc, event)
        yield progress.blocks[0], acc


def json_loads_accepts(text):
    try:
        load_json(text)
        return True
    except ValueError:
        return False


TOOL = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
BUFFERS = [
    '{"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}',
    '{"a": [1, 2.5e3, true, null, {"b": "\\u00e9\\ud83d\\ude00"}]}  \n',
    '{"a": 1}}',  # a stray brace after the value
    '{"a": 1} x',
    "  12  ",  # a bare number is whole as it stands
    "-0.5e+3",
    '"text"',
    "[" * 201 + "]" * 201,  # deeper than load_json (and jiter) accept
    '{"n": ' + "9" * 4301 + "}",  # more digits than int() takes
    "nul",
    "",
]


@pytest.mark.parametrize("buffer", BUFFERS)
@pytest.mark.parametrize("size", [1, 2, 7, 1000])
def test_parses_says_what_json_loads_says_of_the_buffer_after_every_fragment(buffer, size):
    fragments = [buffer[i : i + size] for i in range(0, len(buffer), size)] or [""]
    deltas = [{"type": "input_json_delta", "partial_json": f} for f in fragments]
    for count, (block, acc) in enumerate(follow(TOOL, deltas), 1):
        text = "".join(fragments[:count])
        assert block.parses == json_loads_accepts(text), (text, block)
        assert block.length == len(text) and block.added == len(fragments[count - 1])
        assert acc.json_buffers[0] == text


def test_a_value_split_at_every_point_parses_exactly_when_its_last_character_arrives():
    buffer = BUFFERS[0]
    for cut in range(1, len(buffer)):
        deltas = [
            {"type": "input_json_delta", "partial_json": part}
            for part in (buffer[:cut], buffer[cut:])
        ]
        verdicts = [block.parses for block, _ in follow(TOOL, deltas)]
        assert verdicts == [False, True], cut


def test_a_text_block_keeps_its_length_and_only_its_last_characters():
    pieces = ["找到", "原因了：", "x" * 100, "修正。"]
    seen = [
        (b.length, b.added, b.tail)
        for b, _ in follow(
            {"type": "text", "text": "ab"}, [{"type": "text_delta", "text": p} for p in pieces]
        )
    ]
    text = "ab"
    for (length, added, tail), piece in zip(seen, pieces, strict=True):
        text += piece
        assert (length, added, tail) == (len(text), len(piece), text[-TAIL_CHARS:])


def test_a_thinking_block_counts_its_thinking_and_ignores_its_signature():
    deltas = [
        {"type": "thinking_delta", "thinking": "hmm"},
        {"type": "signature_delta", "signature": "sig"},
    ]
    seen = [
        (b.kind, b.length, b.added) for b, _ in follow({"type": "thinking", "thinking": ""}, deltas)
    ]
    assert seen == [("thinking", 3, 3), ("thinking", 3, 0)]
