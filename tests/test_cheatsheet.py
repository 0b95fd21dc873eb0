"""The cheat sheet: it names every event and delta the accumulator handles and every stop
reason the tool-call rule knows, and it prints on one A4 page."""

import importlib.util
import re
from pathlib import Path

import pytest

from streaming_lib.accumulator import TEXT_DELTAS
from streaming_lib.events import API_EVENT_NAMES
from streaming_lib.tool_calls import CUT_OFF_STOP_REASONS

ROOT = Path(__file__).resolve().parent.parent
SHEET = (ROOT / "teaching" / "cheatsheet.md").read_text(encoding="utf-8")


def load_cheatsheet():
    spec = importlib.util.spec_from_file_location("cheatsheet", ROOT / "scripts" / "cheatsheet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sheet_names_every_messages_api_event_and_every_delta_type():
    deltas = {*TEXT_DELTAS, "input_json_delta", "signature_delta", "citations_delta"}
    for name in sorted(API_EVENT_NAMES | deltas):
        assert f"`{name}`" in SHEET, name


def test_the_sheet_states_the_tool_call_rule_and_the_stop_reasons_that_forbid_it():
    rule = SHEET.split("## When a tool call may run", 1)[1].split("\n## ", 1)[0]
    for needed in ("`content_block_stop`", "**object**", "`message_stop`", '"tool_use"'):
        assert needed in rule
    assert "`end_turn`" in rule and any(f"`{reason}`" in rule for reason in CUT_OFF_STOP_REASONS)


def test_the_html_page_keeps_every_section_and_table_row():
    page = load_cheatsheet().html(SHEET)
    assert page.count("<h2>") == SHEET.count("\n## ")
    assert page.count("<tr>") == len(re.findall(r"^\| `", SHEET, re.M)) + 1  # + the header


@pytest.mark.browser
@pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or importlib.util.find_spec("playwright") is None,
    reason="needs /usr/bin/chromium and playwright to print the PDF",
)
def test_the_sheet_prints_on_exactly_one_a4_page(tmp_path):
    made = load_cheatsheet().build(tmp_path)
    pdf = next(path for path in made if path.suffix == ".pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1
    width, height = (
        float(v) for v in re.search(rb"/MediaBox\s*\[0 0 ([\d.]+) ([\d.]+)\]", pdf).groups()
    )
    assert (round(width), round(height)) == (595, 842)  # A4 in points
