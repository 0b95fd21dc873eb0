"""Every command given a file that is not one (tools/files.py, __main__.py, lab/record.py):
one line on stderr, a non-zero exit, never a traceback, and nothing sent or replaced.

All on 127.0.0.1: the record command's base URL is a replay server or a closed port."""

import doctest
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import streaming_lib.tools.files
from streaming_lib.__main__ import main
from streaming_lib.lab.api import free_port
from streaming_lib.lab.record import run as run_record
from streaming_lib.lab.server import ReplayServer
from streaming_lib.tools.files import MAX_STREAM_BYTES, FileRefused, read_stream_file
from streaming_lib.tools.fixtures import read_fixture

KEY = "sk-ant-not-a-real-key"
NOWHERE = f"http://127.0.0.1:{free_port()}"  # nothing listens there


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    """The bad arguments, by kind: each a path (str, or bytes for a name that is not UTF-8)."""
    folder = tmp_path_factory.mktemp("bad")
    fifo = folder / "fifo.sse"
    os.mkfifo(fifo)
    (folder / "zero.sse").symlink_to("/dev/zero")  # a device behind a name that looks right
    (folder / "mem.sse").symlink_to("/proc/self/mem")  # says "regular file", cannot be read
    huge = folder / "huge.sse"
    subprocess.run(["truncate", "-s", "40G", huge], check=True)  # sparse: costs no disk
    return {
        "missing": str(folder / "missing.sse"),
        "directory": str(folder),
        "FIFO": str(fifo),
        "device": str(folder / "zero.sse"),
        "/proc file": str(folder / "mem.sse"),
        "non-UTF-8 name": os.fsencode(str(folder)) + b"/\xff\xfe.sse",
        "huge file": str(huge),
    }


