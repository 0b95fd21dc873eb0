"""Stage 3, the accumulator: the Messages API state machine, event by event."""

import contextlib
import itertools
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_lib import (
    APIStreamError,
    EventDataError,
    EventOrderError,
    IncompleteStreamError,
    MessageAccumulator,
    PartialJSONError,
    ToolInputJSONError,
    accumulate,
    iter_sse,
)
from streaming_lib.events import load_json
from streaming_lib.tools.fixtures import chunked, read_fixture

CALC_INPUT = {"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}
START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 1},
    },
}


def block_start(index, block):
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index, **body):
    return {"type": "content_block_delta", "index": index, "delta": body}


def stop(index):
    return {"type": "content_block_stop", "index": index}


def message_delta(stop_reason="end_turn", **usage):
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": usage,
    }


def fed(*events):
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    return acc


def sse_bytes(*events) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def fixture_events():
    return [event.json() for event in iter_sse([read_fixture()])]


def test_the_fixture_becomes_the_expected_message():
    message = accumulate(read_fixture())
    assert message["id"] == "msg_stream_01"
    assert message["content"][0] == {
        "type": "text",
        "text": "找到原因了：add 写成了减法，我来修正。",
    }
    assert message["content"][1]["input"] == CALC_INPUT
    assert message["stop_reason"] == "tool_use"
    assert message["usage"]["input_tokens"] == 412 and message["usage"]["output_tokens"] == 58


@pytest.mark.parametrize("size", [1, 3, 7, 64])
def test_every_chunk_size_gives_the_same_final_message(size):
    assert accumulate(chunked(read_fixture(), size)) == accumulate(read_fixture())


def test_the_fixture_split_in_two_at_every_offset_gives_the_same_message():
    raw = read_fixture()
    whole = accumulate(raw)
    for cut in range(len(raw) + 1):
        assert accumulate([raw[:cut], raw[cut:]]) == whole, cut


def test_tool_input_exists_only_from_content_block_stop():
    acc = MessageAccumulator()
    for event in fixture_events():
        acc.feed(event)
        block = acc.message["content"][1] if len(acc.message["content"]) > 1 else None
        if event["type"] == "content_block_stop" and event["index"] == 1:
            assert block["input"] == CALC_INPUT
        elif block is not None and 1 not in acc.stopped:
            assert block["input"] == {}
    assert acc.json_buffers[1] == json.dumps(CALC_INPUT)


def test_the_input_buffer_is_kept_as_raw_text_until_the_stop():
    acc = MessageAccumulator()
    events = fixture_events()
    for event in events[:13]:  # up to the fragment 'lc.py", "con'
        acc.feed(event)
    assert acc.json_buffers[1] == '{"path": "calc.py", "con'
    assert acc.input_parsers[1].snapshot() == {"path": "calc.py"}


def test_a_tool_block_with_no_fragments_gets_an_empty_object():
    tool = {"type": "tool_use", "id": "t", "name": "now", "input": {}}
    acc = fed(
        START, block_start(0, tool), delta(0, type="input_json_delta", partial_json=""), stop(0)
    )
    assert acc.message["content"][0]["input"] == {}


def test_invalid_tool_json_is_raised_after_the_stream_naming_its_stop_and_keeping_the_raw_text():
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    acc = fed(
        START,
        block_start(0, tool),
        delta(0, type="input_json_delta", partial_json='{"a": tru}'),
        stop(0),
    )
    assert acc.incomplete_blocks() == [0]  # not raised at the stop: the stop reason comes later
    for event in (message_delta("tool_use"), {"type": "message_stop"}):
        acc.feed(event)
    with pytest.raises(ToolInputJSONError) as caught:
        acc.final_message()
    assert (
        caught.value.raw == '{"a": tru}'
        and caught.value.index == 0
        and caught.value.stop_reason == "tool_use"
    )
    assert caught.value.event_number == 4 and "event 4" in str(caught.value)
    assert caught.value.partial["stop_reason"] == "tool_use"


def test_text_deltas_append_to_their_block_by_index():
    acc = fed(
        START,
        block_start(0, {"type": "text", "text": ""}),
        delta(0, type="text_delta", text="a"),
        stop(0),
        block_start(1, {"type": "text", "text": ""}),
        delta(1, type="text_delta", text="b"),
        delta(1, type="text_delta", text="c"),
    )
    assert [b["text"] for b in acc.message["content"]] == ["a", "bc"]


def test_message_delta_usage_overwrites_and_absent_fields_keep_their_start_value():
    acc = fed(START, message_delta(output_tokens=30), message_delta(output_tokens=58))
    assert acc.message["usage"] == {
        "input_tokens": 10,
        "cache_read_input_tokens": 4,
        "output_tokens": 58,
    }


