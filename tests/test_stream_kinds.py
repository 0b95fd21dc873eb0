"""Six kinds of stream that gateways and servers in front of the API send, each held
to its rule at every chunking (1, 2 and 7 bytes, random cuts, whole), sync and async.

1. a later `message_delta` whose `stop_reason` / `stop_sequence` is null;
2. tool input whose fragments join to only whitespace;
3. a 200 whose body is not an event stream (a JSON error object, HTML, text);
4. a `content_block_start` whose block lacks its initial field;
5. `"usage": null` in `message_start` or `message_delta`;
6. a number in a tool input that overflows a float (`1e400`).

Each kind also runs through the real SDK (`tools/sdk.py`, offline): where it
gives another answer, the test says so and why we differ (fixtures/README.md,
"Here we part from the SDK", lists them too).
"""

import asyncio
import json
import math
import random

import pytest

from streaming_lib import (
    APIStreamError,
    IncompleteStreamError,
    MessageAccumulator,
    StreamError,
    ToolInputJSONError,
    accumulate,
)
from streaming_lib.aio import aaccumulate
from streaming_lib.errors import FIRST_BYTES_KEPT, NotAnEventStreamError
from streaming_lib.events import BODY_HEAD_BYTES, body_error
from streaming_lib.tools.fixtures import chunked
from streaming_lib.tools.sdk import sdk_final_message

START = {
    "type": "message_start",
    "message": {
        "id": "msg_kinds",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    },
}
STOP = {"type": "message_stop"}


def block_start(index, block):
    return {"type": "content_block_start", "index": index, "content_block": block}


def text_delta(index, text):
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": text},
    }


def json_delta(index, fragment):
    delta = {"type": "input_json_delta", "partial_json": fragment}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def block_stop(index):
    return {"type": "content_block_stop", "index": index}


def message_delta(usage=None, **delta):
    return {"type": "message_delta", "delta": delta, "usage": usage}


def stream(*events, named=True):
    """The SSE bytes of `events` (dicts), each with its `event:` line unless `named=False`."""
    return b"".join(
        (f"event: {e['type']}\n" if named else "").encode() + f"data: {json.dumps(e)}\n\n".encode()
        for e in events
    )


