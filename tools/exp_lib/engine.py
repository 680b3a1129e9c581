"""Plan the unique runs of the selected headlines over a list of repeat seeds,
execute them with a progress line and an estimate of the time left, then
evaluate every headline per repeat."""
import sys
import time

from .registry import NotYet
from .stats import mean_ci

PRIOR_S = {"hvsim": 0.5, "bochs": 90.0}   # guesses until a backend has run once


def fmt_t(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def measurable(h, backends):
    if not h.landed:
        return False, f"not yet: {h.pending}"
    if not h.runs or h.value is None:
        return False, f"not yet: {h.pending or 'no runs registered'}"
    missing = sorted({r.backend for r in h.runs.values()} - set(backends))
    if missing:
        return False, f"needs {'+'.join(missing)} (run with --bochs)"
    return True, ""


def plan(headlines, reps, backends):
    """Unique (run, rep) pairs in a stable order, with the first headline using each."""
    seen, out = set(), []
    for h in headlines:
        if not measurable(h, backends)[0]:
            continue
        for rep in reps:
            for name, run in h.runs.items():
                if (run, rep) not in seen:
                    seen.add((run, rep))
                    out.append((h, name, run, rep))
    return out


def execute(runner, todo, log=sys.stderr):
    spent = {}
    t0 = time.monotonic()
    n = len(todo)
    for i, (h, name, run, rep) in enumerate(todo, 1):
        t = time.monotonic()
        try:
            runner.run(run, rep)
            what = "ok"
        except NotYet as e:
            what = str(e)
        dt = time.monotonic() - t
        spent.setdefault(run.backend, []).append(dt)
        left = 0.0
        for _, _, r, _ in todo[i:]:
            xs = spent.get(r.backend)
            left += sum(xs) / len(xs) if xs else PRIOR_S.get(r.backend, 1.0)
        print(f"exp: [{i:>{len(str(n))}}/{n}] {h.seed}/{h.key} {name} seed={rep} "
              f"({run.backend}) {dt:.2f}s {what} | elapsed {fmt_t(time.monotonic() - t0)}, "
              f"left ~{fmt_t(left)}", file=log, flush=True)


def evaluate(h, runner, reps, backends):
    """Per headline: status, values per repeat, mean and CI, figure data."""
    ok, why = measurable(h, backends)
    res = {"status": "measured", "values": [], "mean": None, "ci": None, "figure": {}}
    if not ok:
        res["status"] = why
        return res
    fig = {}
    for rep in reps:
        try:
            results = {name: runner.run(run, rep) for name, run in h.runs.items()}
        except NotYet as e:
            res["status"] = f"not yet: {e}" + (f" ({h.pending})" if h.pending else "")
            res["values"] = []
            return res
        res["values"].append(float(h.value(results)))
        if h.figure:
            for k, v in h.figure(results).items():
                fig.setdefault(k, []).append(float(v))
    res["mean"], res["ci"] = mean_ci(res["values"])
    res["figure"] = {k: mean_ci(v) for k, v in fig.items()}
    return res
