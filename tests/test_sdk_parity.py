"""The referee: our message equals the real SDK's on the same bytes."""

import pytest

from streaming_lib import accumulate
from streaming_lib.tools.fixtures import chunked, read_fixture
from streaming_lib.tools.sdk import compare_messages, sdk_final_message


@pytest.mark.parametrize("chunk_size", [None, 1, 3, 7, 64])
def test_the_fixture_gives_the_sdks_final_message(chunk_size):
    raw = read_fixture()
    ours = accumulate(raw if chunk_size is None else chunked(raw, chunk_size))
    assert compare_messages(ours, sdk_final_message(raw, chunk_size=chunk_size)) == []


def test_the_sdk_really_sees_our_bytes():
    # If the mock transport ignored its input, the parity above would prove nothing.
    raw = read_fixture().replace("修正".encode(), "改好".encode())
    assert sdk_final_message(raw)["content"][0]["text"].endswith("改好。")


def test_compare_messages_reports_each_difference_with_its_path():
    ours = {"content": [{"type": "text", "text": "a"}], "usage": {"output_tokens": 2}}
    theirs = {"content": [{"type": "text", "text": "b"}], "usage": {"output_tokens": 2}, "extra": 1}
    assert compare_messages(ours, theirs) == [
        "message.content[0].text: 'a' here, 'b' in the SDK's",
        "message.extra: missing here, SDK has 1",
    ]


def test_compare_messages_accepts_a_null_the_sdk_added():
    assert compare_messages({"a": 1}, {"a": 1, "stop_details": None}) == []


def test_compare_messages_tells_int_from_float_and_bool():
    assert compare_messages({"n": 1}, {"n": 1.0}) != []
    assert compare_messages({"n": 1}, {"n": True}) != []


def test_a_timestamp_the_wire_sent_compares_as_the_same_string():
    import json

    raw = read_fixture().replace(
        b'"stop_reason":"tool_use","stop_sequence":null}',
        b'"stop_reason":"tool_use","stop_sequence":null,"container":'
        + json.dumps({"id": "container_1", "expires_at": "2026-12-01T00:00:00Z"}).encode()
        + b"}",
    )
    ours = accumulate(raw)
    assert ours["container"]["expires_at"] == "2026-12-01T00:00:00Z"
    assert compare_messages(ours, sdk_final_message(raw)) == []


def test_compare_messages_counts_nan_equal_to_nan():
    assert compare_messages({"x": float("nan")}, {"x": float("nan")}) == []
