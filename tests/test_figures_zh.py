"""The Chinese edition's figures are Chinese: the state diagram has a Chinese twin (wire names
stay as code), the Chinese lessons show it, every plot of a Chinese notebook is labelled in
Chinese, and its labels are drawn with no missing glyph where a CJK font is installed
(matplotlib warns "Glyph ... missing from font(s)" for each box it draws instead)."""

import io
import json
import re
import tokenize
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from streaming_lib.tools import plots  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DIAGRAM, DIAGRAM_ZH = NOTEBOOKS / "event_states.svg", NOTEBOOKS / "event_states.zh.svg"
SVG = "{http://www.w3.org/2000/svg}"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
CHINESE = sorted(
    p for p in (NOTEBOOKS / "zh").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
needs_cjk_font = pytest.mark.skipif(
    plots.cjk_family() is None,
    reason=f"no CJK font on this machine (one of {', '.join(plots.CJK_FAMILIES)}: fonts-noto-cjk)",
)


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def english_of(chinese: Path) -> Path:
    return NOTEBOOKS / chinese.relative_to(NOTEBOOKS / "zh")


def words_outside_code(text: ET.Element) -> str:
    """A <text>'s words, less its code (the wire names: class "event" or "code")."""
    if text.get("class") == "event":
        return ""
    parts = [text.text or ""]
    for span in text:
        if span.get("class") not in ("event", "code"):
            parts.append(span.text or "")
        parts.append(span.tail or "")
    return "".join(parts).strip()


def wire_names(svg: ET.Element) -> set[str]:
    found = set()
    for element in svg.iter():
        if element.get("class") in ("event", "code") and element.text:
            found |= set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", element.text))
    return found


def test_the_chinese_state_diagram_has_the_english_ones_shapes_and_wire_names():
    english, chinese = ET.parse(DIAGRAM).getroot(), ET.parse(DIAGRAM_ZH).getroot()
    for tag in ("rect", "path", "text", "marker"):
        assert len(chinese.findall(f".//{SVG}{tag}")) == len(english.findall(f".//{SVG}{tag}")), tag
    assert wire_names(english) <= wire_names(chinese)
    assert chinese.get("viewBox") == english.get("viewBox")


def test_every_word_of_the_chinese_state_diagram_is_chinese_or_code():
    chinese = ET.parse(DIAGRAM_ZH).getroot()
    english_words = [
        words
        for text in chinese.iter(f"{SVG}text")
        if (words := words_outside_code(text)) and not CJK.search(words)
    ]
    assert english_words == ["i = len(content)"]  # an expression, as the lesson writes it
    for tag in ("title", "desc"):
        assert CJK.search(chinese.find(f"{SVG}{tag}").text), tag


def test_the_chinese_lessons_show_the_chinese_state_diagram_and_no_key_under_it():
    showing = [path for path in CHINESE if "event_states" in path.read_text(encoding="utf-8")]
    assert showing, "no Chinese lesson shows the state diagram"
    for path in showing:
        text = "\n".join(source(cell) for cell in cells(path) if cell["cell_type"] == "markdown")
        assert "event_states.svg" not in text, path.name
        assert "](../event_states.zh.svg)" in text, path.name
        assert "（图中：" not in text, path.name
    for path in CHINESE:  # each English lesson showing it has a Chinese twin showing the twin
        if "event_states.svg" in english_of(path).read_text(encoding="utf-8"):
            assert path in showing, path.name


def plot_cells(path: Path) -> list[tuple[str, str]]:
    """(cell id, source) of each code cell of a Chinese notebook with an image among its outputs."""
    return [
        (cell.get("id", "?"), source(cell))
        for cell in cells(path)
        if cell["cell_type"] == "code"
        and any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
    ]


PLOTS = [(path, cell_id, code) for path in CHINESE for cell_id, code in plot_cells(path)]
plot_ids = [
    f"{path.relative_to(NOTEBOOKS / 'zh').with_suffix('')}:{cell_id}" for path, cell_id, _ in PLOTS
]


MATPLOTLIB_OPTIONS = {'"upper left"', '"offset points"'}  # arguments, not words a reader reads


def strings(code: str) -> list[str]:
    """The string literals of a cell's code (f-strings included), evaluated where plain."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    kinds = (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING))
    return [token.string for token in tokens if token.type in kinds]


def test_the_chinese_edition_has_the_plots_the_issue_names():
    named = {
        "00_start_here",
        "bonus/02_linear_time",
        "bonus/04_preview_speed",
        "bonus/06_proxies_nginx",
    }
    assert {
        str(path.relative_to(NOTEBOOKS / "zh").with_suffix("")) for path, _, _ in PLOTS
    } >= named


@pytest.mark.parametrize(("path", "cell_id", "code"), PLOTS, ids=plot_ids)
def test_every_plot_of_a_chinese_notebook_is_labelled_in_chinese(path, cell_id, code):
    if "Image(filename=" in code:  # a stored plot: the Chinese one
        assert re.search(r'"\w+\.zh\.png"', code), cell_id
        for name in re.findall(r'"(\w+\.zh\.png)"', code):
            assert list(ROOT.rglob(name)), name
        return
    before = [source(cell) for cell in cells(path)]
    upto = next(i for i, cell in enumerate(cells(path)) if cell.get("id") == cell_id)
    assert any('plot_fonts("zh")' in code for code in before[: upto + 1]), "no font for Chinese"
    english = next(c for c in cells(english_of(path)) if c.get("id") == cell_id)
    words = re.compile(r"[A-Za-z]{3,} [a-z]{2,}")  # a label's words, not a name or a number
    kept = {s for s in strings(source(english)) if words.search(s)} & set(strings(code))
    assert kept <= MATPLOTLIB_OPTIONS, f"English labels left in the Chinese plot: {kept}"
    assert any(CJK.search(s) for s in strings(code)), "no Chinese label"


def draw_catching_warnings(draw) -> list[str]:
    """The texts of the warnings matplotlib gives while `draw()` renders a figure."""
    saved = plt.rcParams["font.family"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            draw()
        finally:
            plt.rcParams["font.family"] = saved
            plt.close("all")
    return [str(warning.message) for warning in caught]


def draw_labels(labels: list[str], families: list[str]) -> None:
    plt.rcParams["font.family"] = families
    fig, ax = plt.subplots()
    for number, label in enumerate(labels):
        ax.text(0, number, label)
    ax.set_title(labels[0])
    fig.canvas.draw()


def test_a_chinese_label_drawn_without_a_cjk_font_is_caught_as_missing_glyphs():
    caught = draw_catching_warnings(lambda: draw_labels(["请求发出后的秒数"], ["DejaVu Sans"]))
    assert any("missing from font" in message for message in caught)


@needs_cjk_font
@pytest.mark.parametrize(("path", "cell_id", "code"), PLOTS, ids=plot_ids)
def test_every_chinese_plot_label_is_drawn_with_no_missing_glyph(path, cell_id, code, capsys):
    labels = [s for s in strings(code) if CJK.search(s)]
    if not labels:
        pytest.skip("a stored image: its own test below")
    caught = draw_catching_warnings(lambda: draw_labels(labels, plots.plot_fonts("zh")))
    assert not [message for message in caught if "missing from font" in message], caught


@needs_cjk_font
def test_the_chinese_benchmark_plot_is_drawn_with_no_missing_glyph(tmp_path):
    from benchmarks.plots import plot_preview

    results = json.loads(
        (ROOT / "benchmarks" / "results" / "results.json").read_text(encoding="utf-8")
    )
    target = tmp_path / "preview_scaling.zh.png"
    caught = draw_catching_warnings(lambda: plot_preview(results["preview"], target, lang="zh"))
    assert not [message for message in caught if "missing from font" in message], caught
    assert target.stat().st_size > 10_000


def test_plot_fonts_puts_matplotlibs_latin_font_first_and_a_cjk_family_after_it(
    monkeypatch, capsys
):
    assert plots.plot_fonts("en") == ["DejaVu Sans"]
    monkeypatch.setattr(plots, "cjk_family", lambda: "Noto Sans CJK SC")
    assert plots.plot_fonts("zh") == ["DejaVu Sans", "Noto Sans CJK SC"]
    assert capsys.readouterr().out == ""


def test_without_a_cjk_font_plot_fonts_says_in_chinese_which_font_to_install(monkeypatch, capsys):
    monkeypatch.setattr(plots, "cjk_family", lambda: None)
    assert plots.plot_fonts("zh") == ["DejaVu Sans"]
    printed = capsys.readouterr().out
    assert "fonts-noto-cjk" in printed and CJK.search(printed)


def test_no_chinese_diagram_needs_a_key_of_english_words_under_it():
    keyed = [
        f"{path.relative_to(NOTEBOOKS / 'zh')}:{cell.get('id')}"
        for path in CHINESE
        for cell in cells(path)
        if cell["cell_type"] == "markdown" and "（图中：" in source(cell)
    ]
    assert not keyed, keyed
