"""The Chinese edition, generated from the English notebooks and one translation file each.

    python scripts/translate.py build      # write notebooks/zh, solutions/zh from i18n/zh
    python scripts/translate.py check      # exit 1 and name every stale or missing cell
    python scripts/translate.py todo NAME  # the English text of the cells NAME still needs
    python scripts/translate.py skeleton NAME  # start (or complete) NAME's translation file
    python scripts/translate.py rehash NAME ID...  # the translation of cells ID still holds

Authors never edit a Chinese notebook: they edit the English one, then the
translation file, then run `build` (and `scripts/execute_notebooks.py zh/` to
refresh the outputs). The translation of `notebooks/01_sse_wire_format.ipynb`
is `i18n/zh/notebooks/01_sse_wire_format.yml`:

    cells:
      01-000:                 # the English cell's id
        en: 3f2a9c1b0d4e      # hash of the English text it translates (`cell_hash`)
        zh: |                 # a markdown cell: its whole text in Chinese
          # 01 · SSE 线路格式
      yt1-check:              # a code cell: the code stays; a line of prose may change
        en: 77aa01c2e9f0
        lines:
          - en: '    print("All checks pass.")'
            zh: '    print("全部检查通过。")'

The first code cell of every Chinese notebook gets one more line, `LANGUAGE_LINE`, after
its imports: from there on the library speaks Chinese (its errors, the tool calls'
verdicts, `stage`, `trace`, `progress`; `streaming_lib/locale/zh`), as the English
notebook's library speaks English without it.

`check` fails when an English cell changed after its translation (its hash is
not the one recorded), when a markdown cell has no translation, when a
translation names a cell that is gone, or when a code line to replace is not in
the English cell. The glossary (`i18n/glossary.yml`) lists the field's terms,
which stay as they are on the wire; a term in a code span in English stays the
same code span in Chinese.

Relative links are rewritten for the edition's folder: a link to a notebook
that has a Chinese edition goes to it; any other link goes to the same file
as before (one folder further up). A solution's link that left its folder in
English (`../solutions/...`) goes up to the repository's root and down again, so
the exercise made from the Chinese solution links right from exercises/zh too.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "i18n"
LANG = "zh"
# English folder -> the Chinese edition's folder (relative to the repository root).
EDITIONS = {
    "notebooks": "notebooks/zh",
    "notebooks/bonus": "notebooks/zh/bonus",
    "solutions": "solutions/zh",
}
# Added after the imports of each Chinese notebook's first code cell (`speak_chinese`).
LANGUAGE_LINE = 'streaming_lib.set_language("zh")  # 库给人看的文字（报错、判定、进度）都用中文'
# Links in markdown: [text](target) and src="target".
LINK = re.compile(r"(\]\(|src=\")([^)\"#\s]+)")


def cell_hash(source: str) -> str:
    """A short fingerprint of an English cell's text (12 hex digits of its SHA-256)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def english_notebooks() -> list[Path]:
    """Every English notebook that has a Chinese edition: lessons, bonus, solutions."""
    found = []
    for folder in EDITIONS:
        found += sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
    return found


def translation_path(english: Path) -> Path:
    """i18n/zh/<the English path>.yml"""
    return I18N / LANG / english.relative_to(ROOT).with_suffix(".yml")


def edition_path(english: Path) -> Path:
    """Where the Chinese notebook of `english` is written."""
    relative = english.relative_to(ROOT)
    return ROOT / EDITIONS[relative.parent.as_posix()] / relative.name


def load_translation(english: Path) -> dict[str, Any]:
    """The translation file's cells ({} if there is none yet)."""
    path = translation_path(english)
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return dict(data.get("cells") or {})


def rewrite_links(text: str, english: Path, target: Path) -> str:
    """Relative links of a cell of `english`, made right for a cell of `target`."""

    def fix(match: re.Match[str]) -> str:
        link = match.group(2)
        if "://" in link or link.startswith(("/", "mailto:")):
            return match.group(0)
        pointed = (english.parent / link).resolve()
        if pointed.suffix == ".ipynb" and pointed.parent.as_posix().startswith(str(ROOT)):
            relative = pointed.relative_to(ROOT)
            if relative.parent.as_posix() in EDITIONS:
                pointed = edition_path(pointed)
            elif relative.parent.as_posix() == "exercises":
                pointed = ROOT / "exercises" / LANG / relative.name
        if link.startswith("../") and english.relative_to(ROOT).parts[0] == "solutions":
            # A solution's link out of its folder goes up to the root and down again, so
            # it stays right in the exercise made from it (exercises/zh, as deep).
            up = Path(os.path.relpath(ROOT, target.parent)).as_posix()
            return match.group(1) + f"{up}/{pointed.relative_to(ROOT).as_posix()}"
        new = Path(os.path.relpath(pointed, target.parent)).as_posix()
        return match.group(1) + new

    return LINK.sub(fix, text)


