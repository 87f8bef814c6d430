"""The command line, run as a reader would: in a subprocess."""

import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "handtf", *args], capture_output=True, text=True, timeout=60)


def test_complete_prints_the_continuation():
    result = run("complete", "a")
    assert (result.returncode, result.stdout, result.stderr) == (0, "baabaabaab\n", "")
    assert run("complete", "ba", "-n", "3").stdout == "aba\n"


def test_predict_and_explain():
    assert run("predict", "aabaa").stdout.startswith("b  (p(a) = 0.000, p(b) = 1.000)")
    lines = run("predict", "aabaa", "--explain").stdout.splitlines()
    assert lines[0].split() == ["token", "next", "p(a)", "p(b)", "logit(a)", "logit(b)"]
    assert [line.split()[1] for line in lines[1:6]] == list("bbaab")
    long = "ab" * 499 + "aa"  # 1000 characters; the model sees the last five, "abaaa"
    assert run("predict", long).stdout == run("predict", "abaaa").stdout == "b  (p(a) = 0.000, p(b) = 1.000)\n"


def test_evaluate_and_verify():
    result = run("evaluate")
    assert (result.returncode, result.stdout) == (0, "accuracy: 100.0% (27 / 27)\n")
    wrong = run("evaluate", "abababab")
    assert wrong.returncode == 1 and "mispredicted positions: 3, 5" in wrong.stdout
    result = run("verify", "--max-len", "12")
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "checked 33 contexts of length 2 to 12: 33 correct",
        "smallest logit margin: 1023",
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["complete", "abc"], "'c' at position 2 is not a token"),
        (["complete", ""], "context is empty"),
        (["complete", "a", "-n", "-1"], "must be 0 or more, got -1"),
        (["complete", "a", "-n", "x"], "expected a whole number, got 'x'"),
        (["predict", "ab1"], "'1' at position 2"),
        (["evaluate", "aab"], "at least 4 characters"),
        (["verify", "--max-len", "1"], "at least 2"),
        (["verify", "--max-len", "-3"], "must be at least 2 (the shortest valid context), got -3"),
        (["verify", "--max-len", "2.5"], "expected a whole number, got '2.5'"),
        (["frobnicate"], "invalid choice"),
        ([], "the following arguments are required: command"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [[], ["complete"], ["predict"], ["evaluate"], ["verify"]])
def test_help(command):
    result = run(*command, "--help")
    assert result.returncode == 0 and "usage: handtf" in result.stdout


def test_console_script_is_installed():
    import shutil
    from pathlib import Path

    script = shutil.which("handtf", path=str(Path(sys.executable).parent))
    assert script, "the handtf console script is not installed next to this Python"
    assert subprocess.run([script, "complete", "a", "-n", "3"], capture_output=True, text=True).stdout == "baa\n"