def chunkings(raw):
    """`raw` cut every way a test asks: 1, 2 and 7 bytes, whole, and five random splits."""
    for size in (1, 2, 7):
        yield chunked(raw, size)
    yield [raw]
    rng = random.Random(len(raw))
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(raw)), min(6, len(raw) - 1)))
        yield [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


async def trickle(chunks):
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


def outcomes(raw):
    """What `accumulate` and `aaccumulate` make of `raw` at every chunking: a list of
    ("message", dict) or (error class, str, the error)."""
    results = []
    for chunks in chunkings(raw):
        for run in (
            lambda chunks=chunks: accumulate(chunks),
            lambda chunks=chunks: asyncio.run(aaccumulate(trickle(chunks))),
        ):
            try:
                results.append(("message", run(), None))
            except StreamError as error:
                results.append((type(error), str(error), error))
    return results


def final_message_everywhere(raw):
    """The one final message `raw` gives at every chunking, sync and async."""
    results = outcomes(raw)
    assert all(kind == "message" for kind, _, _ in results), results[0]
    messages = [message for _, message, _ in results]
    assert all(message == messages[0] for message in messages)
    return messages[0]


def error_everywhere(raw, cls):
    """The error (of class `cls`) `raw` raises at every chunking, sync and async: the same
    class and text each time."""
    results = outcomes(raw)
    assert {(kind, text) for kind, text, _ in results} == {(cls, results[0][1])}, results[0]
    return results[0][2]


def sdk_outcome(raw):
    """The SDK's final message for `raw`, or the class name of what it raised."""
    try:
        return sdk_final_message(raw)
    except Exception as error:  # the SDK's answer, whatever it is
        return type(error).__name__


# -- 1. a later message_delta with "stop_reason": null ------------------------------

STOP_SEQUENCE_THEN_NULLS = stream(
    START,
    block_start(0, {"type": "text", "text": ""}),
    text_delta(0, "<answer>42"),
    block_stop(0),
    message_delta({"output_tokens": 5}, stop_reason="stop_sequence", stop_sequence="</answer>"),
    message_delta({"output_tokens": 6}, stop_reason=None, stop_sequence=None, stop_details=None),
    STOP,
)


def test_a_later_message_delta_with_null_stop_fields_keeps_what_an_earlier_one_set():
    message = final_message_everywhere(STOP_SEQUENCE_THEN_NULLS)
    assert (message["stop_reason"], message["stop_sequence"]) == ("stop_sequence", "</answer>")
    assert message["usage"] == {"input_tokens": 12, "output_tokens": 6}


def test_a_later_message_delta_without_stop_fields_keeps_them_and_a_new_value_replaces_them():
    later = [
        message_delta({"output_tokens": 2}, stop_reason="max_tokens", stop_sequence=None),
        message_delta({"output_tokens": 3}),
        message_delta({"output_tokens": 4}, stop_reason="end_turn"),
    ]
    message = final_message_everywhere(stream(START, *later, STOP))
    assert (message["stop_reason"], message["stop_sequence"]) == ("end_turn", None)


def test_the_sdk_lets_a_later_null_stop_reason_erase_the_earlier_one():
    # The SDK copies each message_delta's stop fields as they come, null too; the
    # message then reads as one that never stopped. Null says nothing new here.
    theirs = sdk_outcome(STOP_SEQUENCE_THEN_NULLS)
    assert (theirs["stop_reason"], theirs["stop_sequence"]) == (None, None)


# -- 2. tool input whose fragments join to only whitespace ----------------------------

TOOL = {"type": "tool_use", "id": "toolu_kinds", "name": "get_time", "input": {}}


def tool_stream(*fragments, block=TOOL, stop_reason="tool_use"):
    return stream(
        START,
        block_start(0, block),
        *(json_delta(0, fragment) for fragment in fragments),
        block_stop(0),
        message_delta({"output_tokens": 9}, stop_reason=stop_reason, stop_sequence=None),
        STOP,
    )


@pytest.mark.parametrize("fragments", [[" "], ["", "\n", "\t", " \r\n "]], ids=["space", "mixed"])
def test_tool_input_fragments_that_join_to_only_json_whitespace_are_an_empty_object(fragments):
    raw = tool_stream(*fragments)
    assert final_message_everywhere(raw)["content"][0]["input"] == {}
    acc = MessageAccumulator()
    for event in [
        START,
        block_start(0, TOOL),
        *(json_delta(0, f) for f in fragments),
        block_stop(0),
    ]:
        acc.feed(event)
    acc.feed(message_delta(stop_reason="tool_use"))
    acc.feed(STOP)
    assert acc.tool_call_verdict(0).runnable


def test_whitespace_json_does_not_have_is_still_invalid_tool_input():
    error = error_everywhere(tool_stream("\u00a0"), ToolInputJSONError)  # NO-BREAK SPACE
    assert error.raw == "\u00a0"


def test_the_sdk_fails_on_tool_input_of_only_whitespace():
    # The SDK hands the whitespace to jiter, which finds no value and raises.
    assert sdk_outcome(tool_stream(" ")) == "ValueError"


# -- 3. a 200 whose body is not an event stream -----------------------------------

ERROR_BODY = (
    b'{"type":"error","error":{"type":"invalid_request_error",'
    b'"message":"prompt is too long: 210000 tokens > 200000 maximum"}}'
)
HTML_PAGE = b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n</html>\n"


@pytest.mark.parametrize(
    ("body", "error_type", "retryable"),
    [
        (ERROR_BODY, "invalid_request_error", False),
        (
            b'{"type": "error", "error": {"type": "authentication_error", "message": "x"}}',
            "authentication_error",
            False,
        ),
        (
            b'{\n  "type": "error",\n'
            b'  "error": {"type": "overloaded_error", "message": "Overloaded"}\n}\n',
            "overloaded_error",
            True,
        ),
        (
            b'{"error": {"type": "api_error", "message": "Internal server error"}}',
            "api_error",
            True,
        ),
    ],
    ids=["invalid_request", "authentication", "overloaded-pretty-printed", "api-no-top-type"],
)
def test_a_body_that_is_a_json_error_object_is_an_api_stream_error_with_the_servers_words(
    body, error_type, retryable
):
    error = error_everywhere(body, APIStreamError)
    assert (error.error_type, error.retryable) == (error_type, retryable)
    assert error.error_message == json.loads(body)["error"]["message"]
    assert error.error_message in str(error) and "not an event stream" in str(error)


def test_a_json_error_object_behind_a_byte_order_mark_is_still_the_servers_error():
    # RFC 8259, 8.1: a sender must not add a BOM, a parser may ignore one; some do add it.
    body = b'\xef\xbb\xbf{"type":"error","error":{"type":"api_error","message":"Oops"}}'
    error = error_everywhere(body, APIStreamError)
    assert (error.error_type, error.error_message) == ("api_error", "Oops")


@pytest.mark.parametrize(
    "body",
    [
        HTML_PAGE,
        b"upstream connect error or disconnect/reset before headers\n",
        b'{"ok": true}',
        b"[1, 2]",
        b"eventual",  # a field name's first letters, then more: not a name
        b"dx",  # a field name's first letter, then another
    ],
    ids=["html", "plain-text", "json-not-an-error", "json-list", "not-a-name", "not-a-prefix"],
)
def test_any_other_body_without_an_event_is_not_an_event_stream_and_keeps_its_first_bytes(body):
    error = error_everywhere(body, NotAnEventStreamError)
    assert error.first_bytes == body and error.content_type is None
    assert "not an event stream" in str(error) and body[:10].decode() in str(error)
    assert not isinstance(error, IncompleteStreamError)


def test_a_long_page_keeps_only_its_first_bytes():
    body = b"<html>" + b"x" * (2 * BODY_HEAD_BYTES) + b"</html>"
    error = error_everywhere(body, NotAnEventStreamError)
    assert error.first_bytes == body[:FIRST_BYTES_KEPT]


@pytest.mark.parametrize(
    "body",
    [
        b'event: message_start\ndata: {"type":"mess',  # cut inside the first event
        b": keep-alive\n\n",  # only a comment came
        b"\n\n",  # only blank lines
        b"event: done\ndata: [DONE]\n\n",  # an event, but none of the API's
        b"ev",  # cut inside the first field's name
        b"da",
        b"\xef\xbb",  # cut inside the byte order mark
        b"\xef\xbb\xbfretr",  # and inside the name after it
    ],
    ids=[
        "cut-first-event",
        "comment",
        "blank-lines",
        "unknown-event",
        "cut-in-event",
        "cut-in-data",
        "cut-in-bom",
        "cut-after-bom",
    ],
)
def test_an_event_stream_cut_before_its_first_api_event_is_still_incomplete(body):
    error_everywhere(body, IncompleteStreamError)


def test_an_empty_body_is_incomplete_as_a_connection_closed_before_the_first_byte():
    for run in (
        lambda: accumulate(b""),
        lambda: accumulate([]),
        lambda: asyncio.run(aaccumulate(trickle([]))),
    ):
        with pytest.raises(IncompleteStreamError):
            run()


def test_a_json_error_object_after_events_is_not_examined():
    # Events came: the body was an event stream, so what ends it early is a cut.
    raw = stream(START) + ERROR_BODY
    error_everywhere(raw, IncompleteStreamError)


def test_with_a_content_type_any_body_that_is_not_a_json_error_is_not_an_event_stream():
    error = body_error(b"", content_type="text/html")
    assert isinstance(error, NotAnEventStreamError) and "text/html" in str(error)
    assert isinstance(body_error(ERROR_BODY, content_type="application/json"), APIStreamError)


def test_the_sdk_raises_a_bare_assertion_error_on_a_body_that_is_not_an_event_stream():
    # The SDK's decoder finds no event, so its stream never saw message_start and
    # `get_final_message` fails an internal assertion that names nothing.
    for body in (ERROR_BODY, HTML_PAGE):
        assert sdk_outcome(body) == "AssertionError"


# -- 4. a content_block_start whose block lacks its initial field ---------------------


def test_a_block_start_without_its_initial_field_starts_it_empty():
    raw = stream(
        START,
        block_start(0, {"type": "thinking"}),
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Hm."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "sig"},
        },
        block_stop(0),
        block_start(1, {"type": "text"}),
        text_delta(1, "Hi"),
        block_stop(1),
        block_start(2, {"type": "text", "text": None}),
        block_stop(2),
        block_start(3, {"type": "tool_use", "id": "toolu_1", "name": "lookup"}),
        json_delta(3, '{"term": '),
        json_delta(3, '"sse"}'),
        block_stop(3),
        block_start(4, {"type": "tool_use", "id": "toolu_2", "name": "now"}),
        block_stop(4),
        message_delta({"output_tokens": 20}, stop_reason="tool_use", stop_sequence=None),
        STOP,
    )
    content = final_message_everywhere(raw)["content"]
    assert content == [
        {"type": "thinking", "thinking": "Hm.", "signature": "sig"},
        {"type": "text", "text": "Hi"},
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"term": "sse"}},
        {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}},
    ]


