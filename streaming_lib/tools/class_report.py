"""`python -m streaming_lib class-report HOMES_DIR`: one row per learner of a class, as CSV and
as a page.

    python -m streaming_lib class-report /home                 # a hub's homes, one per learner
    python -m streaming_lib class-report /home --out report --lang zh

HOMES_DIR holds one folder per learner, as JupyterHub lays out its users' homes; the folder's
name is the learner's. In each, the course is the home itself or the folder just inside it
that has `exercises/` (where nbgitpuller cloned it: `streaming-course/`). A home without the
course gets a row that says so (the teacher's own, on a hub, often). HOMES_DIR that is one
home, or the course itself, is refused: its folders are no learners.

For each learner the course's own checks run, each in a subprocess of its own, never in this
process: `progress --json` (every exercise's checks, in fresh kernels) and `my-client --json`
(their `my_client/`, stage by stage, against the library and the SDK), on a copy of their
`my_client/` in a temporary folder, so nothing is written into their home; run as root (to
read every home), they run as the owner of the learner's home, never as root. A learner's checks
share a time limit (`--timeout`, seconds): past it their processes (and the kernels they
started) are stopped, and the row says the limit was reached.

The table's columns: the learner; lessons done (a lesson is done when every measure of it
passes: the exercises that practise it, and its stage of `my_client/`: lessons 01 to 04);
exercises passing every check; fixtures `my-client` passes at every stage and chunk size
(N of M); the first failing stage in lesson order. It is written to `--out` (default
`class-report/`) as `class-report.csv` (UTF-8, with a byte order mark so a spreadsheet reads
Chinese right) and `class-report.html` (one page, no file or network beside it: click a
column's heading to sort by it), both in `--lang`.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from jinja2 import Environment, PackageLoader, select_autoescape

from ..language import _, word
from .i18n import Table, words

TIMEOUT = 600.0  # seconds for one learner's checks, all of them
CSV_NAME = "class-report.csv"
HTML_NAME = "class-report.html"

COLUMNS = Table(
    word("report_learner", "learner"),
    word("report_lessons", "lessons done"),
    word("report_exercises", "exercises passing"),
    word("report_my_client", "my-client"),
    word("report_first_failing", "first failing stage"),
)
REPORT = Table(
    word("report_html_lang", "en"),
    word("report_title", "The class at a glance"),
    word("report_of", "{done} of {count}"),
    word("report_stage", "{stage} (lesson {lesson})"),
    word("report_none", "none: every stage passes"),
    word("report_no_course", "no course in this home"),
    word("report_timeout", "stopped: longer than {seconds} s"),
    word("report_broken", "could not run: {why}"),
    word("report_sort", "Click a column's heading to sort by it; again to reverse."),
    word("report_learners", "{count} learners"),
)


class NotHomes(ValueError):
    """HOMES_DIR is not a folder of learners' homes."""


@dataclass
class Checked:
    """One learner's results: the JSON of `progress --json` and of `my-client --json` (None
    where it did not run), and why a run stopped ("" when none did)."""

    learner: str
    course: Path | None
    progress: dict[str, Any] | None = None
    my_client: dict[str, Any] | None = None
    stopped: str = ""  # "timeout", or "broken: <why>"
    limit: float = TIMEOUT  # the time limit its checks had, seconds


def course_of(home: Path) -> Path | None:
    """The course's folder in a learner's `home`: the home itself, or the first folder just
    inside it (by name) that holds `exercises/` and `notebooks/`; None when there is none."""
    candidates = [home, *sorted(path for path in home.iterdir() if path.is_dir())]
    for path in candidates:
        if (path / "exercises").is_dir() and (path / "notebooks").is_dir():
            return path
    return None


def homes(folder: Path) -> list[Path]:
    """The learners' homes in `folder`: its folders, by name (hidden ones left out).

    Raises NotHomes when `folder` is no folder, holds no folder, or is one learner's home or
    the course itself (the course is in it or just inside it: a hub's folder of homes has
    the course two levels down)."""
    if not folder.is_dir():
        raise NotHomes(_("{path} is not a folder of learners' homes", path=str(folder)))
    found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not found:
        raise NotHomes(
            _(
                "{path} holds no learner's home: give the folder of the homes, such as /home",
                path=str(folder),
            )
        )
    course = course_of(folder)
    if course is not None:
        raise NotHomes(
            _(
                "{path} is one home, the course in {course}: give the folder that holds "
                "every learner's home, such as /home",
                path=str(folder),
                course=str(course),
            )
        )
    return found


