"""Fonts for the course's plots, so that labels in Chinese are drawn as characters, not boxes.

matplotlib's default font, DejaVu Sans, has no Chinese glyphs: a Chinese label comes out as
boxes, with the warning "Glyph ... missing from font(s) DejaVu Sans". A figure may name several
font families, and matplotlib (3.6 and later) draws each glyph from the first family that has
it. So `plot_fonts("zh")` names DejaVu Sans first (Latin letters and digits as in the English
plots), then the first Chinese family the machine has:

    >>> plt.rcParams["font.family"] = plot_fonts("zh")  # ["DejaVu Sans", "Noto Sans CJK SC"]

Non-goals: it installs no font (on Debian or Ubuntu: fonts-noto-cjk), and it sets nothing by
itself: the plot's own cell sets `rcParams`, where a reader sees it.
"""

from __future__ import annotations

import functools
import re

from matplotlib import font_manager

LATIN = "DejaVu Sans"  # matplotlib's own default, shipped with it: always there
# Families with the simplified Chinese glyphs, best first: fonts-noto-cjk, Adobe's twin of it,
# then what macOS, Windows and older Linux systems bring.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Noto Sans SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Zen Hei",
    "SimHei",
)
# A font file that may hold one of them, by its name (NotoSansCJK-Regular.ttc, msyh.ttc, ...).
CJK_FILE = re.compile(r"CJK|SourceHan|NotoSansSC|PingFang|msyh|wqy|simhei", re.I)
MISSING = {
    "zh": "没有找到中文字体，图中的汉字会显示成方框：安装 fonts-noto-cjk"
    "（或任意一款简体中文字体）后，重新运行这个单元格。",
}


@functools.cache
def cjk_family() -> str | None:
    """The first of CJK_FAMILIES that matplotlib can draw with, or None.

    A font installed after matplotlib built its font cache is not in the cache: the font files
    of the system whose names look like CJK_FILE are then added to this process's list (the
    cache on disk is left as it is)."""

    def first() -> str | None:
        names = {font.name for font in font_manager.fontManager.ttflist}
        return next((family for family in CJK_FAMILIES if family in names), None)

    found = first()
    if found is None:
        for path in font_manager.findSystemFonts():
            if CJK_FILE.search(path):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # a file FreeType cannot read
                    continue
        found = first()
    return found


def plot_fonts(lang: str = "en") -> list[str]:
    """The font families (for `plt.rcParams["font.family"]`) of a plot labelled in `lang`.

    "en": ["DejaVu Sans"], matplotlib's default. "zh": ["DejaVu Sans", <the first CJK family
    installed>]; on a machine with no CJK font, ["DejaVu Sans"] and a printed note (in Chinese)
    saying which font to install."""
    if lang == "en":
        return [LATIN]
    family = cjk_family()
    if family is None:
        print(MISSING.get(lang, MISSING["zh"]))
        return [LATIN]
    return [LATIN, family]