def test_a_tool_block_started_without_input_may_run_once_complete():
    acc = MessageAccumulator()
    events = [
        START,
        block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "now"}),
        block_stop(0),
        message_delta(stop_reason="tool_use"),
        STOP,
    ]
    for event in events:
        acc.feed(event)
    assert acc.tool_call_verdict(0).runnable, acc.tool_call_verdict(0).reason


def test_the_sdk_on_blocks_without_their_initial_field():
    # The SDK copies the block as it came: a text block with no text fails its
    # first text_delta; a tool block with no input is given its parsed fragments.
    text = stream(
        START,
        block_start(0, {"type": "text"}),
        text_delta(0, "Hi"),
        block_stop(0),
        message_delta(stop_reason="end_turn"),
        STOP,
    )
    assert sdk_outcome(text) == "TypeError"


# -- 5. "usage": null --------------------------------------------------------------


def test_null_usage_in_message_start_or_message_delta_is_no_usage():
    start = {**START, "message": {**START["message"], "usage": None}}
    tail = [block_start(0, {"type": "text", "text": ""}), text_delta(0, "Hi"), block_stop(0)]
    null_delta = message_delta(None, stop_reason="end_turn", stop_sequence=None)
    counted = message_delta({"output_tokens": 3}, stop_reason="end_turn", stop_sequence=None)
    assert final_message_everywhere(stream(start, *tail, counted, STOP))["usage"] == {
        "output_tokens": 3
    }
    assert (
        final_message_everywhere(stream(START, *tail, null_delta, STOP))["usage"]
        == START["message"]["usage"]
    )
    assert final_message_everywhere(stream(start, *tail, null_delta, STOP))["usage"] == {}


