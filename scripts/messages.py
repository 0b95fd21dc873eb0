"""The library's message catalogues: the words it shows a person, one .po file per language.

    python scripts/messages.py            # extract, update every .po, compile every .mo
    python scripts/messages.py check      # exit 1 and say what is stale or untranslated
    python scripts/messages.py init fr    # start the catalogue of a new language

Babel does the work (`make messages` runs the first line):

1. extract: every `_("...")` and `word(key, "...")` in streaming_lib/ (keywords as in
   `KEYWORDS`; see `streaming_lib/language.py`) into the template
   `streaming_lib/locale/streaming_lib.pot`;
2. update: each `streaming_lib/locale/<lang>/LC_MESSAGES/streaming_lib.po` gets the
   template's new messages (untranslated) and loses the ones the code no longer says;
   translations already made are kept;
3. compile: each .po to the .mo beside it, which the library reads at run time with the
   standard library's `gettext` (Babel is not needed to run the course).

A translator edits the .po files only, then runs this script again. The files carry no
dates, so an unchanged catalogue compiles to the same bytes.
"""

from __future__ import annotations

import argparse
import io
import sys
from datetime import datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "streaming_lib"
LOCALE = PACKAGE / "locale"
DOMAIN = "streaming_lib"
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
# `_(english, **fields)`, `N_(english)` and `word(key, english)`: the key is the message's context.
KEYWORDS = {"_": None, "N_": None, "word": ((1, "c"), 2)}
METHOD_MAP = [("**.py", "python")]
# Fixed, so that the files change only when their messages do.
DATE = datetime(2026, 1, 1)


HEADER = "# The words streaming_lib shows a person{language}. Made by scripts/messages.py."


def _catalog(locale: str | None = None) -> Catalog:
    return Catalog(
        locale=locale,
        domain=DOMAIN,
        header_comment=HEADER.format(language=f", in {locale}" if locale else ""),
        project="streaming-course",
        version="1",
        creation_date=DATE,
        revision_date=DATE,
        fuzzy=False,
    )


def extract() -> Catalog:
    """The template as the code says it now: every marked message, where it is said."""
    template = _catalog()
    found = extract_from_dir(
        PACKAGE,
        METHOD_MAP,
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    )
    for path, line, message, comments, context in found:
        template.add(
            message,
            locations=[(f"streaming_lib/{path}", line)],
            auto_comments=comments,
            context=context,
            flags=("python-brace-format",) if "{" in str(message) else (),
        )
    return template


def _po_text(catalog: Catalog, **options: bool) -> bytes:
    out = io.BytesIO()
    # No line numbers: a message moving down its file is no change to the catalogue.
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False, **options)
    return out.getvalue()


def _mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def languages() -> list[str]:
    """The languages with a catalogue (other than English, the code's own)."""
    return sorted(path.parent.parent.name for path in LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as file:
        return read_po(file, locale=lang, domain=DOMAIN)


def messages(catalog: Catalog) -> set[tuple[str | None, str]]:
    """The (context, English) pairs of `catalog`."""
    return {(message.context, str(message.id)) for message in catalog if message.id}


def updated(lang: str, template: Catalog) -> Catalog:
    """The catalogue of `lang` with the template's messages: new ones untranslated, gone
    ones dropped (not kept as obsolete: the code is the history)."""
    catalog = read(lang)
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    catalog.revision_date = DATE
    catalog.creation_date = DATE
    return catalog


def untranslated(catalog: Catalog) -> list[str]:
    """The messages of `catalog` with no translation, or one marked fuzzy (to be checked)."""
    return [
        (f"{message.context}: " if message.context else "") + str(message.id)
        for message in catalog
        if message.id and (not message.string or message.fuzzy)
    ]


def build() -> list[Path]:
    """Extract, update, compile; returns the files written."""
    template = extract()
    TEMPLATE.write_bytes(_po_text(template, omit_header=False))
    written = [TEMPLATE]
    for lang in languages():
        catalog = updated(lang, template)
        po_path(lang).write_bytes(_po_text(catalog))
        po_path(lang).with_suffix(".mo").write_bytes(_mo_bytes(catalog))
        written += [po_path(lang), po_path(lang).with_suffix(".mo")]
    return written


def problems() -> list[str]:
    """What is stale or missing: the template, a .po, a .mo, a translation."""
    found = []
    said = messages(extract())
    with TEMPLATE.open("rb") as file:
        kept = messages(read_po(file))
    for context, english in sorted(said - kept, key=str):
        found.append(
            f"{TEMPLATE.relative_to(ROOT)} lacks {english!r} ({context}): run make messages"
        )
    for context, english in sorted(kept - said, key=str):
        found.append(
            f"{TEMPLATE.relative_to(ROOT)} still has {english!r} ({context}): run make messages"
        )
    for lang in languages():
        catalog = read(lang)
        if messages(catalog) != said:
            found.append(f"{po_path(lang).relative_to(ROOT)} is not up to date: run make messages")
        mo = po_path(lang).with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != _mo_bytes(catalog):
            found.append(f"{mo.relative_to(ROOT)} is not the compiled .po: run make messages")
        found += [f"{lang}: no translation: {message}" for message in untranslated(catalog)]
    return found


def init(lang: str) -> Path:
    """Start the catalogue of `lang`: every message of the template, none translated."""
    catalog = _catalog(lang)
    catalog.update(extract(), no_fuzzy_matching=True)
    catalog.obsolete.clear()
    catalog.revision_date = catalog.creation_date = DATE
    po_path(lang).parent.mkdir(parents=True, exist_ok=True)
    po_path(lang).write_bytes(_po_text(catalog))
    return po_path(lang)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", default="build", choices=["build", "check", "init"])
    parser.add_argument("lang", nargs="?", help="init: the new language's code (fr, ja, ...)")
    args = parser.parse_args(argv)
    if args.command == "init":
        if not args.lang:
            parser.error("init needs a language code")
        print(f"wrote {init(args.lang).relative_to(ROOT)}")
        return 0
    if args.command == "check":
        found = problems()
        for problem in found:
            print(problem)
        return 1 if found else 0
    for path in build():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
