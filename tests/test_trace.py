"""The trace command: one row per event, the SDK's verdict, errors without tracebacks."""

import json
import subprocess
import sys

import pytest

from benchmarks.streams import text_stream
from streaming_lib.__main__ import main
from streaming_lib.tools.block_progress import TAIL_CHARS
from streaming_lib.tools.fixtures import FIXTURES_DIR, MAIN_FIXTURE
from streaming_lib.tools.trace import ROW_COLUMNS, run, width


def trace_lines(path=MAIN_FIXTURE, **options):
    out = []
    status = run(
        path,
        chunk_size=options.get("chunk_size"),
        with_sdk=options.get("sdk", False),
        out=out.append,
    )
    return status, out


def test_one_row_per_event_after_a_header_then_one_verdict_per_tool_call():
    status, out = trace_lines()
    assert status == 0
    assert out[0].split()[:4] == ["#", "event", "idx", "delta"]
    assert len(out) == 1 + 18 + 1
    assert out[1].split()[:3] == ["1", "message_start", "msg_stream_01"]


def test_text_rows_show_what_the_event_added_the_running_length_and_the_end_of_the_text():
    _, out = trace_lines()
    assert out[4].endswith('text +2 chars, 2 so far: "找到"')
    assert out[8].endswith('text +3 chars, 21 so far: "找到原因了：add 写成了减法，我来修正。"')
    assert out[9].endswith('text done, 21 chars: "找到原因了：add 写成了减法，我来修正。"')


def test_tool_rows_show_counts_whether_the_buffer_parses_what_changed_and_the_input_at_the_stop():
    _, out = trace_lines(chunk_size=3)
    out = out[1:]  # the first line says how the bytes were cut
    assert [("✔" in row, "✘" in row) for row in out[11:16]] == [(False, True)] * 4 + [(True, False)]
    assert out[12].endswith('+12 chars, 12 so far · ✘ not JSON yet · input["path"] += "ca"')
    assert out[15].endswith('+14 chars, 68 so far · ✔ parses · input["content"] += "turn a + b\\n"')
    assert out[16].endswith(
        'input: {"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}'
    )


def test_message_delta_row_shows_stop_reason_and_output_tokens():
    _, out = trace_lines()
    assert out[17].endswith("stop_reason=tool_use output_tokens=58")


def test_with_sdk_it_prints_the_sdks_tool_input_and_confirms_the_match():
    status, out = trace_lines(sdk=True)
    assert status == 0
    assert out[-2] == (
        "SDK tool input (write_file): "
        '{"path": "calc.py", "content": "def add(a, b):\\n    return a + b\\n"}'
    )
    assert out[-1] == "✔ the hand-built message equals the SDK's final message"


def test_a_failing_stream_prints_the_error_and_partial_message_not_a_traceback(tmp_path):
    cut = tmp_path / "cut.sse"
    cut.write_bytes(MAIN_FIXTURE.read_bytes().split(b"event: message_delta")[0])
    status, out = trace_lines(cut)
    assert status == 1
    assert any(
        line.startswith("IncompleteStreamError: the stream ended after event 16") for line in out
    )
    assert any(line.startswith("partial message: {") for line in out)


HEAD = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"id":"m","content":[],"usage":{}}}\n\n'
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n'
)


def fragment_event(text):
    data = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": text},
    }
    return f"event: content_block_delta\ndata: {json.dumps(data)}\n\n".encode()


@pytest.mark.parametrize("fragment", ['{"x": ' + "[" * 3000, '{"x": ' + "9" * 4301 + "}"])
def test_a_tool_buffer_json_cannot_use_is_shown_as_not_parsing_not_a_traceback(tmp_path, fragment):
    path = tmp_path / "odd.sse"
    path.write_bytes(HEAD + fragment_event(fragment))
    status, out = trace_lines(path)
    assert (
        status == 1
        and f"+{len(fragment):,} chars, {len(fragment):,} so far · ✘ not JSON: " in out[3]
    )


