"""Other wires, same stages: each wire's rules, at every chunking, without any provider SDK.

The SDKs' own verdicts are checked in test_providers_parity.py (the `providers` extra).
"""

import asyncio
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
    StreamError,
)
from streaming_lib.providers import _sse, bedrock, gemini, openai_chat, openai_responses
from streaming_lib.tools import provider_fixtures as fixtures
from streaming_lib.tools.fixtures import chunked
from streaming_lib.tools.fixtures import read_fixture as read_messages_fixture
from streaming_lib.tools.provider_sdk import our_async_verdict, our_verdict
from streaming_lib.tools.sdk import verdict_text

ALL = [(wire, name) for wire in fixtures.WIRES for name in fixtures.fixture_names(wire)]
CHUNKINGS = [1, 7, None]  # None: the whole stream in one chunk
ACCUMULATE = {
    "openai_chat": openai_chat.accumulate,
    "openai_responses": openai_responses.accumulate,
    "gemini": gemini.accumulate,
    "bedrock": bedrock.accumulate,
}


AACCUMULATE = {
    "openai_chat": openai_chat.aaccumulate,
    "openai_responses": openai_responses.aaccumulate,
    "gemini": gemini.aaccumulate,
    "bedrock": bedrock.aaccumulate,
}


def cut(raw, size):
    return [raw] if size is None else chunked(raw, size)


async def served(chunks):
    for chunk in chunks:
        yield chunk


def both_ways(wire, raw, size):
    """Ours on `raw` cut at `size`, sync then async: two results, or two StreamErrors."""
    outcomes = []
    for call in (
        lambda: ACCUMULATE[wire](cut(raw, size)),
        lambda: asyncio.run(AACCUMULATE[wire](served(cut(raw, size)))),
    ):
        try:
            outcomes.append(call())
        except StreamError as error:
            outcomes.append(error)
    return outcomes


def results(wire, name, size):
    """The result of fixture `name`, sync and async (each must complete)."""
    outcomes = both_ways(wire, fixtures.read_fixture(wire, name), size)
    assert not any(isinstance(outcome, StreamError) for outcome in outcomes), outcomes
    assert outcomes[0] == outcomes[1]
    return outcomes


def errors(wire, name, size, error_class, raw=None):
    """The errors fixture `name` (or `raw`) raises, sync and async: both of `error_class`."""
    outcomes = both_ways(wire, raw or fixtures.read_fixture(wire, name), size)
    for error in outcomes:
        assert type(error) is error_class, error
    assert [str(e) for e in outcomes] == [str(outcomes[0])] * 2
    assert outcomes[0].partial == outcomes[1].partial
    return outcomes


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


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize(("wire", "name"), ALL)
def test_each_fixture_gives_the_same_verdict_read_async(wire, name, size):
    raw = fixtures.read_fixture(wire, name)
    assert as_stored(our_async_verdict(wire, cut(raw, size))) == expected(wire, name)


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
    assert frame.headers["u"] == bytes(range(16))  # a UUID: its 16 bytes, as botocore gives it


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


# -- Other wires, round two: what real gateways and providers send -------------------
# Each kind has its fixture; the SDKs' verdicts on them are checked in
# test_providers_parity.py. Every test here runs sync and async, at every chunking.


@pytest.mark.parametrize("size", CHUNKINGS)
def test_azure_content_filter_chunks_never_overwrite_the_completions_own_fields(size):
    for completion in results("openai_chat", "azure_content_filter", size):
        assert (completion["id"], completion["model"], completion["created"]) == (
            "chatcmpl-course02",
            "gpt-5-mini-2025-08-07",
            1764547200,
        )
        assert completion["choices"][0]["message"]["content"] == "Filtered, then passed: 原文."
        assert completion["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_an_empty_value_never_overwrites_a_real_one_even_in_a_chunk_of_the_completion(size):
    real = {
        "id": "c1",
        "model": "m",
        "created": 5,
        "choices": [{"index": 0, "delta": {"content": "a"}}],
    }
    empty = {
        "id": "",
        "model": "",
        "created": 0,
        "choices": [{"index": 0, "delta": {"content": "b"}}],
    }
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in (real, empty))
    for completion in both_ways("openai_chat", raw + b"data: [DONE]\n\n", size):
        assert (completion["id"], completion["model"], completion["created"]) == ("c1", "m", 5)
        assert completion["choices"][0]["message"]["content"] == "ab"


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize(
    ("name", "field", "text"),
    [
        ("reasoning_content", "reasoning_content", "The user asks for 原文; answer briefly."),
        ("reasoning", "reasoning", "Thinking it over once."),
    ],
)
def test_reasoning_deltas_are_text_and_join_as_content_does(name, field, text, size):
    for completion in results("openai_chat", name, size):
        message = completion["choices"][0]["message"]
        assert message[field] == text
        assert message["role"] == "assistant"  # a word, sent once: never joined


