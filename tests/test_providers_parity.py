"""The referees: each provider's own SDK, fed the same bytes offline, agrees with us.

Needs the optional extra `providers` (`pip install -e '.[providers]'`); without it
these tests are skipped, with the reason.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip(
    "openai", reason="the providers extra is not installed: pip install -e '.[providers]'"
)
pytest.importorskip("google.genai", reason="the providers extra is not installed")
botocore_eventstream = pytest.importorskip(
    "botocore.eventstream", reason="the providers extra is not installed"
)

from streaming_lib.errors import ProviderStreamError  # noqa: E402
from streaming_lib.providers import bedrock  # noqa: E402
from streaming_lib.tools import provider_fixtures as fixtures  # noqa: E402
from streaming_lib.tools.fixtures import chunked  # noqa: E402
from streaming_lib.tools.provider_sdk import (  # noqa: E402
    REFEREES,
    comparable,
    gemini_chunks,
    our_async_verdict,
    our_verdict,
    sdk_verdict,
)
from streaming_lib.tools.sdk import compare_messages, verdict_text  # noqa: E402

ALL = [(wire, name) for wire in fixtures.WIRES for name in fixtures.fixture_names(wire)]
# Fixtures both sides complete with different results, on purpose: each has its test below.
DIFFERENT = {("openai_chat", "same_index_calls")}
# The fixtures both sides complete alike: where one side raises, the stored verdicts say why.
BOTH_COMPLETE = [
    (wire, name)
    for wire, name in ALL
    if "result" in json.loads((fixtures.wire_dir(wire) / f"{name}.sdk.json").read_text("utf-8"))
    and "result"
    in json.loads((fixtures.wire_dir(wire) / f"{name}.expected.json").read_text("utf-8"))
    and (wire, name) not in DIFFERENT
]


def cut(raw, size):
    return [raw] if size is None else chunked(raw, size)


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize(("wire", "name"), BOTH_COMPLETE)
def test_our_result_equals_the_sdks_on_every_fixture_at_every_chunk_size(wire, name, size):
    raw = fixtures.read_fixture(wire, name)
    theirs, ours = REFEREES[wire]
    assert compare_messages(comparable(ours(cut(raw, size))), comparable(theirs(raw, size))) == []


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize(("wire", "name"), BOTH_COMPLETE)
def test_our_async_result_equals_the_sdks_too(wire, name, size):
    raw = fixtures.read_fixture(wire, name)
    ours = our_async_verdict(wire, cut(raw, size))["result"]
    assert compare_messages(comparable(ours), comparable(REFEREES[wire][0](raw, size))) == []


def test_every_wire_has_at_least_two_fixtures_both_sides_complete():
    assert {wire for wire, _ in BOTH_COMPLETE} == set(fixtures.WIRES)


@pytest.mark.parametrize(("wire", "name"), ALL)
def test_the_stored_verdicts_are_what_a_fresh_run_gives(wire, name):
    raw = fixtures.read_fixture(wire, name)
    for suffix, verdict in (
        (".sdk.json", sdk_verdict(wire, raw)),
        (".expected.json", our_verdict(wire, [raw])),
    ):
        stored = (fixtures.wire_dir(wire) / f"{name}{suffix}").read_text(encoding="utf-8")
        assert verdict_text(verdict) == stored, f"{wire}/{name}{suffix}: run the regenerate command"


@pytest.mark.parametrize("wire", fixtures.WIRES)
def test_each_sdk_really_sees_our_bytes(wire):
    # If a mock transport ignored its input, the parity above would prove nothing.
    name = "text_only" if wire == "bedrock" else "text"
    raw = fixtures.read_fixture(wire, name)
    if wire == "bedrock":
        raw = fixtures.chunk_frame(
            {
                "type": "message_start",
                "message": {
                    "id": "other",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "m",
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            }
        ) + fixtures.chunk_frame({"type": "message_stop"})
        assert REFEREES[wire][0](raw)["id"] == "other"
    else:
        changed = raw.replace("原文".encode(), "改过".encode())
        assert changed != raw
        assert "改过" in json.dumps(REFEREES[wire][0](changed), ensure_ascii=False)


def test_botocores_decoder_reads_every_frame_our_encoder_builds():
    for name in fixtures.BEDROCK_STREAMS:
        raw = fixtures.build_bedrock(name)
        buffer = botocore_eventstream.EventStreamBuffer()
        buffer.add_data(raw)
        theirs = []
        try:
            for message in buffer:
                theirs.append((dict(message.headers), message.payload))
        except botocore_eventstream.ChecksumMismatch:
            assert name == "bad_crc"
        # The frames before a damaged one (bad_crc) come out first, as botocore's do.
        ours = [(f.headers, f.payload) for f in bedrock.FrameDecoder().feed(raw)]
        assert theirs == ours and theirs, name


def test_gemini_sdk_drops_a_data_line_without_its_space_which_sse_allows():
    with pytest.raises(Exception, match="Failed to parse response as JSON"):
        gemini_chunks(fixtures.read_fixture("gemini", "no_space"))
    ours = REFEREES["gemini"][1]([fixtures.read_fixture("gemini", "no_space")])
    assert ours == REFEREES["gemini"][1]([fixtures.read_fixture("gemini", "text")])


SDK_RESULTS = {}  # (wire, name) -> the SDK's result on the whole stream, computed once


@given(data=st.data())
def test_random_cuts_give_the_sdks_result_on_every_fixture_both_complete(data):
    wire, name = data.draw(st.sampled_from(BOTH_COMPLETE))
    raw = fixtures.read_fixture(wire, name)
    theirs, ours = REFEREES[wire]
    if (wire, name) not in SDK_RESULTS:
        SDK_RESULTS[wire, name] = comparable(theirs(raw))
    points = sorted(data.draw(st.sets(st.integers(1, len(raw) - 1), max_size=40)))
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert compare_messages(comparable(ours(chunks)), SDK_RESULTS[wire, name]) == []


# -- Other wires, round two: where the SDK is right we match it (the parity above, on
# azure_content_filter, reasoning_content, reasoning, moderation, logprobs,
# completed_output_null, completed_no_output, uuid_header); where it is not, what it
# does, and why ours differs.


def stored(wire, name, suffix):
    return json.loads((fixtures.wire_dir(wire) / f"{name}{suffix}").read_text("utf-8"))


def test_the_sdk_skips_azures_annotations_and_so_do_we_keeping_the_real_id():
    raw = fixtures.read_fixture("openai_chat", "azure_content_filter")
    theirs, ours = REFEREES["openai_chat"]
    assert theirs(raw)["id"] == ours([raw])["id"] == "chatcmpl-course02"
    assert theirs(raw)["created"] == ours([raw])["created"] == 1764547200


@pytest.mark.parametrize("size", [1, 7, None])
def test_the_sdk_glues_two_calls_at_one_index_where_we_keep_two(size):
    # The SDK merges fragments by `index` alone (`accumulate_delta`), so a second whole
    # call at index 0 is appended to the first, string by string: its id and name too,
    # and arguments that are no JSON any more. The id says it is another call: we start one.
    raw = fixtures.read_fixture("openai_chat", "same_index_calls")
    (glued,) = REFEREES["openai_chat"][0](raw, size)["choices"][0]["message"]["tool_calls"]
    assert glued["id"] == "call_pariscall_tokyo"
    assert glued["function"]["arguments"] == '{"city": "Paris"}{"city": "Tokyo"}'
    with pytest.raises(json.JSONDecodeError):
        json.loads(glued["function"]["arguments"])
    ours = REFEREES["openai_chat"][1](cut(raw, size))["choices"][0]["message"]["tool_calls"]
    assert [json.loads(call["function"]["arguments"]) for call in ours] == [
        {"city": "Paris"},
        {"city": "Tokyo"},
    ]


@pytest.mark.parametrize("name", ["error_object", "error_event", "error_unwrapped"])
def test_the_sdk_reads_an_in_stream_error_as_success_where_we_raise_it(name):
    # The SDK raises only for data holding an `error` member; these three shapes
    # (vLLM's `object: "error"`, an `event: error`, an error with no wrapper) come out
    # of it as a completion with no finish_reason: the text so far, as if it were all.
    raw = fixtures.read_fixture("openai_chat", name)
    theirs = sdk_verdict("openai_chat", raw)["result"]["choices"][0]
    assert theirs["message"]["content"] == "The first half" and "finish_reason" not in theirs
    ours = our_verdict("openai_chat", [raw])["error"]
    assert ours["class"] == "ProviderStreamError"
    assert ours["partial"]["choices"][0]["message"] == theirs["message"]


@pytest.mark.parametrize("name", ["error_no_sequence_number", "failed_no_sequence_number"])
def test_the_sdk_loses_the_servers_error_in_a_runtime_error_where_we_keep_it(name):
    raw = fixtures.read_fixture("openai_responses", name)
    theirs = sdk_verdict("openai_responses", raw)["error"]
    assert theirs["class"] == "RuntimeError" and "response.completed" in theirs["message"]
    ours = our_verdict("openai_responses", [raw])["error"]
    said = "server_error" if name.startswith("error") else "rate_limit_exceeded"
    assert said in ours["message"] and said not in theirs["message"]


def test_gemini_sdk_and_we_both_read_the_bare_error_with_its_code_and_status():
    from google.genai import errors as genai_errors

    raw = fixtures.read_fixture("gemini", "error_after_data")
    with pytest.raises(genai_errors.ServerError) as theirs:
        gemini_chunks(raw)
    with pytest.raises(ProviderStreamError) as ours:
        REFEREES["gemini"][1]([raw])
    assert (ours.value.code, ours.value.error_type) == (theirs.value.code, theirs.value.status)
    assert ours.value.error_message == theirs.value.message
    assert stored("gemini", "error_after_data", ".sdk.json")["error"]["class"] == "ServerError"


def test_botocore_gives_a_uuid_header_as_its_16_bytes_as_we_do():
    raw = fixtures.read_fixture("bedrock", "uuid_header")
    buffer = botocore_eventstream.EventStreamBuffer()
    buffer.add_data(raw)
    theirs = [message.headers["frame-id"] for message in buffer]
    ours = [frame.headers["frame-id"] for frame in bedrock.iter_frames([raw])]
    assert theirs == ours and all(type(value) is bytes and len(value) == 16 for value in ours)
