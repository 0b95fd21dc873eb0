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

from streaming_lib.providers import bedrock, fixtures  # noqa: E402
from streaming_lib.providers.sdk import (  # noqa: E402
    REFEREES,
    comparable,
    gemini_chunks,
    our_verdict,
    sdk_verdict,
)
from streaming_lib.tools.fixtures import chunked  # noqa: E402
from streaming_lib.tools.sdk import compare_messages, verdict_text  # noqa: E402

ALL = [(wire, name) for wire in fixtures.WIRES for name in fixtures.fixture_names(wire)]
# The fixtures both sides complete: where one side raises, the stored verdicts say why.
BOTH_COMPLETE = [
    (wire, name)
    for wire, name in ALL
    if "result" in json.loads((fixtures.wire_dir(wire) / f"{name}.sdk.json").read_text("utf-8"))
    and "result"
    in json.loads((fixtures.wire_dir(wire) / f"{name}.expected.json").read_text("utf-8"))
]


def cut(raw, size):
    return [raw] if size is None else chunked(raw, size)


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize(("wire", "name"), BOTH_COMPLETE)
def test_our_result_equals_the_sdks_on_every_fixture_at_every_chunk_size(wire, name, size):
    raw = fixtures.read_fixture(wire, name)
    theirs, ours = REFEREES[wire]
    assert compare_messages(comparable(ours(cut(raw, size))), comparable(theirs(raw, size))) == []


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
