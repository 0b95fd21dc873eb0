"""Random valid streams: whatever the blocks, characters, fragments and chunks,
our final message is the SDK's, and it holds exactly the blocks that were sent.

Hypothesis builds a message (text, thinking and tool blocks; text full of
multi-byte and astral characters; tool inputs as random JSON objects), writes
it as the API would (pings after `message_start`, spaces before some closing
braces, LF, CRLF or CR line endings), cuts each tool's JSON text into
fragments (often right inside an escape such as `\\u00e9`) and the bytes into
random chunks.
"""

import json

from hypothesis import given
from hypothesis import strategies as st

from streaming_lib import accumulate
from streaming_lib.tools.sdk import compare_messages, sdk_final_message

# Characters and clusters that break naive decoders: multi-byte, astral, ZWJ
# sequences, flags, combining marks, JSON escapes, line separators.
TRICKY = [
    "a",
    " ",
    "é",
    "原",
    "한",
    "😀",
    "👨\u200d👩\u200d👧",
    "🇯🇵",
    "e\u0301",
    "𝄞",
    "\n",
    "\r",
    "\t",
    '"',
    "\\",
    "/",
    "\u2028",
    "\x00",
    "\x7f",
    "\ufeff",
    "\x85",
]

texts = st.text(max_size=12) | st.lists(st.sampled_from(TRICKY), max_size=8).map("".join)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
SERIALIZATIONS = [
    {"ensure_ascii": True},
    {"ensure_ascii": False},
    {"separators": (",", ":")},
    {"indent": 1},
]


def pieces(
    draw, text
):  # str -> list of str: `text` cut at random places, maybe right after a backslash
    cuts = draw(st.sets(st.integers(0, len(text)), max_size=8))
    escapes = [
        i + k
        for i, char in enumerate(text)
        if char == "\\"
        for k in range(1, 6)
        if i + k < len(text)
    ]
    if escapes:
        cuts |= draw(st.sets(st.sampled_from(escapes), max_size=4))
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@st.composite
def blocks(draw, index):
    """One content block.

    Returns (the block as `content_block_start` sends it, its deltas, the final block).
    """
    kind = draw(st.sampled_from(["text", "thinking", "tool_use", "server_tool_use"]))
    if kind == "text":
        parts = draw(st.lists(texts, min_size=1, max_size=5))
        deltas = [{"type": "text_delta", "text": part} for part in parts]
        return {"type": "text", "text": ""}, deltas, {"type": "text", "text": "".join(parts)}
    if kind == "thinking":
        parts = draw(st.lists(texts, min_size=1, max_size=5)) + [
            ""
        ]  # the API sends an empty one last
        signature = draw(
            st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", min_size=8)
        )
        deltas = [{"type": "thinking_delta", "thinking": part} for part in parts]
        deltas.append({"type": "signature_delta", "signature": signature})
        final = {"type": "thinking", "thinking": "".join(parts), "signature": signature}
        return {"type": "thinking", "thinking": "", "signature": ""}, deltas, final
    value = draw(st.dictionaries(texts, json_values, max_size=5))
    fragments = pieces(draw, json.dumps(value, **draw(st.sampled_from(SERIALIZATIONS))))
    if draw(st.booleans()):
        fragments.insert(0, "")  # real streams often open a tool's input with an empty fragment
    start = {
        "type": kind,
        "id": f"toolu_{index:04d}",
        "name": "web_search" if kind == "server_tool_use" else "act",
    }
    deltas = [{"type": "input_json_delta", "partial_json": fragment} for fragment in fragments]
    return {**start, "input": {}}, deltas, {**start, "input": value}


@st.composite
def streams(draw):
    """(the stream's bytes, those bytes cut into chunks, the content the message must end with)."""
    message = {
        "id": "msg_01Prop",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": draw(st.integers(1, 5000)),
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    events, content = [{"type": "message_start", "message": message}], []
    for index in range(draw(st.integers(0, 4))):
        start, deltas, final = draw(blocks(index))
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [
            {"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas
        ]
        events.append({"type": "content_block_stop", "index": index})
        content.append(final)
    stop = {
        "stop_reason": draw(st.sampled_from(["end_turn", "tool_use", "max_tokens"])),
        "stop_sequence": None,
    }
    events.append(
        {
            "type": "message_delta",
            "delta": stop,
            "usage": {"output_tokens": draw(st.integers(1, 9999))},
        }
    )
    events.append({"type": "message_stop"})

    newline, ascii_only = draw(st.sampled_from(["\n", "\r\n", "\r"])), draw(st.booleans())
    wire = []
    for number, event in enumerate(events):
        if number and draw(st.integers(0, 4)) == 0:
            wire.append(f'event: ping{newline}data: {{"type": "ping"}}{newline}{newline}')
        data = json.dumps(event, ensure_ascii=ascii_only, separators=(",", ":"))
        data = data[:-1] + " " * draw(st.integers(0, 12)) + "}"  # the padding real streams carry
        wire.append(f"event: {event['type']}{newline}data: {data}{newline}{newline}")
    raw = "".join(wire).encode("utf-8")

    if draw(st.booleans()):  # chunks of one size, or cut at random places
        size = draw(st.integers(1, 16))
        cuts = range(size, len(raw), size)
    else:
        cuts = sorted(draw(st.sets(st.integers(1, len(raw) - 1), max_size=30)))
    bounds = [0, *cuts, len(raw)]
    return raw, [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)], content


@given(streams())
def test_any_valid_stream_in_any_chunks_gives_the_sdks_final_message_with_the_blocks_sent(stream):
    raw, chunks, content = stream
    ours = accumulate(chunks)
    assert compare_messages(ours, sdk_final_message(raw)) == []
    assert ours["content"] == content
