"""The proxy-buffering lab: one stream, timed at the client, direct and through nginx.

Between a streaming API and its client there is often a reverse proxy, and the
most common one, nginx, buffers responses by default. This lab starts a real
nginx (the OS package) in front of the replay server and times every event's
arrival in four setups:

    direct       no proxy: the reference, events arrive as the server paces them
    buffered     nginx as installed (`proxy_buffering on`, the default)
    unbuffered   the same nginx; the server's response carries `X-Accel-Buffering: no`
    gzip         `proxy_buffering off` in the config, plus `gzip on;
                 gzip_types text/event-stream;`, and a client sending `Accept-Encoding: gzip`

Each nginx runs as a subprocess (`daemon off`, a single process) from a temporary
folder holding its own config, pid file, logs and temp folders, on a free port
of 127.0.0.1; it is stopped when its block ends.

What we measured (nginx 1.22.1, a 30 769-byte stream of 245 events sent 5 ms
apart; stored in `fixtures/proxy_lab_result.json`):

- direct and unbuffered: 245 network chunks, one event each, the first event
  after 3 ms (direct) or 14 ms (through nginx);
- buffered: 8 chunks. nginx reads the upstream into 4 KiB buffers (one memory
  page: `proxy_buffers 8 4k`) and passes a buffer on only when it is full, so
  the events come in bursts of 30 to 33 (the first buffer also held the
  upstream's headers), the first event after 0.17 s. Even the status line and
  headers wait for that first buffer. A stream shorter than one buffer arrives
  in one piece, at its very end;
- gzip (unbuffered): still 247 chunks, one event each, and 3 359 bytes on the
  wire instead of 30 769. When it does not buffer, nginx flushes the
  compressor after every read from the upstream (a deflate sync flush), so
  each event goes out at once, compressed against the previous ones.

    result = run_lab() if nginx_available() else load_result()    # run_lab: about 6 s
    summarize(result)       # one row per setup: chunks, bytes, bursts, first and last event

    >>> rows = {row["setup"]: row for row in summarize(load_result())}
    >>> rows["buffered"]["chunks"] < rows["unbuffered"]["chunks"]
    True

Deliberately not handled: nginx on other machines or with other configs, HTTP/2,
and proxies other than nginx (CDNs and load balancers buffer too).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ..tools.fixtures import FIXTURES_DIR
from .api import HOST, free_port
from .network import open_stream, timed_stream
from .server import ReplayServer

RESULT_FILE = FIXTURES_DIR / "proxy_lab_result.json"
SETUPS = ("direct", "buffered", "unbuffered", "gzip")


def find_nginx() -> str | None:
    """The nginx binary's path (str), or None when nginx is not installed."""
    # Debian installs it in /usr/sbin, which is not on every user's PATH.
    candidates = [shutil.which("nginx"), "/usr/sbin/nginx", "/usr/local/sbin/nginx"]
    return next((path for path in candidates if path and Path(path).is_file()), None)


def nginx_available() -> bool:
    """Can the lab run here? (Else the notebooks show `load_result()`.)"""
    return find_nginx() is not None


def lab_stream(deltas: int = 240) -> bytes:
    """A long, valid Messages API stream (bytes): one text block in `deltas` small pieces,
    about 125 bytes per event.

    Long on purpose: nginx passes a buffered response on each time a buffer
    (4 or 8 KiB) fills, so a short stream would arrive all at once at the end.
    """
    words = ["Proxies", "buffer", "responses", "to", "free", "the", "upstream", "server", "early;"]
    message: dict[str, Any] = {
        "id": "msg_lab",
        "type": "message",
        "role": "assistant",
        "model": "replay",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    for n in range(deltas):
        text = f"{n:03d} {words[n % len(words)]} "
        events.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            }
        )
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": deltas},
        },
        {"type": "message_stop"},
    ]
    return b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n".encode()
        for e in events
    )


def nginx_config(
    folder: Path, port: int, upstream: str, *, buffering: bool, gzip: bool, modules: str
) -> str:
    """The whole nginx.conf (str): every path inside `folder`, nothing under /var or /etc."""
    # nginx creates a temp folder for each module compiled in; give each one ours.
    temp_paths = "\n".join(
        f"    {name}_temp_path {folder / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        if f"--without-http_{name}_module" not in modules
    )
    return f"""\
daemon off;                # stay in the foreground: we own the process
master_process off;        # one process: stopping it stops everything
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
{temp_paths}
    server {{
        listen {HOST}:{port};
        location / {{
            proxy_pass {upstream};
            proxy_buffering {"on" if buffering else "off"};
            gzip {"on" if gzip else "off"};
            gzip_types text/event-stream;
        }}
    }}
}}
"""