def test_message_delta_usage_present_fields_overwrite_start_values():
    acc = fed(START, message_delta(input_tokens=12, output_tokens=5, cache_read_input_tokens=None))
    assert (
        acc.message["usage"]["input_tokens"] == 12
        and acc.message["usage"]["cache_read_input_tokens"] == 4
    )


def test_stop_reason_arrives_only_with_message_delta():
    acc = fed(START)
    assert acc.message["stop_reason"] is None
    acc.feed(message_delta("max_tokens", output_tokens=3))
    assert acc.message["stop_reason"] == "max_tokens"


def test_ping_changes_nothing():
    acc = fed(START, {"type": "ping"})
    assert acc.message["content"] == [] and acc.event_number == 2


def test_complete_only_after_message_stop():
    acc = fed(START, message_delta(output_tokens=2))
    assert not acc.complete
    acc.feed({"type": "message_stop"})
    assert acc.complete and acc.final_message()["usage"]["output_tokens"] == 2


def test_the_message_keeps_keys_the_wire_sent():
    start = json.loads(json.dumps(START))
    start["message"]["container"] = {"id": "c1"}
    assert fed(start).message["container"] == {"id": "c1"}


def test_an_error_event_raises_with_the_partial_message():
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(APIStreamError) as caught:
        fed(
            START,
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text="Hal"),
            error,
        )
    assert caught.value.error_type == "overloaded_error" and caught.value.retryable
    assert caught.value.error_message == "Overloaded" and caught.value.event_number == 4
    assert caught.value.partial["content"] == [{"type": "text", "text": "Hal"}]


def test_an_invalid_request_error_is_not_retryable():
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
    with pytest.raises(APIStreamError) as caught:
        fed(error)
    assert not caught.value.retryable and caught.value.partial is None


def test_anything_before_message_start_is_an_order_error():
    with pytest.raises(EventOrderError, match="event 1: content_block_start before message_start"):
        fed(block_start(0, {"type": "text", "text": ""}))


def test_a_second_message_start_names_the_event_number():
    with pytest.raises(EventOrderError, match="event 3: a second message_start"):
        fed(START, {"type": "ping"}, START)


def test_a_delta_for_a_block_that_never_started_is_an_order_error():
    with pytest.raises(EventOrderError) as caught:
        fed(START, delta(0, type="text_delta", text="x"))
    assert caught.value.index == 0 and caught.value.event_number == 2
    assert caught.value.partial["content"] == []


def test_a_delta_after_its_block_stopped_is_an_order_error():
    with pytest.raises(EventOrderError, match="already stopped"):
        fed(
            START,
            block_start(0, {"type": "text", "text": ""}),
            stop(0),
            delta(0, type="text_delta", text="x"),
        )


def test_a_block_starting_at_the_wrong_index_is_an_order_error():
    with pytest.raises(EventOrderError, match="expected 0"):
        fed(START, block_start(1, {"type": "text", "text": ""}))


def test_an_event_after_message_stop_is_an_order_error():
    with pytest.raises(EventOrderError, match="after message_stop"):
        fed(START, {"type": "message_stop"}, message_delta(output_tokens=1))


# What a gateway or a proxy may send after message_stop, none of which may change the message.
AFTER_MESSAGE_STOP = {
    "a done sentinel": b"event: done\ndata: [DONE]\n\n",
    "an unnamed done sentinel": b"data: [DONE]\n\n",
    "a stray delta": sse_bytes(delta(0, type="text_delta", text="late")),
    "an error event": (
        b"event: error\n"
        b'data: {"type":"error","error":{"type":"overloaded_error","message":"late"}}\n\n'
    ),
    "data that is not JSON": b"event: content_block_delta\ndata: {oops\n\n",
    "bytes that are not UTF-8": b"event: ping\ndata: \xff\xfe\n\n",
    "half an event": b'event: message_delta\ndata: {"type"',
}
SIZES = [1, 2, 7, 64, None]  # None: the whole stream in one chunk


