"""Other wires, same stages: each wire's rules, at every chunking, without any provider SDK.

The SDKs' own verdicts are checked in test_providers_parity.py (the `providers` extra).
"""

import base64
import json
import re
import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streaming_lib import accumulate as accumulate_messages
from streaming_lib.errors import (
    APIStreamError,
    EventDataError,
    FrameError,
    IncompleteStreamError,
    NotAnEventStreamError,
    ProviderStreamError,
    ResponseStatusError,
    SequenceNumberError,
)
from streaming_lib.providers import bedrock, fixtures, gemini, openai_chat, openai_responses
from streaming_lib.providers.sdk import our_verdict
from streaming_lib.tools.fixtures import chunked
from streaming_lib.tools.fixtures import read_fixture as read_messages_fixture
from streaming_lib.tools.sdk import verdict_text

ALL = [(wire, name) for wire in fixtures.WIRES for name in fixtures.fixture_names(wire)]
CHUNKINGS = [1, 7, None]  # None: the whole stream in one chunk
ACCUMULATE = {
    "openai_chat": openai_chat.accumulate,
    "openai_responses": openai_responses.accumulate,
    "gemini": gemini.accumulate,
    "bedrock": bedrock.accumulate,
}


def cut(raw, size):
    return [raw] if size is None else chunked(raw, size)


def run(wire, name, size=None):
    return ACCUMULATE[wire](cut(fixtures.read_fixture(wire, name), size))


def fails(wire, name, size, error_class):
    with pytest.raises(error_class) as caught:
        run(wire, name, size)
    return caught.value


def as_stored(verdict):
    return json.loads(verdict_text(verdict))


def expected(wire, name):
    path = fixtures.wire_dir(wire) / f"{name}.expected.json"
    return json.loads(path.read_text(encoding="utf-8"))


# -- every fixture, every chunking -------------------------------------------------


def test_every_wire_has_fixtures_and_each_fixture_its_two_verdicts():
    for wire in fixtures.WIRES:
        assert len(fixtures.fixture_names(wire)) >= 4, wire
    for wire, name in ALL:
        for suffix in (".sdk.json", ".expected.json"):
            assert (fixtures.wire_dir(wire) / f"{name}{suffix}").is_file(), (wire, name, suffix)


def test_every_fixture_has_its_row_in_the_fixtures_readme():
    readme = (fixtures.PROVIDERS_DIR.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+): `(\w+)\.(?:sse|bin)` \|", readme, flags=re.MULTILINE)
    assert sorted(rows) == sorted(ALL)


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize(("wire", "name"), ALL)
def test_each_fixture_gives_its_stored_verdict_at_every_chunk_size(wire, name, size):
    raw = fixtures.read_fixture(wire, name)
    assert as_stored(our_verdict(wire, cut(raw, size))) == expected(wire, name)


@given(data=st.data())
def test_random_cuts_never_change_a_verdict(data):
    wire, name = data.draw(st.sampled_from(ALL))
    raw = fixtures.read_fixture(wire, name)
    points = sorted(data.draw(st.sets(st.integers(1, max(len(raw) - 1, 1)), max_size=40)))
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert as_stored(our_verdict(wire, chunks)) == expected(wire, name)


# -- OpenAI Chat Completions ------------------------------------------------------


@pytest.mark.parametrize("size", CHUNKINGS)
def test_done_is_not_json_and_ends_the_stream(size):
    raw = fixtures.read_fixture("openai_chat", "text") + b"data: not json either\n\n"
    assert openai_chat.accumulate(cut(raw, size)) == run("openai_chat", "text")


@pytest.mark.parametrize("size", CHUNKINGS)
def test_the_usage_chunk_has_no_choices_and_still_counts(size):
    completion = run("openai_chat", "text", size)
    assert completion["usage"]["total_tokens"] == 19
    assert completion["choices"][0]["message"]["content"] == "Streams arrive in pieces, 原文 too."


