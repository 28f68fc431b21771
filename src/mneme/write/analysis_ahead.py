"""The statement analysis of atoms about to be judged, done ahead in a worker process.

Judging an atom starts with reading its text: the statement it makes
(:func:`mneme.core.statements.analyze`) and its claim
(:func:`mneme.core.claims.extraction.extract_claim`). Both are pure functions of the text and
memoized, and on a bulk import they are about a sixth of what the writing thread does (ADR
0095). Python runs one thread at a time, so a thread cannot take that work off the writing
thread; a process can. While the writing thread embeds or commits one batch, one worker
process (per Python process, shared by every ``Memory`` in it) analyzes the texts of the batch
to come, and the writing thread seeds both memos with its answers before it judges that batch.

The answers are what the writing thread would compute itself: the same functions of the same
text, in the same code (the worker imports mneme from the parent's own ``sys.path``). Nothing
waits for the worker: an answer not back when its batch is judged is not used, and the
writing thread analyzes as it always did. A worker that cannot start, or dies, is not started
again in that process; writes go on without it.

The worker speaks over its standard input and output: a pickled list of texts in, a pickled
list of answers out, one request at a time. It is started without ``multiprocessing`` so the
caller's main module is never imported again in it, and it exits when its input closes.
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from mneme.core.claims.claim import Claim
from mneme.core.claims.extraction import extract_claim
from mneme.core.claims.extraction import prime as prime_claim
from mneme.core.statements import Statement, analyze
from mneme.core.statements import prime as prime_statement

log = logging.getLogger(__name__)

#: A batch with fewer distinct texts is analyzed by the writing thread alone: a worker's round
#: trip (two pickles and a pipe) is worth it only for bulk writes.
MIN_TEXTS = 16

#: One answer: the statement and the claim of a text, or None where analysis raised.
Answer = tuple[Statement, Claim | None] | None


def answer(texts: Sequence[str]) -> list[Answer]:
    """What the worker computes for each text (also the reference its answers are tested
    against): never raises."""
    out: list[Answer] = []
    for text in texts:
        try:
            out.append((analyze(text), extract_claim(text)))
        except Exception:  # pragma: no cover - analysis never raises on a string
            out.append(None)
    return out


def serve() -> None:
    """The worker's loop: a pickled list of texts in, their pickled answers out, until the
    input closes."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            texts = pickle.load(stdin)
        except EOFError:
            return
        pickle.dump(answer(texts), stdout, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


class Pending:
    """Answers on their way for some texts."""

    def __init__(self, texts: list[str], future: Future[list[Answer]]) -> None:
        self.texts = texts
        self.future = future

    def seed(self) -> int:
        """Seed the memos with the answers if they are back (never waits), and withdraw the
        request if it is not yet sent; how many texts were seeded."""
        if not self.future.done():
            self.future.cancel()
            return 0
        if self.future.cancelled() or self.future.exception() is not None:
            return 0
        seeded = 0
        for text, got in zip(self.texts, self.future.result(), strict=False):
            # Only what the writing thread would have computed itself goes in: a statement of
            # this text, and a claim or none (pickles resolve to this process's classes).
            if (
                got is not None
                and isinstance(got[0], Statement)
                and got[0].text == text
                and (got[1] is None or isinstance(got[1], Claim))
            ):
                prime_statement(text, got[0])
                prime_claim(text, got[1])
                seeded += 1
        return seeded


class AnalysisWorker:
    """One worker process and the thread that talks to it (see the module docstring)."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command) if command is not None else _command()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._talker: ThreadPoolExecutor | None = None
        self.broken = False
        self.answered = 0  # requests answered, for tests and benchmarks

    def submit(self, texts: Iterable[str]) -> Pending | None:
        """Send the distinct texts to the worker; None when there are too few, or when the
        worker is broken or closed."""
        wanted = list(dict.fromkeys(t for t in texts if isinstance(t, str)))
        if len(wanted) < MIN_TEXTS:
            return None
        with self._lock:
            if self.broken:
                return None
            if self._talker is None:
                self._talker = ThreadPoolExecutor(1, thread_name_prefix="mneme-analysis-ahead")
            return Pending(wanted, self._talker.submit(self._round_trip, wanted))

    def _round_trip(self, texts: list[str]) -> list[Answer]:
        try:
            proc = self._started()
            assert proc.stdin is not None
            assert proc.stdout is not None
            pickle.dump(texts, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            proc.stdin.flush()
            answers: list[Answer] = pickle.load(proc.stdout)
            if len(answers) != len(texts):
                raise RuntimeError(f"{len(answers)} answers for {len(texts)} texts")
        except Exception as exc:
            self._break(exc)
            raise
        self.answered += 1
        return answers

    def _started(self) -> subprocess.Popen[bytes]:
        with self._lock:
            if self.broken:
                raise RuntimeError("the worker is closed")
            if self._proc is None:
                self._proc = subprocess.Popen(
                    self._command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            return self._proc

    def _break(self, exc: BaseException) -> None:
        """Stop using the worker for good in this process (a write never depends on it)."""
        with self._lock:
            if not self.broken:
                log.warning("statement analysis ahead is off in this process: %s", exc)
            self.broken = True
        self._stop_process()

    def close(self) -> None:
        """Stop the worker (its input closes, it exits); later submits return None."""
        with self._lock:
            self.broken = True
            talker, self._talker = self._talker, None
        self._stop_process()  # first: a round trip under way ends when the worker does
        if talker is not None:
            talker.shutdown(wait=True, cancel_futures=True)

    def _stop_process(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            try:
                proc.stdin.close()  # the worker reads the end of its input and exits
            except OSError:  # pragma: no cover - the worker died mid-write
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a worker stuck in a request
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _command() -> list[str]:
    # The parent's import path first, so the worker runs the parent's mneme; -P: not the
    # working directory before it, whatever that directory happens to hold.
    path = [p for p in sys.path if p]
    code = f"import sys; sys.path[:0] = {path!r}; from {__name__} import serve; serve()"
    return [sys.executable, "-P", "-c", code]


_shared: AnalysisWorker | None = None
_shared_lock = threading.Lock()


def shared() -> AnalysisWorker | None:
    """The process's worker, made on first use (started on its first request); None on a
    single CPU, where it would only take turns with the writing thread, or when Python has no
    executable to start it with."""
    global _shared
    with _shared_lock:
        if _shared is None:
            if (os.cpu_count() or 1) < 2 or not sys.executable:
                return None
            _shared = AnalysisWorker()
            atexit.register(_shared.close)
        return None if _shared.broken else _shared


def _forget_after_fork() -> None:
    """A forked child talks to no worker of its parent's (the pipes are the parent's): it
    makes its own on first use."""
    global _shared, _shared_lock
    _shared, _shared_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere no process forks
    os.register_at_fork(after_in_child=_forget_after_fork)