def chunkings(raw, seed=0):
    """`raw` cut every way the tests ask for: fixed sizes, whole, and random splits."""
    rng = random.Random(seed)
    for size in SIZES:
        yield chunked(raw, size) if size else [raw]
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(raw)), 6))
        yield [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


@pytest.mark.parametrize("tail", AFTER_MESSAGE_STOP.values(), ids=AFTER_MESSAGE_STOP)
def test_nothing_after_message_stop_changes_the_message_at_any_chunking(tail):
    raw = read_fixture("text_only")
    for chunks in chunkings(raw + tail):
        assert accumulate(chunks) == accumulate(raw)
        assert accumulate(chunks, strict=True) == accumulate(raw)


def test_no_chunk_after_the_one_that_ends_message_stop_is_requested():
    raw = read_fixture("text_only")
    for chunks in chunkings(raw + b"event: done\ndata: [DONE]\n\n"):
        # The chunk holding the last byte of the fixture ends message_stop (its blank line).
        last = next(
            number
            for number, end in enumerate(itertools.accumulate(map(len, chunks)))
            if end >= len(raw)
        )
        requested = []

        # A connection: the bytes, then a wait that never ends.
        def live(chunks=chunks, requested=requested):
            for chunk in chunks:
                requested.append(chunk)
                yield chunk
            raise AssertionError("read on after message_stop")

        assert accumulate(live()) == accumulate(raw)
        assert len(requested) == last + 1


def test_an_event_without_a_type_is_a_data_error():
    with pytest.raises(EventDataError):
        fed(START, {"index": 0})


def test_bytes_that_end_before_message_stop_raise_incomplete_with_the_partial_message():
    raw = read_fixture()
    cut = raw[: raw.index(b"event: message_delta")]
    with pytest.raises(IncompleteStreamError) as caught:
        accumulate(cut, keep_events=True)
    partial = caught.value.partial
    assert partial["content"][1]["input"] == CALC_INPUT and partial["stop_reason"] is None
    assert len(caught.value.events) == 16 and caught.value.events[0]["type"] == "message_start"


def test_a_cut_inside_tool_input_gives_the_best_partial_value():
    raw = read_fixture()
    cut = b"\n\n".join(raw.split(b"\n\n")[:14]) + b"\n\n"  # up to the fourth fragment
    with pytest.raises(IncompleteStreamError) as caught:
        accumulate(cut)
    assert caught.value.partial["content"][1]["input"] == {"path": "calc.py"}


def test_max_tokens_inside_tool_input_marks_the_block_unsafe():
    tool = {"type": "tool_use", "id": "t", "name": "write_file", "input": {}}
    acc = fed(
        START,
        block_start(0, tool),
        delta(0, type="input_json_delta", partial_json='{"path": "a.py", "content": "x = '),
        message_delta("max_tokens", output_tokens=9),
        {"type": "message_stop"},
    )
    final = acc.final_message()
    assert final["stop_reason"] == "max_tokens"
    assert final["content"][0]["input"] == {"path": "a.py"}
    assert acc.incomplete_blocks() == [0]
    assert not acc.is_safe_to_execute(0)


def test_a_finished_tool_call_is_safe_to_execute():
    acc = MessageAccumulator()
    for event in fixture_events():
        assert not acc.is_safe_to_execute(1) or acc.complete
        acc.feed(event)
    assert acc.is_safe_to_execute(1) and not acc.is_safe_to_execute(0)


def test_unknown_event_and_delta_types_are_ignored_and_unknown_blocks_kept():
    odd = {"type": "future_block", "payload": [1, 2]}
    acc = fed(
        START,
        {"type": "future_event", "x": 1},
        block_start(0, odd),
        delta(0, type="future_delta", stuff="?"),
        stop(0),
        block_start(1, {"type": "text", "text": ""}),
        delta(1, type="text_delta", text="ok"),
        stop(1),
    )
    assert acc.message["content"] == [odd, {"type": "text", "text": "ok"}]


def test_data_that_is_not_json_names_the_event():
    raw = sse_bytes(START) + b"event: content_block_delta\ndata: {oops\n\n"
    with pytest.raises(EventDataError, match="event 2") as caught:
        accumulate(raw)
    assert caught.value.data == "{oops" and caught.value.partial["id"] == "msg_1"


def test_an_error_event_whose_data_is_plain_text_still_raises_api_stream_error():
    with pytest.raises(APIStreamError) as caught:
        accumulate(sse_bytes(START) + b"event: error\ndata: upstream reset\n\n")
    assert caught.value.error_message == "upstream reset" and caught.value.error_type is None


def test_accumulate_takes_one_bytes_object_or_an_iterable_of_chunks():
    raw = read_fixture()
    assert accumulate(raw) == accumulate(iter(chunked(raw, 5)))


def test_the_message_property_is_the_same_object_between_reads():
    acc = fed(
        START, block_start(0, {"type": "text", "text": ""}), delta(0, type="text_delta", text="a")
    )
    first = acc.message
    acc.feed(delta(0, type="text_delta", text="b"))
    assert acc.message is first and first["content"][0]["text"] == "ab"


def test_input_changes_let_a_preview_follow_the_file_being_written():
    from streaming_lib.partial_json import AppendString

    acc, preview = MessageAccumulator(), []
    for event in fixture_events():
        acc.feed(event)
        preview += [
            c.text
            for c in acc.input_changes
            if isinstance(c, AppendString) and c.path == ("content",)
        ]
    assert "".join(preview) == CALC_INPUT["content"]


def test_input_changes_are_empty_after_an_event_that_is_not_a_tool_fragment():
    acc = MessageAccumulator()
    for event in fixture_events()[:12]:
        acc.feed(event)
    assert acc.input_changes != []
    acc.feed({"type": "ping"})
    assert acc.input_changes == []


def test_input_snapshot_keeps_the_unfinished_string_only_when_asked():
    acc = MessageAccumulator()
    for event in fixture_events()[:14]:  # up to 'tent": "def add(a, b):\n    re'
        acc.feed(event)
    assert acc.input_snapshot(1) == {"path": "calc.py"}
    assert acc.input_snapshot(1, trailing_strings=True) == {
        "path": "calc.py",
        "content": "def add(a, b):\n    re",
    }


def test_a_tool_input_that_goes_bad_midway_is_reported_at_its_stop():
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    acc = fed(
        START, block_start(0, tool), delta(0, type="input_json_delta", partial_json='{"a": ]')
    )
    assert acc.input_parsers[0].error is not None  # the preview stops here...
    acc.feed(delta(0, type="input_json_delta", partial_json="}"))
    for event in (
        stop(0),
        message_delta("tool_use"),
        {"type": "message_stop"},
    ):  # ...the stop parses...
        acc.feed(event)
    with pytest.raises(ToolInputJSONError) as caught:  # ...and the end of the stream decides
        acc.final_message()
    assert caught.value.raw == '{"a": ]}' and caught.value.partial["content"][0]["input"] == {}


def test_an_error_event_of_any_shape_is_an_api_stream_error():
    for payload in (
        '{"type":"error","error":"boom"}',
        '{"error": {"type": "api_error", "message": "x"}}',
        "[1]",
        '{"type":"ping"}',
    ):
        with pytest.raises(APIStreamError):
            accumulate(sse_bytes(START) + f"event: error\ndata: {payload}\n\n".encode())


def test_an_error_event_without_details_still_says_what_it_is():
    with pytest.raises(APIStreamError, match="event 2: upstream timeout$"):
        accumulate(sse_bytes(START) + b"event: error\ndata: upstream timeout\n\n")
    with pytest.raises(APIStreamError, match="an error event with no details"):
        fed(START, {"type": "error"})


@pytest.mark.parametrize("text", [None, 7, ["a"]])
def test_a_text_delta_whose_text_is_not_a_string_is_a_data_error(text):
    with pytest.raises(
        EventDataError, match="text_delta with a 'text' that is not a string"
    ) as caught:
        fed(
            START,
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text=text),
        )
    assert caught.value.partial["content"] == [{"type": "text", "text": ""}]