def test_text_after_a_whole_tool_input_is_said_at_once(tmp_path):
    path = tmp_path / "stray.sse"
    path.write_bytes(
        HEAD + fragment_event('{"x": 1}') + fragment_event(" \n") + fragment_event("}")
    )
    _, out = trace_lines(path)
    assert ["✔ parses" in row for row in out[3:6]] == [True, True, False]
    assert "✘ not JSON: more text after the value" in out[5]


def big_text_stream(pieces):
    events = [
        json.loads(HEAD.split(b"data: ")[1].split(b"\n")[0]),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_every_row_is_at_most_a_row_wide_however_long_the_text_so_far(tmp_path):
    path = tmp_path / "long.sse"
    path.write_bytes(big_text_stream(["word " * 200] * 50 + ["x" * 20_000]))
    status, out = trace_lines(path)
    assert status == 0
    assert max(width(row) for row in out) <= ROW_COLUMNS
    assert out[-3].endswith(f'text done, {50 * 1000 + 20_000:,} chars: …"{"x" * TAIL_CHARS}"')


def test_bad_data_after_message_start_still_shows_the_partial_message(tmp_path):
    path = tmp_path / "bad.sse"
    path.write_bytes(HEAD + b"event: content_block_delta\ndata: {oops\n\n")
    status, out = trace_lines(path)
    assert status == 1 and any(line.startswith("partial message: {") for line in out)


def test_with_sdk_a_stream_only_we_finish_is_said_not_a_traceback(tmp_path):
    path = (
        tmp_path / "error_without_data.sse"
    )  # no data line: not an event by the SSE rules; the SDK raises
    path.write_bytes(
        MAIN_FIXTURE.read_bytes().replace(
            b"event: message_delta", b"event: error\n\nevent: message_delta", 1
        )
    )
    status, out = trace_lines(path, sdk=True)
    assert status == 1 and out[-1].startswith("✘ the SDK, on the same bytes, raises APIStatusError")


@pytest.mark.parametrize("data", [b"{}", b"[]", b"0", b"null"])
def test_data_that_is_not_an_event_object_stops_the_trace_as_it_stops_accumulate(tmp_path, data):
    path = tmp_path / "odd.sse"
    path.write_bytes(HEAD + b"event: content_block_delta\ndata: " + data + b"\n\n")
    status, out = trace_lines(path)
    assert status == 1 and any(line.startswith("EventDataError: event 3") for line in out)


def test_odd_but_accepted_values_are_printed_not_a_traceback(tmp_path):
    start = {"type": "message_start", "message": {"id": 123, "content": [], "usage": "x"}}
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": "\ud800"},
    }
    text = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "\ud800x"},
    }
    odd = {"type": "content_block_start", "index": 1, "content_block": {"type": 5}}
    end = [
        {"type": "content_block_stop", "index": 0},
        odd,
        {"type": "message_delta", "delta": {}},
        {"type": "message_stop"},
    ]
    path = tmp_path / "odd.sse"
    path.write_bytes(
        b"".join(
            f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
            for e in [start, block, text, *end]
        )
    )
    printed = []
    status = run(
        path,
        chunk_size=None,
        with_sdk=False,
        out=lambda line: printed.append(line.encode("utf-8").decode()),
    )
    assert (
        status == 0
        and any("123" in line for line in printed)
        and any("\\ud800x" in line for line in printed)
    )


def test_a_partial_message_with_a_lone_surrogate_is_printed_not_a_traceback(tmp_path):
    path = tmp_path / "cut.sse"
    path.write_bytes(
        HEAD.replace(b'"id":"m"', b'"id":"\\ud800"')
    )  # the stream ends: IncompleteStreamError
    printed = []
    status = run(
        path,
        chunk_size=None,
        with_sdk=False,
        out=lambda line: printed.append(line.encode("utf-8").decode()),
    )
    assert status == 1 and any(line.startswith("partial message:") for line in printed)


