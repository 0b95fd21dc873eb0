"""Stage 2 to 3, the event name: which SSE events are Messages API events.

The three streams of `tests/data/gateway/` come from gateways that re-emit
Messages API streams; each holds the message it must give whatever the chunks.
"""

import json
import random
from pathlib import Path

import pytest

from streaming_lib import (
    APIStreamError,
    EventDataError,
    ServerSentEvent,
    SizeLimitError,
    accumulate,
    decode_event,
    iter_events,
)
from streaming_lib.tools.fixtures import chunked

GATEWAY = Path(__file__).parent / "data" / "gateway"
GATEWAY_CASES = sorted(path.stem for path in GATEWAY.glob("*.sse"))


def gateway_case(name):  # -> (raw bytes, the expected final message)
    expected = json.loads((GATEWAY / f"{name}.expected.json").read_text(encoding="utf-8"))
    return (GATEWAY / f"{name}.sse").read_bytes(), expected["expected_final_message"]


def random_splits(raw, seed, pieces=12):
    cuts = sorted(random.Random(seed).sample(range(1, len(raw)), pieces))
    return [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


def test_there_are_three_gateway_streams():
    assert GATEWAY_CASES == [
        "data_only_events",
        "done_sentinel_after_message_stop",
        "surrogate_pair_split_across_deltas",
    ]


@pytest.mark.parametrize("name", GATEWAY_CASES)
@pytest.mark.parametrize("size", [1, 2, 7, None])
def test_each_gateway_stream_gives_its_expected_message_at_every_chunk_size(name, size):
    raw, expected = gateway_case(name)
    message = accumulate(chunked(raw, size) if size else [raw])
    assert message == expected
    json.dumps(message, ensure_ascii=False).encode("utf-8")  # real characters only


@pytest.mark.parametrize("name", GATEWAY_CASES)
def test_each_gateway_stream_cut_at_random_places_gives_its_expected_message(name):
    raw, expected = gateway_case(name)
    for seed in range(20):
        assert accumulate(random_splits(raw, seed)) == expected


# -- no name: the data's `type` names the event ---------------------------------


def sse(name, data):
    return ServerSentEvent(name, data)


def test_an_unnamed_event_is_named_by_its_datas_type():
    data = '{"type": "content_block_stop", "index": 0}'
    assert (
        decode_event(sse("message", data), 1)
        == decode_event(sse("content_block_stop", data), 1)
        == json.loads(data)
    )


def test_an_unnamed_ping_is_a_ping_whatever_else_its_data_holds():
    assert decode_event(sse("message", '{"type": "ping", "extra": [1]}'), 1) == {"type": "ping"}


def test_an_unnamed_error_is_an_api_stream_error():
    start = b'data: {"type":"message_start","message":{"id":"m","content":[]}}\n\n'
    error = b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    with pytest.raises(APIStreamError) as caught:
        accumulate(start + error)
    assert (caught.value.error_type, caught.value.retryable, caught.value.event_number) == (
        "overloaded_error",
        True,
        2,
    )


@pytest.mark.parametrize(
    "data",
    [
        "[DONE]",
        "plain text",
        "{}",
        "[1]",
        "null",
        "3",
        '{"type": 1}',
        '{"type": ["ping"]}',
        '{"type": "keepalive"}',
        '{"type": "message"}',
        '{"a": "\\ud800"}',
        '{"bad',
    ],
)
def test_an_unnamed_event_whose_data_names_no_api_event_is_skipped(data):
    assert decode_event(sse("message", data), 1) is None
    assert list(iter_events([b"data: " + data.encode() + b"\n\n"])) == []


def test_unnamed_data_that_is_json_too_deep_to_read_is_a_data_error():
    data = '{"type": "message_stop", "x": ' + "[" * 300 + "]" * 300 + "}"
    with pytest.raises(
        EventDataError,
        match=r"^event 4 \(message\): data cannot be used: nested inside more than 200",
    ):
        decode_event(sse("message", data), 4)


# -- names the Messages API does not send ---------------------------------------

STREAM = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[]}}\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\n'
    b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
)
END = (
    b"event: message_delta\n"
    b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
    b'"usage":{"output_tokens":2}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


@pytest.mark.parametrize(
    "unknown",
    [
        b"event: keepalive\ndata: {}\n\n",
        b"event: keepalive\ndata: still here\n\n",
        b"event: done\ndata: [DONE]\n\n",
        b"event: other\ndata: null\n\n",
        b'event: other\ndata: {"type": "message_stop"}\n\n',
        b"event: gateway_error\n"
        b'data: {"type":"error","error":{"type":"api_error","message":"x"}}\n\n',
    ],
)
@pytest.mark.parametrize("size", [1, 2, 7, None])
def test_an_event_with_a_name_the_api_does_not_send_is_skipped_whatever_its_data(unknown, size):
    raw = STREAM + unknown + END + unknown
    assert accumulate(chunked(raw, size) if size else [raw]) == accumulate(STREAM + END)


def test_skipped_events_do_not_count_in_event_numbers():
    raw = (
        STREAM
        + b"event: keepalive\ndata: {}\n\ndata: [DONE]\n\nevent: message_delta\ndata: nope\n\n"
    )
    with pytest.raises(
        EventDataError, match=r"^event 5 \(message_delta\): data is not JSON"
    ) as caught:
        accumulate(raw, keep_events=True)
    assert caught.value.event_number == 5 and len(caught.value.events) == 4
    assert caught.value.partial["content"] == [{"type": "text", "text": "hi"}]


# -- a name and a `type` that disagree ------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("content_block_stop", "message_stop"),
        ("message_delta", "ping"),
        ("content_block_delta", "error"),
    ],
)
def test_an_event_named_one_way_and_typed_another_is_a_data_error_naming_both(name, kind):
    data = json.dumps({"type": kind, "index": 0})
    raw = STREAM + f"event: {name}\ndata: {data}\n\n".encode() + END
    for chunks in ([raw], chunked(raw, 7)):
        with pytest.raises(EventDataError) as caught:
            accumulate(chunks)
        assert (
            str(caught.value)
            == f"event 5 ({name}): named {name!r} by its event line but {kind!r} by its data's type"
        )
        assert caught.value.event_number == 5 and caught.value.data == data
        assert caught.value.partial["content"] == [{"type": "text", "text": "hi"}]