@dataclass
class Problem:
    """One thing wrong with a translation: which file, which cell, what."""

    notebook: str
    cell: str
    what: str

    def __str__(self) -> str:
        return f"{self.notebook} cell {self.cell}: {self.what}"


def apply_lines(source: str, lines: list[dict[str, str]]) -> tuple[str, list[str]]:
    """Replace whole lines of a code cell's source; (new source, lines not found)."""
    rows = source.split("\n")
    missing = []
    for pair in lines:
        if pair["en"] in rows:
            rows = [pair["zh"] if row == pair["en"] else row for row in rows]
        else:
            missing.append(pair["en"])
    return "\n".join(rows), missing


def speak_chinese(source: str) -> str:
    """A first code cell's source with `LANGUAGE_LINE` after its leading magics and imports
    (and `import streaming_lib` among them, if it was not)."""
    rows = source.split("\n")
    start = 0
    while start < len(rows) and rows[start].startswith("%"):
        start += 1
    end, at, open_parenthesis = start, start, False
    while at < len(rows):
        row = rows[at]
        if open_parenthesis or row.startswith(("import ", "from ")):
            open_parenthesis = (open_parenthesis or "(" in row) and ")" not in row
            at = end = at + 1
        elif not row.strip() or row.startswith("#"):
            at += 1
        else:
            break
    imports = [] if "import streaming_lib" in rows[start:end] else ["import streaming_lib"]
    after = [""] if end < len(rows) and rows[end].strip() else []
    rows[end:end] = [*imports, "", LANGUAGE_LINE, *after]
    return "\n".join(rows)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A notebook as `build_one` and `check` read it: the file. (The tests read the committed
    one instead, so that a learner's answers in a lesson never count as a change.)"""
    return nbformat.read(path, as_version=4)


def build_one(english: Path) -> tuple[nbformat.NotebookNode, list[Problem]]:
    """The Chinese notebook of `english` (outputs as in English), and its problems."""
    notebook = read_notebook(english)
    target = edition_path(english)
    cells = load_translation(english)
    name = english.relative_to(ROOT).as_posix()
    problems = []
    ids = set()
    for cell in notebook.cells:
        ids.add(cell.id)
        entry = cells.get(cell.id)
        if entry is None:
            if cell.cell_type == "markdown":
                problems.append(Problem(name, cell.id, "no translation"))
                cell.source = rewrite_links(cell.source, english, target)
            continue
        if entry.get("en") != cell_hash(cell.source):
            problems.append(
                Problem(name, cell.id, "the English cell changed since its translation")
            )
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(
                str(entry.get("zh") or cell.source).rstrip("\n"), english, target
            )
        else:
            cell.source, missing = apply_lines(cell.source, entry.get("lines") or [])
            problems += [Problem(name, cell.id, f"no such line: {line!r}") for line in missing]
    problems += [
        Problem(name, gone, "no such cell in English") for gone in sorted(set(cells) - ids)
    ]
    first = next((cell for cell in notebook.cells if cell.cell_type == "code"), None)
    if first is not None:
        first.source = speak_chinese(first.source)
    notebook.metadata["language_info"] = notebook.metadata.get("language_info", {})
    return notebook, problems


def check() -> list[Problem]:
    """Every problem of every translation, and Chinese notebooks that are not as built."""
    problems = []
    for english in english_notebooks():
        built, found = build_one(english)
        problems += found
        target = edition_path(english)
        name = target.relative_to(ROOT).as_posix()
        if not target.exists():
            problems.append(Problem(name, "-", "not built: run scripts/translate.py build"))
            continue
        written = read_notebook(target)
        for old, new in zip(written.cells, built.cells, strict=False):
            if (old.id, old.source) != (new.id, new.source):
                problems.append(Problem(name, new.id, "differs from its build: run build"))
        if len(written.cells) != len(built.cells):
            problems.append(Problem(name, "-", "a cell was added or removed: run build"))
    return problems


def build() -> list[Path]:
    """Write every Chinese notebook; keep the outputs of one whose code is unchanged."""
    written = []
    for english in english_notebooks():
        notebook, _ = build_one(english)
        target = edition_path(english)
        if target.exists():  # outputs come from executing the Chinese notebook: keep them
            old = {cell.id: cell for cell in nbformat.read(target, as_version=4).cells}
            for cell in notebook.cells:
                before = old.get(cell.id)
                if cell.cell_type == "code" and before is not None and before.source == cell.source:
                    cell.outputs = copy.deepcopy(before.outputs)
                    cell.execution_count = before.execution_count
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, target)
        written.append(target)
    return written


