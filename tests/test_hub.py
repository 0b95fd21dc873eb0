"""A class on a real JupyterHub: classroom/jupyterhub_config.py (its rehearsal settings: any
name logs in, each learner's server a local process with a home of its own) behind
configurable-http-proxy, on 127.0.0.1.

Eight learners are made through the hub's REST API and their servers started; the link
`class-link` prints pulls the course (a git repository made from this commit) into each home
through nbgitpuller; lesson 02 runs in each learner's own kernel, half of them having filled
in its task and my_client/lines.py; a new commit is pulled again and every learner's work is
still theirs; `class-report` reads the homes; everything stops.

Needs the extra `classroom` (JupyterHub, nbgitpuller) and configurable-http-proxy from npm
(`.ci/run` installs it into build/hub/); skipped, saying which is missing, without them.
"""

import asyncio
import contextlib
import csv
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import nbformat
import pytest

pytest.importorskip("jupyterhub", reason="the extra classroom (JupyterHub) is not installed")
pytest.importorskip("nbgitpuller", reason="the extra classroom (nbgitpuller) is not installed")
httpx = pytest.importorskip("httpx")

from benchmarks.classroom import hub as running_hub  # noqa: E402
from benchmarks.classroom import run_cells  # noqa: E402
from streaming_lib.tools.class_report import CSV_NAME  # noqa: E402
from streaming_lib.tools.classroom import class_link  # noqa: E402
from streaming_lib.tools.my_client import REFERENCE  # noqa: E402

pytestmark = pytest.mark.hub

ROOT = Path(__file__).resolve().parents[1]
LEARNERS = [f"learner{n}" for n in range(1, 9)]
FILLED = LEARNERS[::2]  # half of them fill in lesson 02's task and my_client/lines.py
# No learner wrote lesson 01's stage: the report says where they stand and what comes next.
NOT_WRITTEN = "sse (lesson 01): write feed_line in my_client/sse.py (lesson 01)"
COURSE = "streaming-course"
WAIT = 300  # seconds a server may take to start, or a pull, on a busy machine


def proxy_command():
    local = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
    found = str(local) if local.exists() else shutil.which("configurable-http-proxy")
    if not found:
        pytest.skip(
            "configurable-http-proxy is not installed: npm install --prefix build/hub "
            "configurable-http-proxy (.ci/run does)"
        )
    return found


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub: (base URL, the REST API's headers, the homes, the origin's work tree)."""
    proxy_command()  # skips, saying why, without configurable-http-proxy
    where = tmp_path_factory.mktemp("hub")
    # The course's origin: a repository holding this commit's files.
    work = where / "origin-work"
    git("clone", "--quiet", "--depth", "1", f"file://{ROOT}", str(work), cwd=where)
    git("config", "user.email", "teacher@example.org", cwd=work)
    git("config", "user.name", "Teacher", cwd=work)
    origin = where / f"{COURSE}.git"
    git("clone", "--quiet", "--bare", str(work), str(origin), cwd=where)
    git("remote", "set-url", "origin", str(origin), cwd=work)
    # The course's own configuration, with a service for this test with a teacher's rights.
    with running_hub(where) as (base, token, _):
        headers = {"Authorization": f"token {token}"}
        try:
            yield base, headers, where / "homes", work
        finally:
            with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
                for name in LEARNERS:
                    with contextlib.suppress(httpx.HTTPError):
                        client.delete(f"/hub/api/users/{name}/server")


def wait_ready(client, name):
    deadline = time.monotonic() + WAIT
    while True:
        user = client.get(f"/hub/api/users/{name}").json()
        server = user.get("servers", {}).get("")
        if server and server.get("ready"):
            return
        assert time.monotonic() < deadline, f"{name}'s server did not start: {user}"
        time.sleep(1)


def pull(client, name, link):
    """What the learner's browser does with the link: user-redirect sends it to their server's
    git-pull page, whose script reads the pull's progress from git-pull/api (an event stream)
    until it finishes. Returns the events' data."""
    query = urlsplit(link).query
    page = client.get(f"/user/{name}/git-pull?{query}")
    assert page.status_code == 200 and "git-pull" in page.text
    args = parse_qs(query)
    api = {key: args[key][0] for key in ("repo", "targetpath") if key in args}
    events = []
    with client.stream("GET", f"/user/{name}/git-pull/api?{urlencode(api)}", timeout=WAIT) as got:
        assert got.status_code == 200
        for line in got.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
                if events[-1].get("phase") in ("finished", "error"):
                    break
    assert events and events[-1]["phase"] == "finished", events[-3:]
    return events


def text_of(outputs):
    said = []
    for reply in outputs:
        content = reply["content"]
        said.append(content.get("text") or content.get("evalue") or str(content.get("data", "")))
    return "".join(said)


def fill_in(course):
    """What a learner who did lesson 02's task has saved: the task's answer (the lesson's own
    reference answer) in their copy of the lesson, my_client/lines.py, and exercise 01."""
    path = course / "notebooks" / "02_chunks_to_lines.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cells = notebook.cells
    answer = next(i for i, c in enumerate(cells) if "answer" in c.metadata.get("tags", []))
    reference = next(c for c in cells[answer:] if "reference" in c.metadata.get("tags", []))
    code = re.search(r"```python\n(.*?)```", reference.source, re.S)[1]
    cells[answer].source = code
    nbformat.write(notebook, path)
    (course / "my_client").mkdir(exist_ok=True)
    shutil.copy(REFERENCE / "lines.py", course / "my_client" / "lines.py")
    shutil.copy(ROOT / "solutions" / "01_line_splitter.ipynb", course / "exercises")
    return code


