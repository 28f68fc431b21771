"""Loading an embedder in the background, and what interpreter exit does with a load in progress.

Each case is a process of its own that exits while its warm-up runs: exit must stop the
warm-up before its next load and wait for the load in progress (a daemon thread ended under a
native library's call aborts the process), with fake embedders whose loads are sleeps.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

#: A process whose embedder loads in three steps of 0.4 s, and which exits during the first.
EXITS_DURING_THE_FIRST_LOAD = """
import sys, threading, time
from mneme.embed.warming import warm_in_background

started = threading.Event()

class Stepwise:
    def warm(self, stop):
        for step in (1, 2, 3):
            if stop():
                return False
            print(f"load {step} starts", file=sys.stderr, flush=True)
            started.set()
            time.sleep(0.4)
            print(f"load {step} done", file=sys.stderr, flush=True)
        return True

class OneBlock:  # a warm that takes no stop: exit waits for all of it
    def warm(self):
        time.sleep(0.4)
        print("one block done", file=sys.stderr, flush=True)

def say(how):
    print(f"embedder {how}", file=sys.stderr, flush=True)

embedder = {"stepwise": Stepwise, "one-block": OneBlock}[sys.argv[1]]()
thread = warm_in_background(embedder, say)
assert thread is not None and thread.daemon
started.wait(5) if sys.argv[1] == "stepwise" else time.sleep(0.1)
"""


def exit_while_warming(kind: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(EXITS_DURING_THE_FIRST_LOAD)
    return subprocess.run(
        [sys.executable, "-c", script, kind],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_exit_waits_for_the_load_in_progress_and_starts_no_other() -> None:
    done = exit_while_warming("stepwise")
    assert done.returncode == 0, done.stderr
    assert "load 1 done" in done.stderr  # the load in progress was waited for
    assert "load 2 starts" not in done.stderr  # the rest was left to first use
    assert "embedder not loaded ahead: stopped at exit" in done.stderr
    assert "ready" not in done.stderr


def test_exit_waits_for_a_warm_that_cannot_be_stopped() -> None:
    done = exit_while_warming("one-block")
    assert done.returncode == 0, done.stderr
    assert "one block done" in done.stderr
    assert "embedder ready (" in done.stderr


def test_an_embedder_with_nothing_to_load_starts_no_thread() -> None:
    from mneme.embed import HashingEmbedder
    from mneme.embed.warming import warm_in_background

    assert warm_in_background(HashingEmbedder(), print) is None
