"""Walk the calls from an entry point down to attention, and count how often the walk climbs back up.

    python scripts/call_walk.py            # both walks: train:pattern and complete:context
    python scripts/call_walk.py --path     # and the path each takes down to attention

A walk follows, with ``sys.setprofile``, every call and return of a handtf
function from the entry point (``train(pattern=...)``, ``complete(context)``)
until the first call of ``attention``. It prints the path of frames open at
that moment, and the number of **climbs back**: a return to a shallower frame
followed by a descent into a new subtree, where the frame the walk climbed
back to is above the block level (no block function, ``transformer_block``,
is open). Returns that come one after another count as one climb; a
comprehension or a lambda counts as part of the function it is in. The
boundary (``handtf.checks``, ``handtf.layouts`` and each module's ``check_*``
functions, which read the arguments before the maths runs) is left out of the
walk; ``--boundary`` keeps it in.

Issue 37 asks for these counts before and after the forward passes became one;
run the script with the package of another revision on ``PYTHONPATH`` to
measure it (``git archive main | tar -x -C /tmp/main``, then
``PYTHONPATH=/tmp/main python scripts/call_walk.py``).
"""

import argparse
import sys
from pathlib import Path

import handtf

PACKAGE = str(Path(handtf.__file__).resolve().parent)
BLOCKS = {"transformer_block", "gpt2_block"}  # gpt2_block: the name of the second block, before there was one
BOUNDARY_MODULES = ("checks.py", "layouts.py", "recording.py")


def in_walk(code, boundary):
    """Whether a frame of ``code`` is part of the walk: handtf's own code, without the boundary unless asked."""
    path = code.co_filename
    if not path.startswith(PACKAGE) or code.co_name.startswith("<"):  # a comprehension or lambda is its function's
        return False
    return boundary or not (path.endswith(BOUNDARY_MODULES) or code.co_name.startswith(("check_", "read_")))


def walk(entry, boundary=False):
    """(the path of function names down to the first ``attention``, the number of climbs back) of ``entry()``."""
    stack, climbs, state = [], 0, {"started": False, "climbed": False, "done": None}

    def profile(frame, event, arg):
        if state["done"] is not None or event not in ("call", "return"):
            return
        code = frame.f_code
        if not state["started"]:
            if event == "call" and code.co_filename.startswith(PACKAGE) and code.co_name == entry.__name__:
                state["started"] = True
                stack.append(frame)
            return
        if not in_walk(code, boundary):
            return
        if event == "return":
            if stack and stack[-1] is frame:
                stack.pop()
                state["climbed"] = True
            return
        nonlocal climbs
        if state["climbed"] and not any(f.f_code.co_name in BLOCKS for f in stack):
            climbs += 1
        state["climbed"] = False
        stack.append(frame)
        if code.co_name == "attention" and code.co_filename.endswith("attend.py"):
            state["done"] = [f"{Path(f.f_code.co_filename).stem}.{f.f_code.co_name}" for f in stack]

    sys.setprofile(profile)
    try:
        entry()
    finally:
        sys.setprofile(None)
    return state["done"], climbs


def train_pattern():
    return handtf.train(pattern="aab", steps=1)


def complete_context():
    return handtf.complete("aab")


train_pattern.__name__, complete_context.__name__ = "train", "complete"
WALKS = {"train:pattern": train_pattern, "complete:context": complete_context}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", action="store_true", help="print the path down to attention too")
    parser.add_argument("--boundary", action="store_true", help="keep the argument checks in the walk")
    args = parser.parse_args(argv)
    for name, entry in WALKS.items():
        path, climbs = walk(entry, args.boundary)
        print(f"{name}: {climbs} climbs back before attention")
        if args.path:
            print("    " + " -> ".join(path or ["(attention never reached)"]))


if __name__ == "__main__":
    main()
