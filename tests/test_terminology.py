"""The Chinese edition uses one word per idea: the words i18n/zh/TERMINOLOGY.md rules out
appear in no Chinese notebook, solution, exercise, README, teaching file or catalogue.

Code is not prose: code spans, fenced code, link targets and HTML tags are left out, and in
code cells (and the library's own files) only a Chinese variant counts, since an English one
(`socket`, `notebook`) is a name there. A catalogue is read in its translations (`msgstr`).

Some words are right in one place and wrong in another (运行 runs code but 执行 runs a tool
call; 阶段 is the partial-JSON parser's own stage but 环节 a stage of the pipeline): the
table's last section gives each such word the regular expressions of where it is ruled out
and where it stays, and a ruled-out variant written "词（场合）" in the main tables must have
its row there. The table also fixes the forms every lesson, exercise and bonus opens with.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "i18n" / "zh" / "TERMINOLOGY.md"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def _cells(line: str) -> list[str]:
    """The cells of one markdown table row; `\\|` is a pipe inside a cell."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def _table_rows() -> list[tuple[str, str, list[str]]]:
    """(English, the one rendering, the variants ruled out everywhere) for each row of the
    four-column tables; a variant written "词（场合）" is left to the table of contexts."""
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = _cells(line)
        if (
            not line.startswith("|")
            or len(cells) != 4
            or set(cells[0]) <= {"-"}
            or cells[0] == "English"
        ):
            continue
        variants = [v.strip() for v in cells[2].split("、") if v.strip()]
        rows.append((cells[0], cells[1], variants))
    return rows


def _context_rows() -> dict[str, tuple[str, re.Pattern[str] | None, re.Pattern[str] | None]]:
    """{word: (what to write instead, where it is ruled out, where it stays)} from the table
    of words that depend on their context (five columns); None where a column is empty."""
    rows = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = _cells(line)
        if not line.startswith("|") or len(cells) != 5 or cells[0] in {"词", ""}:
            continue
        if set(cells[0]) <= {"-"}:
            continue
        wrong, right = (
            re.compile(cell.strip("`"), re.M) if cell.strip("`") else None for cell in cells[2:4]
        )
        rows[cells[0]] = (cells[1], wrong, right)
    return rows


ROWS = _table_rows()
CONTEXTUAL = re.compile(r"^(?P<word>[^（]+)（(?P<where>[^）]+)）$")
VARIANTS = {
    variant: (english, rendering)
    for english, rendering, variants in ROWS
    for variant in variants
    if not CONTEXTUAL.match(variant)
}
CONTEXT_WORDS = _context_rows()


def _prose(markdown: str) -> str:
    """Markdown with its code, link targets, HTML tags and web addresses taken out."""
    text = re.sub(r"(?ms)^([ \t]*)(```|~~~).*?^\1\2", " ", markdown)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    text = re.sub(r"<[^>\n]+>", " ", text)
    text = re.sub(r"https?://\S+", " ", text)
    return re.sub(r"[ \t]{2,}", " ", text)  # "真正的 `anthropic` SDK" reads as "真正的 SDK"


def _found(text: str, *, code: bool) -> list[str]:
    """The ruled-out variants in `text`, and the words used where their context rules them
    out (given as "运行（可以运行吗）", the word and what matched); in code only the Chinese
    ones."""
    hits = []
    for variant in VARIANTS:
        if CJK.search(variant):
            if variant in text:
                hits.append(variant)
        elif not code and re.search(
            rf"(?<![A-Za-z_/.-]){re.escape(variant)}(?![A-Za-z_/.-])", text, re.I
        ):
            hits.append(variant)
    for word, (_, wrong, right) in CONTEXT_WORDS.items():
        kept = [match.span() for match in right.finditer(text)] if right else []
        for match in (wrong or re.compile(re.escape(word))).finditer(text):
            if not any(start <= match.start() and match.end() <= end for start, end in kept):
                hits.append(f"{word}（{match.group()}）")
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
            for text in (
                output.get("text"),
                data.get("text/plain"),
                data.get("text/html"),
                data.get("text/markdown"),
            ):
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
    with path.open("rb") as file:
        catalogue = read_po(file)
    for message in catalogue:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            if string:
                yield f"msgid {message.id!r}", string, True


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
        "CONTRIBUTING.zh-CN.md",
        "teaching/zh/**/*.md",
        "streaming_lib/**/*.po",
        "streaming_lib/**/*.py",
        "streaming_lib/**/*.js",
        "streaming_lib/**/*.html",
        "streaming_lib/**/*.j2",
    ]
    return sorted(
        {
            path
            for pattern in globs
            for path in ROOT.glob(pattern)
            if "/.ipynb_checkpoints/" not in str(path)
        }
    )


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
    for variant in (
        "数据块",
        "行拆分器",
        "行切分器",
        "附加课",
        "附加内容",
        "重放服务器",
        "拒绝回答",
        "裁决",
        "允许列表",
        "真正的 SDK",
        "真实的 SDK",
        "看它运行",
        "动手看",
        "保活",
        "载荷",
        "累加",
        "轮到你",
        "socket",
        "notebook",
    ):
        assert variant in VARIANTS, f"{variant} is not ruled out by the table"
    for variant, (english, rendering) in VARIANTS.items():
        assert variant not in rendering.split("、"), (
            f"{english}: {variant} is both the rendering and ruled out"
        )


