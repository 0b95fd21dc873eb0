"""The Chinese teacher's kit is held to the English kit's rules: TEACHING.zh-CN.md gives the
same minutes as TEACHING.md and links every lesson's notes, every note of teaching/ has its
Chinese twin in teaching/zh/ with the same sections, and no cell, command or name the English
notes point at is left out of the Chinese ones (only moved to the Chinese edition's paths)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE, GUIDE_ZH = ROOT / "TEACHING.md", ROOT / "TEACHING.zh-CN.md"
NOTES = sorted((ROOT / "teaching").glob("*.md"))
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# Each English section heading of a lesson's notes, as its Chinese twin writes it.
SECTIONS = {
    "Timing": "时间安排",
    "Live-code": "当场敲的代码",
    "Stepper moments": "步进器",
    "Misconceptions": "常见误解",
    "Your turn answers": "动手题答案",
    "Review answers": "复习题答案",
}
# Code spans of the English notes that are English words on purpose, and their Chinese form.
SAID_IN_CHINESE = {
    "step k / 19": "第 k / 19 步",
    "line(raw, its offset)": "line(raw, 它的偏移量)",
    "kept:": "保留:",  # what the Chinese lesson prints
}

notes = pytest.mark.parametrize("english", NOTES, ids=[path.stem for path in NOTES])


def twin(english: Path) -> Path:
    return ROOT / "teaching" / "zh" / english.name


def code_spans(markdown: str) -> set[str]:
    """The inline code of `markdown` (fenced blocks left out)."""
    return set(re.findall(r"`([^`\n]+)`", re.sub(r"(?ms)^```.*?^```", "", markdown)))


def chinese_forms(span: str) -> set[str]:
    """How the Chinese kit may write an English code span: as it is, or pointing at the
    Chinese edition (notebooks/zh/..., a stepper with lang="zh", make lab-zh ...)."""
    forms = {span, SAID_IN_CHINESE.get(span, span)}
    for folder in ("notebooks/", "exercises/", "solutions/"):
        if span.startswith(folder):
            forms.add(span.replace(folder, f"{folder}zh/", 1))
    if span.startswith("StreamStepper(") and span.endswith(")"):
        forms.add(span[:-1] + ', lang="zh")')
    forms |= {span + "-zh", span + " --zh"}
    return forms


def table_rows(markdown: str, first_cell: str) -> dict[str, list[str]]:
    """The rows of `markdown`'s tables whose first cell matches `first_cell`, by that cell."""
    rows = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(first_cell, cells[0]):
            rows[cells[0]] = cells[1:]
    return rows


def section_titles(markdown: str) -> list[str]:
    return re.findall(r"^## (.+)$", markdown, re.M)


@pytest.mark.parametrize("lesson", LESSONS, ids=[path.stem for path in LESSONS])
def test_the_chinese_guide_links_each_lessons_chinese_notes_with_the_english_minutes(lesson):
    english = table_rows(GUIDE.read_text(encoding="utf-8"), r"`\d\d_\w+\.ipynb`")
    chinese = table_rows(GUIDE_ZH.read_text(encoding="utf-8"), r"`\d\d_\w+\.ipynb`")
    key = f"`{lesson.name}`"
    assert chinese[key][:2] == english[key][:2], "minutes in class, on your own"
    assert f"](teaching/zh/{lesson.stem}.md)" in chinese[key][2]
    bonus = re.findall(r"`bonus/[\w.]+`", english[key][3])
    assert bonus == re.findall(r"`bonus/[\w.]+`", chinese[key][3])


def test_the_chinese_guide_links_the_keys_the_cheat_sheet_and_gives_the_commands():
    guide = GUIDE_ZH.read_text(encoding="utf-8")
    for link in ("](teaching/zh/exercises.md)", "](teaching/zh/cheatsheet.md)", "](TEACHING.md)"):
        assert link in guide
    commands = ("make lab-zh", "make test", "make slides", "make cheatsheet", "make progress-zh")
    for command in commands:
        assert command in guide
    english = GUIDE.read_text(encoding="utf-8")

    def rows(markdown):
        return [line for line in markdown.splitlines() if line.startswith("| ")]

    assert len(rows(guide)) == len(rows(english)), "every table row: commands, lessons, beliefs"
    assert len(section_titles(guide)) == len(section_titles(english))


