"""`python -m benchmarks.classroom`: how big a machine a class needs.

For each class size N (default 5, 10 and 20), a real JupyterHub (classroom/jupyterhub_config.py,
rehearsal settings: local processes, any name logs in) behind configurable-http-proxy on
127.0.0.1 gets N learners through its REST API; all start their servers at once, pull the
course through nbgitpuller (a git repository of this commit), and run lessons 01, 02 and 03
top to bottom in their own kernels, all at once. Measured, per class size:

- memory per learner: the peak resident memory (RSS) of a learner's server and its kernel,
  sampled every half second, the median and the largest over the class;
- time to a ready server (from the start request to the hub's "ready"), median and slowest;
- time to the last cell of lesson 03 (from the first cell of lesson 01), median and slowest;
- the hub's own overhead: the peak RSS of the hub, the proxy and the idle culler.

Writes `results/classroom.json` (with the machine's CPUs and its load average before each run:
the machine may be shared), `results/classroom.md` (the table) and `results/classroom.png`.
Needs the extra `classroom` and configurable-http-proxy (npm install --prefix build/hub
configurable-http-proxy); times on a loaded machine are upper bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import nbformat
import psutil

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = Path(__file__).parent / "results"
LESSONS = ["01_sse_wire_format", "02_chunks_to_lines", "03_event_state_machine"]
COURSE = "streaming-course"
WAIT = 900.0  # seconds for a server to start or a lesson to run, on a loaded machine
MB = 1024 * 1024


@dataclass
class Row:
    """One class size's measures (MB and seconds)."""

    learners: int
    memory_median_mb: float
    memory_max_mb: float
    ready_median_s: float
    ready_max_s: float
    last_cell_median_s: float
    last_cell_max_s: float
    hub_mb: float
    load_before: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def proxy_command() -> str:
    local = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
    found = str(local) if local.exists() else shutil.which("configurable-http-proxy")
    if not found:
        raise SystemExit(
            "configurable-http-proxy is missing: npm install --prefix build/hub "
            "configurable-http-proxy"
        )
    return found


