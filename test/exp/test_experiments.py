#!/usr/bin/env python3
"""make test-exp: tools/experiments at the quick scale, twice, must write
byte-identical tables; every registered headline appears with the paper's
number and a status; statistics and "not yet" detection behave."""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from exp_lib import registry, runners, stats  # noqa: E402
from exp_lib.registry import NotYet  # noqa: E402

FAILS = []


def check(name, ok, detail=""):
    print(f"  {'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}")
    if not ok:
        FAILS.append(name)


def run(out, hvsim):
    cmd = [sys.executable, os.path.join(ROOT, "tools", "experiments"), "--scale", "quick",
           "--seeds", "1-2", "--no-figures", "--out", out, "--hvsim", hvsim]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hvsim", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.tmp, ignore_errors=True)
    outs = [os.path.join(a.tmp, x) for x in ("a", "b")]
    ps = [run(o, a.hvsim) for o in outs]
    check("runs succeed", all(p.returncode == 0 for p in ps), ps[0].stderr[-800:])
    progress = [ln for ln in ps[0].stderr.splitlines() if ln.startswith("exp: [")]
    check("a progress line per run with the time left",
          bool(progress) and all("left ~" in ln for ln in progress))
    files = sorted(f for f in os.listdir(outs[0]) if f.endswith((".md", ".csv", ".json")))
    want = {f"seed-{s}.{e}" for s in registry.SEEDS for e in ("md", "csv", "json")}
    check("a table, a CSV and a JSON per seed", want <= set(files), str(files))
    same = [f for f in files if filecmp.cmp(os.path.join(outs[0], f), os.path.join(outs[1], f),
                                            shallow=False)]
    check("same command twice: byte-identical tables", same == files,
          f"differ: {sorted(set(files) - set(same))}")
    hs = registry.load_all()
    csv_text = "".join(open(os.path.join(outs[0], f"seed-{s}.csv")).read() for s in registry.SEEDS)
    check("every headline is in a CSV", all(f",{h.key}," in csv_text for h in hs))
    check("DS headline measured", ",ds_persistent," in csv_text and
          "measured" in [ln for ln in csv_text.splitlines() if ",ds_persistent," in ln][0])
    m, c = stats.mean_ci([1.0, 2.0, 3.0])
    check("mean and 95% CI (t, 2 df)", abs(m - 2.0) < 1e-12 and abs(c - 4.303 / 3 ** 0.5) < 1e-9)
    check("one value: no CI", stats.mean_ci([5.0]) == (5.0, None))
    r = runners.Runner(os.path.join(a.tmp, "nr"), "quick", a.hvsim)
    wl = "pcpus 1\nvm a vcpus=1\nthread a.0 persistent\nduration 10ms\n"
    for run_, what in ((registry.sim(wl, policy="no_such_policy"), "policy"),
                       (registry.sim(wl, options={"sched_no_such_option": 1}), "option")):
        try:
            r.run(run_, 1)
            check(f"unknown {what} is 'not yet'", False, "no NotYet raised")
        except NotYet as e:
            check(f"unknown {what} is 'not yet'", "has not landed" in str(e), str(e))
    # sched=auto beside credit and the best fixed choice (issue 16), short:
    # the DS scenario (credit vs DS fixed choices), the dual-CON one and
    # seed 004's balloon latency (no VM finishes: compared on I/O p99).
    aout = os.path.join(a.tmp, "auto")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "experiments"), "--auto",
                        "--scale", "quick", "--seeds", "1", "--out", aout, "--hvsim", a.hvsim,
                        "--select", "ds_persistent", "--select", "pcs_dual_con",
                        "--select", "tail_latency"],
                       capture_output=True, text=True, timeout=300)
    text = open(os.path.join(aout, "auto.md")).read() if p.returncode == 0 else p.stderr[-800:]
    rows = [ln for ln in text.splitlines() if ln.startswith("| ds_persistent") or
            ln.startswith("| pcs_dual_con")]
    check("auto: a row per scenario with credit, best fixed and auto", len(rows) == 2 and
          all(ln.count("|") == 9 and ("met" in ln or "MISSED" in ln) for ln in rows), text)
    ok = False
    for ln in rows:
        c = [x.strip() for x in ln.split("|")[1:-1]]
        credit, best, auto = float(c[2]), float(c[3].rsplit(":", 1)[1]), float(c[4])
        ok = (best <= credit and abs(100 * (auto - credit) / credit - float(c[5][:-1])) < 0.06 and
              abs(100 * (auto - best) / best - float(c[6][:-1])) < 0.06)
        if not ok:
            break
    check("auto: best fixed <= credit, percentages follow from the columns", ok, text)
    bal = [ln for ln in text.splitlines() if ln.startswith("| tail_latency (balloon)")]
    check("auto: the balloon scenario compared on I/O p99", len(bal) == 1 and
          "I/O p99 us" in bal[0] and bal[0].rstrip().endswith("| met |"), text)
    # Simulator vs Bochs, the Linux rows (docs/results/sim-vs-bochs.md section 3):
    # hvsim against the saved Bochs figures, no Bochs needed; twice, identical.
    from exp_lib import simbochs
    secs = [simbochs.balloon(a.hvsim, os.path.join(a.tmp, x), simbochs.LINUX_RESULT)
            for x in ("sa", "sb")]
    check("sim-vs-bochs: Linux rows twice, identical", secs[0][0] == secs[1][0])
    bal = secs[0][1]
    check("sim-vs-bochs: balloon rows from the saved Bochs result", bal is not None and
          set(bal.res) == {arm for arm, *_ in simbochs.BAL_ARMS})
    if bal:
        far = [arm for arm in ("vanilla", "balloon-d")
               if abs(bal.res[arm].s99 - bal.res[arm].b99) > 0.10 * bal.res[arm].b99]
        check("sim-vs-bochs: vanilla and balloon-d p99 within 10% of Bochs", not far, str(far))
        check("sim-vs-bochs: every balloon arm below vanilla on both sides",
              bal.agree_v == bal.n_v, f"{bal.agree_v} of {bal.n_v}")
    print(f"test-exp: {'all passed' if not FAILS else 'FAILED: ' + ', '.join(FAILS)}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
