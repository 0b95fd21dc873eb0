"""The language the library speaks to a person, and its words in that language.

A sentence a person reads (an error's message, a tool call's verdict reason, a label of
`trace`, `progress` or the stepper) is written in English in the code, marked for
translation, and looked up when shown in the gettext catalogue of the language in use:
`streaming_lib/locale/<lang>/LC_MESSAGES/streaming_lib.mo`, compiled by Babel from the
`.po` file beside it (`make messages`). A new language is a new `.po` file, not code.
English needs no catalogue: it is the text in the code, byte for byte.

Three markers, all read by Babel's extractor (`scripts/messages.py`):

- `_(english, **fields)`: a sentence, as a `Text`. Its value is the English sentence
  (what `==`, `json.dumps` and a program compare), while showing it (`str`, `print`,
  an f-string, `repr`) says it in the language in use. So an error's message and a
  verdict's reason are the same value in every language, and read in the learner's.
  A field that is itself a `Text` is said in the same language.
- `word(key, english)`: one entry of a front end's table of words (`tools/i18n.py`);
  the key is the entry's gettext context (`msgctxt`), as the same English word may need
  two renderings ("data lines" as a row label, and counted).
- `N_(english)`: a template kept as a plain str, for a front end that fills in its fields
  itself (the chat page's script, `chat/words.py`); `translate(english, lang)` says it.

The language in use is English until `set_language` changes it (the Chinese notebooks
call `set_language("zh")` in their first code cell), or the environment variable
`STREAMING_LIB_LANG` names another when the library is imported (for the command line).

    >>> said = _("block {index} is not a tool call ({kind})", index=2, kind="text")
    >>> said == "block 2 is not a tool call (text)"
    True
    >>> said.in_language("zh")
    '第 2 块不是工具调用（text）'
    >>> with use_language("zh"):
    ...     print(said)
    第 2 块不是工具调用（text）

Non-goals: plural forms (neither English sentence here nor Chinese needs them) and
locale formats of numbers and dates (the texts format their own numbers).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

DOMAIN = "streaming_lib"  # the catalogues' file name: <lang>/LC_MESSAGES/streaming_lib.mo
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENVIRONMENT_VARIABLE = "STREAMING_LIB_LANG"


def languages() -> tuple[str, ...]:
    """English, then every language with a compiled catalogue in `LOCALE_DIR`."""
    found = LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")
    return ("en", *sorted(path.parent.parent.name for path in found))


LANGS = languages()  # as the package was installed



def language_named(name: str) -> str | None:
    """The language with a catalogue that `name` names, read as a locale is ("zh",
    "zh-CN", "zh_CN.UTF-8" are all "zh"); None when no catalogue answers to it."""
    tag = name.strip().split(".")[0].replace("-", "_").lower()
    for candidate in (tag, tag.split("_")[0]):
        if candidate in languages():
            return candidate
    return None


# An unknown value in the environment leaves English: a message must never fail to print.
_language = language_named(os.environ.get(ENVIRONMENT_VARIABLE) or "en") or "en"


@cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The gettext catalogue of `lang` (English: none, the code's text); ValueError for a
    language with no catalogue."""
    if lang not in languages():
        raise ValueError(f"unknown language {lang!r}: choose from {languages()}")
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


def current_language() -> str:
    """The language the library speaks now: "en" unless `set_language` said otherwise."""
    return _language


def set_language(lang: str) -> None:
    """Speak `lang` ("en", "zh", or any language with a catalogue) from now on: errors'
    messages, verdict reasons and the front ends' words. ValueError for another."""
    global _language
    catalogue(language_named(lang) or lang)  # an unknown language fails here
    _language = language_named(lang) or lang


@contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Speak `lang` inside the `with` block, then the language of before."""
    before = current_language()
    set_language(lang)
    try:
        yield
    finally:
        set_language(before)


def translate(english: str, lang: str | None = None, context: str | None = None) -> str:
    """`english` in `lang` (None: the language in use); the English where the catalogue
    has no translation."""
    words = catalogue(current_language() if lang is None else lang)
    return words.gettext(english) if context is None else words.pgettext(context, english)


class Text(str):
    """A sentence for a person: English as a value, the language in use when shown.

    `template` is the English text with `str.format` fields, `fields` their values.
    Joining a Text to other text (`+`, `join`) uses its English value: make a new
    `_()` holding it as a field instead, so the whole sentence stays translatable.
    """

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, fields: Mapping[str, Any]) -> Text:
        english = _say(template, fields, "en")
        text = super().__new__(cls, english)
        text.template, text.fields = template, dict(fields)
        return text

    def in_language(self, lang: str | None = None) -> str:
        """The sentence in `lang` (None: the language in use), as a plain str."""
        return _say(self.template, self.fields, current_language() if lang is None else lang)

    def __str__(self) -> str:
        return self.in_language()

    def __format__(self, spec: str) -> str:
        return format(self.in_language(), spec)

    def __repr__(self) -> str:
        return repr(self.in_language())

    def __reduce__(self) -> tuple[Any, ...]:
        return Text, (self.template, self.fields)


def _say(template: str, fields: Mapping[str, Any], lang: str) -> str:
    said = {k: v.in_language(lang) if isinstance(v, Text) else v for k, v in fields.items()}
    return translate(template, lang).format(**said)


def _(english: str, /, **fields: Any) -> Text:
    """Mark `english` (a `str.format` template) for translation: the sentence with `fields`."""
    return Text(english, fields)


def N_(english: str, /) -> str:
    """Mark `english` (a template whose fields someone else fills in: a page's script) for
    translation, and return it as it is: gettext's `gettext_noop`. Look it up with
    `translate(english, lang)`."""
    return english


def word(key: str, english: str) -> tuple[str, str]:
    """Mark one entry of a table of words for translation: (key, English); the key is
    its gettext context."""
    return key, english


def say(text: str, lang: str | None = None) -> str:
    """`text` in `lang` (None: the language in use) if it is a `Text`; any other str as it is."""
    return text.in_language(lang) if isinstance(text, Text) else text