@pytest.mark.parametrize("size", CHUNKINGS)
def test_interleaved_tool_call_fragments_are_merged_by_their_index(size):
    calls = run("openai_chat", "tool_calls", size)["choices"][0]["message"]["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [
        ("call_weather_paris", "get_weather"),
        ("call_weather_tokyo", "get_weather"),
    ]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]


@pytest.mark.parametrize("size", CHUNKINGS)
def test_refusal_deltas_join_into_the_refusal_not_the_content(size):
    message = run("openai_chat", "refusal", size)["choices"][0]["message"]
    assert message["refusal"] == "I'm sorry, I can't help with that."
    assert "content" not in message


@pytest.mark.parametrize("size", CHUNKINGS)
def test_several_choices_are_kept_apart_by_index(size):
    choices = run("openai_chat", "two_choices", size)["choices"]
    assert [c["message"]["content"] for c in choices] == ["Teal, like the sea.", "Blue."]
    assert [c["finish_reason"] for c in choices] == ["stop", "stop"]


@pytest.mark.parametrize("size", CHUNKINGS)
def test_an_error_object_after_200_is_a_typed_error_with_the_text_so_far(size):
    error = fails("openai_chat", "error_after_200", size, ProviderStreamError)
    assert (error.error_type, error.event_number, error.retryable) == ("server_error", 3, True)
    assert error.partial["choices"][0]["message"]["content"] == "The first half"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_chat_stream_without_done_is_incomplete_and_keeps_its_text(size):
    error = fails("openai_chat", "no_done", size, IncompleteStreamError)
    assert error.partial["choices"][0]["message"]["content"] == "Cut off mid"


def test_data_that_is_not_json_names_its_event():
    with pytest.raises(EventDataError) as caught:
        openai_chat.accumulate([b"data: {}\n\ndata: {oops\n\ndata: [DONE]\n\n"])
    assert caught.value.event_number == 2 and caught.value.data == "{oops"


def chat_stream(*deltas):
    """A Chat Completions stream: one chunk per (choice index, delta), then [DONE]."""
    chunks = [{"id": "c", "choices": [{"index": i, "delta": delta}]} for i, delta in deltas]
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + (
        b"data: [DONE]\n\n"
    )


GOOD_CHOICE = (0, {"role": "assistant", "content": "Kept"})
BAD_CHOICES = {
    "a choice index that is a string": ("1", {"content": "b"}),
    "a choice index that is null": (None, {"content": "b"}),
    "content that is a number": (0, {"content": 5}),
    "a refusal that is a list": (0, {"refusal": ["no"]}),
    "a tool call index that is a string": (
        0,
        {"tool_calls": [{"index": "x", "function": {"arguments": "{}"}}]},
    ),
    "tool call arguments that are an object": (
        0,
        {"tool_calls": [{"index": 0, "function": {"arguments": {"a": 1}}}]},
    ),
}


@pytest.mark.parametrize("bad", BAD_CHOICES.values(), ids=BAD_CHOICES.keys())
@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_chunk_with_a_field_of_the_wrong_type_is_a_data_error_naming_it(bad, size):
    with pytest.raises(EventDataError) as caught:
        openai_chat.accumulate(cut(chat_stream(GOOD_CHOICE, bad), size))
    assert caught.value.event_number == 2
    assert caught.value.partial["choices"][0]["message"]["content"] == "Kept"


# -- OpenAI Responses ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["out_of_order", "missing_event"])
@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_sequence_number_that_is_not_the_next_one_is_an_error_naming_both(name, size):
    error = fails("openai_responses", name, size, SequenceNumberError)
    assert (error.expected, error.got, error.event_number) == (5, 6, 6)
    assert error.partial["output"][0]["content"][0]["text"] == "one,"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_response_failed_is_a_typed_error_with_the_partial_response(size):
    error = fails("openai_responses", "failed", size, ResponseStatusError)
    assert (error.status, error.reason["code"]) == ("failed", "server_error")
    assert error.partial["output"][0]["content"][0]["text"] == "Half an ans"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_response_incomplete_says_why_and_keeps_the_text(size):
    error = fails("openai_responses", "incomplete", size, ResponseStatusError)
    assert (error.status, error.reason) == ("incomplete", {"reason": "max_output_tokens"})
    assert error.partial["output"][0]["content"][0]["text"] == "A long answer that stops at the"