def test_a_role_sent_again_stays_one_word():
    delta = {"role": "assistant", "content": "a"}
    chunk = b"data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}).encode() + b"\n\n"
    message = openai_chat.accumulate([chunk * 2 + b"data: [DONE]\n\n"])["choices"][0]["message"]
    assert message == {"role": "assistant", "content": "aa"}


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_chunks_moderation_is_kept(size):
    raw = fixtures.read_fixture("openai_chat", "moderation")
    (sent,) = [
        c["moderation"]
        for c in openai_responses.iter_json([raw], end="[DONE]")
        if "moderation" in c
    ]
    for completion in results("openai_chat", "moderation", size):
        assert completion["moderation"] == sent
        assert completion["choices"][0]["message"]["content"] == "A calm 原文 answer."


@pytest.mark.parametrize("size", CHUNKINGS)
def test_logprobs_are_extended_chunk_by_chunk(size):
    for completion in results("openai_chat", "logprobs", size):
        logprobs = completion["choices"][0]["logprobs"]["content"]
        assert [(p["token"], p["logprob"]) for p in logprobs] == [
            ("原", -0.25),
            ("文", -0.5),
            (" ok", -0.125),
        ]
        assert completion["choices"][0]["message"]["content"] == "原文 ok"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_new_id_at_a_used_index_starts_a_new_call_never_glued_json(size):
    for completion in results("openai_chat", "same_index_calls", size):
        calls = completion["choices"][0]["message"]["tool_calls"]
        assert [(c["index"], c["id"]) for c in calls] == [(0, "call_paris"), (0, "call_tokyo")]
        assert [json.loads(c["function"]["arguments"]) for c in calls] == [
            {"city": "Paris"},
            {"city": "Tokyo"},
        ]


def test_a_call_whose_id_comes_with_every_fragment_stays_one_call():
    def fragment(arguments, **first):
        call = {"index": 0, "id": "call_1", **first, "function": {"arguments": arguments}}
        return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}

    chunks = [fragment('{"a"', type="function"), fragment(": 1}")]
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    (call,) = openai_chat.accumulate([raw + b"data: [DONE]\n\n"])["choices"][0]["message"][
        "tool_calls"
    ]
    assert (call["id"], call["function"]["arguments"]) == ("call_1", '{"a": 1}')


IN_STREAM_ERRORS = {
    # fixture: (error_type, code, retryable, the server's message begins)
    "error_after_200": ("server_error", None, True, "The server had an error"),
    "error_object": ("BadRequestError", 400, False, "This model's maximum context length"),
    "error_event": (None, 502, True, "Upstream provider is overloaded"),
    "error_unwrapped": ("ServiceUnavailableError", 503, True, "The engine is currently overloaded"),
}


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize("name", IN_STREAM_ERRORS)
def test_an_error_sent_inside_a_chat_stream_in_any_shape_is_the_servers_error(name, size):
    error_type, code, retryable, said = IN_STREAM_ERRORS[name]
    for error in errors("openai_chat", name, size, ProviderStreamError):
        assert (error.error_type, error.code, error.retryable) == (error_type, code, retryable)
        assert error.error_message.startswith(said) and error.provider == "openai_chat"
        assert error.event_number == 3
        assert error.partial["choices"][0]["message"]["content"] == "The first half"
        assert "finish_reason" not in error.partial["choices"][0]


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize("name", ["completed_output_null", "completed_no_output"])
def test_a_completed_response_without_output_is_rebuilt_from_the_done_items(name, size):
    for response in results("openai_responses", name, size):
        assert response["output"] == run("openai_responses", "text")["output"] != []
        assert response["status"] == "completed"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_an_error_event_without_its_sequence_number_is_still_the_servers_error(size):
    for error in errors("openai_responses", "error_no_sequence_number", size, ProviderStreamError):
        assert (error.error_type, error.code, error.retryable) == (
            "server_error",
            "server_error",
            True,
        )
        assert error.error_message.startswith("The server had an error")
        assert error.partial["output"][0]["content"][0]["text"] == "Each event has a number;"


@pytest.mark.parametrize("size", CHUNKINGS)
def test_response_failed_without_its_sequence_number_is_still_the_failure(size):
    for error in errors("openai_responses", "failed_no_sequence_number", size, ResponseStatusError):
        assert (error.status, error.reason["code"], error.retryable) == (
            "failed",
            "rate_limit_exceeded",
            True,
        )
        assert error.partial["output"][0]["content"][0]["text"] == "Each event has a number;"


def test_an_error_event_nested_as_an_error_member_says_its_code_too():
    created = {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "r", "output": []},
    }
    error = {
        "type": "error",
        "error": {"type": "invalid_request_error", "code": "429", "message": "m"},
    }
    raw = b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in (created, error)
    )
    with pytest.raises(ProviderStreamError) as caught:
        openai_responses.accumulate([raw])
    assert (caught.value.code, caught.value.error_message, caught.value.retryable) == (
        "429",
        "m",
        True,
    )


