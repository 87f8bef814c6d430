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
        (["complete", "a", "-n", "x"], "the number has 'x' at position 0; write it with the digits 0-9 only"),
        (["predict", "ab1"], "'1' at position 2"),
        (["evaluate", "aab"], "at least 4 characters"),
        (["verify", "--max-len", "1"], "at least 2"),
        (["verify", "--max-len", "-3"], "must be at least 2 (the shortest valid context), got -3"),
        (["verify", "--max-len", "2.5"], "the number has '.' at position 1; write it with the digits 0-9 only"),
        (["verify", "--max-len", "1000001"], "must be at most 1,000,000 (MAX_LEN), got 1,000,001"),
        (["complete", "a", "-n", "1000001"], "must be at most 1,000,000 (MAX_NEW_TOKENS), got 1,000,001"),
        (["complete", "a", "-n", "9" * 400], "the number has 400 digits; a whole number here has at most 30"),
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


def test_the_bounds_are_the_packages_and_are_documented():
    from handtf.model.evaluation import MAX_LEN
    from handtf.model.inference import MAX_NEW_TOKENS

    assert MAX_LEN == MAX_NEW_TOKENS == 1_000_000
    assert "at most 1,000,000" in " ".join(run("complete", "--help").stdout.split())
    assert "at most 1,000,000" in " ".join(run("verify", "--help").stdout.split())


def test_a_closed_stdout_ends_quietly_with_141():
    """``handtf complete a -n 100000 | head -c1``: more than a pipe holds: the reader closes the pipe after one byte."""
    process = subprocess.Popen(
        [sys.executable, "-m", "handtf", "complete", "a", "-n", "100000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    first = process.stdout.read(1)
    process.stdout.close()  # what head -c1 does after its byte
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert (first, process.wait(timeout=120), stderr) == (b"b", 141, "")


def test_a_full_stdout_is_one_line_and_exit_120():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "handtf", "verify"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert result.returncode == 120
    assert result.stderr == "handtf: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("args", [["--help"], ["complete", "--help"], ["train", "--help"]])
def test_help_on_a_full_stdout_is_one_line_and_exit_120(args, unbuffered):
    """argparse ignores a failed write of its help and exits 0; the help is output like any other."""
    import os

    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    environment |= {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "handtf", *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            env=environment,
        )
    assert (result.returncode, result.stderr) == (120, "handtf: error: cannot write the output: No space left on device\n")


def test_running_out_of_memory_is_one_line_and_exit_1():
    import resource

    def small_memory():
        resource.setrlimit(resource.RLIMIT_AS, (300 * 2**20, 300 * 2**20))

    result = subprocess.run(
        [sys.executable, "-m", "handtf", "verify", "--max-len", "1000000"],
        capture_output=True, text=True, timeout=120, preexec_fn=small_memory,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "handtf: error: out of memory; try a smaller -n or --max-len\n"


def test_predict_runs_the_model_once(monkeypatch, capsys):
    import handtf.model.transformer
    from handtf.cli import main as cli

    calls = []
    real = handtf.model.transformer.transformer_block.__wrapped__
    monkeypatch.setattr(handtf.model.transformer, "transformer_block", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert cli.run(cli.build_parser().parse_args(["predict", "aabaa", "--explain"])) == 0
    assert len(calls) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "b  (p(a) = 0.000, p(b) = 1.000)"


def test_ctrl_c_ends_quietly_with_130():
    """Ctrl-C once the first characters are out (a readiness signal, not a sleep: the same under any load)."""
    import os
    import signal

    # `python -m handtf complete a -n 1000000`, saying on stderr when its imports are done, so
    # that Ctrl-C comes inside the run however fast or loaded the machine (the run takes seconds).
    ready = "import sys; from handtf.cli import main as cli; print('ready', file=sys.stderr, flush=True); cli.main()"
    process = subprocess.Popen(
        [sys.executable, "-c", ready, "complete", "a", "-n", "1000000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # as at a terminal: a job started with `&` by a script inherits Ctrl-C ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr.readline() == b"ready\n"
    first = os.read(process.stdout.fileno(), 1)  # the completion's first piece is out: the run is under way, inside main
    process.send_signal(signal.SIGINT)
    rest, stderr = process.communicate(timeout=60)
    stdout = first + rest
    assert (process.returncode, stderr) == (130, b"")
    # complete streams (issue 42): what came out before Ctrl-C is the completion's start, and nothing after it
    assert stdout.decode() == ("baa" * (len(stdout) // 3 + 1))[: len(stdout)] and len(stdout) < 1_000_000


# Issue 28: no traceback, whatever the streams are.


def run_shell(command, **env):
    import os

    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_a_closed_stdout_descriptor_exits_120_in_one_line():
    result = run_shell(f"{sys.executable} -m handtf complete a >&-")
    assert (result.returncode, result.stderr) == (120, "handtf: error: cannot write the output: Bad file descriptor\n")
    assert run_shell(f"{sys.executable} -m handtf complete x >&-").returncode == 2  # a bad argument is still exit 2


def test_an_unwritable_or_closed_stderr_changes_nothing():
    for redirect in ("2>/dev/full", "2>&-"):
        result = run_shell(f"{sys.executable} -m handtf train --steps 20 {redirect}")
        assert result.returncode in (0, 1) and result.stdout.startswith("trained 20 steps"), redirect
        assert run_shell(f"{sys.executable} -m handtf complete x {redirect}").returncode == 2


def test_an_encoding_that_cannot_print_the_text_is_not_a_bad_argument():
    result = run_shell(f"{sys.executable} -m handtf compile 'äbä'", PYTHONIOENCODING="ascii")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "\\xe4" in result.stdout  # the character is escaped, not refused


def test_ctrl_c_while_the_package_imports_exits_130_quietly():
    code = "import os, signal; from handtf.cli.start import quiet_interrupt; quiet_interrupt(force=True); os.kill(os.getpid(), signal.SIGINT)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (130, "")
    from handtf.cli.start import starting_command_line

    assert not starting_command_line()  # pytest importing handtf keeps Python's Ctrl-C