@pytest.mark.parametrize("name", ["text", "function_call"])
def test_the_deltas_build_the_output_the_completed_event_carries(name):
    acc = openai_responses.ResponseAccumulator()
    events = list(openai_responses.iter_json([fixtures.read_fixture("openai_responses", name)]))
    for event in events[:-1]:
        acc.feed(event)
    assert acc.response()["output"] == events[-1]["response"]["output"]


def test_function_call_arguments_arrive_in_pieces_and_join():
    output = run("openai_responses", "function_call", 7)["output"]
    assert json.loads(output[1]["arguments"]) == {"city": "Paris", "unit": "celsius"}


def responses_stream(*events):
    """A Responses API stream: response.created, an empty message item, then `events`,
    numbered in turn (the stream is cut there: no terminal event)."""
    created = {"type": "response.created", "response": {"id": "r", "output": []}}
    item = {"type": "response.output_item.added", "output_index": 0, "item": {"content": []}}
    part = {"type": "output_text", "text": "Kept"}
    added = {"type": "response.content_part.added", "output_index": 0, "content_index": 0}
    everything = [created, item, dict(added, part=part), *events]
    return b"".join(
        f"event: {e['type']}\ndata: {json.dumps(dict(e, sequence_number=n))}\n\n".encode()
        for n, e in enumerate(everything)
    )


TEXT_DELTA = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0}
BAD_RESPONSE_EVENTS = {
    "a delta for a content part never added": dict(TEXT_DELTA, content_index=3, delta="x"),
    "a delta for an item never added": dict(TEXT_DELTA, output_index=4, delta="x"),
    "a delta that is not a string": dict(TEXT_DELTA, delta=5),
    "an output index that is a string": {
        "type": "response.output_item.added",
        "output_index": "1",
        "item": {},
    },
    "an item that is not an object": {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": "x",
    },
    "a terminal response that is not an object": {"type": "response.failed", "response": [1]},
    "a completed response that is null": {"type": "response.completed", "response": None},
}


@pytest.mark.parametrize("bad", BAD_RESPONSE_EVENTS.values(), ids=BAD_RESPONSE_EVENTS.keys())
@pytest.mark.parametrize("size", CHUNKINGS)
def test_an_event_that_cannot_be_placed_is_a_data_error_keeping_the_response_so_far(bad, size):
    with pytest.raises(EventDataError) as caught:
        openai_responses.accumulate(cut(responses_stream(bad), size))
    assert caught.value.event_number == 4
    kept = {"content": [{"type": "output_text", "text": "Kept"}]}
    assert caught.value.partial["output"] == [kept]


# -- Gemini ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", CHUNKINGS)
def test_data_without_its_space_is_still_data_as_the_sse_rules_say(size):
    assert run("gemini", "no_space", size) == run("gemini", "text")


@pytest.mark.parametrize("size", CHUNKINGS)
def test_text_parts_from_many_chunks_join_into_one(size):
    candidate = run("gemini", "text", size)["candidates"][0]
    assert candidate["content"]["parts"] == [
        {"text": "Every chunk is a whole response; the client joins 原文."}
    ]
    assert candidate["finishReason"] == "STOP"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_function_call_arrives_whole_in_one_chunk(size):
    parts = run("gemini", "function_call", size)["candidates"][0]["content"]["parts"]
    assert parts[1] == {
        "functionCall": {"name": "get_weather", "args": {"city": "Paris", "unit": "celsius"}}
    }


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_safety_stop_keeps_the_text_before_it_and_its_ratings(size):
    candidate = run("gemini", "safety", size)["candidates"][0]
    assert candidate["finishReason"] == "SAFETY"
    assert candidate["content"]["parts"] == [{"text": "Here is how to"}]
    assert candidate["safetyRatings"][0]["blocked"] is True


def test_a_gemini_stream_that_ends_without_a_finish_reason_is_incomplete():
    raw = fixtures.read_fixture("gemini", "text").split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    with pytest.raises(IncompleteStreamError) as caught:
        gemini.accumulate([raw])
    assert caught.value.partial["candidates"][0]["content"]["parts"] == [{"text": "Every chunk is"}]


