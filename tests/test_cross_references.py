"""Every pointer from one part of the course to another lands where it says, in both editions.

A learner told "notebook 06, section 4" opens notebook 06 and looks for a heading "4.";
one told "lesson 03, your turn 2" looks for a second task. This test reads every such
reference in the lessons, bonus notebooks, exercises, solutions, the teacher's guide and
notes, and both READMEs, English and Chinese:

- `notebook NN`, `lesson NN`, `notebooks 01 to 04`, a link to `NN_name.ipynb`, and the
  Chinese `第 NN 课` (`第 01–02 课`): lesson NN exists;
- followed by `section K` / `part K` (`sections 2 and 4 of notebook 06`, `第 06 课第 4 节`,
  `第 02 课第 1 部分`), K is one of that notebook's numbered headings (`## K. ...`);
  `your turn K` (`动手 K`) after a lesson: that lesson has at least K tasks;
- `section K` alone, in a lesson, a bonus notebook or a lesson's teaching notes, is a
  heading of that notebook (of the notes' lesson);
- `exercise NN` (`练习 NN`) exists in exercises/; `bonus/NAME.ipynb`, a link to it, or
  "bonus notebook `NAME`" exists in notebooks/bonus/.

And every bonus notebook is linked from a lesson, in both editions, and listed in both
teacher's guides.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LESSONS = {path.name[:2]: path for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))}
BONUS = {path.stem: path for path in sorted((NOTEBOOKS / "bonus").glob("*.ipynb"))}
EXERCISES = {path.name[:2] for path in (ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")}
GUIDES = [ROOT / "TEACHING.md", ROOT / "TEACHING.zh-CN.md"]
READMES = [ROOT / "README.md", ROOT / "README.zh-CN.md"]
NOTEBOOK_FOLDERS = [
    "notebooks",
    "notebooks/zh",
    "notebooks/bonus",
    "notebooks/zh/bonus",
    "exercises",
    "exercises/zh",
    "solutions",
    "solutions/zh",
]


def sources() -> list[Path]:
    """Every file whose words point at lessons: notebooks, exercises, solutions, the
    teacher's kit and the READMEs, both editions."""
    found = []
    for folder in NOTEBOOK_FOLDERS:
        found += sorted((ROOT / folder).glob("*.ipynb"))
    for folder in ("teaching", "teaching/zh"):
        found += sorted((ROOT / folder).glob("*.md"))
    return found + GUIDES + READMES


def words(path: Path) -> str:
    """What a reader reads: every cell's source (markdown and code, whose comments and
    messages point at lessons too), or the whole file."""
    if path.suffix == ".ipynb":
        return "\n\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


def cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def sections(path: Path) -> set[int]:
    """The numbers of a notebook's numbered headings (`## 4. Streams cut short`)."""
    return {
        int(number)
        for cell in cells(path)
        if cell.cell_type == "markdown"
        for number in re.findall(r"(?m)^##\s+(\d+)\.", cell.source)
    }


def your_turns(path: Path) -> int:
    """How many your-turn tasks a notebook sets (`**Your turn 2.**`, `**动手 2。**`)."""
    return len(
        {
            number
            for cell in cells(path)
            if cell.cell_type == "markdown"
            for number in re.findall(r"\*\*(?:Your turn|动手)\s*(\d+)", cell.source)
        }
    )


def chinese(path: Path) -> bool:
    return "zh" in path.relative_to(ROOT).parts or path.name.endswith(".zh-CN.md")


def in_edition(notebook: Path, zh: bool) -> Path:
    """An English lesson or bonus notebook, or its Chinese twin (the headings are the same)."""
    if not zh:
        return notebook
    if notebook.parent == NOTEBOOKS:
        return NOTEBOOKS / "zh" / notebook.name
    return NOTEBOOKS / "zh" / "bonus" / notebook.name


