"""The course as a website (`make site`, site/conf.py): it builds with no Sphinx warning, every
internal link and anchor of every page resolves, each page links to its twin in the other
edition, and lessons 01–04 and the exercises link to JupyterLite.

The site is built once per test session, from the course as committed (a learner's own
copy of a lesson never counts; see committed.py) and the site's configuration as it is.
External links are listed by `site/check.py`, never fetched.
"""

import importlib.util
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from committed import text as committed_text

ROOT = Path(__file__).resolve().parent.parent
# What the site is made of, copied with the committed text of each page.
COURSE = ("README.md", "README.zh-CN.md", "TEACHING.md", "TEACHING.zh-CN.md")
COURSE_FOLDERS = ("teaching", "notebooks", "exercises", "solutions")
LEFT_OUT = {".git", ".venv", "build", "my_client", ".hypothesis", ".pytest_cache"}

if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
    pytest.skip("needs the site extra: pip install -e '.[site]'", allow_module_level=True)


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


check = load("site_check", ROOT / "site" / "check.py")
conf = load("site_conf", ROOT / "site" / "conf.py")


def course_files() -> list[str]:
    """The course's files (paths from the repository's root): those git tracks in the course's
    pages and folders, so that a learner's own notebook never becomes a page here; outside a
    git checkout, every file there."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *COURSE, *COURSE_FOLDERS],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if listed.returncode == 0 and listed.stdout:
        return sorted(name for name in listed.stdout.split("\0") if name)
    found = [ROOT / name for name in COURSE if (ROOT / name).exists()]
    for folder in COURSE_FOLDERS:
        found += (path for path in (ROOT / folder).rglob("*") if path.is_file())
    return sorted(path.relative_to(ROOT).as_posix() for path in found)


def committed_course(into: Path) -> Path:
    """A copy of the repository for Sphinx: the course's files, its pages as committed, and
    the rest of the repository linked as it is."""
    into.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in LEFT_OUT | set(COURSE) | set(COURSE_FOLDERS):
            (into / entry.name).symlink_to(entry)
    for name in course_files():
        copy = into / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if copy.suffix in (".ipynb", ".md"):
            copy.write_text(committed_text(ROOT / name), encoding="utf-8")
        else:
            shutil.copy(ROOT / name, copy)
    return into


def built_site(tmp_path_factory) -> Path:
    """The site, built once per session (its root); fails on any Sphinx warning."""
    base = tmp_path_factory.getbasetemp() / "site-build"
    out = base / "site"
    if not (base / "built").exists():
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir()
        source = committed_course(base / "source")
        done = check.build(out, base / "doctrees", source=source)
        assert done.returncode == 0, done.stderr[-4000:]
        (base / "built").touch()
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    return built_site(tmp_path_factory)


def html(site: Path, page: str) -> str:
    return (site / f"{page}.html").read_text(encoding="utf-8")


def hrefs(site: Path, page: str, css_class: str) -> list[str]:
    return re.findall(rf'<a class="{css_class}" href="([^"]*)"', html(site, page))


def pages_of(patterns: tuple[str, ...]) -> list[str]:
    """The pages (names without suffix) whose sources match `patterns` (conf.py's syntax)."""
    names = [name.rsplit(".", 1)[0] for name in course_files() if name.endswith((".ipynb", ".md"))]
    return sorted(n for n in names if any(conf.matches(n, pattern) for pattern in patterns))


# Every page the site is made of: the site's include_patterns without their suffix.
PAGES = tuple(pattern.rsplit(".", 1)[0] for pattern in conf.include_patterns)


LESSONS = pages_of(("notebooks/[0-9]*", "notebooks/zh/[0-9]*"))
EXERCISES = pages_of(("exercises/*", "exercises/zh/*"))


# -- the link check ---------------------------------------------------------------------------


def test_every_internal_link_and_anchor_of_every_page_leads_somewhere(site):
    report = check.check_site(site)
    assert report.pages > 70
    assert report.broken == [], "\n".join(f"{p} -> {u}: {why}" for p, u, why in report.broken)
    print("\n".join(sorted(report.external)))  # listed (pytest -s), never fetched


def test_the_link_check_finds_a_missing_page_a_missing_anchor_and_a_link_out_of_the_site(
    tmp_path,
):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#top">ok</a> <a href="b.html#gone">anchor</a>'
        ' <a href="c.html">page</a> <img src="../x.png"> <a href="https://example.org/">out</a>'
        ' <a href="lite/lab/index.html?path=notebooks/x.ipynb">lite</a>',
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text('<a name="top"></a><a href="a.html#top">back</a>')
    report = check.check_site(tmp_path)
    assert [(url, why) for _, url, why in report.broken] == [
        ("b.html#gone", "no such anchor"),
        ("c.html", "no such file"),
        ("../x.png", "leads outside the site"),
    ]
    assert report.external == {"https://example.org/"}
    assert report.lite_unbuilt == [("a.html", "lite/lab/index.html?path=notebooks/x.ipynb")]
    (tmp_path / "lite" / "lab").mkdir(parents=True)  # once built, a link into it is checked
    assert [url for _, url, _ in check.check_site(tmp_path).broken][-1] == (
        "lite/lab/index.html?path=notebooks/x.ipynb"
    )


# -- what the pages hold ------------------------------------------------------------------------


def test_only_course_material_becomes_a_page(site):
    pages = {
        p.relative_to(site).with_suffix("").as_posix()
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in ("_static", "lite")
    }
    sources = set(pages_of(PAGES))
    assert pages == sources | {"index", "search", "genindex"}


def test_each_page_links_to_its_twin_in_the_other_edition_or_to_that_edition_s_home(site):
    for page in pages_of(PAGES):
        twin = conf.twin(page)
        exists = (site / f"{twin}.html").exists()
        wanted = twin if exists else conf.HOME["en" if conf.edition(page) == "zh" else "zh"]
        relative = posixpath.relpath(f"{wanted}.html", posixpath.dirname(page) or ".")
        assert hrefs(site, page, "course-twin") == [relative], page


def test_lesson_02_and_its_chinese_twin_link_to_each_other(site):
    assert hrefs(site, "notebooks/02_chunks_to_lines", "course-twin") == [
        "zh/02_chunks_to_lines.html"
    ]
    assert hrefs(site, "notebooks/zh/02_chunks_to_lines", "course-twin") == [
        "../02_chunks_to_lines.html"
    ]
    assert hrefs(site, "README", "course-twin") == ["README.zh-CN.html"]


def test_lessons_01_to_04_and_the_exercises_link_to_the_same_notebook_in_jupyterlite(site):
    offered = [p for p in LESSONS if re.search(r"/0[1-4]_", p)] + EXERCISES
    assert len(offered) == 8 + len(EXERCISES) and EXERCISES
    for page in offered:
        up = "../" * page.count("/")
        assert hrefs(site, page, "course-lite") == [f"{up}lite/lab/index.html?path={page}.ipynb"]
    for page in set(LESSONS) - set(offered):  # 00 and 05–07 need sockets
        assert hrefs(site, page, "course-lite") == [], page


def test_an_exercise_page_says_how_to_run_its_checks_locally(site):
    english = html(site, "exercises/03_partial_json")
    assert "<code>make progress</code>" in english
    assert "--nbval-lax exercises/03_partial_json.ipynb" in english
    assert "<code>make progress-zh</code>" in html(site, "exercises/zh/03_partial_json")
    assert "make progress" not in html(site, "solutions/03_partial_json")


def test_the_home_page_is_the_readme_whose_course_map_links_every_lesson(site):
    assert 'url=README.html"' in html(site, "index")
    readme = html(site, "README")
    for lesson in (p for p in LESSONS if not p.startswith("notebooks/zh/")):
        assert f'href="{lesson}.html"><code' in readme, lesson


def test_automatic_link_detection_is_off_so_a_file_name_stays_code(site):
    start = html(site, "notebooks/00_start_here")
    assert "calc.py" in start
    assert not re.search(r'href="[^"]*calc\.py', start)


def test_every_page_has_its_own_title_and_the_chinese_pages_say_they_are_chinese(site):
    titles = {}
    for page in pages_of(PAGES):
        text = html(site, page)
        titles[page] = re.search(r"<title>(.*?) &#8212; streaming-course</title>", text).group(1)
        lang = re.search(r'<html lang="([^"]+)"', text).group(1)
        assert lang == ("zh-CN" if conf.edition(page) == "zh" else "en"), page
    assert len(set(titles.values())) == len(titles), "two pages share a title"
    assert titles["notebooks/02_chunks_to_lines"].startswith("02 · ")


def test_the_stepper_is_its_stored_static_page_with_its_own_script_and_nothing_from_a_cdn(site):
    lesson = html(site, "notebooks/02_chunks_to_lines")
    assert 'class="ss-root ss-static"' in lesson
    assert '<script type="application/json" class="ss-data">' in lesson
    for page in site.rglob("*.html"):
        assert not re.search(r"<script[^>]+src=\"(https?:)?//", page.read_text("utf-8")), page


def test_a_chinese_pages_chrome_is_chinese_and_an_english_pages_english(site):
    # Sphinx builds in one language; a Chinese page's theme words come from the Chinese
    # catalogues of Sphinx and the themes (conf.chrome_translations).
    chinese = html(site, "notebooks/zh/02_chunks_to_lines")
    english = html(site, "notebooks/02_chunks_to_lines")
    for page, search, contents, on_this_page in (
        (chinese, "搜索", "目录", "当前页面"),
        (english, "Search", "Contents", "On this page"),
    ):
        assert f'aria-label="{search}"' in page
        assert re.search(rf'fa-list"></i>\s*{contents}\s*<', page)
        assert f'aria-label="{on_this_page}"' in page
    assert 'aria-label="Search"' not in chinese and 'aria-label="On this page"' not in chinese
    assert not re.search(r'fa-list"></i>\s*Contents', chinese)