def test_a_class_of_eight_pulls_the_course_works_and_pulls_again_without_losing_a_thing(hub):
    base, headers, homes, work = hub
    token = headers["Authorization"].split()[1]
    link = class_link(base, repo=str(work.parent / f"{COURSE}.git"), lesson="02")
    client = httpx.Client(base_url=base, headers=headers, timeout=60, follow_redirects=False)
    # The teacher enrols the class and starts their servers.
    made = client.post("/hub/api/users", json={"usernames": LEARNERS})
    assert made.status_code == 201, made.text
    for name in LEARNERS:
        assert client.post(f"/hub/api/users/{name}/server").status_code in (201, 202)
    for name in LEARNERS:
        wait_ready(client, name)
    # The link: user-redirect names the learner's own git-pull page.
    assert urlsplit(link).path == "/hub/user-redirect/git-pull"
    for name in LEARNERS:
        pull(client, name, link)
        course = homes / name / COURSE
        assert (course / "notebooks" / "02_chunks_to_lines.ipynb").is_file()
    # Half the class fills in lesson 02's task (and my_client/lines.py, exercise 01).
    answers = {name: fill_in(homes / name / COURSE) for name in FILLED}
    saved = {
        name: {
            path: path.read_bytes()
            for path in (homes / name / COURSE).rglob("*")
            if path.is_file() and ".git" not in path.parts
        }
        for name in LEARNERS
    }
    # Lesson 02 in each learner's kernel, started by their server in their copy of it.
    lesson = nbformat.read(
        homes / LEARNERS[0] / COURSE / "notebooks" / "02_chunks_to_lines.ipynb", 4
    )
    check = next(
        i
        for i, c in enumerate(lesson.cells)
        if {"your-turn", "check"} <= set(c.metadata.get("tags", []))
    )

    async def lesson_02(name):
        path = f"{COURSE}/notebooks/02_chunks_to_lines.ipynb"
        made = client.post(
            f"/user/{name}/api/sessions",
            json={"path": path, "type": "notebook", "kernel": {"name": "python3"}},
        )
        assert made.status_code == 201, made.text
        kernel = made.json()["kernel"]["id"]
        mine = nbformat.read(homes / name / COURSE / "notebooks" / "02_chunks_to_lines.ipynb", 4)
        code = [c.source for c in mine.cells[: check + 1] if c.cell_type == "code"]
        outputs = await run_cells(base, token, name, kernel, code)
        return outputs

    async def everyone():
        return await asyncio.gather(*(lesson_02(name) for name in LEARNERS))

    ran = dict(zip(LEARNERS, asyncio.run(everyone()), strict=True))
    for name, outputs in ran.items():
        verdict = text_of(outputs[-1])  # the task's check cell
        if name in FILLED:
            assert "✔" in verdict and "✘" not in verdict, (name, verdict)
        else:
            assert "✘" in verdict, (name, verdict)
        # The lesson's own cells ran: no error but the one cell that raises on purpose.
        errors = [
            text_of(out) for out in outputs[:-1] if any(r["msg_type"] == "error" for r in out)
        ]
        assert len(errors) <= 1, (name, errors)
    # The teacher commits a change; every learner pulls again.
    (work / "notebooks" / "99_announcement.md").write_text(
        "Lesson 08 next week.\n", encoding="utf-8"
    )
    readme = work / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nA line added after class.\n", "utf-8")
    lesson_path = work / "notebooks" / "02_chunks_to_lines.ipynb"
    teacher = nbformat.read(lesson_path, 4)
    teacher.cells[0].source += "\n\n(Updated after class.)"
    nbformat.write(teacher, lesson_path)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "After class", cwd=work)
    git("push", "-q", "origin", "HEAD", cwd=work)
    for name in LEARNERS:
        pull(client, name, link)
        course = homes / name / COURSE
        assert (course / "notebooks" / "99_announcement.md").read_text() == "Lesson 08 next week.\n"
        assert "A line added after class." in (course / "README.md").read_text(encoding="utf-8")
        mine = nbformat.read(course / "notebooks" / "02_chunks_to_lines.ipynb", 4)
        if name in FILLED:  # their lesson is theirs: the teacher's change does not overwrite it
            assert answers[name] in [c.source for c in mine.cells]
            for path, data in saved[name].items():
                if "my_client" in path.parts or path.name == "01_line_splitter.ipynb":
                    assert path.read_bytes() == data, path
        else:  # an untouched lesson takes the teacher's change
            assert mine.cells[0].source.endswith("(Updated after class.)")
    # The teacher's table of the class.
    out = homes.parent / "report"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "streaming_lib",
            "class-report",
            str(homes),
            "--out",
            str(out),
            "--timeout",
            "400",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    with (out / CSV_NAME).open(encoding="utf-8-sig", newline="") as file:
        header, *rows = list(csv.reader(file))
    by_name = {row[0]: row for row in rows}
    assert sorted(by_name) == LEARNERS
    for name, row in by_name.items():
        exercises_done = int(row[2].split(" of ")[0])
        if name in FILLED:
            assert exercises_done == 1 and row[4] == NOT_WRITTEN, row
        else:
            assert exercises_done == 0 and row[4] == NOT_WRITTEN, row
    # Everything stops.
    for name in LEARNERS:
        assert client.delete(f"/hub/api/users/{name}/server").status_code in (202, 204)
    client.close()