GEMINI_ERROR = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_bare_json_error_after_gemini_data_is_the_servers_error_retryable_by_status(size):
    for error in errors("gemini", "error_after_data", size, ProviderStreamError):
        assert (error.code, error.error_type, error.retryable) == (503, "UNAVAILABLE", True)
        assert error.error_message == "The model is overloaded. Please try again later."
        assert error.event_number == 3
        parts = error.partial["candidates"][0]["content"]["parts"]
        assert parts == [{"text": "Every chunk is a whole response;"}]


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize(
    ("body", "status", "retryable"),
    [
        (json.dumps({"error": GEMINI_ERROR}), "UNAVAILABLE", True),  # one line
        (json.dumps({"error": GEMINI_ERROR}, indent=2).replace("\n", "\r\n"), "UNAVAILABLE", True),
        (
            json.dumps({"error": {**GEMINI_ERROR, "code": 400, "status": "INVALID_ARGUMENT"}}),
            "INVALID_ARGUMENT",
            False,
        ),
    ],
    ids=["one-line", "crlf", "not-retryable"],
)
def test_a_bare_error_is_read_on_one_line_or_many_and_its_status_decides_retrying(
    body, status, retryable, size
):
    first = fixtures.read_fixture("gemini", "text").split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    for error in errors("gemini", None, size, ProviderStreamError, raw=first + body.encode()):
        assert (error.error_type, error.retryable) == (status, retryable)


@pytest.mark.parametrize("size", CHUNKINGS)
def test_lines_that_are_no_sse_field_and_no_json_error_are_still_ignored(size):
    raw = fixtures.read_fixture("gemini", "text").replace(b"\r\n\r\n", b"\r\n\r\n{not json}\r\n", 1)
    assert raw != fixtures.read_fixture("gemini", "text")
    assert both_ways("gemini", raw, size) == [run("gemini", "text")] * 2


@pytest.mark.parametrize("size", CHUNKINGS)
def test_a_uuid_header_is_its_16_bytes_and_the_message_is_unchanged(size):
    raw = fixtures.read_fixture("bedrock", "uuid_header")
    ids = [frame.headers["frame-id"] for frame in bedrock.iter_frames(cut(raw, size))]
    assert ids == [n.to_bytes(16, "big") for n in range(1, len(ids) + 1)]
    assert results("bedrock", "uuid_header", size) == [run("bedrock", "text_only")] * 2


def test_async_reads_no_chunk_after_the_wires_last_event():
    async def body(raw, asked):
        asked.append(raw)
        yield raw
        asked.append("more")
        raise AssertionError("a chunk was asked for after the end")

    for wire, name in [
        ("openai_chat", "text"),
        ("openai_responses", "text"),
        ("bedrock", "text_only"),
    ]:
        asked = []
        asyncio.run(AACCUMULATE[wire](body(fixtures.read_fixture(wire, name), asked)))
        assert len(asked) == 1, wire


def test_an_empty_id_or_name_in_a_later_fragment_never_hides_the_calls_own():
    def fragment(arguments, call_id, name):
        call = {"index": 0, "id": call_id, "function": {"name": name, "arguments": arguments}}
        return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}

    chunks = [fragment('{"a"', "call_1", "f"), fragment(": 1}", "", "")]
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    (call,) = openai_chat.accumulate([raw + b"data: [DONE]\n\n"])["choices"][0]["message"][
        "tool_calls"
    ]
    assert (call["id"], call["function"]["name"]) == ("call_1", "f")
    assert call["function"]["arguments"] == '{"a": 1}'


def test_stray_lines_past_the_size_of_an_error_object_are_dropped_not_kept():
    junk = b"x" * 1000 + b"\n"
    decoder = _sse.JSONEventDecoder()
    for _ in range(200):  # 200 kB of lines that are no SSE field
        decoder.feed(junk)
    assert decoder.stray_bytes <= _sse.BODY_HEAD_BYTES + len(junk)
    assert decoder.feed(b'{"error": {"code": 500}}\n\n') == []  # part of the junk: no error
    assert decoder.feed(b'{"error": {"code": 500}}\n\n') == [("error", {"error": {"code": 500}})]


@pytest.mark.parametrize("size", CHUNKINGS)
@pytest.mark.parametrize("wire", SSE_WIRES)
def test_an_error_event_whose_data_is_plain_text_says_that_text(wire, size):
    first = {
        "openai_chat": fixtures.read_fixture("openai_chat", "text").split(b"\n\n")[0],
        "openai_responses": fixtures.read_fixture("openai_responses", "text").split(b"\n\n")[0],
        "gemini": fixtures.read_fixture("gemini", "text").split(b"\r\n\r\n")[0],
    }[wire]
    raw = first + b"\n\nevent: error\ndata: upstream timed out\n\n"
    for error in errors(wire, None, size, ProviderStreamError, raw=raw):
        assert (error.error_message, error.event_number) == ("upstream timed out", 2)
        assert error.partial is not None


def test_a_failed_event_whose_response_has_no_status_is_failed_by_its_type():
    created = {"type": "response.created", "sequence_number": 0, "response": {"id": "r"}}
    failed = {"type": "response.failed", "response": {"id": "r", "error": {"code": "server_error"}}}
    raw = b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in (created, failed)
    )
    with pytest.raises(ResponseStatusError) as caught:
        openai_responses.accumulate([raw])
    assert (caught.value.status, caught.value.retryable) == ("failed", True)
