"""A class on one hub: the checks' --json reports, the nbgitpuller link (class-link), and the
class's table (class-report) read from fake homes: one still the stubs, one filled in with
the course's answers, one whose work never ends (the time limit stops it), one with no course.
"""

import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import psutil
import pytest

from streaming_lib.__main__ import main
from streaming_lib.tools import class_report
from streaming_lib.tools.classroom import FOLDER, BadLink, NoOrigin, class_link
from streaming_lib.tools.my_client import REFERENCE

ROOT = Path(__file__).resolve().parents[1]


def json_of(capsys, *argv):
    """(exit status, the JSON printed) of `python -m streaming_lib ARGV`."""
    status = main(list(argv))
    return status, json.loads(capsys.readouterr().out)


# -- --json ---------------------------------------------------------------------------


def test_progress_json_gives_each_exercise_its_lesson_checks_and_first_failure(tmp_path, capsys):
    shutil.copy(ROOT / "exercises" / "01_line_splitter.ipynb", tmp_path)
    status, found = json_of(capsys, "progress", "--dir", str(tmp_path), "--json")
    assert status == 0
    [exercise] = found["exercises"]
    assert exercise["name"] == "01_line_splitter" and exercise["lesson"] == "02"
    assert exercise["passed"] == 0 < exercise["total"] == found["total"]
    assert exercise["failure"].startswith("Check 1") and found["done"] == 0
    assert found["count"] == 1


def test_progress_json_of_a_solved_exercise_counts_it_done(tmp_path, capsys):
    shutil.copy(ROOT / "solutions" / "01_line_splitter.ipynb", tmp_path)
    _, found = json_of(capsys, "progress", "--dir", str(tmp_path), "--json")
    assert found["done"] == 1 and found["passed"] == found["total"] > 0
    assert found["exercises"][0]["failure"] == ""


def test_my_client_json_names_the_first_stage_to_write_and_exits_as_the_table(tmp_path, capsys):
    status, stub = json_of(capsys, "my-client", "--dir", str(tmp_path / "mine"), "--json")
    assert status == 1 and stub["passed"] == 0 < stub["count"]
    assert stub["first_failing_stage"] == "sse" and stub["lesson"] == "01"
    assert stub["next"] == "write feed_line in my_client/sse.py (lesson 01)"
    assert set(stub["fixtures"][0]["matches"]) == {"1", "7", "whole"}
    status, done = json_of(capsys, "my-client", "--reference", "--json")
    assert status == 0 and done["passed"] == done["count"] == stub["count"]
    assert done["first_failing_stage"] is None and done["failing_stages"] == {}


def test_what_a_learners_client_prints_stays_out_of_the_json(tmp_path, capsys):
    mine = tmp_path / "mine"
    shutil.copytree(REFERENCE, mine)
    source = (mine / "lines.py").read_text(encoding="utf-8")
    (mine / "lines.py").write_text('print("hello from my lines")\n' + source, encoding="utf-8")
    status = main(["my-client", "--dir", str(mine), "--json"])
    said = capsys.readouterr()
    assert status == 0 and json.loads(said.out)["passed"] > 0
    assert "hello from my lines" in said.err


def test_my_client_live_json_has_one_entry_per_row_and_refuses_base_url(capsys):
    status, found = json_of(capsys, "my-client", "--live", "--reference", "--json")
    assert status == 0 and found["passed"] == found["count"] == len(found["scenarios"])
    assert found["next"] is None and all(row["same"] for row in found["scenarios"])
    with pytest.raises(SystemExit) as stopped:
        main(["my-client", "--base-url", "http://127.0.0.1:9", "--json"])
    assert stopped.value.code == 2 and "--json" in capsys.readouterr().err


# -- class-link -----------------------------------------------------------------------


