"""Eight HTTP clients against one `mneme serve` for a minute (issue 16 target: 0 errors,
search p95 under 50 ms on this machine).

The store is seeded with one LoCoMo conversation (its turns, real MiniLM embeddings), then a
real server process is started on 127.0.0.1. Each client holds its own agent token for the
bank and loops: recall (a LoCoMo question of that conversation) nine times in ten, otherwise
a write of a new statement. Every non-2xx answer and every transport error counts as an
error. The run stops by itself after ``--seconds``.

    python -m bench.http_load [--clients 8] [--seconds 60] [--conversation conv-26] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

from bench.locomo.data import load
from bench.locomo.run import retain_items

RESULTS = Path(__file__).parent / "results"
COLOURS = ("red", "blue", "green")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _seed(db: Path, conversation: str) -> tuple[list[str], int]:
    import mneme

    dataset = load()
    (conv,) = [c for c in dataset.conversations if c.sample_id == conversation]
    mem = mneme.Memory.open(db)
    try:
        items = retain_items(conv)
        for i in range(0, len(items), 64):
            mem.retain_many(items[i : i + 64])
        units = mem.admin.stats().units
    finally:
        mem.close()
    return [q.question for q in conv.questions], units


def _client(
    base: str,
    token: str,
    bank: str,
    questions: list[str],
    stop: float,
    seed: int,
    out: dict[str, list[float]],
    errors: list[str],
    lock: threading.Lock,
    rate: float | None = None,
) -> None:
    rng = random.Random(seed)
    began = time.monotonic()
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        n = 0
        while time.monotonic() < stop:
            n += 1
            if rate:  # paced: the n-th request is due n/rate seconds in (open loop)
                due = began + rng.uniform(0.5, 1.5) / rate + (n - 1) / rate
                time.sleep(max(0.0, due - time.monotonic()))
                if time.monotonic() >= stop:
                    break
            if rng.random() < 0.9:
                op, path = "recall", f"/v1/banks/{bank}/recall"
                body: dict[str, Any] = {"query": rng.choice(questions), "k": 10}
            else:
                op, path = "retain", f"/v1/banks/{bank}/memories"
                body = {"text": f"Client {seed} noted item {n}: the {rng.choice(COLOURS)} box."}
            t0 = time.perf_counter()
            try:
                r = http.post(path, json=body)
                ok = 200 <= r.status_code < 300
                why = "" if ok else f"{op} {r.status_code}: {r.text[:200]}"
            except httpx.HTTPError as exc:
                ok, why = False, f"{op} {type(exc).__name__}: {exc}"
            ms = (time.perf_counter() - t0) * 1000
            with lock:
                out[op].append(ms)
                if not ok:
                    errors.append(why)


def run(
    clients: int, seconds: float, conversation: str, rate: float | None = None
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        t0 = time.perf_counter()
        questions, units = _seed(db, conversation)
        seed_s = time.perf_counter() - t0
        from mneme.surfaces.http.tokens import TokenStore, default_tokens_path

        tokens = TokenStore(default_tokens_path(str(db), os.environ))
        secrets = [
            tokens.create(bank=conversation, agent=f"load{i}", role="agent")[0]
            for i in range(clients)
        ]
        port = _free_port()
        mneme_bin = Path(sys.executable).with_name("mneme")
        server = subprocess.Popen(
            [str(mneme_bin), "--db", str(db), "serve", "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            else:
                raise RuntimeError("the server did not come up within 120 s")
            # Warm-up, not measured: the first recall loads the query embedder and the index,
            # the first write the batch embedder.
            for s in secrets:
                auth = {"Authorization": f"Bearer {s}"}
                httpx.post(
                    f"{base}/v1/banks/{conversation}/recall",
                    json={"query": questions[0]},
                    headers=auth,
                    timeout=120,
                )
            httpx.post(
                f"{base}/v1/banks/{conversation}/memories",
                json={"text": "The load run started."},
                headers={"Authorization": f"Bearer {secrets[0]}"},
                timeout=120,
            )
            out: dict[str, list[float]] = defaultdict(list)
            errors: list[str] = []
            lock = threading.Lock()
            stop = time.monotonic() + seconds
            threads = [
                threading.Thread(
                    target=_client,
                    args=(base, s, conversation, questions, stop, i, out, errors, lock, rate),
                )
                for i, s in enumerate(secrets)
            ]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    return {
        "clients": clients,
        "rate_per_client": rate,
        "seconds": round(wall, 1),
        "conversation": conversation,
        "seed_units": units,
        "seed_seconds": round(seed_s, 1),
        "ops": {
            op: {
                "count": len(v),
                "per_second": round(len(v) / wall, 1),
                "p50_ms": round(percentile(v, 0.5), 1),
                "p95_ms": round(percentile(v, 0.95), 1),
                "p99_ms": round(percentile(v, 0.99), 1),
            }
            for op, v in sorted(out.items())
        },
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def report(result: dict[str, Any]) -> str:
    lines = [
        f"# HTTP load: {result['clients']} clients for {result['seconds']} s, "
        + (
            f"each paced at {result['rate_per_client']} requests/s"
            if result["rate_per_client"]
            else "each sending its next request as soon as the last is answered"
        ),
        "",
        f"One `mneme serve` on 127.0.0.1 over a SQLite store seeded with "
        f"{result['conversation']} ({result['seed_units']} units, real MiniLM). Each client "
        "has its own agent token: recall 9 in 10, otherwise a write.",
        "",
        "| op | count | per s | p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    for op, m in result["ops"].items():
        lines.append(
            f"| {op} | {m['count']} | {m['per_second']} | {m['p50_ms']} | {m['p95_ms']} | "
            f"{m['p99_ms']} |"
        )
    lines += ["", f"errors: {result['errors']}"]
    lines += [f"- {e}" for e in result["error_samples"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument(
        "--rate", type=float, default=None, help="requests/s per client (default: flat out)"
    )
    ap.add_argument("--write", action="store_true", help="save to bench/results/")
    args = ap.parse_args()
    result = run(args.clients, args.seconds, args.conversation, args.rate)
    text = report(result)
    print(text)
    if args.write:
        day = dt.date.today().isoformat()
        tag = f"-paced{args.rate:g}" if args.rate else ""
        (RESULTS / f"http-load{tag}-{day}.md").write_text(text)
        (RESULTS / f"http-load{tag}-{day}.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
