"""sched=auto against the fixed choices (issue 16): every hvsim scenario of
the selected headlines, once more under `-p auto`, beside credit and the best
of the fixed runs the headline already makes of the same workload.

Scenario = one workload text; its fixed choices = every hvsim run of it in the
registry (policies and options: credit, DP, DS, PCS, ...). The figure is the
completion time of the workload's first VM that finishes in every run (the
parallel / foreground VM of every seed scenario); where no VM finishes, the
99th-percentile I/O latency (guest model, us) of the first VM whose guest
serves I/O in every run (seed 004's balloon scenarios); scenarios with
neither (steal ratios) are listed as not comparable. Lower is better for both.
Goal (issue 16): auto never more than 5% slower than credit, and within 5% of
the best fixed choice. Writes OUT/auto.md; prints the table."""
import os

from .registry import NotYet, Run
from .stats import mean_ci

GOAL_PCT = 5.0


def scenarios(headlines):
    """{workload text: [(scenario name, None), (label, Run)...]} over the hvsim
    runs, in registry order; a headline with several workloads names each by
    the registry name of its first run."""
    out, names = {}, {}
    for h in headlines:
        for name, run in h.runs.items():
            if run.backend != "hvsim" or run.params:
                continue
            if run.wl not in out:
                out[run.wl] = [(None, None)]
                names.setdefault(h.key, []).append((run.wl, name))
            lst = out[run.wl]
            if all(r != run for _, r in lst[1:]):
                lst.append((run.label(), run))
    for key, wls in names.items():
        for wl, name in wls:
            out[wl][0] = (key if len(wls) == 1 else f"{key} ({name})", None)
    return out


def _first_done(results):
    names = None
    for res in results:
        done = [n for n, v in res.vm.items() if v.done]
        names = done if names is None else [n for n in names if n in done]
    return names[0] if names else None


def _first_io(results):
    names = None
    for res in results:
        io = [n for n, g in res.guest.items() if getattr(g, "io_n", 0) > 0]
        names = io if names is None else [n for n in names if n in io]
    return names[0] if names else None


def evaluate(runner, headlines, reps, log):
    rows = []
    for wl, lst in scenarios(headlines).items():
        key, fixed = lst[0][0], lst[1:]
        auto = Run("hvsim", wl, "auto")
        per = {}
        try:
            for rep in reps:
                res = {label: runner.run(run, rep) for label, run in fixed}
                res["auto"] = runner.run(auto, rep)
                vm, unit = _first_done(res.values()), "ms"
                if vm is None:
                    vm, unit = _first_io(res.values()), "us p99"
                if vm is None:
                    raise NotYet("no VM finishes nor serves I/O in every run")
                for label, r in res.items():
                    per.setdefault(label, []).append(r.vm[vm].completion_ms if unit == "ms"
                                                     else r.guest[vm].io_p99_us)
        except NotYet as e:
            rows.append({"key": key, "note": str(e)})
            log(f"auto: {key}: not comparable ({e})")
            continue
        mean = {label: mean_ci(v)[0] for label, v in per.items()}
        fixed_only = {k: v for k, v in mean.items() if k != "auto"}
        best = min(fixed_only, key=fixed_only.get)
        credit = mean.get("credit")
        row = {"key": key, "vm": vm if unit == "ms" else f"{vm} (I/O p99 us)", "auto": mean["auto"], "best": best,
               "best_ms": fixed_only[best], "credit": credit,
               "vs_credit": None if credit is None else 100.0 * (mean["auto"] - credit) / credit,
               "vs_best": 100.0 * (mean["auto"] - fixed_only[best]) / fixed_only[best],
               "choices": len(fixed_only)}
        row["ok"] = ((row["vs_credit"] is None or row["vs_credit"] <= GOAL_PCT) and
                     row["vs_best"] <= GOAL_PCT)
        rows.append(row)
        u = unit.split()[0]
        log(f"auto: {key}: auto {row['auto']:.1f} {u}, credit "
            f"{'-' if credit is None else f'{credit:.1f}'} {u}, best {best} {row['best_ms']:.1f} {u}")
    return rows


def write(out_dir, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "auto.md")
    met = [r for r in rows if "ok" in r]
    lines = ["# sched=auto against the fixed choices", "",
             f"Scale `{meta['scale']}`; repeat seeds {meta['reps_text']}; completion time (ms, mean "
             f"over the seeds) of the scenario's first VM that finishes in every run; where none "
             f"does, the 99th-percentile I/O latency (us) of the first VM serving I/O (VM column "
             f"says so). Goal (issue 16): "
             f"auto at most {GOAL_PCT:.0f}% slower than credit and than the best fixed choice. "
             f"Regenerate: `{meta['command']}`.", "",
             "| scenario (headline) | VM | credit | best fixed | auto | auto vs credit | auto vs best | goal |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "ok" not in r:
            lines.append(f"| {r['key']} | - | - | - | - | - | - | not comparable: {r['note']} |")
            continue
        cr = "-" if r["credit"] is None else f"{r['credit']:.1f}"
        vc = "-" if r["vs_credit"] is None else f"{r['vs_credit']:+.1f}%"
        lines.append(f"| {r['key']} | {r['vm']} | {cr} | {r['best']}: {r['best_ms']:.1f} | "
                     f"{r['auto']:.1f} | {vc} | {r['vs_best']:+.1f}% | {'met' if r['ok'] else 'MISSED'} |")
    lines += ["", f"Goal met in {sum(r['ok'] for r in met)} of {len(met)} comparable scenarios."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, lines
