"""The Chinese edition uses one word per idea: the words i18n/zh/TERMINOLOGY.md rules out
appear in no Chinese notebook, solution, exercise, README, teaching file or catalogue.

Code is not prose: code spans, fenced code, link targets and HTML tags are left out, and in
code cells (and the library's own files) only a Chinese variant counts, since an English one
(`socket`, `notebook`) is a name there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "i18n" / "zh" / "TERMINOLOGY.md"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def _table_rows() -> list[tuple[str, str, list[str]]]:
    """(English, the one rendering, the variants ruled out) for each row of the table."""
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or set(cells[0]) <= {"-"} or cells[0] == "English":
            continue
        variants = [v.strip() for v in cells[2].split("、") if v.strip()]
        rows.append((cells[0], cells[1], variants))
    return rows


ROWS = _table_rows()
VARIANTS = {variant: (english, rendering) for english, rendering, variants in ROWS for variant in variants}


def _prose(markdown: str) -> str:
    """Markdown with its code, link targets, HTML tags and web addresses taken out."""
    text = re.sub(r"(?ms)^([ \t]*)(```|~~~).*?^\1\2", " ", markdown)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    text = re.sub(r"<[^>\n]+>", " ", text)
    text = re.sub(r"https?://\S+", " ", text)
    return re.sub(r"[ \t]{2,}", " ", text)  # "真正的 `anthropic` SDK" reads as "真正的 SDK"


def _found(text: str, *, code: bool) -> list[str]:
    """The ruled-out variants in `text`; in code only the Chinese ones."""
    hits = []
    for variant in VARIANTS:
        if CJK.search(variant):
            if variant in text:
                hits.append(variant)
        elif not code and re.search(rf"(?<![A-Za-z_/.-]){re.escape(variant)}(?![A-Za-z_/.-])", text, re.I):
            hits.append(variant)
    return hits


def _notebook_texts(path: Path) -> Iterator[tuple[str, str, bool]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(notebook["cells"]):
        source = "".join(cell["source"])
        where = f"cell {number} ({cell.get('id', '?')})"
        if cell["cell_type"] == "markdown":
            yield where, _prose(source), False
            continue
        yield where, source, True
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for text in (output.get("text"), data.get("text/plain"), data.get("text/html"), data.get("text/markdown")):
                if text:
                    yield f"{where}, output", "".join(text), True


def _yaml_texts(path: Path) -> Iterator[tuple[str, str, bool]]:
    document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if "terms" in document:  # the glossary: its Chinese glosses are prose
        for term, gloss in document["terms"].items():
            yield f"term {term}", str(gloss), False
        return
    for cell_id, cell in (document.get("cells") or {}).items():
        if isinstance(cell.get("zh"), str):
            yield f"cell {cell_id}", _prose(cell["zh"]), False
        for line in cell.get("lines") or []:
            yield f"cell {cell_id}, code line", str(line.get("zh", "")), True


def _catalogue_texts(path: Path) -> Iterator[tuple[str, str, bool]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("#"):
            yield f"line {number}", line, True


def _code_texts(path: Path) -> Iterator[tuple[str, str, bool]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield f"line {number}", line, True


def chinese_files() -> list[Path]:
    """Every file a Chinese reader reads, or that the Chinese edition is made from."""
    globs = [
        "notebooks/zh/**/*.ipynb",
        "solutions/zh/*.ipynb",
        "exercises/zh/*.ipynb",
        "i18n/zh/**/*.yml",
        "i18n/glossary.yml",
        "README.zh-CN.md",
        "TEACHING.zh-CN.md",
        "teaching/zh/**/*.md",
        "streaming_lib/**/*.po",
        "streaming_lib/**/*.py",
        "streaming_lib/**/*.js",
        "streaming_lib/**/*.html",
        "streaming_lib/**/*.j2",
    ]
    return sorted({path for pattern in globs for path in ROOT.glob(pattern) if "/.ipynb_checkpoints/" not in str(path)})


def _texts(path: Path) -> Iterator[tuple[str, str, bool]]:
    if path.suffix == ".ipynb":
        yield from _notebook_texts(path)
    elif path.suffix == ".yml":
        yield from _yaml_texts(path)
    elif path.suffix == ".md":
        yield "text", _prose(path.read_text(encoding="utf-8")), False
    elif path.suffix == ".po":
        yield from _catalogue_texts(path)
    else:
        yield from _code_texts(path)


def test_the_table_gives_every_concept_one_rendering_and_rules_out_the_variants_the_edition_had():
    renderings = [rendering for _, rendering, _ in ROWS]
    assert len(renderings) == len(set(renderings)), "two concepts share one Chinese rendering"
    for variant in ("数据块", "行拆分器", "行切分器", "附加课", "附加内容", "重放服务器", "拒绝回答", "裁决",
                    "允许列表", "真正的 SDK", "真实的 SDK", "看它运行", "动手看", "保活", "载荷", "累加", "轮到你",
                    "socket", "notebook"):
        assert variant in VARIANTS, f"{variant} is not ruled out by the table"
    for variant, (english, rendering) in VARIANTS.items():
        assert variant not in rendering.split("、"), f"{english}: {variant} is both the rendering and ruled out"


def test_the_scan_finds_a_variant_in_prose_and_leaves_code_and_links_alone():
    assert _found(_prose("网络把字节切成数据块。"), code=False) == ["数据块"]
    assert _found(_prose("用 `socket` 读，见 [这里](notebook.ipynb)。"), code=False) == []
    assert _found(_prose("从 socket 读。"), code=False) == ["socket"]
    assert _found("sock = socket.socket()  # 切行器", code=True) == []


@pytest.mark.parametrize("path", chinese_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_chinese_file_uses_a_word_the_terminology_table_rules_out(path):
    problems = [
        f"{where}: {variant!r} (for {VARIANTS[variant][0]!r} write {VARIANTS[variant][1]!r})"
        for where, text, code in _texts(path)
        for variant in _found(text, code=code)
    ]
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)
