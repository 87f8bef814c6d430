"""hooks/jieba_words.txt: with it jieba cuts the site's Chinese exactly as with its full dictionary."""

import sys
from pathlib import Path

import jieba
import pytest
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import search_words  # noqa: E402

jieba.setLogLevel(60)


@pytest.fixture(scope="module")
def runs(built_site):
    found = search_words.han_runs(built_site)
    assert len(found) > 1000, f"only {len(found)} runs of Chinese text in the search indexes: is this the built site?"
    return sorted(found)


@pytest.fixture(scope="module")
def full():
    return jieba.Tokenizer()  # jieba's own dictionary


def tokenizer(path):
    cut = jieba.Tokenizer(dictionary=str(path))
    cut.initialize()
    return cut


def differences(runs, one, other):
    return [(run, words, list(other.cut(run))) for run in runs if (words := list(one.cut(run))) != list(other.cut(run))]


def test_the_site_is_cut_as_with_jiebas_full_dictionary(runs, full):
    different = differences(runs, full, tokenizer(search_words.WORDS))
    assert not different, (
        f"{len(different)} runs of Chinese are cut differently, e.g. {different[:3]}: "
        "a page meets words hooks/jieba_words.txt lacks; run python scripts/search_words.py"
    )


def test_the_comparison_fails_without_a_word_or_with_another_total(runs, full, tmp_path):
    lines = search_words.WORDS.read_text(encoding="utf-8").splitlines()
    without = tmp_path / "without.txt"
    without.write_text("\n".join(line for line in lines if line.split(" ")[0] != "注意力") + "\n", encoding="utf-8")
    assert differences(runs, full, tokenizer(without))
    other_total = tmp_path / "total.txt"
    other_total.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # no placeholder: a smaller total
    assert differences(runs, full, tokenizer(other_total))


def test_the_search_plugin_reads_the_file():
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        config = yaml_load(file)
    search = next(plugin["search"] for plugin in config["plugins"] if isinstance(plugin, dict) and "search" in plugin)
    assert (ROOT / search["jieba_dict"]).resolve() == search_words.WORDS