@pytest.fixture
def clone(tmp_path):
    """A git clone with lessons 00 and 02 (both editions) and an origin."""
    where = tmp_path / "course"
    for folder in (where / "notebooks", where / "notebooks" / "zh"):
        folder.mkdir(parents=True)
        for name in ("00_start_here", "02_chunks_to_lines"):
            (folder / f"{name}.ipynb").write_text("{}", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    return where


def test_the_link_pulls_origin_and_opens_the_lesson_in_the_folder_nbgitpuller_makes(clone):
    url = "https://git.example.org/school/streaming-course.git"
    subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", url], check=True)
    link = urlsplit(class_link("https://hub.example.edu/course/", lesson="02", root=clone))
    assert (link.scheme, link.netloc) == ("https", "hub.example.edu")
    assert link.path == "/course/hub/user-redirect/git-pull"
    query = parse_qs(link.query, strict_parsing=True)
    assert query == {
        "repo": [url],
        "targetpath": ["streaming-course"],
        "urlpath": ["lab/tree/streaming-course/notebooks/02_chunks_to_lines.ipynb"],
    }
    zh = parse_qs(urlsplit(class_link("http://h", branch="main", lang="zh", root=clone)).query)
    assert zh["branch"] == ["main"]
    assert zh["urlpath"] == ["lab/tree/streaming-course/notebooks/zh/00_start_here.ipynb"]


def test_without_origin_the_link_says_to_pass_repo_and_repo_stands_in(clone, capsys):
    with pytest.raises(NoOrigin, match="origin") as error:
        class_link("https://hub.example.edu", root=clone)
    assert str(clone) in str(error.value) and "--repo" in str(error.value)
    link = class_link("https://hub.example.edu", repo="/srv/git/course", root=clone)
    assert parse_qs(urlsplit(link).query)["repo"] == ["/srv/git/course"]


def test_the_course_goes_into_streaming_course_whatever_the_repository_is_called(clone):
    # The hub's configuration puts each learner's my_client/ in ~/streaming-course/: a
    # repository named otherwise still lands there, or the lessons' my_client/ would not
    # be in the learner's copy of the course.
    for repo in ("https://git.example.org/me/sse-lessons.git", "/srv/git/wt", "git@h:me/x.git"):
        query = parse_qs(urlsplit(class_link("https://h", repo=repo, root=clone)).query)
        assert query["targetpath"] == [FOLDER] == ["streaming-course"]
        assert query["urlpath"] == ["lab/tree/streaming-course/notebooks/00_start_here.ipynb"]
    moved = parse_qs(urlsplit(class_link("https://h", repo="/r", root=clone, folder="sse")).query)
    assert moved["targetpath"] == ["sse"]
    assert moved["urlpath"] == ["lab/tree/sse/notebooks/00_start_here.ipynb"]


@pytest.mark.parametrize("folder", ["", "a/b", "../up", ".hidden", "/abs", "a\\b"])
def test_a_folder_that_is_not_one_name_is_refused(clone, folder, capsys):
    with pytest.raises(BadLink, match="--folder"):
        class_link("https://h", repo="/r", root=clone, folder=folder)
    with pytest.raises(SystemExit) as stopped:
        main(["class-link", "--hub", "https://h", "--repo", "/r", "--folder", folder])
    assert stopped.value.code == 2 and "--folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    "hub",
    [
        "https://hub.example.edu/hub/home",  # copied from the browser: a page of the hub
        "https://hub.example.edu/hub/",
        "https://hub.example.edu/user/teacher/lab",
        "https://hub.example.edu/?next=x",
        "https://hub.example.edu/#top",
    ],
)
def test_a_page_of_the_hub_is_refused_naming_its_address(clone, hub):
    with pytest.raises(BadLink, match="https://hub.example.edu\\)"):
        class_link(hub, repo="https://x/course.git", root=clone)


def test_an_unknown_lesson_names_the_lessons_there_and_a_folder_with_none_says_so(clone, tmp_path):
    with pytest.raises(BadLink, match=r"--lesson 05: .*\(there: 00, 02\)"):
        class_link("https://h", repo="/r", lesson="05", root=clone)
    with pytest.raises(BadLink, match="class-link in the course's clone"):
        class_link("https://h", repo="/r", root=tmp_path / "empty")


@pytest.mark.parametrize(
    "hub, lesson",
    [
        ("hub.example.edu", "00"),
        ("ftp://h", "00"),
        ("http://", "00"),
        ("https://h/ x", "00"),
        ("https://h", "2"),
        ("https://h", "09"),
    ],
)
def test_a_bad_hub_or_lesson_is_refused_naming_the_option(clone, hub, lesson, capsys):
    with pytest.raises(BadLink, match="--hub" if lesson == "00" else "--lesson"):
        class_link(hub, repo="https://x/course.git", lesson=lesson, root=clone)
    with pytest.raises(SystemExit) as stopped:
        main(["class-link", "--hub", hub, "--repo", "https://x/c.git", "--lesson", lesson])
    assert stopped.value.code == 2 and "class-link: error:" in capsys.readouterr().err


