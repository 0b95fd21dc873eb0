"""`python -m streaming_lib.tools.sdk regenerate`: each verdict file is written whole, as UTF-8.

That holds whatever the stream holds.
"""

import json
import os

import pytest

from streaming_lib.tools import sdk
from streaming_lib.tools.fixtures import read_fixture
from streaming_lib.tools.sdk import regenerate, verdict_text, write_atomically

# A text block whose emoji arrives as the two halves of its UTF-16 surrogate
# pair, each escaped in its own text_delta, as some gateways re-emit streams.
HALVES = b"".join(
    b"event: %s\ndata: %s\n\n" % (name.encode(), data.encode())
    for name, data in [
        (
            "message_start",
            '{"type":"message_start","message":{"id":"msg_01Hv5","type":"message","role":"assistant",'
            '"model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,'
            '"usage":{"input_tokens":9,"output_tokens":1}}}',
        ),
        (
            "content_block_start",
            '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        ),
        (
            "content_block_delta",
            '{"type":"content_block_delta","index":0,'
            '"delta":{"type":"text_delta","text":"Done \\ud83d"}}',
        ),
        (
            "content_block_delta",
            '{"type":"content_block_delta","index":0,'
            '"delta":{"type":"text_delta","text":"\\ude00 ok"}}',
        ),
        ("content_block_stop", '{"type":"content_block_stop","index":0}'),
        (
            "message_delta",
            '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}',
        ),
        ("message_stop", '{"type":"message_stop"}'),
    ]
)


def test_a_verdict_holding_lone_surrogates_is_written_as_valid_utf8_json(tmp_path):
    (tmp_path / "halves.sse").write_bytes(HALVES)
    written = regenerate(tmp_path)
    assert sorted(path.name for path in written) == ["halves.expected.json", "halves.sdk.json"]
    for path in written:
        text = path.read_bytes().decode("utf-8")  # strict: raises on anything UTF-8 cannot hold
        assert "message" in json.loads(text)
    sdk_text = json.loads((tmp_path / "halves.sdk.json").read_text(encoding="utf-8"))["message"][
        "content"
    ][0]["text"]
    assert sdk_text == "Done 😀 ok"  # a JSON reader joins the escaped halves into one character


def test_only_surrogates_are_escaped_and_the_rest_stays_raw_utf8():
    text = verdict_text({"text": "café \ud83d 日本 \ude00"})
    assert text == '{\n  "text": "café \\ud83d 日本 \\ude00"\n}\n'
    assert json.loads(text) == {"text": "café \ud83d 日本 \ude00"}


def test_a_value_json_has_no_form_for_is_written_as_its_repr_rather_than_raising():
    assert json.loads(verdict_text({"value": {1, 2}})) == {"value": "{1, 2}"}


def test_regenerate_leaves_no_file_empty_when_our_side_fails_unexpectedly(tmp_path, monkeypatch):
    (tmp_path / "text_only.sse").write_bytes(read_fixture("text_only"))

    def broken(raw):
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(sdk, "accumulate", broken)
    regenerate(tmp_path)
    verdict = json.loads((tmp_path / "text_only.expected.json").read_text(encoding="utf-8"))
    assert verdict == {"error": {"class": "RuntimeError", "message": "a bug of ours"}}


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "old.sdk.json"
    target.write_text("old verdict\n", encoding="utf-8")

    def failing_replace(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, "new verdict\n")
    assert target.read_text(encoding="utf-8") == "old verdict\n"
    assert [path.name for path in tmp_path.iterdir()] == ["old.sdk.json"]


def test_an_atomic_write_replaces_the_file_whole_and_keeps_its_permissions(tmp_path):
    target = tmp_path / "v.json"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    write_atomically(target, "név\n")
    assert target.read_bytes() == "név\n".encode()
    assert target.stat().st_mode & 0o777 == 0o640
    assert [path.name for path in tmp_path.iterdir()] == ["v.json"]


def test_the_command_line_writes_both_verdicts_and_names_them(tmp_path, capsys):
    (tmp_path / "text_only.sse").write_bytes(read_fixture("text_only"))
    assert sdk.main(["regenerate", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "wrote text_only.sdk.json",
        "wrote text_only.expected.json",
    ]