def test_the_command_line_runs_as_a_module():
    done = subprocess.run(
        [sys.executable, "-m", "streaming_lib", "trace", "--chunk-size", "7", "--sdk"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "✔ the hand-built message equals the SDK's final message" in done.stdout
    assert "Traceback" not in done.stderr


def test_the_trace_ends_with_the_verdict_on_every_tool_call():
    assert trace_lines()[1][-1] == (
        "✔ [1] write_file may run: block 1 is a complete tool_use call, "
        "and the message stopped for tool_use"
    )
    web = trace_lines(MAIN_FIXTURE.parent / "web_search.sse")[1]
    assert (
        web[-1]
        == "✘ [1] web_search may not run: block 1 is a call the API runs itself (server_tool_use)"
    )
    cut = trace_lines(MAIN_FIXTURE.parent / "max_tokens_tool.sse")[1]
    assert cut[-2].startswith("⚠ block 1 is incomplete")
    assert cut[-1].startswith("✘ [1] write_file may not run: stop_reason is max_tokens")
    stopped = trace_lines(MAIN_FIXTURE.parent / "max_tokens_tool_stopped.sse")[1]
    assert any(
        "content_block_stop" in row and "✘ input is not valid JSON" in row for row in stopped
    )


def test_a_character_split_into_surrogate_halves_across_deltas_is_shown_whole():
    path = (
        MAIN_FIXTURE.parent.parent
        / "tests"
        / "data"
        / "gateway"
        / "surrogate_pair_split_across_deltas.sse"
    )
    for size in (1, 2, 7, None):
        status, out = trace_lines(path, chunk_size=size)
        assert status == 0
        rows = [row for row in out if "content_block_" in row]
        assert 'text +0 chars, 5 so far: "Done "' in rows[2]  # the high half waits for its pair
        assert 'text +1 chars, 6 so far: "Done 😀"' in rows[3]
        assert 'text done, 9 chars: "Done 😀 ok"' in rows[-1]


def test_the_trace_reads_nothing_after_message_stop_as_accumulate(tmp_path):
    late = (
        b"event: content_block_delta\n"
        b'data: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"late"}}\n\n'
    )
    path = tmp_path / "late.sse"
    path.write_bytes(MAIN_FIXTURE.read_bytes() + late + b"data: not even json\n\n")
    for size in (1, 7, None):
        status, out = trace_lines(path, chunk_size=size)
        assert status == 0 and out[1 if size else 0 :] == trace_lines()[1]


@pytest.mark.parametrize("size", [1, 2, 7, 4096])
def test_with_a_chunk_size_the_first_line_says_how_the_bytes_were_cut_and_the_rows_are_the_same(
    size,
):
    raw, (_, whole) = MAIN_FIXTURE.read_bytes(), trace_lines()
    status, out = trace_lines(chunk_size=size)
    count = (len(raw) + size - 1) // size
    chunks, unit = ("chunk" if count == 1 else "chunks"), ("byte" if size == 1 else "bytes")
    assert status == 0
    assert out[0] == f"fixture.sse: {len(raw):,} bytes in {count:,} {chunks} of {size:,} {unit}"
    assert out[1:] == whole


def test_without_a_chunk_size_the_trace_starts_with_its_header():
    assert trace_lines()[1][0].split()[:2] == ["#", "event"]


@pytest.mark.parametrize("name", ["truncated", "fixture", "crlf"])
def test_trace_takes_a_fixture_name_as_serve_does(name, capsys):
    by_name = main(["trace", name, "--chunk-size", "5"])
    named = capsys.readouterr().out
    by_path = main(["trace", str(FIXTURES_DIR / f"{name}.sse"), "--chunk-size", "5"])
    assert (by_name, named) == (by_path, capsys.readouterr().out)
    assert named.startswith(f"{name}.sse: ")


def test_trace_of_neither_a_file_nor_a_fixture_names_the_fixtures(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["trace", "no_such_stream"])
    error = capsys.readouterr().err
    assert caught.value.code == 2
    assert "no such file or fixture: no_such_stream" in error and "truncated" in error


def test_trace_of_a_folder_says_it_is_a_folder_not_that_nothing_is_there(tmp_path, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["trace", str(tmp_path)])
    error = capsys.readouterr().err
    assert caught.value.code == 2
    assert f"{tmp_path} is a folder, not an .sse file" in error and "no such" not in error


def test_the_headers_and_verdicts_are_in_chinese_when_asked_and_the_rows_stay_as_on_the_wire():
    _, english = trace_lines()
    chinese = []
    assert run(MAIN_FIXTURE, chunk_size=None, with_sdk=False, out=chinese.append, lang="zh") == 0
    header = chinese[0]
    assert header.split() == ["#", "事件", "序号", "增量", "状态"]
    # The columns stay where they were in a terminal (a Chinese character is two columns).
    for zh, en in (("序号", "idx"), ("增量", "delta"), ("状态", "state")):
        assert width(header[: header.index(zh)]) == english[0].index(en)
    assert chinese[1:-1] == english[1:-1]  # the rows: event names, deltas, stop_reason
    assert english[-1] == (
        "✔ [1] write_file may run: "
        "block 1 is a complete tool_use call, and the message stopped for tool_use"
    )
    assert chinese[-1] == (  # the verdict, a sentence for a person, from the catalogue
        "✔ [1] write_file 可以执行：第 1 块是完整的 tool_use 调用，而且消息因 tool_use 而停止"
    )
    with pytest.raises(ValueError, match="unknown language"):
        run(MAIN_FIXTURE, chunk_size=None, with_sdk=False, out=chinese.append, lang="fr")


def test_the_command_line_takes_lang_zh():
    done = subprocess.run(
        [sys.executable, "-m", "streaming_lib", "trace", "--lang", "zh"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == ["#", "事件", "序号", "增量", "状态"]
    assert "message_start" in done.stdout and "stop_reason" in done.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    # `python -m streaming_lib trace long.sse | head -1`: the pipe closes after one line.
    # The trace (about 290 kB) is longer than a pipe holds (64 KiB on Linux), so the
    # command is still writing when the reader goes, whatever the timing: a trace
    # short enough to fit could end, and exit 0, before the pipe closes.
    stream = tmp_path / "long.sse"
    stream.write_bytes(text_stream(256 * 1024))
    child = subprocess.Popen(
        [sys.executable, "-m", "streaming_lib", "trace", str(stream)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.stdout.readline()
    child.stdout.close()
    _, errors = child.communicate(timeout=60)
    assert child.returncode == 141
    assert b"Traceback" not in errors and b"BrokenPipeError" not in errors


# -- a body that is not an event stream, shown plainly ---------------------------------

JSON_ERROR_BODY = (
    b'{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}'
)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_json_error_body_is_shown_as_the_servers_error_not_as_a_cut_stream(tmp_path, size):
    path = tmp_path / "error_body.sse"
    path.write_bytes(JSON_ERROR_BODY)
    status, out = trace_lines(path, chunk_size=size)
    assert status == 1
    assert (
        "APIStreamError: the body is a JSON error object, not an event stream: "
        "invalid_request_error: prompt is too long"
    ) in out
    assert (
        "(no event: the server answered with a JSON error object, not worth retrying as it is)"
        in out
    )
    assert not any("message_stop" in line or line.startswith("partial message") for line in out)


def test_an_html_page_is_shown_as_not_an_event_stream_and_the_sdks_bare_assertion_is_explained(
    tmp_path,
):
    path = tmp_path / "page.sse"
    path.write_bytes(b"<html><body>502 Bad Gateway</body></html>\n")
    status, out = trace_lines(path, sdk=True)
    assert status == 1
    assert out[-3].startswith(
        "NotAnEventStreamError: the body is not an event stream; it begins '<html>"
    )
    assert out[-1] == (
        "the SDK, on the same bytes, raises AssertionError (an assert inside the SDK with no "
        "message: no message_start arrived, so it has no message to return)"
    )