def test_the_command_prints_the_link_for_this_course(capsys):
    assert main(["class-link", "--hub", "https://h", "--repo", "https://x/streaming-course"]) == 0
    query = parse_qs(urlsplit(capsys.readouterr().out.strip()).query)
    assert query["urlpath"] == ["lab/tree/streaming-course/notebooks/00_start_here.ipynb"]
    argv = ["class-link", "--hub", "https://h/", "--repo", "https://x/y", "--folder", "sse"]
    assert main(argv) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("https://h/hub/user-redirect/git-pull?")
    assert parse_qs(urlsplit(link).query)["targetpath"] == ["sse"]


# -- class-report ---------------------------------------------------------------------

EXERCISES = ["01_line_splitter", "02_thinking_blocks"]


def home(homes, learner, exercises_from, my_client=None):
    """A learner's home as nbgitpuller leaves it: the course in streaming-course/."""
    course = homes / learner / "streaming-course"
    (course / "exercises").mkdir(parents=True)
    (course / "notebooks").mkdir()
    for name in EXERCISES:
        shutil.copy(exercises_from / f"{name}.ipynb", course / "exercises")
    if my_client is not None:
        shutil.copytree(my_client, course / "my_client")
    return course


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The report of four homes, in English and in Chinese."""
    homes = tmp_path_factory.mktemp("homes")
    home(homes, "ada", ROOT / "solutions", REFERENCE)
    home(homes, "bo", ROOT / "exercises")
    stuck = home(homes, "cy", ROOT / "solutions", REFERENCE)
    # A learner's cell that never ends: it leaves its process id, then sleeps.
    path = stuck / "exercises" / "02_thinking_blocks.ipynb"
    notebook = nbformat.read(path, as_version=4)
    hang = "import os, time\nopen('kernel.pid', 'w').write(str(os.getpid()))\ntime.sleep(3600)"
    notebook.cells.insert(1, nbformat.v4.new_code_cell(hang))
    nbformat.write(notebook, path)
    (homes / "dee").mkdir()
    (homes / "dee" / "notes.txt").write_text("no course here", encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    before = {p: p.read_bytes() for p in homes.rglob("*") if p.is_file()}
    status = main(
        ["class-report", str(homes), "--out", str(out / "en"), "--timeout", "90", "--jobs", "2"]
    )
    assert status == 0
    after = {p: p.read_bytes() for p in homes.rglob("*") if p.is_file() and p.name != "kernel.pid"}
    return homes, out, before, after


def rows_of(path):
    with path.open(encoding="utf-8-sig", newline="") as file:
        return list(csv.reader(file))


def test_the_report_has_one_row_per_learner_as_their_work_stands(report):
    homes, out, _, _ = report
    header, *rows = rows_of(out / "en" / class_report.CSV_NAME)
    assert header == [
        "learner",
        "lessons done",
        "exercises passing",
        "my-client",
        "first failing stage",
    ]
    by_name = {row[0]: row for row in rows}
    assert sorted(by_name) == ["ada", "bo", "cy", "dee"]
    ada, bo, cy, dee = (by_name[name] for name in ("ada", "bo", "cy", "dee"))
    assert ada[2] == "2 of 2" and ada[4] == "none: every stage passes"
    count = ada[3].split(" of ")[1]
    assert ada[3] == f"{count} of {count}" and int(count) > 0
    lessons = ada[1].split(" of ")
    assert lessons[0] == lessons[1] and int(lessons[0]) >= 4
    assert bo[1] == f"0 of {lessons[1]}" and bo[2] == "0 of 2" and bo[3] == f"0 of {count}"
    assert bo[4] == "sse (lesson 01)"
    assert cy[4] == "stopped: longer than 90 s"
    assert cy[1] == ""  # its lessons are not known: not "0 of N", which says none is done
    assert dee[1:] == ["", "", "", "no course in this home"]


def test_a_learner_stopped_by_the_time_limit_leaves_no_kernel_running(report):
    homes, *_ = report
    pid = int((homes / "cy" / "streaming-course" / "exercises" / "kernel.pid").read_text())
    with contextlib.suppress(psutil.NoSuchProcess):  # killed: gone, or a zombie not yet reaped
        assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_the_report_writes_nothing_into_a_learners_home(report):
    _, _, before, after = report
    assert after == before


def test_the_page_holds_every_row_and_sorts_with_its_own_script_only(report):
    _, out, _, _ = report
    page = (out / "en" / class_report.HTML_NAME).read_text(encoding="utf-8")
    assert page.count("<tr>") == 5 and "sse (lesson 01)" in page
    assert "<script>" in page and "src=" not in page and "href=" not in page
    assert '<html lang="en">' in page


def test_the_report_in_chinese_takes_its_words_from_the_catalogue(tmp_path, report):
    homes, *_ = report
    one = tmp_path / "homes"
    shutil.copytree(homes / "dee", one / "dee")
    assert main(["class-report", str(one), "--out", str(tmp_path / "zh"), "--lang", "zh"]) == 0
    header, row = rows_of(tmp_path / "zh" / class_report.CSV_NAME)
    assert (
        header
        == list(class_report.COLUMNS["zh"].values())
        != list(class_report.COLUMNS["en"].values())
    )
    assert row[4] == class_report.REPORT["zh"]["report_no_course"] != "no course in this home"


def test_a_homes_dir_that_is_no_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["class-report", str(tmp_path / "nowhere")])
    assert stopped.value.code == 2 and "not a folder" in capsys.readouterr().err
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        main(["class-report", str(tmp_path / "a-file")])
    assert stopped.value.code == 2 and "not a folder" in capsys.readouterr().err


def test_a_homes_dir_with_no_home_is_refused_rather_than_an_empty_table(tmp_path, capsys):
    (tmp_path / "homes").mkdir()
    (tmp_path / "homes" / "notes.txt").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        main(["class-report", str(tmp_path / "homes"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2 and "no learner's home" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("given", ["ana", "ana/streaming-course"])
def test_one_learners_home_or_course_given_for_the_homes_is_refused(tmp_path, given, capsys):
    home(tmp_path / "homes", "ana", ROOT / "exercises")
    with pytest.raises(SystemExit) as stopped:
        main(["class-report", str(tmp_path / "homes" / given), "--out", str(tmp_path / "out")])
    said = capsys.readouterr().err
    assert stopped.value.code == 2 and "is one home" in said and "/home" in said
    assert not (tmp_path / "out").exists()


NOBODY = 65534  # the unprivileged user of Debian and most Linux systems


def runs_as_nobody():
    """Whether this Python starts as NOBODY (its files may sit in a folder only root reads)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", "pass"], user=NOBODY, group=NOBODY, capture_output=True
        )
    except PermissionError:
        return False
    return done.returncode == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_run_as_root_a_learners_checks_run_as_the_owner_of_their_home_never_as_root():
    # Under the system's temporary folder, readable by every user (pytest's own is root's).
    where = Path(tempfile.mkdtemp(prefix="class-report-test-"))
    try:
        where.chmod(0o755)
        witness = where / "witness"
        witness.mkdir(mode=0o777)
        witness.chmod(0o777)
        course = home(where / "homes", "ana", ROOT / "exercises", REFERENCE)
        lines = course / "my_client" / "lines.py"
        spy = f"import os\nopen({str(witness / 'uid')!r}, 'w').write(str(os.getuid()))\n"
        lines.write_text(spy + lines.read_text(encoding="utf-8"), encoding="utf-8")
        for path in [where / "homes" / "ana", *(where / "homes" / "ana").rglob("*")]:
            os.lchown(path, NOBODY, NOBODY)
        root_home = where / "homes" / "root-home"
        root_home.mkdir()
        assert class_report.owner(where / "homes" / "ana") == (NOBODY, NOBODY)
        assert class_report.owner(root_home) is None
        checked = class_report.check(where / "homes" / "ana", timeout=300)
        if runs_as_nobody():
            assert (witness / "uid").read_text() == str(NOBODY)
            assert checked.my_client is not None and checked.my_client["passed"] > 0
        else:  # this Python is out of the learner's reach: refused to them, so not run as root
            assert not (witness / "uid").exists()
            assert checked.stopped.startswith("broken:") and "Permission denied" in checked.stopped
    finally:
        shutil.rmtree(where)
