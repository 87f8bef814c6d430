"""The figures: drawn by scripts/render_figures.py, up to date, deterministic, and placed on the pages."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pages import DOCS, LANGUAGES, ROOT, images, pages

SCRIPT = ROOT / "scripts" / "render_figures.py"
FIGURE_DIR = DOCS / "assets" / "figures"


@pytest.fixture(scope="module")
def render_figures():
    spec = importlib.util.spec_from_file_location("render_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(*args, env=None):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, env=env)


@pytest.fixture(scope="session")
def figure_check():
    """``render_figures.py --check``: every figure drawn again."""
    return run_script("--check")


def test_the_committed_figures_are_what_the_code_draws(figure_check):
    assert figure_check.returncode == 0, figure_check.stdout + figure_check.stderr


def test_a_matplotlibrc_on_the_machine_changes_no_figure(tmp_path):
    (tmp_path / "matplotlibrc").write_text("lines.linewidth: 4\nfont.size: 14\naxes.linewidth: 3\n")
    result = run_script("--check", "--only", "wte,softmax-walkthrough", env={**os.environ, "MPLCONFIGDIR": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr


def test_drawing_a_figure_twice_gives_the_same_bytes(render_figures):
    first, second = render_figures.render("c-attn"), render_figures.render("c-attn")
    assert first == second
    assert b"<image" not in first, "figures must be vector drawings, without embedded rasters"
    assert render_figures.render("c-attn", scheme="dark") == render_figures.render("c-attn", scheme="dark")


def test_the_dark_variant_is_drawn_on_materials_slate_background(render_figures):
    light, dark = render_figures.render("wte"), render_figures.render("wte", scheme="dark")
    assert b"fill: #ffffff" in light and b"#1e2129" not in light
    assert b"fill: #1e2129" in dark  # Material's slate: hsl(225, 15%, 14%)
    assert render_figures.render("wte") == light, "drawing the dark variant leaves the light one as it was"


def test_check_names_a_stale_a_missing_and_an_extra_figure(render_figures, tmp_path):
    (tmp_path / "wte.svg").write_bytes(render_figures.render("wte"))
    (tmp_path / "wte.dark.svg").write_bytes(render_figures.render("wte", scheme="dark"))
    (tmp_path / "wpe.svg").write_bytes(render_figures.render("wpe").replace(b"P0", b"P9", 1))
    (tmp_path / "wpe.dark.svg").write_bytes(render_figures.render("wpe", scheme="light"))  # the wrong scheme
    (tmp_path / "old.svg").write_text("<svg/>")
    problems = render_figures.check(["wte", "wpe", "v"], tmp_path)
    assert [problem.split(":")[0] for problem in problems] == ["wpe.svg", "wpe.dark.svg", "v.svg", "v.dark.svg", "old.svg"]


def test_an_unknown_figure_name_is_one_line_and_exit_status_2():
    result = run_script("--only", "nosuch")
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "nosuch" in result.stderr


def test_every_figure_file_has_a_function(render_figures):
    drawn = {file_name for name in render_figures.FIGURES for file_name in render_figures.files(name)}
    assert {path.name for path in FIGURE_DIR.iterdir()} == drawn


def figure_images(page):
    """``(name, scheme fragment)`` of every figure a page shows, in order (``lookup.zh.dark``: name with its infixes)."""
    shown = []
    for path in images(page):
        file, _, fragment = path.partition("#")
        if (page.parent / file).resolve().parent == FIGURE_DIR.resolve():
            shown.append((Path(file).name.removesuffix(".svg"), fragment))
    return shown


def referenced_figures(language):
    """The figure names that the pages of one language show (``lookup`` for ``lookup.zh.svg`` too)."""
    return {name.removesuffix(".zh") for page in pages(language) if page.suffix == ".md" for name, _ in figure_images(page)}


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_figure_is_shown_in_both_schemes(page):
    """Each figure is NAME.svg#only-light followed at once by NAME.dark.svg#only-dark."""
    shown = figure_images(page)
    pairs = list(zip(shown[::2], shown[1::2]))
    assert len(shown) % 2 == 0 and all(
        light == (name, "only-light") and dark == (name + ".dark", "only-dark")
        for (light, dark), name in ((pair, pair[0][0]) for pair in pairs)
    ), f"{page.relative_to(DOCS)}: figures must come as NAME.svg#only-light then NAME.dark.svg#only-dark: {shown}"


def test_a_figure_with_small_text_or_faint_text_is_refused(render_figures):
    from figures import common
    from figures.registry import FIGURES

    def tiny():
        fig = common.matrix_figure([[1.0]], ["r"], ["c"], "t")
        fig.axes[0].texts[0].set_fontsize(7)
        return fig

    def faint():
        fig = common.Diagram(2, 1).fig
        fig.axes[0].text(1, 0.5, "faint", color="#bbbbbb")  # 1.9:1 on white
        return fig

    def wide():
        return common.Diagram(10, 1).fig

    for name, function, message in [("tiny", tiny, "7.0 pt, less than 9 pt"), ("faint", faint, "contrast"), ("wide", wide, "10.00 in wide")]:
        FIGURES[name] = function
        try:
            with pytest.raises(ValueError, match=message):
                render_figures.render(name)
        finally:
            del FIGURES[name]