class NginxProxy:
    """A real nginx in front of `upstream` (a URL), for the length of a `with` block.

    with ReplayServer(lab_stream()) as server, NginxProxy(server.url) as proxy:
        timed_stream(proxy.url)
    """

    def __init__(self, upstream: str, *, buffering: bool = True, gzip: bool = False) -> None:
        self.upstream, self.buffering, self.gzip = upstream, buffering, gzip
        self.url = ""
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> NginxProxy:
        binary = find_nginx()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
        modules = subprocess.run([binary, "-V"], capture_output=True, text=True).stderr
        self._folder = tempfile.TemporaryDirectory(prefix="nginx-lab-")
        folder = Path(self._folder.name)
        port = free_port()
        config = folder / "nginx.conf"
        text = nginx_config(
            folder, port, self.upstream, buffering=self.buffering, gzip=self.gzip, modules=modules
        )
        config.write_text(text)
        # -p: the prefix for relative paths; -e: the error log used before the config is read.
        command = [binary, "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log")]
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.url = f"http://{HOST}:{port}"
        deadline = time.monotonic() + 10
        while not self._accepts(port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                log = (
                    (folder / "error.log").read_text(errors="replace")
                    if (folder / "error.log").exists()
                    else ""
                )
                self.__exit__()
                raise RuntimeError(f"nginx did not start:\n{log}")
            time.sleep(0.02)
        return self

    @staticmethod
    def _accepts(port: int) -> bool:
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def __exit__(self, *exc_info: object) -> None:
        if self._process is not None:
            self._process.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def measure(setup: str, server: ReplayServer) -> dict[str, Any]:
    """Time one stream from `server` in `setup` (one of SETUPS); plain data, times in seconds."""
    params, headers = {}, {}
    if setup == "unbuffered":
        params["x_accel_buffering"] = "no"
    if setup == "gzip":
        headers["accept-encoding"] = "gzip"
    if setup == "direct":
        timed = timed_stream(server.url, params=params, headers=headers)
    else:
        with NginxProxy(server.url, buffering=setup != "gzip", gzip=setup == "gzip") as proxy:
            timed = timed_stream(proxy.url, params=params, headers=headers)
    return {
        "headers_time": round(timed.headers_time, 4),
        "event_times": [round(t, 4) for t in timed.event_times],
        "chunk_times": [round(t, 4) for t in timed.chunk_times],
        "chunk_sizes": timed.chunk_sizes,
        "content_encoding": timed.headers.get("content-encoding", "identity"),
        "complete": timed.error is None,
    }


def nginx_version() -> str:
    """For example "nginx/1.22.1" ("" without nginx)."""
    binary = find_nginx()
    if binary is None:
        return ""
    return (
        subprocess.run([binary, "-v"], capture_output=True, text=True)
        .stderr.strip()
        .rpartition(" ")[2]
    )


def run_lab(*, pace: float = 0.005, deltas: int = 240) -> dict[str, Any]:
    """Measure every setup on the same stream (needs nginx; about 5 s).

    Returns plain data: `{"nginx", "pace", "events", "bytes", "setups": {setup:
    {"headers_time", "event_times", "chunk_times", "chunk_sizes", "content_encoding",
    "complete"}}}`, times in seconds.
    """
    raw = lab_stream(deltas)
    with ReplayServer(raw, pace=pace) as server:
        with open_stream(server.url, params={"pace": 0}) as warm_up:  # a first stream is slower:
            warm_up.read()  # its code paths run for the first time; time the second one onwards
        setups = {setup: measure(setup, server) for setup in SETUPS}
    events = len(setups["direct"]["event_times"])
    return {
        "nginx": nginx_version(),
        "pace": pace,
        "events": events,
        "bytes": len(raw),
        "setups": setups,
    }


def summarize(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per setup (dict): network chunks, bytes on the wire, bursts, the largest one,
    and when the first and last events arrived (s). A burst: events less than half a pace apart."""
    rows = []
    for setup, measured in result["setups"].items():
        times = measured["event_times"]
        groups = bursts(times, gap=result["pace"] / 2)
        rows.append(
            {
                "setup": setup,
                "chunks": len(measured["chunk_sizes"]),
                "wire_bytes": sum(measured["chunk_sizes"]),
                "bursts": len(groups),
                "largest_burst": max(groups, default=0),
                "first_event": times[0] if times else None,
                "last_event": times[-1] if times else None,
            }
        )
    return rows


def bursts(times: list[float], gap: float) -> list[int]:
    """Sizes of the groups of arrivals (times in s) with less than `gap` s between neighbours.

    >>> bursts([0.0, 0.01, 0.5, 0.5, 0.5, 1.0], gap=0.05)
    [2, 3, 1]
    """
    sizes: list[int] = []
    for previous, now in zip([None, *times], times, strict=False):  # each with the one before
        if previous is None or now - previous >= gap:
            sizes.append(0)
        sizes[-1] += 1
    return sizes


def save_result(result: dict[str, Any], path: Path = RESULT_FILE) -> Path:
    """Write `result` as JSON, each list of numbers on one line."""
    text = json.dumps(result, indent=1)
    text = re.sub(
        r"\[\s*([-\d.,\s]*?)\s*\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text
    )
    path.write_text(text + "\n", encoding="utf-8")
    return path


def load_result(path: Path = RESULT_FILE) -> dict[str, Any]:
    """A stored `run_lab()` result, for machines without nginx."""
    return json.loads(path.read_text(encoding="utf-8"))