def owner(home: Path) -> tuple[int, int] | None:
    """(uid, gid) to run a learner's checks as: the owner of `home`, when this process is root
    and the home is not root's; None otherwise (the checks run as this process's user).

    A learner's code runs in their checks: run as root (`sudo`, to read every home), it would
    have every right on the machine; as the home's owner it has the learner's own."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    found = home.stat()
    return None if found.st_uid == 0 else (found.st_uid, found.st_gid)


def _run_json(
    command: Sequence[str],
    cwd: Path,
    deadline: float,
    env: dict[str, str],
    user: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Run `python -m streaming_lib COMMAND` in a session of its own, in `cwd`, as `user`
    ((uid, gid); None: as this process); its stdout as JSON. On the deadline
    (time.monotonic()), the whole session is killed (the kernels too) and TimeoutError
    raised; ValueError when it printed no JSON, OSError when it could not start."""
    as_user: dict[str, Any] = {}
    if user is not None:
        as_user = {"user": user[0], "group": user[1], "extra_groups": []}
    process = subprocess.Popen(
        [sys.executable, "-m", "streaming_lib", *command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **as_user,
    )
    try:
        out, err = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(process)
        raise TimeoutError(" ".join(command)) from None
    return parsed(command, out, err)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Kill `process` and everything it started: its process group, and the processes below
    it that left the group (jupyter_client starts each kernel in a session of its own)."""
    try:
        below = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        below = []
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    for child in below:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    process.communicate()
    psutil.wait_procs(below, timeout=10)


def parsed(command: Sequence[str], out: bytes, err: bytes) -> dict[str, Any]:
    """The JSON object a command printed; ValueError, with its last line of stderr, if none."""
    try:
        found = json.loads(out)
    except ValueError:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise ValueError(f"{command[0]}: {last[0]}") from None
    if not isinstance(found, dict):
        raise ValueError(f"{command[0]}: not a JSON object")
    return found


def check(home: Path, timeout: float = TIMEOUT, lang: str = "en") -> Checked:
    """Run one learner's checks (see the module's docstring) within `timeout` seconds."""
    course = course_of(home)
    checked = Checked(home.name, course, limit=timeout)
    if course is None:
        return checked
    deadline = time.monotonic() + timeout
    # The teacher's library runs the checks: the learner's clone may be older or edited.
    library = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [library, os.environ.get("PYTHONPATH")])),
        "STREAMING_LIB_LANG": lang,
    }
    user = owner(home)
    with tempfile.TemporaryDirectory(prefix="class-report-") as scratch:
        mine = Path(scratch) / "my_client"
        if (course / "my_client").is_dir():
            shutil.copytree(course / "my_client", mine, symlinks=True)
        if user is not None:  # the learner's processes write only here (kernels' files too)
            for path in [Path(scratch), *Path(scratch).rglob("*")]:
                os.lchown(path, *user)
            env = {**env, "HOME": scratch}
        try:
            checked.progress = _run_json(
                ["progress", "--dir", str(course / "exercises"), "--json", "--lang", lang],
                course,
                deadline,
                env,
                user,
            )
            checked.my_client = _run_json(
                ["my-client", "--dir", str(mine), "--json", "--lang", lang],
                Path(scratch),
                deadline,
                env,
                user,
            )
        except TimeoutError:
            checked.stopped = "timeout"
        except (ValueError, OSError) as error:
            checked.stopped = f"broken: {error}"
    return checked


def lessons(checked: Checked) -> tuple[int, int]:
    """(lessons done, lessons measured) of one learner: a lesson is measured when an exercise
    practises it or `my_client/` has its stage (01-04), done when all of those pass."""
    measures: dict[str, list[bool]] = {}
    for exercise in (checked.progress or {}).get("exercises", []):
        if exercise.get("lesson"):
            ok = exercise["passed"] == exercise["total"]
            measures.setdefault(exercise["lesson"], []).append(ok)
    if checked.my_client is not None:
        from .my_client.chain import LESSONS

        failing = set(checked.my_client.get("failing_stages", {}))
        failing |= {row["stage"] for row in checked.my_client["fixtures"] if row["difference"]}
        for stage, lesson in LESSONS.items():
            measures.setdefault(lesson, []).append(stage not in failing)
    if checked.stopped or checked.progress is None or checked.my_client is None:
        return 0, len(measures)
    return sum(all(oks) for oks in measures.values()), len(measures)


def row(checked: Checked, lang: str = "en") -> list[str]:
    """One learner's row of the table, in `lang`.

    >>> row(Checked("dee", None))
    ['dee', '', '', '', 'no course in this home']
    >>> mine = {"passed": 30, "count": 33, "first_failing_stage": "lines", "lesson": "02",
    ...         "fixtures": [], "failing_stages": {"lines": "fails 'a lone CR ends a line'"}}
    >>> progress = {"done": 1, "count": 2, "exercises": [
    ...     {"lesson": "02", "passed": 6, "total": 6}, {"lesson": "03", "passed": 1, "total": 4}]}
    >>> row(Checked("ada", Path("course"), progress, mine), "zh")
    ['ada', '2 / 4', '1 / 2', '30 / 33', 'lines（第 02 课）']
    """
    say = words(REPORT, lang)
    if checked.course is None:
        return [checked.learner, "", "", "", say["report_no_course"]]
    done, measured = lessons(checked)
    # A lesson is done when all its measures pass: with a check stopped, that is not known.
    known = not checked.stopped
    cells = [checked.learner, say["report_of"].format(done=done, count=measured) if known else ""]
    progress, mine = checked.progress, checked.my_client
    cells.append(
        say["report_of"].format(done=progress["done"], count=progress["count"]) if progress else ""
    )
    cells.append(say["report_of"].format(done=mine["passed"], count=mine["count"]) if mine else "")
    if checked.stopped == "timeout":
        cells.append(say["report_timeout"].format(seconds=round(checked.limit)))
    elif checked.stopped:
        cells.append(say["report_broken"].format(why=checked.stopped.removeprefix("broken: ")))
    elif mine and mine.get("first_failing_stage"):
        cells.append(
            say["report_stage"].format(stage=mine["first_failing_stage"], lesson=mine["lesson"])
        )
    else:
        cells.append(say["report_none"])
    return cells


def write_csv(rows: list[list[str]], path: Path, lang: str = "en") -> None:
    """The table as CSV at `path`: a heading row, then one row per learner (UTF-8 with BOM)."""
    with path.open("w", encoding="utf-8-sig", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS[lang].values())
        writer.writerows(rows)


def write_html(rows: list[list[str]], path: Path, lang: str = "en") -> None:
    """The table as one self-contained HTML page at `path`, sortable by any column."""
    env = Environment(
        loader=PackageLoader("streaming_lib.tools", "class_report_templates"),
        autoescape=select_autoescape(["html"]),
    )
    say = words(REPORT, lang)
    page = env.get_template("report.html").render(
        lang=say["report_html_lang"],
        title=say["report_title"],
        sort_note=say["report_sort"],
        count=say["report_learners"].format(count=len(rows)),
        headers=list(COLUMNS[lang].values()),
        rows=rows,
    )
    path.write_text(page, encoding="utf-8")


def run(
    folder: Path,
    out: Path,
    *,
    lang: str = "en",
    timeout: float = TIMEOUT,
    jobs: int | None = None,
) -> list[list[str]]:
    """Check every learner in `folder` (`jobs` at a time; default: half the CPUs, at least
    one), write the CSV and the page into `out` (made if missing); the rows, by learner.

    Raises NotHomes when `folder` is no folder of homes (see `homes`)."""
    learners = homes(folder)
    jobs = jobs or max(1, (os.cpu_count() or 2) // 2)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda home: check(home, timeout, lang), learners))
    rows = [row(checked, lang) for checked in results]
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / CSV_NAME, lang)
    write_html(rows, out / HTML_NAME, lang)
    return rows
