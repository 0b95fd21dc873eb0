"""Every fixture, every chunking: our message is the SDK's, and every failure says where.

The fixture library (`fixtures/README.md`) holds one stream per content block
type and per way a stream can fail. The streams we complete must give the
real SDK's final message however the bytes are cut; the ones we reject must
raise the right `StreamError`, at the right event, with the partial message.
"""

import functools
import json
import re
import subprocess
import sys
import typing

import pytest

from streaming_lib import (
    APIStreamError,
    EventOrderError,
    IncompleteStreamError,
    MessageAccumulator,
    ToolInputJSONError,
    accumulate,
    iter_events,
    iter_sse,
    parse_partial_json,
)
from streaming_lib.events import decode_event
from streaming_lib.tools.fixtures import FIXTURES_DIR, chunked, fixture_names, read_fixture
from streaming_lib.tools.sdk import (
    compare_messages,
    our_verdict,
    sdk_final_message,
    sdk_verdict,
    verdict_text,
)
from streaming_lib.tools.trace import run

# The SDK's models turn the block type it does not know (unknown_types.sse) into
# a text block and warn when they serialize it back; the dict is still right.
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

COMPLETE = [
    "cjk_emoji",
    "code_execution_bash",
    "code_execution_python",
    "code_execution_text_editor",
    "cr_endings",
    "crlf",
    "crlf_data_lines",
    "data_spaces",
    "document_citations",
    "event_type_reset",
    "fixture",
    "id_nul",
    "max_tokens_tool",
    "max_tokens_tool_stopped",
    "mcp_tools",
    "model_context_window_exceeded",
    "pause_turn",
    "programmatic_tool_call",
    "redacted_thinking",
    "refusal",
    "retry_values",
    "sse_fields",
    "stop_sequence",
    "text_only",
    "thinking",
    "tool_escape_split",
    "tool_no_input",
    "tool_search",
    "tool_use_end_turn",
    "two_message_deltas",
    "two_tools",
    "unknown_types",
    "web_fetch",
    "web_search",
]
REJECTED = {  # fixture -> the error we raise
    "bad_tool_json": ToolInputJSONError,
    "delta_before_start": EventOrderError,
    "error_mid_stream": APIStreamError,
    "second_message_start": EventOrderError,
    "truncated": IncompleteStreamError,
}
# Where the SDK returns a message but the API's rules say the stream is broken.
SDK_COMPLETES_ANYWAY = {"truncated", "second_message_start"}
# Fixtures with blocks only the SDK's beta client knows (the MCP connector is a
# beta feature): their referee is `client.beta.messages.stream`.
BETA_ONLY = {"mcp_tools"}


@functools.cache
def sdk_message(name):
    return sdk_final_message(read_fixture(name), beta=name in BETA_ONLY)


def differences(name, chunks):  # our message from `chunks` vs the SDK's from the whole fixture
    return compare_messages(accumulate(chunks), sdk_message(name))


def failure(name, chunks=None):
    with pytest.raises(REJECTED[name]) as caught:
        accumulate(read_fixture(name) if chunks is None else chunks, keep_events=True)
    return caught.value


def fed(name):
    """An accumulator fed every event of fixture `name`."""
    acc = MessageAccumulator()
    for sse in iter_sse([read_fixture(name)]):
        event = decode_event(sse, acc.event_number + 1)
        if event is not None:
            acc.feed(event)
    return acc


def event_cuts(raw):
    """Offsets where a stream can be cut: after each event's blank line, just
    before it (the event is complete but not dispatched), and inside the next
    event's first line."""
    separator = b"\r\n\r\n" if b"\r\n" in raw else b"\n\n"
    ends = [i + len(separator) for i in range(len(raw)) if raw.startswith(separator, i)]
    cuts = {end - len(separator) for end in ends} | set(ends) | {end + 10 for end in ends}
    return sorted(cut for cut in cuts if 0 < cut < len(raw))


# -- the library ------------------------------------------------------------


def test_every_fixture_is_listed_as_complete_or_rejected():
    assert sorted(COMPLETE + list(REJECTED)) == fixture_names()


