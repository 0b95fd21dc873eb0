"""The record and serve commands (record.py, __main__.py), offline: no key, no network."""

import doctest
import gzip
import io

import httpx
import pytest

import streaming_lib.lab.api
import streaming_lib.lab.record
import streaming_lib.lab.server
from streaming_lib.__main__ import build_parser, main
from streaming_lib.lab.record import DEFAULT_MODEL, record, run
from streaming_lib.lab.server import DEFAULT_PACE, DEFAULT_PORT, ReplayServer
from streaming_lib.tools.fixtures import read_fixture

SECRET = "sk-ant-not-a-real-key"


def test_without_a_key_record_says_so_and_exits_with_status_2(tmp_path, capsys):
    out = tmp_path / "stream.sse"
    assert run(out, environ={}) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_the_command_line_passes_the_exit_status_on(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["record", "--out", str(tmp_path / "stream.sse")]) == 2


def test_record_writes_the_body_and_never_the_request_or_its_headers():
    seen = []

    def answer(request):
        seen.append(request)
        return httpx.Response(
            200, headers={"request-id": "req_1"}, content=b"event: ping\ndata: {}\n\n"
        )

    out = io.BytesIO()
    assert (
        record(out, api_key=SECRET, client=httpx.Client(transport=httpx.MockTransport(answer)))
        == 200
    )
    assert out.getvalue() == b"event: ping\ndata: {}\n\n"
    assert seen[0].headers["x-api-key"] == SECRET  # the key was sent...
    assert b'"stream":true' in seen[0].content.replace(b" ", b"")
    assert (
        SECRET.encode() not in out.getvalue() and b"req_1" not in out.getvalue()
    )  # ...and not written


def test_an_http_error_writes_nothing():
    mock = httpx.MockTransport(lambda request: httpx.Response(401, json={"type": "error"}))
    out = io.BytesIO()
    assert record(out, api_key=SECRET, client=httpx.Client(transport=mock)) == 401
    assert out.getvalue() == b""


def test_recording_the_replay_server_gives_back_the_fixture(tmp_path):
    out = tmp_path / "stream.sse"
    with ReplayServer("fixture", pace=0.001) as server:
        assert (
            run(out, environ={"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": server.url}) == 0
        )
    assert out.read_bytes() == read_fixture("fixture")
    assert [path.name for path in tmp_path.iterdir()] == ["stream.sse"]


def test_serve_passes_only_the_options_given(monkeypatch):
    calls = []
    monkeypatch.setattr(
        streaming_lib.lab.server,
        "serve",
        lambda fixture, **options: calls.append((fixture, options)) or 0,
    )
    assert main(["serve"]) == 0
    assert main(["serve", "--fixture", "text_only", "--port", "9999", "--pace", "0.5"]) == 0
    assert calls == [("fixture", {}), ("text_only", {"port": 9999, "pace": 0.5})]


def test_the_help_shows_the_real_defaults():
    commands = build_parser()._subparsers._group_actions[0].choices
    assert f"default: {DEFAULT_PORT}" in commands["serve"].format_help()
    assert f"default: {DEFAULT_PACE}" in commands["serve"].format_help()
    assert f"default: {DEFAULT_MODEL}" in commands["record"].format_help()


def test_the_module_example_runs():
    results = doctest.testmod(streaming_lib.lab.record)
    assert results.attempted > 0 and results.failed == 0


def endless(piece):
    """A body that never ends, counting the pieces taken from it."""
    taken = []

    def pieces():
        while True:
            taken.append(1)
            yield piece

    return pieces(), taken


def test_an_endless_error_body_is_read_only_to_its_cap(capsys):
    body, taken = endless(b"x" * 1000)
    mock = httpx.MockTransport(lambda request: httpx.Response(500, content=body))
    assert record(io.BytesIO(), api_key=SECRET, client=httpx.Client(transport=mock)) == 500
    assert len(taken) <= streaming_lib.lab.api.MAX_ERROR_BYTES // 1000 + 1
    assert capsys.readouterr().err.startswith("HTTP 500: xxx")


def test_a_compressed_error_body_is_read_only_to_its_cap_once_decompressed():
    bomb = gzip.compress(b'{"message": "' + b" " * 50_000_000, 9)
    reply = httpx.Response(500, content=bomb, headers={"content-encoding": "gzip"})
    client = httpx.Client(transport=httpx.MockTransport(lambda request: reply))
    with client.stream("POST", "http://test/v1/messages") as response:
        body = streaming_lib.lab.api.error_body(response)
    assert (
        body.startswith(b'{"message": ') and len(body) == streaming_lib.lab.api.MAX_ERROR_BYTES
    )


def test_a_stream_over_the_limit_is_refused_and_run_leaves_no_file(tmp_path, capsys, monkeypatch):
    body, taken = endless(b"event: ping\ndata: {}\n\n")
    mock = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=body, headers={"content-type": "text/event-stream"}
        )
    )
    with pytest.raises(ValueError, match="over 1000 bytes"):
        record(io.BytesIO(), api_key=SECRET, client=httpx.Client(transport=mock), limit=1000)
    assert len(taken) <= 1000 // 22 + 2

    out = tmp_path / "stream.sse"
    real = streaming_lib.lab.record.record
    monkeypatch.setattr(
        streaming_lib.lab.record,
        "record",
        lambda file, **given: real(file, **given, client=httpx.Client(transport=mock), limit=1000),
    )
    environ = {"ANTHROPIC_API_KEY": SECRET}
    assert run(out, environ=environ) == 1
    assert "too large for a fixture" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_key_the_server_quotes_in_its_stream_is_never_written():
    chunks = [b'event: ping\ndata: {"k": "' + SECRET[:9].encode(), SECRET[9:].encode() + b'"}\n\n']
    mock = httpx.MockTransport(lambda request: httpx.Response(200, content=iter(chunks)))
    out = io.BytesIO()
    assert record(out, api_key=SECRET, client=httpx.Client(transport=mock)) == 200
    assert out.getvalue() == b'event: ping\ndata: {"k": "[key redacted]"}\n\n'