def todo(name: str) -> str:
    """The English text of every cell of notebook `name` whose translation is missing or stale."""
    english = next(p for p in english_notebooks() if p.stem.startswith(name) or name in str(p))
    cells = load_translation(english)
    out = []
    for cell in nbformat.read(english, as_version=4).cells:
        entry = cells.get(cell.id)
        stale = entry is not None and entry.get("en") != cell_hash(cell.source)
        if (entry is None and cell.cell_type == "markdown") or stale:
            out.append(
                f"--- {cell.id} ({cell.cell_type}) en: {cell_hash(cell.source)}\n{cell.source}"
            )
    return "\n".join(out)


class _Block(str):
    """A string written as a YAML block (`|`): a cell's text stays readable in the file."""


def _block(dumper: yaml.SafeDumper, text: _Block) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style="|")


yaml.SafeDumper.add_representer(_Block, _block)


def dump_translation(english: Path, cells: dict[str, Any]) -> Path:
    """Write `cells` as the translation file of `english`, in the English cells' order."""
    order = [cell.id for cell in nbformat.read(english, as_version=4).cells]
    ordered = {
        key: cells[key]
        for key in sorted(
            cells, key=lambda k: (k not in order, order.index(k) if k in order else 0)
        )
    }
    for entry in ordered.values():
        if isinstance(entry.get("zh"), str) and "\n" in entry["zh"]:
            entry["zh"] = _Block(entry["zh"].rstrip("\n") + "\n")
    path = translation_path(english)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = (
        f"# The Chinese edition of {english.relative_to(ROOT).as_posix()} (scripts/translate.py)\n"
    )
    body = yaml.safe_dump({"cells": ordered}, allow_unicode=True, sort_keys=False, width=1000)
    path.write_text(title + body, encoding="utf-8")
    return path


def skeleton(name: str) -> Path:
    """Add an entry for every markdown cell of notebook `name` that has none: its hash, and
    its English text as the `zh` to translate. Entries already there are kept."""
    english = next(p for p in english_notebooks() if p.stem.startswith(name) or name in str(p))
    cells = load_translation(english)
    for cell in nbformat.read(english, as_version=4).cells:
        if cell.cell_type == "markdown" and cell.id not in cells:
            cells[cell.id] = {"en": cell_hash(cell.source), "zh": cell.source}
    return dump_translation(english, cells)


def rehash(name: str, ids: list[str]) -> Path:
    """Record today's English hash for cells `ids` of notebook `name`: for an English change
    that the translation already says (a typo fixed, a number the translation had right).
    Read both texts first: this is how a stale translation is declared current."""
    english = next(p for p in english_notebooks() if p.stem.startswith(name) or name in str(p))
    cells = load_translation(english)
    sources = {cell.id: cell.source for cell in nbformat.read(english, as_version=4).cells}
    for cell_id in ids:
        cells[cell_id]["en"] = cell_hash(sources[cell_id])
    return dump_translation(english, cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["build", "check", "todo", "skeleton", "rehash"])
    parser.add_argument("name", nargs="?", help="todo, skeleton, rehash: a notebook's path")
    parser.add_argument("ids", nargs="*", help="rehash: the cell ids")
    args = parser.parse_args(argv)
    if args.command == "build":
        for path in build():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if args.command == "skeleton":
        print(f"wrote {skeleton(args.name or '').relative_to(ROOT)}")
        return 0
    if args.command == "rehash":
        print(f"wrote {rehash(args.name or '', args.ids).relative_to(ROOT)}")
        return 0
    if args.command == "todo":
        print(todo(args.name or ""))
        return 0
    problems = check()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