@pytest.mark.parametrize("index", ["1", 1.5, [0]])
@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_candidate_index_that_is_not_a_whole_number_is_a_data_error(index, size):
    good = {"candidates": [{"index": 0, "content": {"parts": [{"text": "Kept"}]}}]}
    bad = {"candidates": [{"index": index, "content": {"parts": [{"text": "b"}]}}]}
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in (good, bad))
    with pytest.raises(EventDataError) as caught:
        gemini.accumulate(cut(raw, size))
    assert caught.value.event_number == 2
    assert caught.value.partial["candidates"][0]["content"]["parts"] == [{"text": "Kept"}]


# -- Claude on Bedrock -------------------------------------------------------------


def text_of_events(name, count):
    """The text the first `count` events of Bedrock fixture `name`'s source carry."""
    events = list(bedrock.iter_events([fixtures.build_bedrock(name)]))[:count]
    return "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize(("name", "source"), [("text_only", "text_only"), ("tool_use", "fixture")])
def test_bedrock_frames_give_the_message_the_same_events_give_over_sse(name, source, size):
    # Stage 3 is the course's own MessageAccumulator, unchanged.
    assert run("bedrock", name, size) == accumulate_messages(read_messages_fixture(source))


def test_a_frame_cut_at_every_byte_comes_out_whole_and_once():
    frame = fixtures.chunk_frame({"type": "ping"})
    (whole,) = bedrock.FrameDecoder().feed(frame)
    for at in range(len(frame) + 1):
        decoder = bedrock.FrameDecoder()
        assert decoder.feed(frame[:at]) + decoder.feed(frame[at:]) == [whole], at
        assert decoder.flush() == [] and decoder.pending == b""


@pytest.mark.parametrize("size", CHUNKINGS)
def test_bytes_that_stop_inside_a_prelude_are_an_incomplete_stream_with_the_offset(size):
    error = fails("bedrock", "cut_in_prelude", size, IncompleteStreamError)
    raw = fixtures.read_fixture("bedrock", "cut_in_prelude")
    assert error.offset == len(raw) - 6
    assert error.partial["content"][0]["text"].startswith("A stream arrives")


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_crc_mismatch_is_a_typed_error_at_its_frame_never_a_skip(size):
    error = fails("bedrock", "bad_crc", size, FrameError)
    frames = list(bedrock.iter_frames([fixtures.read_fixture("bedrock", "text_only")]))
    assert error.offset == frames[3].offset
    assert "message CRC" in error.problem
    assert error.partial["content"][0]["text"] == text_of_events("text_only", 3)


def test_iter_frames_reads_one_bytes_object_as_one_chunk_as_accumulate_does():
    raw = fixtures.read_fixture("bedrock", "text_only")
    frames = list(bedrock.iter_frames([raw]))
    for source in (raw, bytearray(raw), memoryview(raw)):
        assert list(bedrock.iter_frames(source)) == frames


def test_a_damaged_prelude_is_caught_before_its_length_is_trusted():
    frame = bytearray(fixtures.chunk_frame({"type": "ping"}))
    frame[0] = 0x7F  # a total length of about two gigabytes
    with pytest.raises(FrameError) as caught:
        list(bedrock.iter_frames([bytes(frame)]))
    assert "prelude CRC" in caught.value.problem and caught.value.offset == 0


@pytest.mark.parametrize("size", CHUNKINGS)
def test_an_exception_frame_is_a_typed_error_keeping_the_partial_message(size):
    error = fails("bedrock", "throttled", size, ProviderStreamError)
    assert (error.error_type, error.retryable, error.provider) == (
        "throttlingException",
        True,
        "bedrock",
    )
    assert error.partial["content"][0]["text"] == text_of_events("text_only", 4) != ""


