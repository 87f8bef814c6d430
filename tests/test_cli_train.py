"""``python -m handtf train``, run as a reader would: in a subprocess."""

import re
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "handtf", "train", *args], capture_output=True, text=True, timeout=300)


def test_train_prints_progress_and_the_final_figures():
    result = run("--steps", "100", "--seed", "0")
    assert result.returncode == 0
    # not a terminal: ten progress lines on stderr, one every tenth of the run
    progress = result.stderr.splitlines()
    assert len(progress) == 10 and progress[-1].startswith("step 100/100  loss 0.09")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("trained 100 steps from seed 0, 1 head(s): final loss 0.09")
    assert lines[1].startswith("right on every determined context from step ")
    assert lines[3] == "verify: 87 / 87 contexts of length 2 to 30 correct"


def test_a_seed_that_fails_exits_1():
    result = run("--steps", "400", "--seed", "19")
    assert result.returncode == 1 and "not right on every determined context" in result.stdout
    correct = int(re.search(r"verify: (\d+) / 87 contexts", result.stdout).group(1))
    assert correct < 87
    assert run("--steps", "400", "--seed", "19", "--heads", "2").returncode == 0  # two heads learn it


def test_the_encoder_decoder_task_prints_exact_match():
    result = run("--task", "copy", "--steps", "3")  # far too short to learn: the exit code says so
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1].startswith("exact match on 100 held-out sequences: greedy ")


@pytest.mark.parametrize(
    "args, message",
    [
        (["abc"], "argument pattern: 'c' at position 2 is not a token; the allowed characters are 'a' and 'b'"),
        (["a"], "argument pattern: pattern must be a string of at least 2 characters from ('a', 'b'), got 'a'"),
        (["--steps", "0"], "argument --steps: steps must be at least 1, got 0"),
        (["--steps", "2000000"], "argument --steps: steps must be at most 1,000,000 (MAX_STEPS, a bound that keeps a typo from running for days), got 2,000,000"),
        (["--task", "copy", "--heads", "2"], "--task trains the encoder-decoder: leave out --heads (for the hand-made architecture only)"),
        (["--steps", "many"], "argument --steps: the number has 'm' at position 0; write it with the digits 0-9 only"),
        (["--heads", "3"], "argument --heads: invalid choice: 3 (choose from 1, 2, 4, 8)"),
        (["--task", "sort"], "argument --task: invalid choice: 'sort' (choose from 'copy', 'reverse')"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(args, message):
    result = run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [f"handtf train: error: {message}"] or message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
