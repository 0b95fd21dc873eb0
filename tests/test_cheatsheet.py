"""The cheat sheet, in both editions: it names every event and delta the accumulator handles
and every stop reason the tool-call rule knows, and it prints on one A4 page."""

import importlib.util
import re
from pathlib import Path

import pytest

from streaming_lib.accumulator import TEXT_DELTAS
from streaming_lib.events import API_EVENT_NAMES
from streaming_lib.tool_calls import CUT_OFF_STOP_REASONS

ROOT = Path(__file__).resolve().parent.parent
SHEETS = {
    "en": (ROOT / "teaching" / "cheatsheet.md").read_text(encoding="utf-8"),
    "zh": (ROOT / "teaching" / "zh" / "cheatsheet.md").read_text(encoding="utf-8"),
}
RULE_HEADINGS = {"en": "## When a tool call may run", "zh": "## 工具调用什么时候可以执行"}
editions = pytest.mark.parametrize("edition", list(SHEETS))


def load_cheatsheet():
    spec = importlib.util.spec_from_file_location("cheatsheet", ROOT / "scripts" / "cheatsheet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@editions
def test_the_sheet_names_every_messages_api_event_and_every_delta_type(edition):
    deltas = {*TEXT_DELTAS, "input_json_delta", "signature_delta", "citations_delta"}
    for name in sorted(API_EVENT_NAMES | deltas):
        assert f"`{name}`" in SHEETS[edition], name


@editions
def test_the_sheet_states_the_tool_call_rule_and_the_stop_reasons_that_forbid_it(edition):
    rule = SHEETS[edition].split(RULE_HEADINGS[edition], 1)[1].split("\n## ", 1)[0]
    for needed in ("`content_block_stop`", "**object**" if edition == "en" else "**对象**",
                   "`message_stop`", '"tool_use"'):
        assert needed in rule
    assert "`end_turn`" in rule and any(f"`{reason}`" in rule for reason in CUT_OFF_STOP_REASONS)


def test_the_chinese_sheet_has_the_english_ones_sections_rows_and_pitfalls():
    english, chinese = SHEETS["en"], SHEETS["zh"]
    assert chinese.count("\n## ") == english.count("\n## ")
    assert re.findall(r"^\| (`\w+`)", chinese, re.M) == re.findall(r"^\| (`\w+`)", english, re.M)
    assert len(re.findall(r"^\d+\. ", chinese, re.M)) == len(re.findall(r"^\d+\. ", english, re.M))


@editions
def test_the_html_page_keeps_every_section_and_table_row(edition):
    sheet = SHEETS[edition]
    page = load_cheatsheet().html(sheet, edition)
    assert page.count("<h2>") == sheet.count("\n## ")
    assert page.count("<tr>") == len(re.findall(r"^\| `", sheet, re.M)) + 1  # + the header


def test_the_chinese_page_says_its_language_and_asks_for_a_cjk_font_first():
    page = load_cheatsheet().html(SHEETS["zh"], "zh")
    assert '<html lang="zh-CN">' in page
    assert re.search(r'body \{ font: [\d.]+pt/[\d.]+ "Noto Sans CJK SC"', page)


@pytest.mark.browser
@pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or importlib.util.find_spec("playwright") is None,
    reason="needs /usr/bin/chromium and playwright to print the PDF",
)
def test_each_sheet_prints_on_exactly_one_a4_page(tmp_path):
    made = load_cheatsheet().build(tmp_path)
    pdfs = sorted(path.name for path in made if path.suffix == ".pdf")
    assert pdfs == ["cheatsheet.pdf", "cheatsheet.zh-CN.pdf"]
    for name in pdfs:
        pdf = (tmp_path / name).read_bytes()
        assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1, name
        width, height = (
            float(v) for v in re.search(rb"/MediaBox\s*\[0 0 ([\d.]+) ([\d.]+)\]", pdf).groups()
        )
        assert (round(width), round(height)) == (595, 842), name  # A4 in points