@contextmanager
def hub(where: Path) -> Iterator[tuple[str, str, psutil.Process]]:
    """A running hub in `where` (the learners' homes in `where`/homes): (its URL, a teacher's
    token with the rights to make users, start and stop their servers and use them, its
    process). Stopped, with everything it started, on leaving."""
    token = secrets.token_hex(16)
    port = free_port()
    (where / "config.py").write_text(
        f"load_subconfig({str(ROOT / 'classroom' / 'jupyterhub_config.py')!r})\n"
        f"c.JupyterHub.hub_port = {free_port()}\n"
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'\n"
        f"c.JupyterHub.services.append({{'name': 'teacher', 'api_token': {token!r}}})\n"
        "c.JupyterHub.load_roles.append({'name': 'teacher', 'services': ['teacher'], "
        "'scopes': ['admin:users', 'admin:servers', 'admin:server_state', 'access:servers', "
        "'list:users']})\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "COURSE_HUB_STATE": str(where / "state"),
        "COURSE_HUB_IP": "127.0.0.1",
        "COURSE_HUB_PORT": str(port),
        "COURSE_HUB_AUTH": "dummy",
        "COURSE_HUB_SPAWNER": "local",
        "COURSE_HUB_HOMES": str(where / "homes"),
        "COURSE_PROXY": proxy_command(),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("STREAMING_COURSE_MY_CLIENT", None)  # each learner's own, as the config sets it
    log = (where / "hub.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(where / "config.py")],
        cwd=where,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError((where / "hub.log").read_text(errors="replace")[-2000:])
            try:
                if httpx.get(f"{base}/hub/api/", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the hub did not answer")
            time.sleep(0.5)
        yield base, token, psutil.Process(process.pid)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def tree_rss(process: psutil.Process) -> int:
    """Bytes resident in `process` and every process below it (0 when gone)."""
    total = 0
    try:
        for one in [process, *process.children(recursive=True)]:
            with suppress(psutil.NoSuchProcess):
                total += one.memory_info().rss
    except psutil.NoSuchProcess:
        return 0
    return total


class Sampler(threading.Thread):
    """Every half second, the resident memory of each learner's server tree (peak kept) and
    of the hub's own processes (the hub's tree less the learners')."""

    def __init__(self, hub_process: psutil.Process) -> None:
        super().__init__(daemon=True)
        self.hub = hub_process
        self.learners: dict[str, psutil.Process] = {}
        self.peak: dict[str, int] = {}
        self.hub_peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.5):
            for name, process in list(self.learners.items()):
                self.peak[name] = max(self.peak.get(name, 0), tree_rss(process))
            self.hub_peak = max(self.hub_peak, self.hub_rss())

    def hub_rss(self) -> int:
        """The hub's own resident bytes, with the proxy and the culler it started; the
        learners' servers (jupyterhub-singleuser, also its children) left out."""
        try:
            total = self.hub.memory_info().rss
            children = self.hub.children()
        except psutil.NoSuchProcess:
            return 0
        for child in children:
            try:
                if not any("singleuser" in part for part in child.cmdline()):
                    total += tree_rss(child)
            except psutil.NoSuchProcess:
                pass
        return total


OUTPUTS = ("stream", "error", "execute_result", "display_data")


async def run_cells(
    base: str, token: str, name: str, kernel: str, cells: list[str]
) -> list[list[dict[str, Any]]]:
    """Run each cell's source in the learner's kernel through their server's websocket (the
    Jupyter messaging protocol, as JupyterLab sends it), errors or not; each cell's outputs
    (the kernel's messages: stream, error, execute_result, display_data)."""
    from jupyter_client.jsonutil import json_default
    from jupyter_client.session import Session
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = base.replace("http", "ws", 1) + f"/user/{name}/api/kernels/{kernel}/channels"
    connection = await websocket_connect(
        HTTPRequest(url, headers={"Authorization": f"token {token}"}), max_message_size=1 << 26
    )
    session = Session(username=name)
    outputs = []
    for source in cells:
        content = {
            "code": source,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": False,
        }
        message = session.msg("execute_request", content)
        message["channel"] = "shell"
        await connection.write_message(json.dumps(message, default=json_default))
        found = []
        while True:
            raw = await asyncio.wait_for(connection.read_message(), WAIT)
            if raw is None:
                raise RuntimeError(f"{name}'s kernel closed its websocket")
            reply = json.loads(raw)
            if reply.get("parent_header", {}).get("msg_id") != message["header"]["msg_id"]:
                continue
            if reply["msg_type"] in OUTPUTS:
                found.append(reply)
            if reply["msg_type"] == "status" and reply["content"]["execution_state"] == "idle":
                break
        outputs.append(found)
    connection.close()
    return outputs


def measure(learners: int, where: Path, origin: Path) -> Row:
    """One class of `learners`: start, pull, run lessons 01-03, measure (see the docstring)."""
    names = [f"learner{n:02d}" for n in range(1, learners + 1)]
    load = os.getloadavg()[0]
    with hub(where) as (base, token, hub_process):
        headers = {"Authorization": f"token {token}"}
        client = httpx.Client(base_url=base, headers=headers, timeout=WAIT)
        sampler = Sampler(hub_process)
        sampler.start()
        try:
            client.post("/hub/api/users", json={"usernames": names}).raise_for_status()
            asked = {}
            for name in names:
                asked[name] = time.monotonic()
                client.post(f"/hub/api/users/{name}/server").raise_for_status()
            ready: dict[str, float] = {}
            while len(ready) < len(names):
                for name in set(names) - set(ready):
                    user = client.get(f"/hub/api/users/{name}").json()
                    server = user.get("servers", {}).get("")
                    if server and server.get("ready"):
                        ready[name] = time.monotonic() - asked[name]
                        pid = server["state"]["pid"]
                        sampler.learners[name] = psutil.Process(pid)
                time.sleep(0.5)
            query = urlencode({"repo": str(origin), "targetpath": COURSE})
            for name in names:
                with client.stream("GET", f"/user/{name}/git-pull/api?{query}") as got:
                    for line in got.iter_lines():
                        if '"phase": "finished"' in line or '"phase": "error"' in line:
                            break
            cells = {
                lesson: [
                    cell.source
                    for cell in nbformat.read(
                        ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4
                    ).cells
                    if cell.cell_type == "code"
                ]
                for lesson in LESSONS
            }

            async def learner(name: str) -> float:
                start = time.monotonic()
                for lesson in LESSONS:
                    made = client.post(
                        f"/user/{name}/api/sessions",
                        json={
                            "path": f"{COURSE}/notebooks/{lesson}.ipynb",
                            "type": "notebook",
                            "kernel": {"name": "python3"},
                        },
                    )
                    made.raise_for_status()
                    kernel = made.json()["kernel"]["id"]
                    await run_cells(base, token, name, kernel, cells[lesson])
                    # One lesson's kernel at a time, as a learner who closes the lesson before
                    # the next.
                    client.delete(f"/user/{name}/api/sessions/{made.json()['id']}")
                return time.monotonic() - start

            async def everyone() -> list[float]:
                return await asyncio.gather(*(learner(name) for name in names))

            last = asyncio.run(everyone())
        finally:
            sampler.done.set()
            sampler.join()
            for name in names:
                with suppress(httpx.HTTPError):
                    client.delete(f"/hub/api/users/{name}/server")
            client.close()
    memory = [sampler.peak[name] / MB for name in names]
    return Row(
        learners,
        round(statistics.median(memory)),
        round(max(memory)),
        round(statistics.median(ready.values()), 1),
        round(max(ready.values()), 1),
        round(statistics.median(last), 1),
        round(max(last), 1),
        round(sampler.hub_peak / MB),
        round(load, 2),
    )


def table(rows: list[Row]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| learners | memory per learner, median (max) | ready server, median (slowest) "
        "| lessons 01-03 to the last cell, median (slowest) | hub, proxy and culler "
        "| load average before |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.learners} | {r.memory_median_mb} MB ({r.memory_max_mb} MB) "
            f"| {r.ready_median_s} s ({r.ready_max_s} s) "
            f"| {r.last_cell_median_s} s ({r.last_cell_max_s} s) | {r.hub_mb} MB "
            f"| {r.load_before} |"
        )
    return "\n".join(lines)


def plot(rows: list[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r.learners for r in rows]
    figure, (memory, seconds) = plt.subplots(1, 2, figsize=(9, 3.5))
    memory.plot(
        sizes,
        [r.learners * r.memory_median_mb + r.hub_mb for r in rows],
        "o-",
        label="whole class (median learner x N + hub)",
    )
    memory.set_xlabel("learners")
    memory.set_ylabel("MB resident")
    memory.legend(fontsize=8)
    seconds.plot(sizes, [r.ready_max_s for r in rows], "o-", label="slowest ready server")
    seconds.plot(
        sizes, [r.last_cell_max_s for r in rows], "s-", label="slowest to lesson 03's last cell"
    )
    seconds.set_xlabel("learners")
    seconds.set_ylabel("seconds")
    seconds.legend(fontsize=8)
    figure.suptitle(f"A class on one hub, {os.cpu_count()} CPUs")
    figure.tight_layout()
    figure.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.classroom")
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="classroom-bench-") as scratch:
        where = Path(scratch)
        origin = where / f"{COURSE}.git"
        subprocess.run(
            ["git", "clone", "--quiet", "--bare", "--depth", "1", f"file://{ROOT}", str(origin)],
            check=True,
        )
        for size in args.sizes:
            run = where / f"class{size}"
            run.mkdir()
            rows.append(measure(size, run, origin))
            print(table(rows).splitlines()[-1], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    machine: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 1024**3, 1),
    }
    (args.out / "classroom.json").write_text(
        json.dumps({"machine": machine, "rows": [asdict(r) for r in rows]}, indent=1) + "\n",
        encoding="utf-8",
    )
    (args.out / "classroom.md").write_text(table(rows) + "\n", encoding="utf-8")
    plot(rows, args.out / "classroom.png")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