def test_a_text_block_starting_with_a_non_string_is_a_data_error():
    with pytest.raises(EventDataError):
        fed(START, block_start(0, {"type": "text", "text": 3}))


@pytest.mark.parametrize("message", [[1], "oops", {"content": "oops"}])
def test_a_message_start_without_a_message_object_is_a_data_error(message):
    with pytest.raises(EventDataError, match="message_start"):
        fed({"type": "message_start", "message": message})


@pytest.mark.parametrize("index", [True, "0", 0.0])
def test_an_index_must_be_an_integer(index):
    with pytest.raises(EventOrderError, match=repr(index)):
        fed(START, block_start(index, {"type": "text", "text": ""}))


def test_message_delta_never_changes_the_messages_identity_or_content():
    acc = fed(
        START,
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "id": "msg_other", "content": "x"},
            "usage": {},
        },
    )
    assert (
        acc.message["id"] == "msg_1"
        and acc.message["content"] == []
        and acc.message["stop_reason"] == "end_turn"
    )


@pytest.mark.parametrize("raw", ["42", '"abc"', "null", "[1, 2]"])
def test_a_tool_input_that_is_not_an_object_is_rejected_at_its_stop(raw):
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    acc = fed(
        START,
        block_start(0, tool),
        delta(0, type="input_json_delta", partial_json=raw),
        stop(0),
        message_delta("tool_use"),
        {"type": "message_stop"},
    )
    with pytest.raises(ToolInputJSONError, match="not an object"):
        acc.final_message()
    assert (
        not acc.tool_call_verdict(0).runnable and "not an object" in acc.tool_call_verdict(0).reason
    )


def test_invalid_tool_input_leaves_its_best_partial_value_in_the_partial_message():
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    with pytest.raises(ToolInputJSONError) as caught:
        fed(
            START,
            block_start(0, tool),
            delta(0, type="input_json_delta", partial_json='{"path": "a.py", "content": "x'),
            stop(0),
            message_delta("end_turn"),
            {"type": "message_stop"},
        ).final_message()
    assert caught.value.partial["content"][0]["input"] == {"path": "a.py"}
    assert "Unterminated string starting at (character 28)" in str(caught.value)


def test_accumulate_refuses_text_with_a_clear_message():
    with pytest.raises(TypeError, match="not str"):
        accumulate("event: ping\n\n")


