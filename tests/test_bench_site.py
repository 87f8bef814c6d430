"""The benchmark's floor (scripts/bench_site.py): mkdocs.yml without the site's own code, read
from mkdocs.yml itself, so the floor keeps up with the site. Fast: no build."""

import sys

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.utils.yaml import yaml_load

from pages import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import bench_site  # noqa: E402


def site_config():
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        return yaml_load(file)


def same(a, b):
    """Equal config values (the heading ids' slugify is a functools.partial, equal only to itself)."""
    return repr(a) == repr(b)


def names(entries):
    return [bench_site._name(entry) for entry in entries]


def strings(value):
    """Every string in a config value, its keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from strings(key)
            yield from strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from strings(inner)


def test_the_floor_has_none_of_the_site_code():
    site, floor = site_config(), bench_site.floor_config()
    assert site["hooks"] and "hooks" not in floor
    assert site["theme"]["custom_dir"] and "custom_dir" not in floor["theme"]
    assert any(name.startswith("handtf_site.") for name in names(site["markdown_extensions"]))
    assert [s for s in strings(floor) if bench_site.site_code(s)] == []
    assert floor["strict"] is False


def test_the_floor_keeps_every_third_party_plugin_and_extension():
    site, floor = site_config(), bench_site.floor_config()
    assert names(floor["plugins"]) == names(site["plugins"]) and "mkdocstrings" in names(floor["plugins"])
    third_party = [e for e in site["markdown_extensions"] if not bench_site.site_code(bench_site._name(e))]
    assert same(floor["markdown_extensions"], third_party) and len(third_party) > 10
    assert floor["theme"] == {k: v for k, v in site["theme"].items() if k != "custom_dir"}
    for plugin, theirs in zip(floor["plugins"], site["plugins"]):
        if bench_site._name(plugin) != "mkdocstrings":
            assert plugin == theirs, "only mkdocstrings loses anything (the site's templates and griffe extension)"
    (mkdocstrings,) = [p["mkdocstrings"] for p in floor["plugins"] if bench_site._name(p) == "mkdocstrings"]
    assert mkdocstrings["handlers"]["python"]["options"]["docstring_style"] == "sphinx"
    assert floor["watch"] == [path for path in site["watch"] if not bench_site.site_code(path)]
    changed = {"hooks", "theme", "markdown_extensions", "plugins", "strict", "watch"}
    assert same({k: v for k, v in floor.items() if k not in changed}, {k: v for k, v in site.items() if k not in changed})


def test_mkdocs_accepts_the_floor():
    config = MkDocsConfig(config_file_path=str(ROOT / "mkdocs.yml"))
    config.load_dict(bench_site.floor_config())
    errors, warnings = config.validate()
    assert (errors, warnings) == ([], [])
    assert not config.hooks and config.theme.custom_dir is None


def test_the_floor_is_checked_against_every_page_in_both_languages():
    built = {str(path) for path in bench_site.built_pages(ROOT)}
    assert {"index.html", "zh/index.html", "concepts/qkv/index.html", "zh/concepts/qkv/index.html"} <= built
    assert len(built) == 2 * len([p for p in (ROOT / "docs").rglob("*.md") if not p.name.endswith(".zh.md")])
