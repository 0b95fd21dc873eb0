"""The words the library shows a person come from gettext catalogues (streaming_lib/locale):
the template says what the code says, every message has its Chinese, the .mo files are
the compiled .po files, and a language is a setting: English stays byte for byte."""

from __future__ import annotations

import gettext
import io
import re
import string
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

import streaming_lib
from streaming_lib import language
from streaming_lib.language import Text, _, set_language, use_language
from streaming_lib.tools import i18n
from streaming_lib.tools.fixtures import read_fixture

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import messages  # noqa: E402  (scripts/messages.py)

RAW = read_fixture("fixture")


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language("en")


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def test_the_template_holds_every_message_the_code_marks_and_no_other():
    said = messages.messages(messages.extract())
    with messages.TEMPLATE.open("rb") as file:
        kept = messages.messages(read_po(file))
    assert not said - kept, f"run make messages: the template lacks {sorted(said - kept, key=str)}"
    assert not kept - said, f"run make messages: no code says {sorted(kept - said, key=str)}"


def test_every_message_of_the_template_has_a_chinese_translation():
    catalog = messages.read("zh")
    with messages.TEMPLATE.open("rb") as file:
        template = messages.messages(read_po(file))
    assert messages.messages(catalog) == template, "run make messages"
    assert not messages.untranslated(catalog), "no Chinese for:\n" + "\n".join(
        messages.untranslated(catalog)
    )


@pytest.mark.parametrize("lang", messages.languages())
def test_each_translation_keeps_the_fields_of_its_english(lang):
    wrong = [
        f"{message.id!r} -> {message.string!r}"
        for message in messages.read(lang)
        if message.id and message.string and fields(message.id) != fields(message.string)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", messages.languages())
def test_the_committed_mo_file_is_the_po_file_compiled(lang):
    compiled = io.BytesIO()
    write_mo(compiled, messages.read(lang))
    assert messages.po_path(lang).with_suffix(".mo").read_bytes() == compiled.getvalue()


def test_english_is_the_default_and_is_the_text_in_the_code():
    assert language.current_language() == "en"
    said = _("block {index} is not a tool call ({kind})", index=2, kind="text")
    assert said == "block 2 is not a tool call (text)" == str(said) == f"{said}"
    assert repr(said) == "'block 2 is not a tool call (text)'"


def test_a_chinese_notebook_gets_chinese_errors_of_the_same_class_with_the_same_attributes():
    with pytest.raises(streaming_lib.IncompleteStreamError) as english:
        streaming_lib.accumulate(RAW[:1000])
    assert str(english.value) == "the stream ended after event 6 without message_stop"
    set_language("zh")
    with pytest.raises(streaming_lib.IncompleteStreamError) as chinese:
        streaming_lib.accumulate(RAW[:1000])
    assert str(chinese.value) == "流在第 6 个事件之后就结束了，没有等到 message_stop"
    assert chinese.value.args == english.value.args  # the value is the English sentence
    assert chinese.value.event_number == english.value.event_number == 6
    assert chinese.value.partial == english.value.partial


def test_an_error_inside_an_error_is_said_whole_in_the_language_in_use():
    bad = RAW.replace(b'"partial_json":"{\\"', b'"partial_json":"{', 1)
    with use_language("zh"), pytest.raises(streaming_lib.ToolInputJSONError) as error:
        streaming_lib.accumulate(bad)
    with use_language("zh"):
        said = str(error.value)
    assert re.fullmatch(
        r"第 \d+ 个事件：第 1 块的工具输入不是合法的 JSON：.+（第 \d+ 个字符）", said
    )
    assert error.value.problem.startswith("is not valid JSON: ")  # attributes stay English


def test_a_verdicts_reason_is_english_as_a_value_and_shown_in_the_language_in_use():
    message = {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}
    verdict = streaming_lib.tool_call_verdict(
        {**message, "stop_reason": "max_tokens"}, 0, complete=True, stopped=True
    )
    english = (
        "stop_reason is max_tokens: "
        "the output was cut off at max_tokens, so the call may be incomplete"
    )
    assert verdict.reason == english
    with use_language("zh"):
        assert verdict.reason == english
        assert (
            str(verdict.reason)
            == "stop_reason 是 max_tokens：输出在 max_tokens 处被截断，这次调用可能不完整"
        )
        assert "reason='stop_reason 是 max_tokens" in repr(verdict)
    assert i18n.verdict_words(verdict.reason, "zh") == verdict.reason.in_language("zh")


def test_an_unknown_language_is_refused_and_the_language_stays():
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        set_language("fr")
    assert language.current_language() == "en"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.words(i18n.STEPPER, "fr")


def test_a_third_language_is_a_file_not_code(tmp_path, monkeypatch):
    catalog = messages.read("zh")
    catalog.locale = "fr"
    for message in catalog:
        if message.id:
            message.string = ""
    catalog["a second message_start"].string = "un second message_start"
    folder = tmp_path / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "streaming_lib.mo").open("wb") as file:
        write_mo(file, catalog)
    monkeypatch.setattr(language, "LOCALE_DIR", tmp_path)
    language.catalogue.cache_clear()
    try:
        said = _("a second message_start")
        assert said.in_language("fr") == "un second message_start"
        assert _("no details").in_language("fr") == "no details"  # untranslated: the English
    finally:
        language.catalogue.cache_clear()


def test_a_text_survives_pickling_and_says_itself_again():
    import pickle

    said = pickle.loads(
        pickle.dumps(_("event {number}: {what}", number=3, what=_("a second message_start")))
    )
    assert isinstance(said, Text) and said == "event 3: a second message_start"
    assert said.in_language("zh") == "第 3 个事件：第二个 message_start"


def test_the_front_ends_tables_read_their_words_from_the_catalogue():
    zh = gettext.translation("streaming_lib", messages.LOCALE, languages=["zh"])
    assert i18n.STEPPER["zh"]["play"] == zh.pgettext("play", "▶ play") == "▶ 播放"
    assert i18n.STEPPER["en"]["play"] == "▶ play"
    assert i18n.PROGRESS["zh"]["all_pass"] == "全部通过"
    assert i18n.TRACE["zh"]["event"] == "事件"


def test_a_command_run_in_process_with_lang_leaves_the_callers_language_as_it_was():
    from streaming_lib.__main__ import main
    from streaming_lib.language import current_language

    set_language("en")
    main(["trace", "--lang", "zh", "--chunk-size", "64"])
    assert current_language() == "en"
