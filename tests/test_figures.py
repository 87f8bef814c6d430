"""The figures: drawn by scripts/render_figures.py, up to date, deterministic, and placed on the pages."""

import importlib.util
import os
import subprocess
import sys

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


def test_the_committed_figures_are_what_the_code_draws():
    result = run_script("--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_matplotlibrc_on_the_machine_changes_no_figure(tmp_path):
    (tmp_path / "matplotlibrc").write_text("lines.linewidth: 4\nfont.size: 14\naxes.linewidth: 3\n")
    result = run_script("--check", "--only", "wte,softmax-walkthrough", env={**os.environ, "MPLCONFIGDIR": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr


def test_drawing_a_figure_twice_gives_the_same_bytes(render_figures):
    first, second = render_figures.render("c-attn"), render_figures.render("c-attn")
    assert first == second
    assert b"<image" not in first, "figures must be vector drawings, without embedded rasters"


def test_check_names_a_stale_a_missing_and_an_extra_figure(render_figures, tmp_path):
    (tmp_path / "wte.svg").write_bytes(render_figures.render("wte"))
    (tmp_path / "wpe.svg").write_bytes(render_figures.render("wpe").replace(b"P0", b"P9", 1))
    (tmp_path / "old.svg").write_text("<svg/>")
    problems = render_figures.check(["wte", "wpe", "v"], tmp_path)
    assert [problem.split(":")[0] for problem in problems] == ["wpe", "v", "old.svg"]


def test_an_unknown_figure_name_is_one_line_and_exit_status_2():
    result = run_script("--only", "nosuch")
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "nosuch" in result.stderr


def test_every_figure_file_has_a_function(render_figures):
    drawn = {f"{name}.svg" for name in render_figures.FIGURES}
    assert {path.name for path in FIGURE_DIR.iterdir()} == drawn


def referenced_figures(language):
    """The figure names that the pages of one language show."""
    return {
        (page.parent / path).resolve().stem
        for page in pages(language)
        if page.suffix == ".md"
        for path in images(page)
        if (page.parent / path).resolve().parent == FIGURE_DIR.resolve()
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_figure_is_shown_on_a_page(render_figures, language):
    unplaced = sorted(set(render_figures.FIGURES) - referenced_figures(language))
    assert not unplaced, f"{language}: no page shows {', '.join(unplaced)}"


@pytest.mark.parametrize("page", [p for p in pages() if p.suffix == ".md"], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_image_a_page_shows_exists(page):
    missing = [path for path in images(page) if "://" not in path and not (page.parent / path).exists()]
    assert not missing, f"{page.relative_to(DOCS)} shows missing images: {missing}"
