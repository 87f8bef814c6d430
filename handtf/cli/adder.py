"""``python -m handtf adder`` and ``add``: the hand-set adder, checked, and one sum written by it.

    handtf adder [--digits N]     every pair up to 3 digits, else AdderBoard's protocol
    handtf adder --prove [--digits N | --trained]   a proof over every pair (handtf.prove_adder)
    handtf add A B [--digits N]   the sum the model writes by greedy decoding

``adder`` prints the counts and the smallest logit margin in float32 and
float64 and exits 1 if an addition comes out wrong; with ``--prove`` it prints
the proof's result and exits 0 only when every pair is proved (``--trained``:
the trained 10-digit adder instead of the hand-set one); ``add`` prints one line.
Bad arguments are one line on stderr and exit 2 (``handtf.cli.main``).
"""

from ..patterns.addition import adder
from ..patterns.adderboard import verify_adder
from ..patterns.proof import prove_adder
from ..training.adder import trained_adder


def add_parser(commands, whole_number):
    p = commands.add_parser("adder", help="build the hand-set adder and check it as AdderBoard does")
    p.add_argument("--digits", type=whole_number, default=10, help="the longest number it adds (default 10)")
    p.add_argument("--prove", action="store_true", help="prove every pair right (or find one wrong) instead of sampling")
    p.add_argument("--trained", action="store_true", help="the trained 10-digit adder the page shows (with --prove)")
    p = commands.add_parser("add", help="add two numbers with the hand-set adder")
    p.add_argument("a", help="a whole number, e.g. 123")
    p.add_argument("b", help="a whole number, e.g. 456")
    p.add_argument("--digits", type=whole_number, default=10, help="the longest number it adds (default 10)")


def run(args):
    if args.command == "adder" and args.trained and args.digits != 10:
        raise ValueError(f"--trained is the 10-digit trained adder; --digits must be 10 with it, got {args.digits}")
    model = trained_adder() if args.command == "adder" and args.trained else adder(args.digits)
    if args.command == "adder" and args.prove:
        result = prove_adder(model)
        print(result)
        return 0 if result.proved else 1
    if args.command == "add":
        print(model.add(args.a, args.b))
        return 0
    result = verify_adder(model)
    print(result)
    for a, b, written, dtype in result.failures:
        print(f"wrong ({dtype}): {a} + {b} = {a + b}, the model wrote {written}")
    return 0 if result.passed else 1