@notes
def test_every_note_of_the_english_kit_has_its_chinese_twin(english):
    assert twin(english).exists(), f"teaching/zh/{english.name}"


def test_the_chinese_kit_has_no_note_the_english_kit_lacks():
    assert {path.name for path in (ROOT / "teaching" / "zh").glob("*.md")} == {
        path.name for path in NOTES
    }


@notes
def test_a_lessons_chinese_notes_have_the_english_notes_sections_in_order(english):
    if not re.match(r"\d\d_", english.name):
        pytest.skip("not a lesson's notes")
    expected = [SECTIONS[title] for title in section_titles(english.read_text(encoding="utf-8"))]
    assert section_titles(twin(english).read_text(encoding="utf-8")) == expected


@notes
def test_the_chinese_notes_keep_every_cell_command_and_name_the_english_notes_point_at(english):
    chinese = code_spans(twin(english).read_text(encoding="utf-8"))
    chinese_text = twin(english).read_text(encoding="utf-8")
    missing = [
        span
        for span in sorted(code_spans(english.read_text(encoding="utf-8")))
        if not chinese & chinese_forms(span) and SAID_IN_CHINESE.get(span, "\0") not in chinese_text
    ]
    assert not missing, f"teaching/zh/{english.name} leaves out {missing}"


@notes
def test_the_chinese_notes_keep_the_english_notes_code_blocks_and_links(english):
    text, chinese = english.read_text(encoding="utf-8"), twin(english).read_text(encoding="utf-8")
    code = re.compile(r"(?ms)^```python\n.*?^```")
    assert code.findall(text) == code.findall(chinese)
    assert re.findall(r"https?://[^\s)]+", text) == re.findall(r"https?://[^\s)）]+", chinese)


def test_the_exercise_keys_give_the_english_lessons_difficulties_times_and_checks():
    keys = [ROOT / "teaching" / "exercises.md", ROOT / "teaching" / "zh" / "exercises.md"]
    english, chinese = (table_rows(path.read_text(encoding="utf-8"), r"0\d · .+") for path in keys)
    assert [key[:2] for key in chinese] == [key[:2] for key in english]
    for (_, en), (_, zh) in zip(english.items(), chinese.items(), strict=True):
        assert en[:2] == zh[:2], "lesson, difficulty"
        assert re.findall(r"\d+", en[2]) == re.findall(r"\d+", zh[2]), "minutes"
        assert re.findall(r"\d+", en[3]) == re.findall(r"\d+", zh[3]), "checks"


@pytest.mark.parametrize(
    "path",
    [GUIDE_ZH, *sorted((ROOT / "teaching" / "zh").glob("*.md"))],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_every_relative_link_of_the_chinese_kit_leads_to_a_file(path):
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)\)", text):
        if "://" not in target:
            assert (path.parent / target).exists(), target


CHECK_NAMED = re.compile(r"检查“([^”]+)”|“([^”]+)”(?:失败|和“)")


@notes
def test_every_check_the_chinese_notes_name_is_named_so_in_the_chinese_lesson(english):
    if not re.match(r"\d\d_", english.name):
        pytest.skip("not a lesson's notes")
    lesson = ROOT / "notebooks" / "zh" / f"{english.stem}.ipynb"
    texts = [lesson.read_text(encoding="utf-8")]
    texts += [
        p.read_text(encoding="utf-8")
        for p in lesson.parent.glob(f"bonus/{english.stem[:2]}_*.ipynb")
    ]
    names = {a or b for a, b in CHECK_NAMED.findall(twin(english).read_text(encoding="utf-8"))}
    unknown = sorted(name for name in names if not any(name in text for text in texts))
    assert not unknown, f"checks the lesson names otherwise: {unknown}"