def arguments(command, path):
    """The command line running `command` on `path`, and its environment."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    if command == "record":
        environ |= {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": NOWHERE}
    option = {
        "trace": [],
        "serve": ["--port", "0", "--fixture"],
        "chat": ["--port", "0", "--fixture"],
        "record": ["--out"],
        "progress": ["--dir"],
        "my-client": ["--dir"],
    }[command]
    if command == "record" and isinstance(path, str) and path.endswith("huge.sse"):
        path = "/proc/self/status"  # a huge regular file is a fine target; this one is not
    return [sys.executable, "-m", "streaming_lib", command, *option, path], environ


KINDS = ["missing", "directory", "FIFO", "device", "/proc file", "non-UTF-8 name", "huge file"]
COMMANDS = ["trace", "serve", "chat", "record", "progress", "my-client"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_refuses_a_bad_file_in_one_line_without_a_traceback(bad, command, kind):
    if command in ("progress", "my-client") and kind == "directory":
        pytest.skip("a folder is what these take")
    if command == "record" and kind in ("missing", "non-UTF-8 name"):
        pytest.skip("a new file: a good --out (see the test with nothing listening)")
    if command == "my-client" and kind in ("missing", "non-UTF-8 name"):
        pytest.skip("a new folder: a good --dir, which my-client makes")
    line, environ = arguments(command, bad[kind])
    done = subprocess.run(
        line, capture_output=True, env=environ, timeout=60, stdin=subprocess.DEVNULL
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode != 0, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert os.path.exists("/dev/zero") and not Path("/dev/zero").is_file()


def test_a_stream_file_is_read_whole_when_it_is_a_regular_file_under_the_limit(tmp_path):
    path = tmp_path / "ok.sse"
    path.write_bytes(read_fixture("fixture"))
    assert read_stream_file(path) == read_fixture("fixture")
    with pytest.raises(FileRefused, match="too large"):
        read_stream_file(path, limit=10)
    assert MAX_STREAM_BYTES >= 1024 * 1024


# -- record: checked before the request, written without replacing what is not a file --------


def record(out, prompt=None, **environ):
    given = {} if prompt is None else {"prompt": prompt}
    return run_record(out, environ={"ANTHROPIC_API_KEY": KEY, **environ}, **given)


@pytest.mark.parametrize("make", ["fifo", "link", "folder", "missing folder"])
def test_record_refuses_an_out_that_is_not_a_regular_file_before_it_sends(tmp_path, capsys, make):
    out = tmp_path / "out.sse"
    if make == "fifo":
        os.mkfifo(out)
    elif make == "link":
        (tmp_path / "target.sse").write_bytes(b"kept")
        out.symlink_to(tmp_path / "target.sse")
    elif make == "folder":
        out.mkdir()
    else:
        out = tmp_path / "nowhere" / "out.sse"
    before = sorted(path.name for path in tmp_path.iterdir())
    with ReplayServer("fixture", pace=0) as server:
        assert record(out, ANTHROPIC_BASE_URL=server.url) == 2
        assert server.requests == 0  # nothing sent, nothing paid for
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == before  # nothing replaced or left
    if make == "link":
        assert out.is_symlink() and out.read_bytes() == b"kept"
    if make == "fifo":
        assert out.is_fifo()


def test_record_replaces_a_regular_file_atomically(tmp_path):
    out = tmp_path / "out.sse"
    out.write_bytes(b"old")
    with ReplayServer("fixture", pace=0) as server:
        assert record(out, ANTHROPIC_BASE_URL=server.url) == 0
    assert out.read_bytes() == read_fixture("fixture")
    assert [path.name for path in tmp_path.iterdir()] == ["out.sse"]


@pytest.mark.parametrize(
    "prompt, environ",
    [
        ("half a character \udcff", {}),  # a name from argv that is not UTF-8
        (None, {"ANTHROPIC_API_KEY": "sk-ant-clé"}),
        (None, {"ANTHROPIC_API_KEY": KEY + "\r"}),
        (None, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9\r"}),
    ],
)
def test_record_refuses_a_prompt_or_setting_it_could_not_send_in_one_line(
    tmp_path, capsys, prompt, environ
):
    with ReplayServer("fixture", pace=0) as server:
        assert (
            record(tmp_path / "out.sse", prompt, **{"ANTHROPIC_BASE_URL": server.url, **environ})
            == 2
        )
        assert server.requests == 0
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and KEY not in err
    assert list(tmp_path.iterdir()) == []


def test_record_with_nothing_listening_says_so_in_one_line(tmp_path, capsys):
    assert record(tmp_path / "out.sse", ANTHROPIC_BASE_URL=NOWHERE) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Connect" in err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_record_leaves_no_file_and_no_traceback(tmp_path):
    out = tmp_path / "out.sse"
    with ReplayServer("fixture", pace=0.5) as server:  # slow: about 10 seconds in all
        environ = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url}
        line = [sys.executable, "-m", "streaming_lib", "record", "--out", str(out)]
        process = subprocess.Popen(line, env=environ, stderr=subprocess.PIPE, text=True)
        try:
            while server.requests == 0 and process.poll() is None:
                server.wait_for_disconnects(0, timeout=0.05)
            for _ in range(5):  # a loaded machine may lose a press: press again, as a person would
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=2)
                    break
                except subprocess.TimeoutExpired:
                    continue
            _, err = process.communicate(timeout=20)
        finally:
            process.kill()
    assert process.returncode == 130 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


# -- my-client --dir -------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["a file", "/dev/null", "/proc/self/nowhere"])
def test_my_client_refuses_a_dir_that_is_not_a_folder_in_one_line(tmp_path, capsys, where):
    if where == "a file":
        where = tmp_path / "file.py"
        where.write_text("x = 1\n")
    with pytest.raises(SystemExit) as caught:
        main(["my-client", "--dir", str(where)])
    assert caught.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_module_examples_run():
    results = doctest.testmod(streaming_lib.tools.files, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0 and results.failed == 0
