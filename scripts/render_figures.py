"""Draw every figure of the site from handtf into docs/assets/figures/NAME.svg and NAME.dark.svg (and NAME.zh.svg, NAME.zh.dark.svg, NAME.phone.svg ...).

The figures are drawn by the package ``scripts/figures/`` (one module per part
of the site, see its ``__init__``); this script is its command line. A figure
with words in it is drawn once per language (``NAME.zh.svg`` for the Chinese
pages), in a font with CJK glyphs (fonts-wqy-microhei, installed by .ci/run). The SVGs
are deterministic (fixed sizes, seeded RNGs, text as paths, no date), so
``--check`` can tell a stale figure from a fresh one byte for byte.

    python scripts/render_figures.py                 # draw all
    python scripts/render_figures.py --only wte,wpe  # draw some
    python scripts/render_figures.py --check         # fail on a stale, missing or extra figure
"""

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, where the figures package lives

import matplotlib  # noqa: E402

from figures import FIGURE_DIR, FIGURES, check, files, parse_names, render  # noqa: E402, F401  (render, FIGURES: for tests)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="draw only these figures (repeat, or a comma list)")
    parser.add_argument("--check", action="store_true", help="draw into memory and fail if a committed figure is stale, missing or extra")
    parser.add_argument("--out", type=Path, default=FIGURE_DIR, help="the folder of the SVGs (default docs/assets/figures)")
    args = parser.parse_args(argv)
    try:
        names = parse_names(args.only)
    except KeyError as error:
        print(f"render_figures.py: unknown figure {', '.join(error.args[0])}; known: {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    # A figure is freed by the garbage collector (its artists refer to each other), which also walked every
    # object the imports made, again and again: those live to the end, so they are frozen out of its way,
    # and it runs after each file (see check), while the figure just closed is still in the CPU's caches.
    gc.collect()
    gc.freeze()
    if args.check:
        problems = check(names, args.out)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} figure problem(s); redraw with: python scripts/render_figures.py "
                  f"(matplotlib {matplotlib.__version__}; constraints.txt pins the one that drew them)")
            return 1
        print(f"{len(names)} figures up to date ({time.perf_counter() - start:.1f} s)")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        for file_name, (scheme, language, phone) in files(name).items():
            try:
                data = render(name, scheme=scheme, language=language, phone=phone)
            except ValueError as error:
                print(f"render_figures.py: {error}", file=sys.stderr)
                return 1
            gc.collect()  # the figure just drawn
            (args.out / file_name).write_bytes(data)
            print(f"{file_name}  {len(data) // 1024} KiB")
    print(f"{len(names)} figures in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