def test_every_fixture_is_in_the_readmes_table_and_every_row_is_a_fixture():
    readme = (FIXTURES_DIR / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)\.sse` \|", readme, flags=re.MULTILINE)
    assert sorted(rows) == fixture_names()


def test_every_fixture_is_a_few_kilobytes_of_utf8():
    for name in fixture_names():
        raw = read_fixture(name)
        assert len(raw) < 8000, name
        raw.decode("utf-8")


@pytest.mark.parametrize("name", fixture_names())
def test_the_committed_sdk_verdict_is_what_the_sdk_says_today(name):
    committed = (FIXTURES_DIR / f"{name}.sdk.json").read_text(encoding="utf-8")
    assert committed == verdict_text(sdk_verdict(read_fixture(name))), (
        "run: python -m streaming_lib.tools.sdk regenerate"
    )


@pytest.mark.parametrize("name", fixture_names())
def test_the_committed_expected_verdict_is_what_we_say_today(name):
    committed = (FIXTURES_DIR / f"{name}.expected.json").read_text(encoding="utf-8")
    assert committed == verdict_text(our_verdict(read_fixture(name))), (
        "run: python -m streaming_lib.tools.sdk regenerate"
    )


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_the_sdk_rejects_the_broken_streams_too_except_where_it_is_lenient(name):
    completes = "message" in sdk_verdict(read_fixture(name))
    assert completes == (name in SDK_COMPLETES_ANYWAY)


# -- the streams we complete: the SDK's message, however the bytes arrive ----


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, None])
@pytest.mark.parametrize("name", COMPLETE)
def test_each_complete_fixture_gives_the_sdks_message_at_every_chunk_size(name, size):
    raw = read_fixture(name)
    assert differences(name, [raw] if size is None else chunked(raw, size)) == []


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize("name", COMPLETE)
def test_the_sdk_fed_the_same_chunks_gives_our_message(name, size):
    raw = read_fixture(name)
    ours = accumulate([raw] if size is None else chunked(raw, size))
    assert (
        compare_messages(ours, sdk_final_message(raw, chunk_size=size, beta=name in BETA_ONLY))
        == []
    )


@pytest.mark.parametrize("name", COMPLETE)
def test_each_complete_fixture_split_in_two_at_any_byte_gives_the_sdks_message(name):
    raw = read_fixture(name)
    broken = [cut for cut in range(len(raw) + 1) if differences(name, [raw[:cut], raw[cut:]])]
    assert broken == []


@pytest.mark.parametrize("name", COMPLETE)
def test_a_stream_cut_between_or_inside_events_hands_back_the_sdks_partial_message(name):
    raw = read_fixture(name)
    for cut in event_cuts(raw):
        with pytest.raises(IncompleteStreamError) as caught:
            accumulate(raw[:cut])
        verdict = sdk_verdict(raw[:cut], beta=name in BETA_ONLY)
        if "message" in verdict:
            assert compare_messages(caught.value.partial, verdict["message"]) == [], cut
        else:  # cut before message_start: the SDK has no message either
            assert caught.value.partial is None, cut


def test_the_split_escapes_become_the_characters_they_encode():
    tool = accumulate(read_fixture("tool_escape_split"))["content"][1]
    assert tool["input"] == {
        "path": "notes/café.md",
        "content": '# Menu\nSay "hi" 😀\tthen C:\\temp\n',
    }


def test_two_tool_calls_in_a_row_each_get_their_own_input():
    content = accumulate(read_fixture("two_tools"))["content"]
    assert [(block["name"], block["input"]) for block in content[1:]] == [
        ("get_weather", {"location": "Paris, France", "unit": "celsius"}),
        (
            "get_time",
            {
                "timezone": "Europe/Paris",
                "format": "24h",
                "include_date": True,
                "offset_minutes": 60,
            },
        ),
    ]


def test_a_tool_call_without_input_fragments_keeps_the_empty_input_it_started_with():
    content = accumulate(read_fixture("tool_no_input"))["content"]
    assert [block["input"] for block in content] == [{}, {}]


def test_a_thinking_block_keeps_its_text_and_the_signature_sent_before_its_stop():
    thinking, text = accumulate(read_fixture("thinking"))["content"]
    assert thinking["thinking"].endswith("close.") and thinking["signature"].startswith(
        "EqQBCgIYAhIM"
    )
    assert text == {
        "type": "text",
        "text": "27 × 453 = **12,231** (27 × 400 = 10,800 plus 27 × 53 = 1,431).",
    }


def test_a_redacted_thinking_block_is_kept_exactly_as_it_started():
    content = accumulate(read_fixture("redacted_thinking"))["content"]
    assert [block["type"] for block in content] == ["thinking", "redacted_thinking", "text"]
    assert set(content[1]) == {"type", "data"}


def test_web_search_citations_arrive_one_per_delta_on_the_block_they_cite():
    message = accumulate(read_fixture("web_search"))
    content = message["content"]
    assert [block["type"] for block in content[:3]] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert content[1]["input"] == {"query": "TypeScript latest release"}
    assert [len(block.get("citations", [])) for block in content[3:]] == [0, 2, 0]
    assert {citation["type"] for citation in content[4]["citations"]} == {
        "web_search_result_location"
    }
    assert message["usage"]["server_tool_use"] == {"web_search_requests": 1}


def test_unknown_events_and_deltas_are_skipped_and_an_unknown_block_is_kept_as_it_came():
    content = accumulate(read_fixture("unknown_types"))["content"]
    assert (
        content[0]["text"]
        == "New kinds of events may appear at any time; skip what you do not know."
    )
    assert content[1] == {
        "type": "sketch",
        "format": "svg",
        "frames": [{"t": 0, "path": "M0 0 L10 10"}],
        "caption": "a diagonal — √2 long",
    }


def test_text_cut_inside_grapheme_clusters_joins_back_whole():
    text = accumulate(chunked(read_fixture("cjk_emoji"), 1))["content"][0]["text"]
    assert (
        "👨\u200d👩\u200d👧\u200d👦" in text
        and "👋🏽" in text
        and "🇯🇵🇫🇷" in text
        and "cafe\u0301" in text
    )


def test_crlf_and_the_sse_field_variants_give_the_text_they_carry():
    assert accumulate(read_fixture("crlf"))["content"][1]["input"] == {
        "title": "Línea",
        "body": "uno\r\ndos",
    }
    text = accumulate(read_fixture("sse_fields"))["content"][0]["text"]
    assert (
        text == "Fields an SSE reader must handle: comments, ids, retry, and data split over lines."
    )


def test_a_tool_call_cut_by_max_tokens_is_complete_but_not_safe_to_execute():
    acc = fed("max_tokens_tool")
    message = acc.final_message()
    assert message["stop_reason"] == "max_tokens"
    assert acc.incomplete_blocks() == [1]
    assert (
        message["content"][1]["input"]
        == parse_partial_json(acc.json_buffers[1])
        == {
            "path": "server.py",
            "mode": "overwrite",
        }
    )
    assert acc.is_safe_to_execute(1) is False


def literal_values(alias):
    """The `type` values of an SDK union (e.g. `ContentBlock`), or the values of a `Literal`."""
    if typing.get_origin(alias) is typing.Literal:
        return set(typing.get_args(alias))
    union = typing.get_args(alias)[0] if typing.get_origin(alias) is typing.Annotated else alias
    return {
        value
        for cls in typing.get_args(union)
        for value in typing.get_args(cls.model_fields["type"].annotation)
    }


def wire_values():
    """What the complete fixtures send: block types, delta types, citation types,
    server tool names and stop reasons, each a set of str."""
    seen = {
        "block": set(),
        "delta": set(),
        "citation": set(),
        "server_tool": set(),
        "stop_reason": set(),
    }
    for name in COMPLETE:
        for event in iter_events([read_fixture(name)]):
            if event["type"] == "content_block_start":
                block = event["content_block"]
                seen["block"].add(block["type"])
                if block["type"] == "server_tool_use":
                    seen["server_tool"].add(block["name"])
            elif event["type"] == "content_block_delta":
                seen["delta"].add(event["delta"]["type"])
                if event["delta"]["type"] == "citations_delta":
                    seen["citation"].add(event["delta"]["citation"]["type"])
            elif event["type"] == "message_delta":
                seen["stop_reason"].add(event["delta"].get("stop_reason"))
    return seen


def test_every_block_delta_citation_server_tool_and_stop_reason_in_the_sdk_has_a_complete_fixture():
    from anthropic.types import (
        ContentBlock,
        RawContentBlockDelta,
        ServerToolUseBlock,
        StopReason,
        TextCitation,
    )

    seen = wire_values()
    assert literal_values(ContentBlock) <= seen["block"]
    assert literal_values(RawContentBlockDelta) <= seen["delta"]
    assert literal_values(TextCitation) <= seen["citation"]
    assert literal_values(ServerToolUseBlock.model_fields["name"].annotation) <= seen["server_tool"]
    assert literal_values(StopReason) <= seen["stop_reason"]


def test_a_refusal_keeps_the_text_so_far_and_says_why_in_stop_details():
    message = accumulate(read_fixture("refusal"))
    assert message["stop_reason"] == "refusal"
    assert message["stop_details"] == {
        "type": "refusal",
        "category": "cyber",
        "explanation": (
            "The request could enable cyber harm, such as malware or exploit development."
        ),
    }
    assert message["content"][0]["text"].endswith("on the target network and")


def test_a_later_message_delta_overwrites_the_usage_and_keeps_what_it_leaves_out():
    message = accumulate(read_fixture("two_message_deltas"))
    assert message["stop_reason"] == "end_turn"  # the first message_delta said null
    assert message["usage"]["output_tokens"] == 34  # a running total: 34, not 30 + 34
    assert message["usage"]["output_tokens_details"] == {
        "thinking_tokens": 14
    }  # only the first sent it
    assert message["usage"]["cache_read_input_tokens"] == 2048


def test_a_paused_turn_ends_after_a_server_tool_result_with_every_search_counted():
    message = accumulate(read_fixture("pause_turn"))
    assert message["stop_reason"] == "pause_turn"
    assert [block["type"] for block in message["content"]][-2:] == [
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert message["content"][-2]["input"] == {"query": "Rust 2024 edition guide migration"}
    assert message["usage"]["server_tool_use"] == {"web_search_requests": 2}


SERVER_TOOL_FIXTURES = [
    "code_execution_bash",
    "code_execution_python",
    "code_execution_text_editor",
    "tool_search",
    "web_fetch",
]


@pytest.mark.parametrize("name", SERVER_TOOL_FIXTURES)
def test_server_tool_inputs_are_parsed_and_result_blocks_are_kept_exactly_as_they_started(name):
    raw, acc = read_fixture(name), fed(name)
    content = acc.final_message()["content"]
    starts = [event for event in iter_events([raw]) if event["type"] == "content_block_start"]
    for event in starts:
        block, index = event["content_block"], event["index"]
        if block["type"] in ("server_tool_use", "tool_use"):
            assert content[index]["input"] == json.loads(acc.json_buffers[index]), index
            assert {k: v for k, v in content[index].items() if k != "input"} == {
                k: v for k, v in block.items() if k != "input"
            }
        elif block["type"] != "text":
            assert content[index] == block, index


def test_the_container_a_message_delta_names_is_kept_on_the_message():
    for name in (
        "code_execution_bash",
        "code_execution_python",
        "code_execution_text_editor",
        "programmatic_tool_call",
    ):
        assert accumulate(read_fixture(name))["container"] == {
            "id": "container_011CVb7mQ2rXy8TnK4pLw3Hs",
            "expires_at": "2026-12-01T01:02:03.456789Z",
        }


def test_a_client_tool_called_from_code_keeps_its_caller():
    tool = accumulate(read_fixture("programmatic_tool_call"))["content"][-1]
    assert tool["caller"] == {
        "type": "code_execution_20250825",
        "tool_id": "srvtoolu_01Qk5rS9tUv7WxY2zAc4DeFg",
    }
    assert tool["input"] == {"city": "Paris"}


def test_an_mcp_tool_input_is_parsed_where_the_sdks_non_beta_client_leaves_it_empty():
    raw = read_fixture("mcp_tools")
    ours = accumulate(raw)
    assert ours["content"][1]["input"] == {
        "repo": "acme/widgets",
        "query": "crash on start-up",
        "state": "open",
    }
    assert sdk_verdict(raw)["message"]["content"][1]["input"] == {}
    assert compare_messages(ours, sdk_verdict(raw, beta=True)["message"]) == []


def test_a_complete_tool_call_under_end_turn_still_gets_its_input():
    message = accumulate(read_fixture("tool_use_end_turn"))
    assert message["stop_reason"] == "end_turn"
    assert message["content"][1]["input"] == {
        "title": "Courses",
        "body": "œufs, crème fraîche, pain",
    }


# -- the streams we reject: which error, where, and what had arrived --------


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize("name", sorted(REJECTED))
def test_each_rejected_fixture_fails_the_same_way_at_every_chunk_size(name, size):
    raw = read_fixture(name)
    error = failure(name, [raw] if size is None else chunked(raw, size))
    assert our_verdict(raw)["error"]["event_number"] == error.event_number


def test_an_error_event_mid_stream_is_a_retryable_api_error_with_the_text_so_far():
    error = failure("error_mid_stream")
    assert (error.error_type, error.error_message, error.retryable) == (
        "overloaded_error",
        "Overloaded",
        True,
    )
    assert (
        error.event_number == 6 and error.events[-1]["type"] == "error" and len(error.events) == 6
    )
    assert error.partial["content"] == [
        {"type": "text", "text": "Here is a haiku about autumn:\n\nCrisp leaves drift"}
    ]
    assert error.partial["stop_reason"] is None


def test_bytes_ending_mid_event_are_an_incomplete_stream_with_the_partial_message():
    error = failure("truncated")
    assert error.event_number == 5 and error.index is None
    assert error.partial["content"] == [
        {"type": "text", "text": "The connection dropped while this sentence was"}
    ]
    assert error.partial["stop_reason"] is None


def test_non_json_tool_input_under_tool_use_fails_at_the_end_naming_its_stop_keeping_the_raw_text():
    error = failure("bad_tool_json")
    assert (error.event_number, error.index, error.stop_reason) == (10, 1, "tool_use")
    assert error.raw == '{"from": "old.txt", "to": \'new.txt\'}'
    assert error.partial["content"][0]["text"] == "Renaming the file now."


def test_invalid_tool_input_stopped_then_max_tokens_gives_the_message_and_best_partial_input():
    message = accumulate(read_fixture("max_tokens_tool_stopped"))
    assert message["stop_reason"] == "max_tokens"
    assert (
        message["content"][1]["input"]
        == {"path": "app.py"}
        == sdk_verdict(read_fixture("max_tokens_tool_stopped"))["message"]["content"][1]["input"]
    )


def test_a_delta_for_a_block_that_never_started_names_the_event_number():
    error = failure("delta_before_start")
    assert (error.event_number, error.index) == (6, 1)
    assert "block 1, which never started" in str(error)
    assert error.partial["content"] == [{"type": "text", "text": "First block, complete."}]


def test_a_second_message_start_names_the_event_number_and_keeps_the_first_message():
    error = failure("second_message_start")
    assert error.event_number == 6 and "second message_start" in str(error)
    assert error.partial["id"] == "msg_01Sm2tV6xLq9PbR4nWkZc7Hd"
    assert error.partial["content"] == [{"type": "text", "text": "One message per stream,"}]


@pytest.mark.parametrize(
    "input_text", ['{"n": ' + "1" * 5000 + "}", '{"n": ' + "[" * 5000 + "]" * 5000 + "}"]
)
def test_tool_input_python_cannot_load_is_a_tool_input_error_not_a_bare_exception(input_text):
    # More digits than int() accepts, or deeper than the interpreter recurses.
    body = json.dumps(input_text).encode()
    raw = read_fixture("tool_no_input").replace(b'"partial_json":""', b'"partial_json":' + body)
    with pytest.raises(ToolInputJSONError) as caught:
        accumulate(raw)
    assert (caught.value.event_number, caught.value.index, caught.value.raw) == (7, 1, input_text)


# -- the trace command on every fixture ---------------------------------------


@pytest.mark.parametrize("name", fixture_names())
def test_the_trace_command_reads_every_fixture_and_prints_failures_without_a_traceback(name):
    out = []
    status = run(FIXTURES_DIR / f"{name}.sse", chunk_size=7, with_sdk=False, out=out.append)
    if name in REJECTED:
        assert status == 1
        assert any(line.startswith(f"{REJECTED[name].__name__}: ") for line in out)
        partial = "\n".join(out).split("partial message: ", 1)[1]
        assert json.loads(partial) == our_verdict(read_fixture(name))["error"]["partial"]
    else:
        assert status == 0 and len(out) > 1
    assert not any("Traceback" in line for line in out)


@pytest.mark.parametrize("name", [name for name in COMPLETE if name not in BETA_ONLY])
def test_the_trace_command_with_sdk_confirms_every_complete_fixture(name):
    out = []
    assert run(FIXTURES_DIR / f"{name}.sse", chunk_size=None, with_sdk=True, out=out.append) == 0
    assert out[-1] == "✔ the hand-built message equals the SDK's final message"


def test_the_trace_command_line_exits_1_on_a_broken_stream_without_a_traceback():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "streaming_lib",
            "trace",
            str(FIXTURES_DIR / "error_mid_stream.sse"),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 1
    assert "APIStreamError: event 6: overloaded_error: Overloaded" in done.stdout
    assert "Traceback" not in done.stderr
