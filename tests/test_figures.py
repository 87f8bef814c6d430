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

    def clipped():  # the probs figure's title before it was widened
        return common.matrix_figure([[0.0, 1.0]] * 5, list("aabaa"), ["a", "b"], "softmax(logits)  [5×2]", cell=0.7)

    for name, function, message in [("tiny", tiny, "7.0 pt, less than 9 pt"), ("faint", faint, "contrast"),
                                    ("wide", wide, "10.00 in wide"), ("clipped", clipped, "'softmax.*' is cut off")]:
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


# ------------------------------------------------------------ a title says what the figure draws
#
# A heat map of the hand-made model (part1.py) has a title that names what it draws and its
# shape, "EXPR  [rows×cols]" (a legend may follow on the same line). The shape must be the
# drawn array's, and EXPR, read as Python in the names the pages use, must compute exactly
# the drawn array: "c_proj  [5×8]" over c_proj's output fails (c_proj is a layer,
# its weight 8×8), "c_proj(weights @ v)  [5×8]" passes.
TITLE = re.compile(r"^(?P<expr>.+?)\s+\[(?P<shape>\d+(?:×\d+)*)\]")


class Linear:
    """A linear layer as a title writes it: ``c_proj(x)``, ``c_attn.w``, ``c_attn.b``."""

    def __init__(self, weights):
        self.w, self.b = weights["w"], weights["b"]

    def __call__(self, x):
        return x @ self.w + self.b


def title_names():
    """The names a part-1 figure's title may use: the running example's arrays and the model's weights."""
    import numpy as np

    import handtf

    t = handtf.trace("aabaa")
    attn = handtf.MODEL["blocks"][0]["attn"]
    return {"np": np, "softmax": handtf.softmax, "wte": handtf.MODEL["wte"], "wpe": handtf.MODEL["wpe"],
            "c_attn": Linear(attn["c_attn"]), "c_proj": Linear(attn["c_proj"]), "tokens": t.tokens, "x": t.embedding,
            "qkv": t.qkv, "q": t.q, "k": t.k, "v": t.v, "mask": t.mask, "weights": t.attention_weights,
            "logits": t.logits}


def as_python(expr):
    """``softmax(q·kᵀ/√8 + mask)`` -> ``softmax(q@k.T/np.sqrt(8) + mask)``."""
    expr = expr.replace("·", "@").replace("ᵀ", ".T").replace("−", "-")
    return re.sub(r"√(\d+)", r"np.sqrt(\1)", expr)


def drawn_heat_maps(fig):
    """(title, array) of each heat map of a drawn figure; a title on the figure serves its one heat map."""
    from matplotlib.collections import QuadMesh

    found = []
    for ax in fig.axes:
        meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
        if meshes:
            title = ax.get_title() or (fig.texts[0].get_text() if len(fig.texts) == 1 else "")
            found.append((title.split("\n")[0], meshes[0].get_array()))
    return found


def title_problems(name, fig, names=None):
    """What is wrong with the titles of a figure's heat maps (part-1 figures: ``names`` given)."""
    import numpy as np

    problems = []
    for title, array in drawn_heat_maps(fig):
        m = TITLE.match(title)
        if not m:
            continue
        shape = tuple(int(n) for n in m["shape"].split("×"))
        if shape != np.shape(array):
            problems.append(f"{name}: {title!r} draws an array of shape {np.shape(array)}")
        if names is None:
            continue
        for side in m["expr"].split(" = "):
            try:
                value = eval(as_python(side), {"__builtins__": {}}, dict(names))  # noqa: S307 (our own titles)
            except Exception as error:  # noqa: BLE001
                problems.append(f"{name}: {side!r} in {title!r} is not an expression of the page's names ({error})")
                continue
            if not isinstance(value, np.ndarray) or value.shape != np.shape(array) or not np.array_equal(value, array):
                problems.append(f"{name}: {side!r} in {title!r} is not the array the figure draws")
    return problems


def test_every_heat_maps_title_is_the_array_it_draws(render_figures):
    from figures.common import plt, use_language
    from figures.registry import FIGURES, PHONE, WORDS

    names = title_names()
    problems, checked = [], 0
    for name, function in FIGURES.items():
        if not function.__module__.endswith("part1"):
            continue  # the other parts' titles are read by their own pages' names
        args = (WORDS[name]["en"],) if name in WORDS else ()
        for phone in (False, True) if name in PHONE else (False,):
            use_language("en")
            fig = function(*args, phone=phone) if name in PHONE else function(*args)
            try:
                problems += title_problems(name, fig, names)
                checked += any(TITLE.match(title) for title, _ in drawn_heat_maps(fig))
            finally:
                plt.close(fig)
    assert not problems, "\n".join(problems)
    assert checked >= 12, checked  # the part-1 heat maps with a title: wte, wpe, the embedding, c_attn, qkv, ...


def test_the_title_check_catches_a_layer_named_for_its_output(render_figures):
    """The projection figure was titled "c_proj  [5×8]": the layer's name over its output."""
    from figures.common import matrix_figure, plt
    import handtf

    t = handtf.trace("aabaa")
    for title, expected in [("c_proj  [5×8]", "is not the array"), ("c_proj(weights @ v)  [5×8]", None),
                            ("c_proj(weights @ v)  [8×8]", "draws an array of shape"), ("wte  [2×8]", "is not the array")]:
        fig = matrix_figure(t.projection, list("aabaa"), list("PPPPPabV"), title)
        try:
            problems = title_problems("projection", fig, title_names())
        finally:
            plt.close(fig)
        assert (expected is None and not problems) or (expected and any(expected in p for p in problems)), (title, problems)