def test_an_error_frame_says_its_code_and_message_in_its_headers():
    headers = {":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom"}
    start = fixtures.chunk_frame({"type": "message_start", "message": {"id": "m", "content": []}})
    with pytest.raises(ProviderStreamError) as caught:
        bedrock.accumulate([start + fixtures.encode_frame(headers, b"")])
    assert (caught.value.error_type, caught.value.error_message) == ("InternalFailure", "boom")
    assert (caught.value.offset, caught.value.partial["id"]) == (len(start), "m")


def test_every_header_value_type_is_read():
    def header(name, kind, value):
        return bytes([len(name)]) + name.encode() + bytes([kind]) + value

    raw_headers = b"".join(
        [
            header("t", 0, b""),
            header("f", 1, b""),
            header("b", 2, struct.pack(">b", -2)),
            header("s", 3, struct.pack(">h", 300)),
            header("i", 4, struct.pack(">i", 70000)),
            header("l", 5, struct.pack(">q", 2**40)),
            header("y", 6, struct.pack(">H", 2) + b"\x00\xff"),
            header("u", 9, bytes(range(16))),
        ]
    )
    prelude = struct.pack(">II", 16 + len(raw_headers), len(raw_headers))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + raw_headers
    (frame,) = bedrock.iter_frames([body + struct.pack(">I", zlib.crc32(body))])
    assert {k: v for k, v in frame.headers.items() if k != "u"} == {
        "t": True,
        "f": False,
        "b": -2,
        "s": 300,
        "i": 70000,
        "l": 2**40,
        "y": b"\x00\xff",
    }
    assert frame.headers["u"].bytes == bytes(range(16))


def test_a_chunk_whose_payload_is_not_base64_json_names_its_event_and_offset():
    good = fixtures.chunk_frame({"type": "message_start", "message": {"id": "m", "content": []}})
    bad = fixtures.encode_frame(
        {":event-type": "chunk", ":message-type": "event"}, b'{"bytes": "not base64!"}'
    )
    with pytest.raises(EventDataError) as caught:
        bedrock.accumulate([good + bad])
    assert (caught.value.event_number, caught.value.offset) == (2, len(good))
    assert caught.value.partial["id"] == "m"


def test_the_bedrock_fixtures_are_what_the_encoder_builds_now():
    for name in fixtures.BEDROCK_STREAMS:
        assert fixtures.read_fixture("bedrock", name) == fixtures.build_bedrock(name), name


def test_a_chunk_frame_carries_the_event_as_base64_json():
    event = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "原"},
    }
    (frame,) = bedrock.iter_frames([fixtures.chunk_frame(event)])
    assert json.loads(base64.b64decode(json.loads(frame.payload)["bytes"])) == event


SSE_WIRES = ["openai_chat", "openai_responses", "gemini"]
OPENAI_ERROR_BODY = (
    b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",'
    b' "param": null, "code": "invalid_api_key"}}'
)
GEMINI_ERROR_BODY = (
    b'{"error": {"code": 429, "message": "Resource has been exhausted",'
    b' "status": "RESOURCE_EXHAUSTED"}}'
)


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize("wire", SSE_WIRES)
@pytest.mark.parametrize("body", [OPENAI_ERROR_BODY, GEMINI_ERROR_BODY], ids=["openai", "gemini"])
def test_a_json_error_body_sent_with_200_is_the_servers_error_on_every_sse_wire(body, wire, size):
    with pytest.raises(APIStreamError) as caught:
        ACCUMULATE[wire](cut(body, size))
    assert caught.value.error_message == json.loads(body)["error"]["message"]
    assert not isinstance(caught.value, IncompleteStreamError)


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize("wire", SSE_WIRES)
def test_an_html_page_sent_with_200_is_not_an_event_stream_on_every_sse_wire(wire, size):
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>\n"
    with pytest.raises(NotAnEventStreamError) as caught:
        ACCUMULATE[wire](cut(page, size))
    assert caught.value.first_bytes == page


@pytest.mark.parametrize("wire", SSE_WIRES)
def test_an_empty_body_stays_a_stream_cut_before_its_first_byte_on_every_sse_wire(wire):
    with pytest.raises(IncompleteStreamError):
        ACCUMULATE[wire]([b""])