def test_a_type_that_is_no_api_name_under_an_api_name_is_left_to_the_accumulator():
    # The API may add delta or event types; only two of its own names disagreeing is an error.
    assert decode_event(sse("message_delta", '{"type": "message_delta_v2"}'), 1) == {
        "type": "message_delta_v2"
    }


def test_the_names_that_win_over_their_data_still_do():
    assert decode_event(sse("ping", '{"type": "message_stop"}'), 1) == {"type": "ping"}
    assert decode_event(sse("error", '{"type": "message_stop"}'), 1)["type"] == "error"
    assert decode_event(sse("error", "plain"), 1) == {
        "type": "error",
        "error": {"type": None, "message": "plain"},
    }


def test_the_docstring_examples_run():
    import doctest

    from streaming_lib import events

    results = doctest.testmod(events)
    assert results.attempted > 0 and results.failed == 0


# -- size limits, threaded through to accumulate ----------------------------------


@pytest.mark.parametrize("size", [1, 2, 7, None])
def test_an_event_past_max_event_bytes_is_a_size_limit_error_with_the_message_so_far(size):
    big = (
        b"event: content_block_delta\n"
        b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"'
        + b"x" * 300
        + b'"}}\n\n'
    )
    raw = STREAM.replace(b"event: content_block_stop", big + b"event: content_block_stop")
    with pytest.raises(SizeLimitError) as caught:
        accumulate(chunked(raw, size) if size else [raw], max_event_bytes=200, keep_events=True)
    assert caught.value.limit == 200 and len(caught.value.events) == 3
    assert caught.value.partial["content"] == [{"type": "text", "text": "hi"}]
    assert accumulate(raw + END, max_event_bytes=None)["content"][0]["text"] == "hi" + "x" * 300


def test_a_line_past_max_event_bytes_names_its_offset():
    raw = STREAM + b": " + b"k" * 500 + b"\n" + END  # a comment: no event, but a line all the same
    with pytest.raises(SizeLimitError) as caught:
        accumulate(chunked(raw, 7), max_event_bytes=300, keep_events=True)
    assert caught.value.offset == len(STREAM) and len(caught.value.events) == 4


def test_iter_events_takes_the_limit_too():
    with pytest.raises(SizeLimitError):
        list(iter_events([b"data: " + b"[1]," * 100 + b"\n\n"], max_event_bytes=100))


def test_an_event_of_many_data_lines_is_read_whatever_the_chunks():
    event = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "x": list(range(200))},
        "usage": {},
    }
    lines = json.dumps(event, indent=1).split("\n")  # over 200 lines, one `data:` line each
    raw = b"event: message_delta\n" + "".join(f"data: {line}\n" for line in lines).encode() + b"\n"
    for size in (1, 2, 7, len(raw)):
        assert list(iter_events(chunked(raw, size))) == [event]
