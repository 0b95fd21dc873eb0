"""The Chinese edition's exercises: exercises/zh/ made from solutions/zh/, checked in Chinese.

- `scripts/make_exercises.py` makes both editions, each with its stubs in its own language,
  and keeps for the Chinese edition every guarantee it gives the English one: a learner's
  answers are never overwritten, `--check` and `--reset NN` work per edition;
- the check cells' Chinese first lines (`# 检查 2：...`) name the checks, for `make progress`
  and for nbval, and the lesson label `**对应：** [第 02 课](...)` names the lesson;
- `python -m streaming_lib progress --lang zh` runs exercises/zh/ and prints its table in
  Chinese; on the exercises as handed out every check fails with the Chinese stub's message.

The real Chinese solutions are generated from translations (scripts/translate.py), so these
tests use a small hand-made pair of solutions, one per edition, in a temporary folder.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from streaming_lib.__main__ import main as course_command
from streaming_lib.tools import progress

ROOT = Path(__file__).resolve().parent.parent


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_exercises = load_script("make_exercises")
execute_solutions = load_script("execute_solutions")

STUB_MESSAGE = "在这里写你的代码"
ZH_STUB = f'raise NotImplementedError("{STUB_MESSAGE}")'

# One solution, in each edition: (intro, hint, question, answer, check 1, check 2).
TEXTS = {
    "en": (
        "# Exercise 1 · Doubling\n\n"
        "**Lesson:** [notebook 02](../notebooks/02_chunks_to_lines.ipynb)"
        " · **Difficulty:** ★☆☆ · **Time:** about 5 minutes",
        "# Multiply x by 2.",
        "Why double?",
        "Because.",
        '# Check 1: double doubles.\nassert double(2) == 4, "double(2) should be 4"',
        '# Check 2: double of 0.\nassert double(0) == 0, "double(0) should be 0"',
    ),
    "zh": (
        "# 练习 1 · 加倍\n\n**对应：** [第 02 课](../../notebooks/zh/02_chunks_to_lines.ipynb)"
        " · **难度：** ★☆☆ · **时长：** 约 5 分钟。",
        "# 把 x 乘以 2。",
        "为什么要加倍？",
        "因为。",
        '# 检查 1：double 把数加倍。\nassert double(2) == 4, "double(2) 应该是 4"',
        '# 检查 2：0 的两倍。\nassert double(0) == 0, "double(0) 应该是 0"',
    ),
}


def solution(lang):
    intro, hint, question, answer, check_1, check_2 = TEXTS[lang]
    cells = [
        nbformat.v4.new_markdown_cell(intro, id="intro"),
        nbformat.v4.new_code_cell("%xmode Minimal", id="setup"),
        nbformat.v4.new_code_cell(
            f"def double(x):\n    ### BEGIN SOLUTION\n    {hint}\n    return 2 * x\n"
            "    ### END SOLUTION",
            id="double",
        ),
        nbformat.v4.new_markdown_cell(
            f"{question}\n\n<!-- BEGIN SOLUTION -->\n{answer}\n<!-- END SOLUTION -->", id="why"
        ),
        nbformat.v4.new_code_cell(check_1, id="check-1", metadata={"tags": ["check"]}),
        nbformat.v4.new_code_cell(check_2, id="check-2", metadata={"tags": ["check"]}),
    ]
    return nbformat.v4.new_notebook(
        cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )


def save(notebook, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(make_exercises.render(notebook), encoding="utf-8")


def read(path):
    return nbformat.read(path, as_version=4)


def cell(notebook, cell_id):
    return next(c for c in notebook.cells if c.get("id") == cell_id)


@pytest.fixture
def course(tmp_path):
    """solutions/ and solutions/zh/ of one hand-made exercise, and both editions made from them.

    Returns (solutions, exercises)."""
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    save(solution("en"), solutions / "01_double.ipynb")
    save(solution("zh"), solutions / "zh" / "01_double.ipynb")
    assert make_exercises.main([], solutions, exercises) == 0
    return solutions, exercises


def answer(path):
    """Fill in the exercise at `path` as a learner would."""
    notebook = read(path)
    cell(notebook, "double").source = "def double(x):\n    return x + x"
    save(notebook, path)
    return path.read_bytes()


# -- the Chinese edition as committed (generated from the translations) --------------------------

ZH_SOLUTIONS = sorted((ROOT / "solutions" / "zh").glob("[0-9][0-9]_*.ipynb"))
needs_translations = pytest.mark.skipif(not ZH_SOLUTIONS, reason="no solutions/zh/ yet")


@needs_translations
def test_the_chinese_exercises_are_up_to_date_with_the_chinese_solutions():
    zh = make_exercises.editions()["zh"]
    stale = make_exercises.stale_files(*zh, lang="zh")
    assert not stale, "run `make exercises`:\n" + "\n".join(
        f"  zh/{path.name}: {'; '.join(why)}" for path, why in stale.items()
    )
    assert [path.name for path in ZH_SOLUTIONS] == [
        path.name for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    ]


@needs_translations
def test_every_chinese_exercise_as_handed_out_fails_its_first_check_in_chinese(tmp_path, capsys):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    for path in ZH_SOLUTIONS:
        (solutions / "zh").mkdir(parents=True, exist_ok=True)
        (solutions / "zh" / path.name).write_bytes(path.read_bytes())
    assert make_exercises.main(["--edition", "zh"], solutions, exercises) == 0
    capsys.readouterr()
    assert course_command(["progress", "--lang", "zh", "--dir", str(exercises / "zh")]) == 0
    table = capsys.readouterr().out
    for path in ZH_SOLUTIONS:
        checks = sum(bool(progress.check_name(c)) for c in read(path).cells)
        lesson = progress.lesson(read(path))
        assert re.match(r"第 \d\d 课$", lesson), lesson
        row = rf"^{path.stem} +{lesson} +0 / {checks}  "
        assert re.search(row + f"检查 1：NotImplementedError: {STUB_MESSAGE}$", table, re.M), table
    assert f"{len(ZH_SOLUTIONS)} 个练习完成了 0 个" in table


# -- the machinery, on a hand-made pair --------------------------------------------------------


def test_make_exercises_makes_both_editions_each_with_stubs_in_its_own_language(course):
    _, exercises = course
    english, chinese = (
        read(exercises / "01_double.ipynb"),
        read(exercises / "zh" / "01_double.ipynb"),
    )
    assert cell(chinese, "double").source == f"def double(x):\n    # 把 x 乘以 2。\n    {ZH_STUB}"
    assert cell(english, "double").source.endswith('raise NotImplementedError("your code here")')
    assert cell(chinese, "why").source == "为什么要加倍？\n\n" + make_exercises.STUBS["zh"][1]
    assert "因为" not in cell(chinese, "why").source
    assert cell(english, "why").source.endswith(make_exercises.MARKDOWN_STUB)
    assert re.search(r"[\u4e00-\u9fff]", make_exercises.STUBS["zh"][1])


def test_an_edition_can_be_made_or_checked_alone(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    save(solution("en"), solutions / "01_double.ipynb")
    save(solution("zh"), solutions / "zh" / "01_double.ipynb")
    assert make_exercises.main(["--edition", "zh"], solutions, exercises) == 0
    assert (exercises / "zh" / "01_double.ipynb").exists()
    assert not (exercises / "01_double.ipynb").exists()
    assert make_exercises.main(["--check", "--edition", "zh"], solutions, exercises) == 0
    assert make_exercises.main(["--check"], solutions, exercises) == 1  # English is missing


def test_a_chinese_learners_answers_are_never_overwritten_and_the_message_says_how_to_reset(
    course, capsys
):
    solutions, exercises = course
    path = exercises / "zh" / "01_double.ipynb"
    filled = answer(path)
    assert make_exercises.main(["--check"], solutions, exercises) == 0  # answers are not stale
    # The translator changes the hint: the exercise is out of date, but holds an answer.
    changed = read(solutions / "zh" / "01_double.ipynb")
    cell(changed, "double").source = cell(changed, "double").source.replace("乘以 2", "翻一倍")
    save(changed, solutions / "zh" / "01_double.ipynb")
    capsys.readouterr()
    assert make_exercises.main(["--check"], solutions, exercises) == 1
    assert "out of date: " + str(path) in capsys.readouterr().out
    assert make_exercises.main([], solutions, exercises) == 1
    err = capsys.readouterr().err
    assert "not overwritten: " + str(path) in err
    assert "python scripts/make_exercises.py --reset 01 --edition zh" in err
    assert path.read_bytes() == filled
    assert make_exercises.main(["--force", "--edition", "en"], solutions, exercises) == 0
    assert path.read_bytes() == filled  # --edition en touches only the English exercises


def test_reset_puts_back_the_exercise_of_the_edition_named_only(course, capsys):
    solutions, exercises = course
    english, chinese = exercises / "01_double.ipynb", exercises / "zh" / "01_double.ipynb"
    filled_english, _ = answer(english), answer(chinese)
    assert make_exercises.main(["--reset", "01", "--edition", "zh"], solutions, exercises) == 0
    assert ZH_STUB in cell(read(chinese), "double").source
    assert english.read_bytes() == filled_english
    # Without --edition, --reset means the English exercise.
    answer(chinese)
    filled_chinese = chinese.read_bytes()
    assert make_exercises.main(["--reset", "01"], solutions, exercises) == 0
    assert "your code here" in cell(read(english), "double").source
    assert chinese.read_bytes() == filled_chinese


def test_execute_solutions_runs_the_chinese_solutions_too(tmp_path, monkeypatch):
    save(solution("en"), tmp_path / "solutions" / "01_double.ipynb")
    save(solution("zh"), tmp_path / "solutions" / "zh" / "01_double.ipynb")
    monkeypatch.setattr(execute_solutions, "ROOT", tmp_path)
    assert execute_solutions.solution_paths() == [
        tmp_path / "solutions" / "01_double.ipynb",
        tmp_path / "solutions" / "zh" / "01_double.ipynb",
    ]


def test_chinese_check_lines_and_lesson_labels_name_the_checks_and_the_lesson():
    notebook = solution("zh")
    assert [progress.check_name(c) for c in notebook.cells if progress.check_name(c)] == [
        "检查 1",
        "检查 2",
    ]
    assert progress.lesson(notebook) == "第 02 课"
    # A half-width colon after 检查 N is read too, as a check's name must never be lost.
    half = nbformat.v4.new_code_cell("# 检查 3: x", metadata={"tags": ["check"]})
    assert progress.check_name(half) == "检查 3"


def test_progress_in_chinese_on_the_exercises_as_handed_out_fails_every_check_in_chinese(
    course, capsys
):
    _, exercises = course
    assert course_command(["progress", "--dir", str(exercises / "zh")]) == 0  # zh/: Chinese
    table = capsys.readouterr().out
    lines = table.splitlines()
    assert re.fullmatch(r"练习 +课 +检查 +第一个失败", lines[0])
    assert re.fullmatch(
        r"01_double +第 02 课 +0 / 2  检查 1：NotImplementedError: 在这里写你的代码", lines[2]
    )
    # The columns line up in a terminal, where a Chinese character is two columns wide.
    assert progress.width(lines[0].split("第一个失败")[0]) == progress.width(
        lines[2].split("检查 1：")[0]
    )
    assert "1 个练习完成了 0 个；2 项检查通过了 0 项。" in table
    assert "下一步：01_double，检查 1：double 把数加倍。" in table


def test_progress_lang_zh_runs_the_chinese_exercises_and_english_stays_the_default(
    course, capsys, monkeypatch
):
    _, exercises = course
    answer(exercises / "zh" / "01_double.ipynb")
    monkeypatch.setattr(progress, "EXERCISES_DIR", exercises)
    assert course_command(["progress", "--lang", "zh"]) == 0
    table = capsys.readouterr().out
    assert re.search(r"^01_double +第 02 课 +2 / 2  全部通过$", table, re.M)
    assert course_command(["progress"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("exercise")
    assert re.search(r"^01_double +notebook 02 +0 of 2  Check 1: NotImplementedError", table, re.M)


def test_nbval_reports_a_failing_chinese_check_under_its_chinese_name(course):
    _, exercises = course
    (exercises / "conftest.py").write_bytes((ROOT / "exercises" / "conftest.py").read_bytes())
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval-lax",
            "-p",
            "no:cacheprovider",
            "--color=no",
            "exercises/zh/01_double.ipynb",
        ],
        cwd=exercises.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    failed = re.findall(r"^FAILED (.+?) - ", run.stdout, re.M)
    assert failed == [
        "exercises/zh/01_double.ipynb::检查 1",
        "exercises/zh/01_double.ipynb::检查 2",
    ], run.stdout
    assert "检查 1：double 把数加倍。\n" in run.stdout
    assert "在这里写你的代码" in run.stdout