# Event data is parsed by jiter when it can, json.loads otherwise: the value
# (or the failure) must be json.loads's for any text nested less deep than
# jiter's limit (the tests below check that limit).
_json_texts = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
).flatmap(
    lambda value: st.sampled_from(
        [
            json.dumps(value),
            json.dumps(value, ensure_ascii=False),
            json.dumps(value, indent=1),
            " " + json.dumps(value, separators=(",", ":")) + "\n",
        ]
    )
)
_JSON_EDGES = [
    '"\\ud800"',
    '"\\udc00x"',
    '{"a":1,"a":2}',
    "-0",
    "1E400",
    "-1e400",
    "1e-400",
    "01",
    "[1,]",
    "\ufeff{}",
    "{}x",
    '"\x01"',
    "1" * 5000,
    "NaN",
    "-Infinity",
    "",
    " ",
    "[" * 3000 + "]" * 3000,
]


def _outcome(parse, text):
    try:
        return "value", repr(
            parse(text)
        )  # repr tells -0.0 from 0.0 and 1 from 1.0, and nan equals nan
    except (ValueError, RecursionError):
        return "error", None


@given(
    _json_texts,
    st.integers(0, 10**6),
    st.sampled_from(["", "x", '"', "\\", ",", "]", "\ud800", "é"]),
)
def test_event_data_is_parsed_exactly_as_json_loads_would(text, where, insert):
    for candidate in (
        text,
        text[: where % (len(text) + 1)],
        text[: where % (len(text) + 1)] + insert + text[where % (len(text) + 1) :],
    ):
        assert _outcome(load_json, candidate) == _outcome(json.loads, candidate), candidate


def test_event_data_edge_cases_are_parsed_as_json_loads_would():
    for text in _JSON_EDGES:
        assert _outcome(load_json, text) == _outcome(json.loads, text), text[:40]


# What the SSE event name decides, as the SDK's stream does (anthropic/_streaming.py).
TEXT_STREAM = [
    START,
    block_start(0, {"type": "text", "text": ""}),
    delta(0, type="text_delta", text="hi"),
    stop(0),
]
END = [message_delta(output_tokens=3), {"type": "message_stop"}]


def test_an_error_event_with_empty_data_still_raises():
    raw = sse_bytes(*TEXT_STREAM) + b"event: error\ndata:\n\n" + sse_bytes(*END)
    with pytest.raises(APIStreamError, match="event 5: an error event with no details") as caught:
        accumulate(raw, keep_events=True)
    assert (
        caught.value.partial["content"] == [{"type": "text", "text": "hi"}]
        and len(caught.value.events) == 5
    )


@pytest.mark.parametrize("data", ["keepalive", '{"type": "message_stop"}', ""])
def test_a_ping_changes_nothing_whatever_its_data(data):
    raw = sse_bytes(*TEXT_STREAM) + f"event: ping\ndata: {data}\n\n".encode() + sse_bytes(*END)
    assert accumulate(raw) == accumulate(sse_bytes(*TEXT_STREAM, *END))


@pytest.mark.parametrize("depth", [200, 500, 5000])
@pytest.mark.parametrize(
    "head", ["", '"\\ud800", ']
)  # a lone surrogate: jiter refuses it before the depth
def test_event_data_nested_too_deep_is_a_data_error_not_a_crash(depth, head):
    # Inside the event and its delta, 200 lists make 202 levels, over jiter's limit. 500 deep
    # is valid JSON for json.loads, but copying it would overflow Python's stack.
    container = {"type": "message_delta", "delta": {"container": "X"}, "usage": {}}
    data = json.dumps(container).replace('"X"', "[" + head + "[" * (depth - 1) + "]" * depth)
    raw = (
        sse_bytes(*TEXT_STREAM)
        + f"event: message_delta\ndata: {data}\n\n".encode()
        + sse_bytes(*END)
    )
    with pytest.raises(
        EventDataError, match="event 5 .*nested inside more than 200 lists or objects"
    ) as caught:
        accumulate(raw, keep_events=True)
    assert (
        caught.value.partial["content"] == [{"type": "text", "text": "hi"}]
        and len(caught.value.events) == 4
    )


def test_event_data_nested_as_deep_as_jiter_allows_is_kept():
    deep = json.loads(
        "[" * 199 + "]" * 199
    )  # inside the event and its delta: 201 levels, jiter's limit
    raw = sse_bytes(
        *TEXT_STREAM, {"type": "message_delta", "delta": {"container": deep}, "usage": {}}, *END
    )
    assert accumulate(raw)["container"] == deep


@pytest.mark.parametrize("depth", [201, 600, 5000])
def test_a_tool_input_nested_too_deep_is_refused_at_its_stop_not_a_crash_later(depth):
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    fragment = (
        '{"x": ' + "[" * depth + "]" * depth + "}"
    )  # 201 lists inside the object: over jiter's limit
    raw = sse_bytes(
        START,
        block_start(0, tool),
        delta(0, type="input_json_delta", partial_json=fragment),
        stop(0),
        *END,
    )
    with pytest.raises(ToolInputJSONError, match="nested inside more than 200") as caught:
        accumulate(raw)
    assert caught.value.partial["content"] == [tool] and (
        caught.value.event_number,
        caught.value.index,
    ) == (4, 0)


