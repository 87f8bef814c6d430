"""Write hooks/jieba_words.txt: the words of jieba's dictionary that the site's search index can meet.

Material's search plugin cuts Chinese text into words with jieba, and jieba's
dictionary (349,046 words) takes about a second to load, on every build. The
site's own text holds a few thousand of them. This script keeps those, with
their frequencies, and one placeholder entry that brings the dictionary's total
frequency back to jieba's, so that jieba cuts every sentence of the site exactly
as with its full dictionary (``tests/test_search_words.py`` checks that on the
built site, and fails when a page meets a word the file lacks).

    python scripts/search_words.py               # build the site, then write the words
    python scripts/search_words.py --site SITE   # from an already built site
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jieba
from backrefs import bre

ROOT = Path(__file__).resolve().parent.parent
WORDS = ROOT / "hooks" / "jieba_words.txt"
HAN = bre.compile(r"\p{script: Han}+")  # what Material's search plugin hands to jieba
PLACEHOLDER = "\ue000"  # a private-use character: no page has it, so it only carries frequency


def han_runs(site):
    """Every run of Chinese characters in the site's search indexes, as jieba is given it."""
    runs = set()
    for index in sorted(Path(site).glob("**/search/search_index.json")):
        for entry in json.loads(index.read_text(encoding="utf-8"))["docs"]:
            for field in ("title", "text"):
                runs.update(HAN.findall(entry[field].replace("\u200b", "")))  # the plugin's word marks
    return runs


def full_dictionary():
    """jieba's own dictionary: ``({word or prefix: frequency}, total frequency)``."""
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer.FREQ, tokenizer.total


def words_met(runs, frequencies):
    """The dictionary's words (frequency > 0) that are part of a run."""
    longest = max(map(len, frequencies))
    found = set()
    for run in runs:
        for start in range(len(run)):
            for end in range(start + 1, min(len(run), start + longest) + 1):
                if frequencies.get(run[start:end]):
                    found.add(run[start:end])
    return found


def dictionary_text(runs):
    """The text of hooks/jieba_words.txt for these runs."""
    frequencies, total = full_dictionary()
    words = sorted(words_met(runs, frequencies))
    lines = [f"{word} {frequencies[word]}" for word in words]
    lines.append(f"{PLACEHOLDER} {total - sum(frequencies[word] for word in words)}")
    return "\n".join(lines) + "\n"


def build_site(folder):
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)]
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"search_words.py: the site did not build:\n{result.stderr[-3000:]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    args = parser.parse_args(argv)
    jieba.setLogLevel(60)  # no "Building prefix dict" chatter
    with tempfile.TemporaryDirectory(prefix="handtf-words-") as scratch:
        site = args.site
        if site is None:
            site = Path(scratch) / "site"
            build_site(site)
        if not (site / "search" / "search_index.json").exists():
            print(f"search_words.py: {site} has no search/search_index.json: is it a built site?", file=sys.stderr)
            return 2
        runs = han_runs(site)
    text = dictionary_text(runs)
    WORDS.write_text(text, encoding="utf-8")
    print(f"{WORDS.relative_to(ROOT)}: {text.count(chr(10)) - 1} words from {len(runs)} runs of Chinese text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