def test_the_table_rules_out_each_variant_the_edition_drifted_between():
    for variant in (
        "拒绝清单",
        "模拟传输层",
        "传输层",
        "文字实况解说",
        "SSE 解码器",
        "头部",
        "读取超时",
        "重塑流",
        "解答",
        "无效",
        "非法",
        "**时长：** 课堂上约",
        "学完这一课，你能够",
        "**课程：**",
        "检查你的答案",
    ):
        assert variant in VARIANTS, f"{variant} is not ruled out by the table"
    assert {"运行", "阶段", "课程", "解码器", "构建"} <= set(CONTEXT_WORDS)
    for english, _, variants in ROWS:
        for variant in variants:
            match = CONTEXTUAL.match(variant)
            assert not match or match["word"] in CONTEXT_WORDS, (
                f"{english}: {variant} names a context the table of contexts does not give"
            )


def test_a_context_word_counts_only_where_its_context_rules_it_out():
    # ruled out in one context, right elsewhere
    assert _found("这个工具调用可以运行吗？", code=False) == ["运行（工具调用可以运行）"]
    assert _found("运行这个单元格，再运行检查。", code=False) == []
    assert _found("你可以用前面课程里的 `iter_lines`。", code=False) == ["课程（前面课程）"]
    assert _found("课程示例流在第 02 课里。", code=False) == []
    # ruled out everywhere but in the places it stays
    assert _found("某一阶段通过了检查。", code=False) == ["阶段（阶段）"]
    assert _found("解析器的第 1 阶段，这一阶段读不了数字。", code=False) == []
    assert _found("用库的解码器演示。", code=False) == ["解码器（解码器）"]
    assert _found("增量解码器 `codecs.getincrementaldecoder`。", code=False) == []
    assert _found("构建一个拼装器。", code=False) == ["构建（构建一个拼装器）"]
    assert _found("make lite 构建网站。", code=False) == []


def test_a_catalogue_is_read_in_its_translations(tmp_path):
    catalogue = tmp_path / "streaming_lib.po"
    catalogue.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgctxt "lesson"\nmsgid "lesson"\nmsgstr "课程"\n\n'
        'msgid "may it run?"\nmsgstr "可以运行吗？"\n\n'
        '#: a comment that says 数据块\nmsgid "a chunk"\nmsgstr "分片"\n',
        encoding="utf-8",
    )
    hits = [hit for _, text, code in _catalogue_texts(catalogue) for hit in _found(text, code=code)]
    assert hits == ["课程（课程）", "运行（可以运行吗）"]


def test_the_scan_finds_a_variant_in_prose_and_leaves_code_and_links_alone():
    assert _found(_prose("网络把字节切成数据块。"), code=False) == ["数据块"]
    assert _found(_prose("用 `socket` 读，见 [这里](notebook.ipynb)。"), code=False) == []
    assert _found(_prose("从 socket 读。"), code=False) == ["socket"]
    assert _found("sock = socket.socket()  # 切行器", code=True) == []


def _instead(hit: str) -> str:
    """What the table writes for a hit of `_found`."""
    if hit in VARIANTS:
        return VARIANTS[hit][1]
    return CONTEXT_WORDS[hit.split("（", 1)[0]][0]


@pytest.mark.parametrize("path", chinese_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_chinese_file_uses_a_word_the_terminology_table_rules_out(path):
    problems = [
        f"{where}: {variant!r} (write {_instead(variant)!r})"
        for where, text, code in _texts(path)
        for variant in _found(text, code=code)
    ]
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


def _first_cell(path: Path) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])


def _zh(pattern: str) -> list[Path]:
    return sorted(ROOT.glob(pattern))


@pytest.mark.parametrize("path", _zh("notebooks/zh/0*.ipynb"), ids=lambda path: path.name)
def test_every_lesson_opens_with_the_one_header(path):
    head = _first_cell(path)
    assert re.match(r"# \d\d · \S", head), head[:80]
    assert re.search(r"^\*\*时长：\*\* 课堂约 \d+ 分钟，自学约 \d+ 分钟。$", head, re.M), head[:200]
    assert "\n**学完本课，你将能够**\n" in head, head[:300]


@pytest.mark.parametrize("path", _zh("notebooks/zh/bonus/*.ipynb"), ids=lambda path: path.name)
def test_every_bonus_notebook_opens_with_the_one_title_form(path):
    head = _first_cell(path)
    assert re.match(rf"# {path.name[:2]} 加餐 · \S", head), head[:80]
    lesson = f"[第 {path.name[:2]} 课](../{path.name[:2]}_"
    assert re.search(rf"^\*\*时长：\*\* 约 \d+ 分钟。返回{re.escape(lesson)}", head, re.M), head[
        :200
    ]


@pytest.mark.parametrize("path", _zh("solutions/zh/*.ipynb"), ids=lambda path: path.name)
def test_every_exercise_opens_with_the_one_boilerplate(path):
    head = _first_cell(path)
    number = int(path.name[:2])
    assert re.match(rf"# 练习 {number} · \S", head), head[:80]
    assert re.search(
        r"^\*\*对应：\*\* \[第 \d\d 课\]\([^)]+\) · \*\*难度：\*\* ★[★☆]{2}[^·]* · "
        r"\*\*时长：\*\* 约 \d+ 分钟$",
        head,
        re.M,
    ), head[:300]
    assert (
        f"- **检查答案：** 在仓库根目录运行 `.venv/bin/pytest --nbval-lax exercises/zh/{path.name}`"
        "（在 conda 环境或已激活的虚拟环境里，直接用 `pytest`）：它会运行每个单元格，"
        "哪个单元格抛出异常就算哪个失败，并说明是哪项检查、错在哪里。"
        "`make progress-zh` 列出你每个练习做到了哪一步。\n"
    ) in head, head[:600]
    assert f"- **参考答案：** [solutions/zh/{path.name}]" in head
