"""The two ways to install the course agree, and the README's commands exist."""

import doctest
import importlib
import importlib.util
import json
import os
import pkgutil
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

import streaming_lib

ROOT = Path(__file__).resolve().parent.parent


def requirement_names(requirements):
    return {
        re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower(): r.replace(" ", "") for r in requirements
    }


def environment_pip_list():
    lines = (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    start = lines.index("  - pip:")
    entries = [line.strip()[2:] for line in lines[start + 1 :] if line.strip().startswith("- ")]
    return [e for e in entries if not e.startswith("-e ")]


def test_environment_yml_installs_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert requirement_names(environment_pip_list()) == requirement_names(project["dependencies"])


def test_environment_yml_installs_the_course_package_itself():
    lines = (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines()
    assert "      - -e .[dev,providers]" in lines


def test_the_readme_shows_the_two_make_commands_and_the_makefile_has_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test"):
        assert f"make {target}" in readme
        assert re.search(rf"^{target}:", makefile, re.M)


def test_the_chinese_readme_shows_the_same_two_commands_and_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    assert "中文版: [README.zh-CN.md](README.zh-CN.md)" in readme.split("\n\n", 3)[1]
    for command in (
        "make lab",
        "make test",
        "python scripts/course.py lab",
        "python scripts/course.py test",
    ):
        assert re.search(rf"^{re.escape(command)}\b", readme, re.M), command
        assert re.search(rf"^{re.escape(command)}\b", chinese, re.M), command
    # And how to open the Chinese edition, which the Makefile and course.py both do.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "make lab-zh" in chinese and "python scripts/course.py lab --zh" in chinese
    assert re.search(r"^lab-zh:", makefile, re.M)
    recipe = makefile.split("\nlab-zh:", 1)[1].split("\n\n", 1)[0]
    assert "--LabApp.default_url=/lab/tree/notebooks/zh/00_start_here.ipynb" in recipe
    assert load_course().FIRST_NOTEBOOK_ZH == "notebooks/zh/00_start_here.ipynb"


def test_every_chinese_notebook_the_chinese_readme_names_has_an_english_original():
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bnotebooks/zh/[\w/]+\.ipynb", chinese))
    assert len(named) >= 8 + 4  # the lessons and the bonus notebooks
    for path in named:
        assert (ROOT / path.replace("notebooks/zh/", "notebooks/", 1)).exists(), path
    # Every lesson is on the Chinese course map.
    for lesson in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        assert f"(notebooks/zh/{lesson.name})" in chinese, lesson.name


def test_the_chinese_readme_holds_the_whole_glossary():
    chinese = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    terms = yaml.safe_load((ROOT / "i18n" / "glossary.yml").read_text(encoding="utf-8"))["terms"]
    rows = {
        row[0].strip("` "): row[1].strip()
        for row in (line.strip("|").split(" | ") for line in chinese.splitlines())
        if len(row) == 2
    }
    assert {term: rows.get(term) for term in terms} == terms


def load_course():
    """scripts/course.py, the two commands without make, as a module."""
    spec = importlib.util.spec_from_file_location("course", ROOT / "scripts" / "course.py")
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


def test_binder_builds_the_same_environment_without_the_package_and_installs_it_after():
    # repo2docker builds binder/environment.yml before the repository is copied in.
    def body(path):
        lines = path.read_text(encoding="utf-8").splitlines()
        return [line for line in lines if not line.startswith("#")]

    root, binder = body(ROOT / "environment.yml"), body(ROOT / "binder" / "environment.yml")
    assert binder == [line for line in root if line.strip() != "- -e .[dev,providers]"]
    post_build = ROOT / "binder" / "postBuild"
    assert post_build.stat().st_mode & 0o111  # repo2docker runs it only if executable
    steps = post_build.read_text(encoding="utf-8")
    assert "pip install --no-deps -e ." in steps and "scripts/course.py settings" in steps


def test_the_script_without_make_runs_the_makefiles_commands():
    course = load_course()
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    made = [
        line.strip().split(" || ")[0].replace("$(BIN)/python", "python")
        for line in recipe.splitlines()
        if "-m pytest" in line
    ]
    assert [
        " ".join(["python", *command[1:]]) for command in course.test_commands("python")
    ] == made
    lab = " ".join(course.lab_command("python"))
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in lab
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in makefile


def test_the_lab_settings_turn_off_the_news_and_keep_other_settings(tmp_path):
    course = load_course()
    settings = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    assert course.write_settings(tmp_path) == settings
    written = json.loads(settings.read_text())
    assert written["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert written["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert "scripts/course.py settings" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_ci_calls_the_readmes_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


LIBRARY_MODULES = [
    module.name
    for module in pkgutil.walk_packages(streaming_lib.__path__, "streaming_lib.")
    if not module.name.endswith("__main__")
]


@pytest.mark.parametrize("name", LIBRARY_MODULES)
def test_every_library_module_has_docstring_examples_and_they_all_pass(name):
    results = doctest.testmod(importlib.import_module(name))
    assert results.attempted > 0, f"{name} has no docstring example to run"
    assert results.failed == 0


# -- what a new user trips on ------------------------------------------------------------------


def test_make_lab_takes_a_port_and_no_browser_as_the_readme_and_the_makefile_header_say():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    header = makefile.split("\n\n", 1)[0]
    assert "make lab PORT=8890 BROWSER=no" in readme and "make lab PORT=8890 BROWSER=no" in header
    for target in ("lab", "lab-zh"):
        run = subprocess.run(
            ["make", "-n", target, "PORT=8890", "BROWSER=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        assert "--ServerApp.port=8890 --ServerApp.open_browser=False" in run.stdout, run.stdout
        plain = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
        assert "--ServerApp.port" not in plain.stdout and "open_browser" not in plain.stdout
    lab = load_course().lab_command("python", port=8890, browser=False)
    assert "--ServerApp.port=8890" in lab and "--ServerApp.open_browser=False" in lab


def test_make_stops_with_one_sentence_before_pip_when_python_is_older_than_3_11(tmp_path):
    old = tmp_path / "python3.9"
    old.write_text('#!/bin/sh\n[ "$1" = "-V" ] && echo "Python 3.9.18" && exit 0\nexit 1\n')
    old.chmod(0o755)
    venv = tmp_path / "venv"
    # As a learner types it, even when this test runs under `make test` (a make inside
    # make would print "Entering directory" lines).
    outer = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"}
    environ = {name: value for name, value in os.environ.items() if name not in outer}
    run = subprocess.run(
        ["make", f"{venv}/bin/.installed", f"PYTHON={old}", f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environ,
    )
    assert run.returncode != 0 and not venv.exists()
    said = [line for line in run.stdout.splitlines() if "3.11" in line]
    assert said == [
        f"The course needs Python 3.11 or newer, and {old} is Python 3.9.18: "
        "run make PYTHON=python3.12 (or another 3.11+)."
    ]
    assert run.stdout.splitlines() == said  # before the set-up begins (and pip with it)


def test_the_script_without_make_stops_with_one_sentence_on_an_old_python():
    course = load_course()
    assert course.python_too_old((3, 10, 4)) == (
        "The course needs Python 3.11 or newer, and this is Python 3.10.4: "
        "run this script with a newer python."
    )
    assert course.python_too_old((3, 11, 0)) is None
    assert course.OLDEST_PYTHON == (3, 11)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in pyproject


def test_the_readme_shows_the_test_commands_exactly_as_the_makefile_runs_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    # Each stage's command, without the shell around it that runs both and reports them.
    commands = [line.strip().split(" ||")[0] for line in recipe if " -m pytest " in line]
    assert len(commands) == 2, recipe
    for command in commands:
        shown = command.replace("$(BIN)/", ".venv/bin/")
        assert re.search(rf"^{re.escape(shown)}$", readme, re.M), shown
    assert "--nbval-sanitize-with notebooks/sanitize.cfg" in readme


def test_make_test_runs_both_stages_when_the_first_fails_says_so_and_fails(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "ran"
    python = venv / "bin" / "python"  # fails the tests' stage, passes the notebooks'
    python.write_text(
        f'#!/bin/sh\necho "$*" >> {log}\ncase "$*" in *--nbval*) exit 0;; esac\nexit 1\n'
    )
    python.chmod(0o755)
    (venv / "bin" / ".installed").touch()  # newer than what it depends on: no set-up
    outer = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"}
    environ = {name: value for name, value in os.environ.items() if name not in outer}
    run = subprocess.run(
        ["make", "-s", "test", f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environ,
    )
    assert run.returncode != 0
    assert [line.split()[2] for line in log.read_text().splitlines()] == ["tests", "--nbval"]
    assert "make test: tests FAILED, notebooks (nbval) passed" in run.stdout


def test_a_kernel_that_lost_the_port_race_is_started_again_and_any_other_error_is_not():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    root_conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(root_conftest)
    tries = []

    def start(fails, error):
        tries.append(fails)
        if len(tries) <= fails:
            raise RuntimeError(error)
        return "kernel"

    assert root_conftest.retrying(start)(1, root_conftest.LOST_PORT_RACE) == "kernel"
    assert len(tries) == 2
    tries.clear()
    with pytest.raises(RuntimeError):
        root_conftest.retrying(start)(1, "Kernel info reqest timed out")
    assert len(tries) == 1
    tries.clear()
    with pytest.raises(RuntimeError):
        root_conftest.retrying(start, attempts=3)(5, root_conftest.LOST_PORT_RACE)
    assert len(tries) == 3