def test_the_depth_limit_counts_as_jiter_counts_on_both_paths():
    # A scalar inside 201 lists is too deep, whether jiter sees it or json.loads does
    # (a lone surrogate escape makes jiter refuse the text first).
    for head in ("1", '"\\ud800"'):
        with pytest.raises(ValueError, match="nested inside more than 200"):
            load_json(f"[{head}," + "[" * 200 + "1" + "]" * 201)
        assert load_json(f"[{head}," + "[" * 199 + "1" + "]" * 200)[0] in (1, "\ud800")


def test_null_data_is_a_data_error_not_a_skipped_event():
    raw = sse_bytes(*TEXT_STREAM) + b"event: content_block_delta\ndata: null\n\n" + sse_bytes(*END)
    with pytest.raises(EventDataError, match="event 5 .*not an object"):
        accumulate(raw)


def test_an_error_whose_type_is_not_a_string_is_still_an_api_stream_error():
    raw = (
        sse_bytes(START)
        + b'event: error\ndata: {"type":"error","error":{"type":[1],"message":"odd"}}\n\n'
    )
    with pytest.raises(APIStreamError) as caught:
        accumulate(raw)
    assert caught.value.retryable is False


def test_an_error_about_a_block_names_its_index_only_when_it_is_one():
    acc = fed(START, block_start(0, {"type": "tool_use", "id": "t", "name": "f", "input": {}}))
    with pytest.raises(EventDataError, match=r"malformed content_block_delta") as malformed:
        acc.feed({"type": "content_block_delta", "index": 0, "delta": None})
    assert malformed.value.index == 0
    with pytest.raises(
        EventDataError,
        match=r"^event 4: input_json_delta with a 'partial_json' that is not a string",
    ) as not_text:
        acc.feed(delta(0, type="input_json_delta", partial_json=5))
    assert not_text.value.index == 0
    for wrong in ("0", True, 0.0, None):  # said in the text, but `.index` is a block index or None
        with pytest.raises(EventOrderError, match=r"which never started") as caught:
            acc.feed(delta(wrong, type="input_json_delta", partial_json="{"))
        assert caught.value.index is None and repr(wrong) in str(caught.value)


def test_input_json_delta_for_a_tool_block_that_came_whole_in_message_start_is_an_order_error():
    whole = {
        **START,
        "message": {
            **START["message"],
            "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}],
        },
    }
    with pytest.raises(
        EventOrderError, match=r"block 0, which came whole in message_start"
    ) as caught:
        fed(whole, delta(0, type="input_json_delta", partial_json="{"))
    assert caught.value.index == 0 and caught.value.partial["content"][0]["input"] == {"a": 1}


def test_accumulate_takes_the_stream_as_any_bytes_like_object():
    raw = read_fixture()
    assert accumulate(memoryview(raw)) == accumulate(bytearray(raw)) == accumulate(raw)


def test_an_event_built_in_python_with_a_value_json_cannot_hold_still_gives_a_stream_error():
    acc = fed(START, block_start(0, {"type": "tool_use", "id": "t", "name": "f", "input": {}}))
    with pytest.raises(EventDataError, match="'partial_json' that is not a string") as caught:
        acc.feed(delta(0, type="input_json_delta", partial_json=b"{}"))
    assert json.loads(caught.value.data)["partial_json"] == "b'{}'"
    with pytest.raises(EventDataError, match="malformed content_block_delta"):
        acc.feed(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta"},
                "extra": {1, 2},
            }
        )


# -- one character's UTF-16 halves in two deltas ----------------------------------
# A gateway may cut a character such as U+1F600 between its UTF-16 halves, each
# delta holding one as a lone `\ud83d`-style escape: the message holds the
# character, a half that stays alone is U+FFFD, and nothing shown is ever a
# surrogate that UTF-8 cannot encode.


