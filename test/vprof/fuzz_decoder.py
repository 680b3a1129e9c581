#!/usr/bin/env python3
"""Fuzz target for the vProfile decoder (tools/vprof_lib).

Property: whatever the input, extraction, analysis, the text report, CSV and
the trace-event export finish without an unexpected exception (corruption must
come out as Problems). Half of the inputs are structured: real frames from a
seed log are mutated in binary and re-framed with a valid CRC, so the payload
decoders are exercised and not only the CRC check. Uses atheris (libFuzzer for
Python) when importable, else a deterministic random mutator, and says which.
"""
import argparse
import base64
import io
import os
import random
import sys
import tempfile
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))

try:
    import atheris
except ImportError:
    atheris = None

if atheris:
    with atheris.instrument_imports():
        from vprof_lib import analysis, frames, perfetto, predict, report
else:
    from vprof_lib import analysis, frames, perfetto, predict, report

SEED_FRAMES = []


def load_seed(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "@VP1" in line:
                try:
                    SEED_FRAMES.append(frames.parse_line(line)[1])
                except ValueError:
                    pass


def frame_line(raw, seq):
    return f"@VP1 {seq} {zlib.crc32(raw):08x} {base64.b64encode(raw).decode()}\n"


class Bytes:
    """Minimal consumer over the input (atheris-independent)."""

    def __init__(self, data):
        self.d, self.i = data, 0

    def int(self, n):
        v = 0
        for _ in range(n):
            v = (v << 8) | (self.d[self.i] if self.i < len(self.d) else 0)
            self.i += 1
        return v

    def left(self):
        return self.i < len(self.d)


def structured(data):
    """Replay the seed dump with binary mutations chosen by the input."""
    b = Bytes(data)
    out = []
    for seq, raw in enumerate(SEED_FRAMES):
        raw = bytearray(raw)
        op = b.int(1) if b.left() else 0
        if op < 40 and raw:
            raw[b.int(2) % len(raw)] = b.int(1)
        elif op < 50:
            del raw[b.int(2) % (len(raw) + 1):]
        elif op < 60:
            raw += bytes(b.int(1) for _ in range(b.int(1) % 64))
        elif op < 64:
            continue
        elif op < 68:
            out.append(frame_line(bytes(raw), seq))
        line_seq = int.from_bytes(raw[4:8], "little") if len(raw) >= 8 else seq
        out.append(frame_line(bytes(raw), line_seq if op & 1 else seq))
    return out


def exercise(lines):
    dumps, problems = frames.extract(lines)
    for p in problems:
        str(p)
    for d in dumps:
        analysis.summarize(d)
        analysis.pcpu_idle_in_window(d)
        analysis.phases(d)
        report.dump_report(d)
    report.write_csv(dumps, io.StringIO())
    perfetto.validate(perfetto.trace_events(dumps))
    ded, norm = predict.pick(dumps)
    if ded and norm:
        predict.predict(ded, norm, 3000.0)


def one_input(data):
    if data and data[0] & 1 and SEED_FRAMES:
        exercise(structured(data[1:]))
    else:
        exercise(data[1:].decode("utf-8", errors="replace").splitlines(keepends=True))


def fallback(runs, seed_log):
    rng = random.Random(1234)
    base = open(seed_log, "rb").read()
    for i in range(runs):
        if i % 2:
            data = bytes([1]) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        else:
            buf = bytearray(base[: rng.randrange(len(base) + 1)])
            for _ in range(rng.randrange(1, 8)):
                if buf:
                    buf[rng.randrange(len(buf))] = rng.randrange(256)
            data = bytes([0]) + bytes(buf)
        one_input(data)
    print(f"fuzz: random mutator (atheris not installed): {runs} runs, no crash")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed-log", required=True)
    ap.add_argument("--runs", type=int, default=3000)
    a, rest = ap.parse_known_args()
    load_seed(a.seed_log)
    if not atheris:
        fallback(a.runs, a.seed_log)
        return 0
    with tempfile.TemporaryDirectory(prefix="vprof-fuzz-") as corpus:
        with open(os.path.join(corpus, "seed_text"), "wb") as f:
            f.write(b"\0" + open(a.seed_log, "rb").read()[:8192])
        with open(os.path.join(corpus, "seed_struct"), "wb") as f:
            f.write(b"\1" + bytes(range(256)))
        argv = [sys.argv[0], corpus, f"-runs={a.runs}", "-max_len=8192", "-seed=1",
                "-print_final_stats=0", "-rss_limit_mb=1024",
                f"-artifact_prefix={corpus}/"] + rest
        print(f"fuzz: atheris (libFuzzer) over the decoder, {a.runs} runs", flush=True)
        atheris.Setup(argv, one_input)
        try:
            atheris.Fuzz()
        except SystemExit as e:
            if e.code:
                raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
