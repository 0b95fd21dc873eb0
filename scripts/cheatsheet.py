"""The one-page cheat sheet, in both editions, as printable A4 pages.

    python scripts/cheatsheet.py          # build/cheatsheet.html and, with chromium, .pdf
                                          # and build/cheatsheet.zh-CN.html, .pdf (teaching/zh)
    make cheatsheet                       # the same

The Markdown (teaching/cheatsheet.md, teaching/zh/cheatsheet.md) is turned into
HTML by mistune (nbconvert's own Markdown library) with a print style sized for
one A4 page; the PDF is that page printed by chromium through playwright, when
both are installed (otherwise the HTML prints from any browser: File → Print).
The Chinese page asks for a CJK font first (Noto Sans CJK SC, from
fonts-noto-cjk, or the system's own); without one, the browser picks any font
it has with the glyphs, or shows boxes.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import NamedTuple

import mistune

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build"


class Edition(NamedTuple):
    """One language's cheat sheet: its Markdown, the files it becomes, its page's words."""

    lang: str  # the page's `lang`, as HTML writes it
    source: Path
    stem: str  # build/<stem>.html and .pdf
    title: str
    fonts: str  # the body's font families, the first that has a glyph wins


EDITIONS = {
    "en": Edition(
        "en", ROOT / "teaching" / "cheatsheet.md", "cheatsheet", "Streaming cheat sheet",
        '"DejaVu Sans", "Noto Sans", "Noto Sans CJK SC", sans-serif',
    ),
    "zh": Edition(
        "zh-CN", ROOT / "teaching" / "zh" / "cheatsheet.md", "cheatsheet.zh-CN",
        "流式响应速查表",
        '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", '
        '"WenQuanYi Zen Hei", "DejaVu Sans", sans-serif',
    ),
}
SOURCE = EDITIONS["en"].source
CHROMIUM = Path("/usr/bin/chromium")

# Two columns of small type on A4, margins a printer keeps.
STYLE = """
@page { size: A4; margin: 9mm; }
body { font: 9.3pt/1.34 FONTS; margin: 0;
  color: #111; columns: 2; column-gap: 7mm; }
h1 { column-span: all; font-size: 14pt; margin: 0 0 2mm; }
h2 { font-size: 10pt; margin: 2.5mm 0 1mm; border-bottom: 0.4pt solid #999; break-after: avoid; }
p, ul, ol { margin: 0 0 1.3mm; } ul, ol { padding-left: 4mm; } li { margin: 0 0 0.4mm; }
code { font: 8.5pt "DejaVu Sans Mono", "Noto Sans Mono", monospace; background: #eee;
  padding: 0 0.6pt; border-radius: 1.5pt; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1.5mm; break-inside: avoid; }
th, td { border: 0.4pt solid #bbb; padding: 0.5mm 1mm; text-align: left; vertical-align: top; }
th { background: #e8e8e8; }
"""


def html(markdown: str, edition: str = "en") -> str:
    """The cheat sheet's Markdown as a whole HTML page (str), in `edition` ("en" or "zh")."""
    page = EDITIONS[edition]
    body = mistune.create_markdown(plugins=["table"])(markdown)
    style = STYLE.replace("FONTS", page.fonts)
    return (
        f'<!DOCTYPE html>\n<html lang="{page.lang}"><head><meta charset="utf-8">'
        f"<title>{page.title}</title><style>{style}</style></head>"
        f"<body>{body}</body></html>\n"
    )


def pdf(page: Path, target: Path) -> Path:
    """Print the HTML page at `page` to an A4 PDF at `target` with chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            tab = browser.new_page()
            tab.goto(page.resolve().as_uri())
            tab.pdf(path=str(target), format="A4", prefer_css_page_size=True)
        finally:
            browser.close()
    return target


def build(out: Path = OUT, editions: tuple[str, ...] = tuple(EDITIONS)) -> list[Path]:
    """Write each edition's <stem>.html (and <stem>.pdf where chromium and playwright are)
    to `out`: cheatsheet.html, cheatsheet.zh-CN.html, ..."""
    out.mkdir(parents=True, exist_ok=True)
    printer = CHROMIUM.exists() and importlib.util.find_spec("playwright") is not None
    made = []
    for name in editions:
        edition = EDITIONS[name]
        page = out / f"{edition.stem}.html"
        page.write_text(html(edition.source.read_text(encoding="utf-8"), name), encoding="utf-8")
        made.append(page)
        if printer:
            made.append(pdf(page, out / f"{edition.stem}.pdf"))
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the folder to write to")
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