def test_the_sdk_fails_on_null_usage_in_message_start():
    start = {**START, "message": {**START["message"], "usage": None}}
    raw = stream(start, message_delta({"output_tokens": 3}, stop_reason="end_turn"), STOP)
    assert sdk_outcome(raw) == "AttributeError"


# -- 6. a tool input number that overflows a float ----------------------------------


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E+999", "123456789e999"])
def test_a_tool_input_number_too_large_for_a_float_is_invalid_json_never_inf(number):
    fragments = ['{"n": ', number[:2], number[2:], "}"]
    error = error_everywhere(tool_stream(*fragments), ToolInputJSONError)
    assert error.raw == '{"n": ' + number + "}"
    assert "out of range" in error.problem
    block = error.partial["content"][0]
    assert all(not (isinstance(v, float) and math.isinf(v)) for v in block["input"].values())


def test_the_preview_agrees_with_the_final_parse_on_an_overflowing_number():
    acc = MessageAccumulator()
    for event in [
        START,
        block_start(0, TOOL),
        json_delta(0, '{"a": 1, "n": 1e4'),
        json_delta(0, "00}"),
    ]:
        acc.feed(event)
    with pytest.raises(Exception, match="out of range"):
        acc.input_snapshot(0)


def test_a_number_cut_off_by_max_tokens_never_shows_as_inf():
    message = final_message_everywhere(tool_stream('{"a": 1, "n": 1e400', stop_reason="max_tokens"))
    assert message["content"][0]["input"] in ({}, {"a": 1})


def test_small_and_large_finite_numbers_still_parse():
    raw = tool_stream('{"tiny": 1e-400, "big": 1.7e308}')
    assert final_message_everywhere(raw)["content"][0]["input"] == {"tiny": 0.0, "big": 1.7e308}


def test_the_sdk_on_a_tool_input_number_that_overflows():
    # jiter, the SDK's parser, reads it as inf; the SDK's JSON dump of its message
    # then writes null, a value the model never sent. Ours refuses the input.
    theirs = sdk_outcome(tool_stream('{"n": 1e400}'))
    assert theirs["content"][0]["input"] == {"n": None}


def test_a_tool_input_sent_as_null_is_not_a_missing_one_and_never_runs_without_fragments():
    acc = MessageAccumulator()
    block = {"type": "tool_use", "id": "toolu_1", "name": "now", "input": None}
    for event in [
        START,
        block_start(0, block),
        block_stop(0),
        message_delta(stop_reason="tool_use"),
        STOP,
    ]:
        acc.feed(event)
    assert acc.final_message()["content"][0]["input"] is None
    assert not acc.tool_call_verdict(0).runnable