def utf16_pieces(text, cuts):  # str -> the pieces of `text` cut between UTF-16 code units
    units = text.encode("utf-16-le")
    bounds = [0, *sorted({2 * (cut % (len(units) // 2 + 1)) for cut in cuts}), len(units)]
    return [
        units[a:b].decode("utf-16-le", "surrogatepass")
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]


def encodable(value):
    json.dumps(value, ensure_ascii=False).encode(
        "utf-8"
    )  # raises UnicodeEncodeError on a surrogate
    return True


TEXT_BLOCK, THINKING_BLOCK = (
    {"type": "text", "text": ""},
    {"type": "thinking", "thinking": "", "signature": ""},
)
TOOL_BLOCK = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
TEXT_BLOCK_FIELD = {"text_delta": "text", "thinking_delta": "thinking"}


@pytest.mark.parametrize(
    ("block", "kind"), [(TEXT_BLOCK, "text_delta"), (THINKING_BLOCK, "thinking_delta")]
)
def test_halves_of_a_character_in_two_deltas_join_into_the_character(block, kind):
    field = TEXT_BLOCK_FIELD[kind]
    acc = fed(START, block_start(0, block), delta(0, type=kind, **{field: "Done \ud83d"}))
    assert acc.message["content"][0][field] == "Done "  # the high half waits for its pair, unseen
    assert encodable(acc.snapshot())
    acc.feed(delta(0, type=kind, **{field: "\ude00 ok"}))
    assert acc.message["content"][0][field] == "Done 😀 ok"


@pytest.mark.parametrize(
    ("pieces", "text"),
    [
        (["a\ud83d"], "a\ufffd"),  # the block stops before the pair came
        (["a\ud83d", "b"], "a\ufffdb"),  # followed by something else
        (["a\ud83d", "\ud83d", "\ude00"], "a\ufffd😀"),  # followed by another high half
        (["\ude00a"], "\ufffda"),  # a low half with no high one before it
        (["a\ude00\ud83db"], "a\ufffd\ufffdb"),  # inside one delta, in the wrong order
        (["\ud83d", "", "\ude00"], "😀"),  # an empty delta between the halves
    ],
)
def test_a_half_left_without_its_pair_becomes_u_fffd(pieces, text):
    acc = fed(
        START,
        block_start(0, TEXT_BLOCK),
        *[delta(0, type="text_delta", text=piece) for piece in pieces],
        stop(0),
    )
    assert acc.message["content"][0]["text"] == text


def test_the_start_events_text_may_hold_the_first_half():
    acc = fed(
        START,
        block_start(0, {"type": "text", "text": "x\ud83d"}),
        delta(0, type="text_delta", text="\ude00"),
    )
    assert acc.message["content"][0]["text"] == "x😀"


@given(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
    st.lists(st.integers(0, 30), max_size=8),
)
def test_text_cut_anywhere_between_utf16_code_units_arrives_whole_and_never_shows_a_half(
    text, cuts
):
    acc = fed(START, block_start(0, TEXT_BLOCK))
    for piece in utf16_pieces(text, cuts):
        acc.feed(delta(0, type="text_delta", text=piece))
        shown = acc.message["content"][0]["text"]
        assert encodable(shown) and text.startswith(shown)
    acc.feed(stop(0))
    assert acc.message["content"][0]["text"] == text


def test_a_stream_cut_after_a_high_half_hands_back_a_partial_that_utf8_can_encode():
    raw = sse_bytes(START, block_start(0, TEXT_BLOCK), delta(0, type="text_delta", text="ab\ud83d"))
    for chunks in ([raw], chunked(raw, 1), chunked(raw, 7)):
        with pytest.raises(IncompleteStreamError) as caught:
            accumulate(chunks)
        # the stream is over: the half never gets its pair, and shows as U+FFFD, not silently lost
        assert caught.value.partial["content"] == [
            {"type": "text", "text": "ab\ufffd"}
        ] and encodable(caught.value.partial)


@given(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=8),
    st.lists(st.integers(0, 40), max_size=8),
)
def test_tool_input_fragments_cut_between_utf16_code_units_give_the_input_and_a_real_preview(
    value, cuts
):
    tool_json = json.dumps(
        {"v": value}, ensure_ascii=False
    )  # raw characters, so a cut may split one
    acc = fed(START, block_start(0, TOOL_BLOCK))
    for piece in utf16_pieces(tool_json, cuts):
        acc.feed(delta(0, type="input_json_delta", partial_json=piece))
        assert encodable(acc.json_buffers[0]) and tool_json.startswith(acc.json_buffers[0])
        with contextlib.suppress(PartialJSONError):  # no value yet
            assert encodable(acc.input_snapshot(0, trailing_strings=True))
    acc.feed(stop(0))
    assert acc.message["content"][0]["input"] == {"v": value} and acc.json_buffers[0] == tool_json


def test_a_raw_high_half_ending_the_tool_input_becomes_u_fffd_in_the_raw_text():
    acc = fed(
        START,
        block_start(0, TOOL_BLOCK),
        delta(0, type="input_json_delta", partial_json='{"v": "\ud83d'),
        stop(0),
        message_delta("tool_use"),
        {"type": "message_stop"},
    )
    with pytest.raises(ToolInputJSONError) as caught:
        acc.final_message()
    assert caught.value.raw == '{"v": "\ufffd' and encodable(caught.value.partial)


# A lone surrogate *escape* in the tool's JSON text: the live preview and the parse
# at the stop read it alike, as U+FFFD; an escaped pair is one character however cut.
ESCAPED_INPUTS = [
    ('{"v": "a\\ud83d"}', "a\ufffd"),
    ('{"v": "\\ude00"}', "\ufffd"),
    ('{"v": "\\ud83d\\u0041"}', "\ufffdA"),
    ('{"v": "\\ud83d\\ud83d\\ude00"}', "\ufffd😀"),
    ('{"v": "\\ud83d\\ude00!"}', "😀!"),
    ('{"\\ud800": "k"}', None),  # a lone half in a key
]


@pytest.mark.parametrize(("tool_json", "expected"), ESCAPED_INPUTS)
def test_a_lone_surrogate_escape_in_tool_input_is_u_fffd_in_the_preview_and_at_the_stop(
    tool_json, expected
):
    wanted = {"v": expected} if expected is not None else {"\ufffd": "k"}
    for cut in range(len(tool_json) + 1):
        for second in range(cut, len(tool_json) + 1, 3):
            fragments = [tool_json[:cut], tool_json[cut:second], tool_json[second:]]
            acc = fed(
                START,
                block_start(0, TOOL_BLOCK),
                *[delta(0, type="input_json_delta", partial_json=f) for f in fragments],
            )
            assert acc.input_snapshot(0) == wanted
            acc.feed(stop(0))
            assert acc.message["content"][0]["input"] == wanted


def test_load_json_keeps_lone_halves_in_event_data_and_replaces_them_in_tool_input():
    text = '{"text": "\\ud83d", "pair": "\\ud83d\\ude00"}'
    assert load_json(text) == {"text": "\ud83d", "pair": "😀"}  # the accumulator pairs text halves
    assert load_json(text, lone_surrogates="replace") == {"text": "\ufffd", "pair": "😀"}


# -- a delta must fit its block ----------------------------------------------------------

TEXT_BLOCK = {"type": "text", "text": ""}
THINKING_BLOCK = {"type": "thinking", "thinking": "", "signature": ""}
TOOL_BLOCK = {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {}}


@pytest.mark.parametrize(
    ("block", "body"),
    [
        (TOOL_BLOCK, {"type": "text_delta", "text": "hi"}),
        (TEXT_BLOCK, {"type": "input_json_delta", "partial_json": '{"a'}),
        (TEXT_BLOCK, {"type": "thinking_delta", "thinking": "hmm"}),
        (TEXT_BLOCK, {"type": "signature_delta", "signature": "sig"}),
        (
            THINKING_BLOCK,
            {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "x"}},
        ),
        (THINKING_BLOCK, {"type": "text_delta", "text": "hi"}),
    ],
    ids=lambda value: value["type"],
)
def test_a_delta_that_does_not_fit_its_block_is_an_event_order_error_naming_the_block(block, body):
    acc = fed(
        START,
        block_start(0, TEXT_BLOCK),
        delta(0, type="text_delta", text="ok"),
        stop(0),
        block_start(1, block),
    )
    with pytest.raises(EventOrderError) as caught:
        acc.feed(delta(1, **body))
    error = caught.value
    assert str(error) == f"event 6: {body['type']} for block 1, a {block['type']} block"
    assert (error.index, error.event_number) == (1, 6)
    assert (
        acc.message["content"][0] == {"type": "text", "text": "ok"}
        and acc.message["content"][1] == block
    )


def test_a_delta_that_does_not_fit_its_block_leaves_the_message_so_far_in_partial():
    raw = sse_bytes(
        START,
        block_start(0, THINKING_BLOCK),
        delta(0, type="thinking_delta", thinking="hmm"),
        delta(0, type="text_delta", text="no"),
    )
    for chunks in ([raw], chunked(raw, 1), chunked(raw, 7)):
        with pytest.raises(
            EventOrderError, match="^event 4: text_delta for block 0, a thinking block$"
        ) as caught:
            accumulate(chunks)
        assert caught.value.partial["content"] == [
            {"type": "thinking", "thinking": "hmm", "signature": ""}
        ]


def test_a_high_half_held_when_a_block_never_stops_is_u_fffd_in_the_final_message_and_the_partial():
    text = {"type": "text", "text": ""}
    events = [START, block_start(0, text), delta(0, type="text_delta", text="a\ud83d")]
    acc = fed(*events, message_delta("max_tokens"), {"type": "message_stop"})
    assert acc.message["content"][0]["text"] == "a"  # while it streams, the half waits for its pair
    assert acc.final_message()["content"][0]["text"] == "a\ufffd"
    with pytest.raises(IncompleteStreamError) as caught:
        fed(*events).final_message()
    assert caught.value.partial["content"][0]["text"] == "a\ufffd"


def test_a_lone_half_in_a_blocks_start_is_mended_too():
    acc = fed(
        START,
        block_start(0, {"type": "text", "text": "x\ud83d"}),
        stop(0),
        message_delta(),
        {"type": "message_stop"},
    )
    assert acc.final_message()["content"][0]["text"] == "x\ufffd"
    acc = fed(
        START,
        block_start(0, {"type": "text", "text": "x\ud83d"}),
        delta(0, type="text_delta", text="\ude00!"),
        stop(0),
    )
    assert acc.message["content"][0]["text"] == "x😀!"
