"""The record and serve commands (record.py, __main__.py), offline: no key, no network."""

import doctest
import io

import httpx

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