def test_a_figure_too_wide_for_a_phone_needs_a_narrow_variant_that_fits(render_figures):
    """Over 5.3 in (509 px), 9 pt text shrinks below 8 px in the 358 px column at 390 px."""
    from figures import common
    from figures.registry import FIGURES, PHONE

    def wide(phone=None):
        return common.Diagram(6.0, 1).fig  # too wide for a phone, without or with phone=...

    def narrow_for_phones(phone=False):
        return common.Diagram(5.0 if phone else 6.0, 1).fig

    try:
        FIGURES["wide"] = wide
        with pytest.raises(ValueError, match="too wide for a phone"):
            render_figures.render("wide")
        PHONE.add("wide")
        with pytest.raises(ValueError, match=r"en, phone\): 6.00 in wide, more than 5.3 in"):
            render_figures.render("wide", phone=True)
        FIGURES["wide"] = narrow_for_phones
        assert render_figures.render("wide") != render_figures.render("wide", phone=True)
        assert set(render_figures.files("wide")) == {"wide.svg", "wide.dark.svg", "wide.phone.svg", "wide.phone.dark.svg"}
        with pytest.raises(ValueError, match="no phone variant"):
            render_figures.render("wte", phone=True)
    finally:
        FIGURES.pop("wide", None)
        PHONE.discard("wide")


def test_restack_puts_panels_under_each_other_at_their_size(render_figures):
    from figures import common

    fig, axes = common.plt.subplots(1, 3, figsize=(8.4, 3.0), sharey=True)
    sizes = [ax.get_position().transformed(fig.transFigure).size / fig.dpi for ax in axes]
    common.restack(fig)
    width, height = fig.get_size_inches()
    assert width < 4 and height > 3 * 2.0, (width, height)
    after = [ax.get_position().transformed(fig.transFigure).size / fig.dpi for ax in axes]
    assert all(abs(a - b).max() < 1e-9 for a, b in zip(sizes, after)), "the panels keep their size in inches"
    tops = [ax.get_position().y1 for ax in axes]
    assert tops[0] > tops[1] > tops[2], "in their order, top to bottom"
    assert all(label.get_visible() for ax in axes for label in ax.get_yticklabels()), "shared y axes get their labels back"
    common.plt.close(fig)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_figure_is_shown_on_a_page(render_figures, language):
    unplaced = sorted(set(render_figures.FIGURES) - referenced_figures(language))
    assert not unplaced, f"{language}: no page shows {', '.join(unplaced)}"


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_image_a_page_shows_exists(page):
    files = [path.partition("#")[0] for path in images(page) if "://" not in path]
    missing = [path for path in files if not (page.parent / path).exists()]
    assert not missing, f"{page.relative_to(DOCS)} shows missing images: {missing}"


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md" and p.parent.name == "concepts"],
                         ids=lambda p: str(p.relative_to(DOCS)))
def test_every_concept_page_has_a_figure(page):
    assert figure_images(page), f"{page.relative_to(DOCS)} shows no figure"


# ---------------------------------------------------------------- the figures in Chinese

HAN = re.compile("[\u4e00-\u9fff]")


def words_of(render_figures):
    """The label tables, ``{name: {language: {key: text}}}`` (the fixture puts scripts/ on the path)."""
    from figures.registry import WORDS

    return WORDS


def test_the_figures_with_words_have_a_chinese_variant(render_figures):
    """Every figure with English words in it is drawn again with the words of its Chinese table."""
    from figures.registry import PHONE as phone_variants

    words = words_of(render_figures)
    assert len(words) >= 15, sorted(words)
    for name, tables in words.items():
        assert set(tables) == {"en", "zh"}, name
        assert tables["en"].keys() == tables["zh"].keys(), name
        chinese = " ".join(str(value) for value in tables["zh"].values())
        assert HAN.search(chinese), f"{name}: its Chinese table has no Chinese"
        widths = ["", ".phone"] if name in phone_variants else [""]
        assert set(render_figures.files(name)) == {f"{name}{width}{infix}" for width in widths
                                                   for infix in (".svg", ".dark.svg", ".zh.svg", ".zh.dark.svg")}


def test_a_figure_of_numbers_and_code_is_shared_by_both_languages(render_figures):
    assert set(render_figures.files("wte")) == {"wte.svg", "wte.dark.svg"}
    with pytest.raises(ValueError, match="no words"):
        render_figures.render("wte", language="zh")


def test_the_chinese_variant_draws_chinese_glyphs_as_outlines(render_figures):
    """Same data, other words: the Chinese SVG differs from the English one only in its text, drawn as paths."""
    english, chinese = render_figures.render("lookup"), render_figures.render("lookup", language="zh")
    assert english != chinese
    assert b"<text" not in chinese, "text is saved as outlines: a reader needs no CJK font"
    assert b"WenQuanYi" in chinese or b"wqy" in chinese.lower(), "the glyphs come from the CJK font"
    assert chinese == render_figures.render("lookup", language="zh"), "deterministic"
    assert render_figures.render("lookup") == english, "drawing Chinese leaves the English fonts as they were"


def test_the_english_variant_uses_no_cjk_font(render_figures):
    assert b"WenQuanYi" not in render_figures.render("transformer")


@pytest.mark.parametrize("page", [p for p in pages("zh") if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_a_chinese_page_shows_the_chinese_variant_of_a_figure_with_words(render_figures, page):
    words = set(words_of(render_figures))
    english = [name for name, _ in figure_images(page) if name.removesuffix(".dark") in words]
    assert not english, f"{page.relative_to(DOCS)} shows English figures that have a Chinese variant: {english}"


@pytest.mark.parametrize("page", [p for p in pages("en") if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_an_english_page_shows_no_chinese_variant(page):
    chinese = [name for name, _ in figure_images(page) if ".zh" in name]
    assert not chinese, f"{page.relative_to(DOCS)} shows {chinese}"
