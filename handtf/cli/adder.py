"""``python -m handtf adder`` and ``add``: the hand-set adder, checked, and one sum written by it.

    handtf adder [--digits N]     every pair up to 3 digits, else AdderBoard's protocol
    handtf add A B [--digits N]   the sum the model writes by greedy decoding

``adder`` prints the counts and the smallest logit margin in float32 and
float64 and exits 1 if an addition comes out wrong; ``add`` prints one line.
Bad arguments are one line on stderr and exit 2 (``handtf.cli.main``).
"""

from ..patterns.addition import adder, verify_adder


def add_parser(commands, whole_number):
    p = commands.add_parser("adder", help="build the hand-set adder and check it as AdderBoard does")
    p.add_argument("--digits", type=whole_number, default=10, help="the longest number it adds (default 10)")
    p = commands.add_parser("add", help="add two numbers with the hand-set adder")
    p.add_argument("a", help="a whole number, e.g. 123")
    p.add_argument("b", help="a whole number, e.g. 456")
    p.add_argument("--digits", type=whole_number, default=10, help="the longest number it adds (default 10)")


def run(args):
    model = adder(args.digits)
    if args.command == "add":
        print(model.add(args.a, args.b))
        return 0
    result = verify_adder(model)
    print(result)
    for a, b, written, dtype in result.failures:
        print(f"wrong ({dtype}): {a} + {b} = {a + b}, the model wrote {written}")
    return 0 if result.passed else 1
