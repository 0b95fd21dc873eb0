"""The Chinese edition is generated from the English one and kept in step with it.

They judge the course as committed (`committed.py`), never a learner's copy of a lesson.
`scripts/translate.py check` is the rule: every markdown cell has a translation, every
translation was made from the English text there now (its hash), the code is the
English code with only the prose lines the translation names, and the Chinese
notebooks are as `build` writes them.
"""

import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from committed import read as read_committed

ROOT = Path(__file__).resolve().parent.parent


def load_translate():
    spec = importlib.util.spec_from_file_location("translate", ROOT / "scripts" / "translate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


translate = load_translate()
translate.read_notebook = read_committed  # the committed notebooks, not the learner's copies
ENGLISH = translate.english_notebooks()
GLOSSARY = yaml.safe_load((ROOT / "i18n" / "glossary.yml").read_text(encoding="utf-8"))["terms"]


def test_every_chinese_notebook_is_the_build_of_a_current_translation():
    problems = [str(problem) for problem in translate.check()]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem for p in ENGLISH])
def test_the_fields_terms_stay_in_code_spans_in_chinese(english):
    chinese = {c.id: c for c in read_committed(translate.edition_path(english)).cells}
    lost = []
    for cell in read_committed(english).cells:
        if cell.cell_type != "markdown" or cell.id not in chinese:
            continue
        for term in GLOSSARY:
            if f"`{term}`" in cell.source and f"`{term}`" not in chinese[cell.id].source:
                lost.append((cell.id, term))
    assert not lost, f"(cell id, term) no longer in a code span: {lost}"


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem for p in ENGLISH])
def test_chinese_prose_is_chinese(english):
    for cell in read_committed(translate.edition_path(english)).cells:
        if cell.cell_type == "markdown" and len(re.sub(r"`[^`]*`|\(.*?\)", "", cell.source)) > 40:
            assert re.search(r"[\u4e00-\u9fff]", cell.source), cell.id


def test_a_changed_english_cell_is_named_until_its_translation_is_redone(tmp_path, monkeypatch):
    monkeypatch.setattr(translate, "ROOT", tmp_path)
    monkeypatch.setattr(translate, "I18N", tmp_path / "i18n")
    english = tmp_path / "notebooks" / "01_demo.ipynb"
    english.parent.mkdir()
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# 01 · Demo\n\nSee [the next](02_next.ipynb).", id="title"),
        nbformat.v4.new_code_cell('print("All checks pass.")', id="check"),
        nbformat.v4.new_markdown_cell("More words.", id="more"),
    ]
    nbformat.write(notebook, english)
    translation = tmp_path / "i18n" / "zh" / "notebooks" / "01_demo.yml"
    translation.parent.mkdir(parents=True)
    cells = {
        "title": {
            "en": translate.cell_hash(notebook.cells[0].source),
            "zh": "# 01 · 演示\n\n见[下一课](02_next.ipynb)。",
        },
        "check": {
            "en": translate.cell_hash(notebook.cells[1].source),
            "lines": [{"en": 'print("All checks pass.")', "zh": 'print("全部检查通过。")'}],
        },
    }
    translation.write_text(yaml.safe_dump({"cells": cells}, allow_unicode=True), encoding="utf-8")
    built, problems = translate.build_one(english)
    assert [(p.cell, p.what) for p in problems] == [("more", "no translation")]
    assert built.cells[1].source == (
        f'import streaming_lib\n\n{translate.LANGUAGE_LINE}\n\nprint("全部检查通过。")'
    )  # the first code cell: the library speaks Chinese from there on
    assert "(02_next.ipynb)" in built.cells[0].source  # a sibling lesson: the Chinese one

    notebook.cells[0].source += " Changed."
    nbformat.write(notebook, english)
    _, problems = translate.build_one(english)
    assert ("title", "the English cell changed since its translation") in [
        (p.cell, p.what) for p in problems
    ]


def test_the_first_code_cell_sets_the_librarys_language_after_its_magics_and_imports():
    imports = "%xmode Minimal\nimport json\nfrom streaming_lib import (\n    accumulate,\n)\n"
    assert translate.speak_chinese(imports + "\nraw = 1") == (
        imports + f"import streaming_lib\n\n{translate.LANGUAGE_LINE}\n\nraw = 1"
    )
    imported = "import streaming_lib\n\nraw = 1"
    assert translate.speak_chinese(imported) == (
        f"import streaming_lib\n\n{translate.LANGUAGE_LINE}\n\nraw = 1"
    )
    for english in ENGLISH:
        chinese = read_committed(translate.edition_path(english))
        first = next(cell for cell in chinese.cells if cell.cell_type == "code")
        assert translate.LANGUAGE_LINE in first.source.split("\n"), english.name


def test_links_out_of_the_edition_point_at_the_same_file_one_folder_up():
    english = ROOT / "notebooks" / "00_start_here.ipynb"
    target = translate.edition_path(english)
    text = (
        "![a](images/chat.png) [x](../exercises/01_line_splitter.ipynb)"
        " [y](01_sse_wire_format.ipynb)"
    )
    fixed = translate.rewrite_links(text, english, target)
    assert "](../images/chat.png)" in fixed
    assert "](../../exercises/zh/01_line_splitter.ipynb)" in fixed
    assert "](01_sse_wire_format.ipynb)" in fixed


def test_a_solutions_link_out_of_its_folder_is_right_from_the_exercise_made_from_it_too():
    english = ROOT / "solutions" / "01_line_splitter.ipynb"
    target = translate.edition_path(english)
    fixed = translate.rewrite_links("[s](../solutions/01_line_splitter.ipynb)", english, target)
    assert fixed == "[s](../../solutions/zh/01_line_splitter.ipynb)"
    for folder in (ROOT / "solutions" / "zh", ROOT / "exercises" / "zh"):
        assert (folder / "../../solutions/zh/01_line_splitter.ipynb").resolve().exists()


def code_shape(source):
    """A code cell with its prose taken out: the tokens of its code, string literals and
    comments left out (IPython's % and ! lines are not Python: kept as they are)."""
    import io
    import tokenize

    magics = [line for line in source.splitlines() if line.lstrip().startswith(("%", "!"))]
    code = "\n".join("" if line in magics else line for line in source.splitlines()) + "\n"
    prose = (tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", None))
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return magics + [token.string for token in tokens if token.type not in prose]


ASKS_FOR_CHINESE = ', lang="zh")'  # a stepper asked for its Chinese labels


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem for p in ENGLISH])
def test_a_translated_code_cell_changes_only_its_prose(english):
    sources = {cell.id: cell.source for cell in read_committed(english).cells}
    changed = []
    for cell_id, entry in translate.load_translation(english).items():
        if not entry.get("lines") or cell_id not in sources:
            continue
        chinese, _ = translate.apply_lines(sources[cell_id], entry["lines"])
        chinese = chinese.replace(ASKS_FOR_CHINESE, ")")
        if code_shape(chinese) != code_shape(sources[cell_id]):
            changed.append(cell_id)
    assert not changed, f"cells whose Chinese code differs from the English beyond prose: {changed}"