def home(path: Path) -> Path | None:
    """The notebook a bare `section K` in `path` means: the notebook itself, or the lesson
    of a teacher's note (teaching/02_chunks_to_lines.md is about notebook 02)."""
    relative = path.relative_to(ROOT).parts
    if relative[0] == "notebooks":
        return path
    if relative[0] == "teaching" and path.name[:2] in LESSONS:
        return in_edition(LESSONS[path.name[:2]], chinese(path))
    return None


# A link to a notebook becomes a token naming it, so that "[notebook 06](...), section 6"
# and "[Tool use](../04_tool_use.ipynb), section 2" read as references to their targets.
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]*?)(\d\d_[a-z0-9_]+)\.ipynb(?:#[^)]*)?\)")
LESSON_WORD = re.compile(
    r"\b(?:[Nn]otebook|[Ll]esson)\s+(\d\d)\b(?!\s*(?:to|–|-)\s*\d)|第\s*(\d\d)\s*课"
)
PLURAL = re.compile(
    r"\b(?:[Nn]otebooks|[Ll]essons)\s+(\d\d(?:\s*(?:,|and|or|to|–|-)\s*\d\d)+)"
    r"|第\s*(\d\d(?:\s*[、–-]\s*\d\d)+)\s*课"
)
NUMBERS = r"(\d+(?:\s*(?:,|and|to|、|和|–)\s*\d+)*)"
AFTER = re.compile(
    r"⟦(L|B):([^⟧]+)⟧(?:'s)?\s*[,，]?\s*(?:的)?\s*"
    rf"(?:(?:[Ss]ections?|[Pp]arts?)\s+{NUMBERS}|第\s*{NUMBERS}\s*(?:节|部分))"
)
BEFORE = re.compile(rf"\b(?:[Ss]ections?|[Pp]arts?)\s+{NUMBERS}\s+of\s+⟦(L|B):([^⟧]+)⟧")
TURN = re.compile(r"⟦L:(\d\d)⟧\s*[,，]?\s*(?:[Yy]our turn|动手)\s*(\d+)")
BARE = re.compile(
    r"(?<!RFC )(?<!RFC \d{4}, )\b(?:[Ss]ection|[Pp]art)\s+(\d+)\b(?!\.\d)|第\s*(\d+)\s*(?:节|部分)"
)
EXERCISE = re.compile(r"\b[Ee]xercises?\s+(\d{1,2})\b|练习\s*(\d{1,2})\b")
BONUS_WORD = re.compile(r"bonus(?:/|\s+notebook\s+`?|\s+`)(\d\d_[a-z0-9_]+?)(?:\.ipynb|`|\b)")


def tokens(text: str) -> str:
    """`text` with each link to a lesson or bonus notebook, and each "notebook NN",
    "lesson NN" or "第 NN 课", replaced by a token ⟦L:NN⟧ or ⟦B:name⟧."""

    def link(found: re.Match[str]) -> str:
        folder, name = found.groups()
        if "bonus/" in folder:
            return f"⟦B:{name}⟧"
        if "exercises/" in folder or "solutions/" in folder:
            return f"⟦E:{name[:2]}⟧"
        return f"⟦L:{name[:2]}⟧"

    text = LINK.sub(link, text)
    return LESSON_WORD.sub(lambda found: f"⟦L:{found.group(1) or found.group(2)}⟧", text)


def numbers(listed: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", listed)]


def target(kind: str, name: str, zh: bool) -> Path | None:
    known = LESSONS if kind == "L" else BONUS
    return in_edition(known[name], zh) if name in known else None


def problems(text: str, own: Path | None = None, zh: bool = False) -> list[str]:
    """Every reference in `text` that does not land: 'what it says: why'. `own` is the
    notebook a bare `section K` means (None: none), `zh` whether `text` is Chinese."""
    wrong = []
    for found in PLURAL.finditer(text):
        for number in re.findall(r"\d\d", found.group(1) or found.group(2)):
            if number not in LESSONS:
                wrong.append(f"{found.group(0)!r}: there is no lesson {number}")
    text = tokens(PLURAL.sub(" ", text))
    for found in re.finditer(r"⟦(L|B|E):([^⟧]+)⟧", text):
        kind, name = found.groups()
        known = {"L": LESSONS, "B": BONUS, "E": EXERCISES}[kind]
        if name not in known:
            wrong.append(f"{found.group(0)}: no such notebook")
    for regex, groups in ((AFTER, (0, 1, (2, 3))), (BEFORE, (1, 2, (0,)))):
        for found in regex.finditer(text):
            kind, name = found.group(groups[0] + 1), found.group(groups[1] + 1)
            listed = next(found.group(g + 1) for g in groups[2] if found.group(g + 1))
            notebook = target(kind, name, zh)
            if notebook is None:
                continue  # reported above
            missing = [k for k in numbers(listed) if k not in sections(notebook)]
            if missing:
                wrong.append(f"{found.group(0)!r}: {notebook.name} has no section {missing}")
    for found in TURN.finditer(text):
        notebook = target("L", found.group(1), zh)
        if notebook is not None and int(found.group(2)) > your_turns(notebook):
            wrong.append(f"{found.group(0)!r}: {notebook.name} sets {your_turns(notebook)} task(s)")
    if own is not None:
        qualified = BEFORE.sub(" ", AFTER.sub(" ", text))
        for found in BARE.finditer(qualified):
            number = int(found.group(1) or found.group(2))
            if number not in sections(own):
                wrong.append(f"{found.group(0)!r}: {own.name} has no section {number}")
    for found in EXERCISE.finditer(text):
        number = int(found.group(1) or found.group(2))
        if f"{number:02d}" not in EXERCISES:
            wrong.append(f"{found.group(0)!r}: there is no exercise {number:02d}")
    for found in BONUS_WORD.finditer(text):
        if found.group(1) not in BONUS:
            wrong.append(f"{found.group(0)!r}: there is no bonus notebook {found.group(1)}")
    return wrong


@pytest.mark.parametrize("path", sources(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_reference_names_a_notebook_and_a_section_that_exist(path):
    assert problems(words(path), home(path), chinese(path)) == []


@pytest.mark.parametrize("edition", ["", "zh/"])
@pytest.mark.parametrize("name", sorted(BONUS))
def test_every_bonus_notebook_is_linked_from_a_lesson_and_listed_for_teachers(name, edition):
    linked = [
        lesson.name
        for lesson in sorted((NOTEBOOKS / edition).glob("[0-9][0-9]_*.ipynb"))
        if re.search(rf"\]\((?:\./)?bonus/{name}\.ipynb\)", words(lesson))
    ]
    assert linked, f"no lesson in notebooks/{edition} links bonus/{name}.ipynb"
    for guide in GUIDES:
        assert f"bonus/{name}.ipynb" in words(guide), f"{guide.name} does not list {name}"


# The test bites: references like those once wrong in the course are caught.
@pytest.mark.parametrize(
    "wrong",
    [
        "Cut streams: notebook 06, section 9.",
        "It practises: sections 1 and 9 of notebook 06.",
        "| belief | notebook 03, your turn 2 |",
        "See [the lesson](../06_in_production.ipynb), section 8.",
        "见第 06 课第 9 节。",
        "第 02 课第 8 部分",
        "Open notebook 09.",
        "Then exercise 07.",
        "The bonus notebook `06_nowhere`.",
        "notebooks 01 to 09",
    ],
)
def test_a_reference_to_a_missing_target_is_caught(wrong):
    assert problems(wrong), wrong


def test_a_bare_section_is_read_in_its_own_notebook():
    assert problems("as section 6 showed", own=LESSONS["06"]) == []
    assert problems("as section 9 showed", own=LESSONS["06"])
    assert problems("RFC 8259, section 2", own=LESSONS["06"]) == []
