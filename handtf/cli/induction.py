"""``python -m handtf induction``: build the hand-set induction head and check it on every sequence.

    handtf induction [--alphabet ABC] [--n-ctx N]

Prints the counts and the smallest logit margin in float32 and float64; exits
1 if a covered position is predicted wrong. Bad arguments are one line on
stderr and exit 2 (``handtf.cli.main.main``).
"""

from ..patterns.induction import verify_induction, induction_head


def add_parser(commands, whole_number):
    p = commands.add_parser("induction", help="build the hand-set induction head and check it on every sequence")
    p.add_argument("--alphabet", default="abc", help="the tokens, distinct characters (default abc)")
    p.add_argument("--n-ctx", type=whole_number, default=8, help="the longest sequence (default 8)")


def run(args):
    result = verify_induction(induction_head(args.alphabet, args.n_ctx))
    print(result)
    for text, position, expected, dtype in result.failures:
        print(f"wrong ({dtype}): {text} at position {position} -> expected {expected}")
    return 0 if result.passed else 1
