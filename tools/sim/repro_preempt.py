#!/usr/bin/env python3
"""Seed 001 §5 reproduction on hvsim: delayed preemption (Fig. 9 shape) and
differential scheduling (Fig. 10 shape), plus PLE directed vs undirected vs
off. Generates the scenarios, runs hvsim, prints a table beside the paper's
numbers and, with --check, asserts the shapes (make test-sim runs it).

  repro_preempt.py [--hvsim build/sim/hvsim] [--check] [--only dp|ds|ple] [--dp-sweep]
                   [--dp-why [--seeds 1,2,3]] [--dp-sides [--seeds 1,2,3]]
"""
import argparse
import math
import os
import sys

# Scenario builders and the hvsim runner (the testbed, Fig. 9's programs).
from preempt_scen import (PCPUS, pins, FG, BG, run, lags, one_side, dp_delay_max_us, scenario,
                          bg_solo, barrier_prog, lock_prog)
# Fig. 9 with the memory-contention model (streamcluster memory-bound).
import preempt_mem
import preempt_readings

DS_SEEDS = (1, 2, 3)   # sched_seed of the DS runs (hvsim is deterministic per seed)

DP = [("credit", []), ("DP(2ms)", ["sched_dp_us=2000"]), ("DP(8ms)", ["sched_dp_us=8000"]),
      ("adaptive", ["sched_dp=adaptive"])]


# Why Fig. 9 does not reproduce in hvsim (measured; docs/sched.md "Why Fig. 9
# does not show"). Printed with its XFAIL checks; {gain} is this run's bound,
# {infl} its largest work inflation off 1 (%).
FIG9_GAP = ("in the CPU-only runs a blocking program's slowdown in hvsim is its use of the machine alone over its "
            "share beside the other (CPU time is work: inflation within {infl:.1f}% of 1), so the gmean of a "
            "pair cannot go below 2 sqrt(u_fg u_bg) whatever the scheduler does, which leaves "
            "any delay at most {gain:.1f}% to win over credit overall (paper 12%); credit already "
            "splits the machine about evenly and idles little, and `--dp-why` shows no grain, "
            "imbalance, serial phase, rate limit or cache-refill cost that makes a delay win "
            "more than seed noise; and eq. 1-2 find no skew to correct: under credit no vCPU "
            "computes more than {lag:+.3f} of its pCPU over t_fair (eq. 1's lag over the run)")


# Why Fig. 9a's per-foreground preference does not show (measured: --dp-sweep,
# --dp-why, --dp-sides). {c2}/{c8}: the coarse fg under DP(2ms)/DP(8ms);
# {f2}/{f8} the fine fg; {fb}/{ff}: the fine fg with 8 ms on only the bg's /
# only its own wake-ups; {fc}: credit.
FIG9A_GAP = ("the coarse fg's half {chalf} (DP(8ms) {c8:.3f} vs DP(2ms) {c2:.3f}: it rarely "
             "wakes, so a delay mostly holds the bg's wake-ups); the fine fg's half fails "
             "(DP(8ms) {f8:.3f} vs DP(2ms) {f2:.3f}): a delay holds both the bg's wake-ups, "
             "which helps the fine fg (8 ms on those only: {fb:.3f}), and its own, which hurts "
             "it ({ff:.3f}; credit {fc:.3f}), and beside the 20-30 ms bg (the paper's "
             "streamcluster grain) the help grows faster with the delay than the hurt "
             "(--dp-sides); the fine fg prefers the short delay only where holding its own "
             "wake-ups costs it more, which hvsim shows when the fine programs sync every 2-3 ms "
             "(--dp-why: 3/3 seeds), not at the paper's grains (20-30 ms and 5-7 s: 0/3)")


# Why adaptive DP stays at credit in the §5.1 case (measured each run: the
# fixed delay applied to one side's wake-ups only, and credit's lags).
P51_GAP = ("eq. 1-2 lengthen only the delay of a waker that computed more than t_fair "
           "(seed 001: 'A positive lag increases the delay a vCPU waits to preempt the current "
           "running vCPU'); here the delay pays on wakers under t_fair: 8 ms on the program's "
           "wake-ups only gives gmean {gp:.3f}, on the loops' only {gl:.3f} (credit {gc:.3f}), "
           "and under credit the program's vCPUs compute at most {lp:+.3f} and the loops' "
           "{ll:+.3f} of their pCPU off t_fair (half; eq. 1's lag over the run), so eq. 1-2 take "
           "every delay to ~0: the loss is idle time with both sides under t_fair, not a skew "
           "toward one side, which is all eq. 1-2 correct; the per-VM and pCPU-idle readings "
           "(sched_dp_scope=vm, sched_dp_idle=pcpu; `--dp-readings`) keep eq. 1's sign and do "
           "the same")
SIDE = {"fg": "program's", "bg": "loops'"}


# Why Fig. 9a's split does not show with the memory model (means of this
# run's seeds; the per-side figures are `--dp-sides`'s memory rows).
FIG9AM_GAP = ("the fine fg's two delays are within seed noise of each other (DP(2ms) {f2:.3f}, "
              "DP(8ms) {f8:.3f}: holding the bg's wake-ups helps it about as much as holding its "
              "own hurts it, `--dp-sides` memory rows), and the coarse fg no longer prefers the "
              "long delay (DP(8ms) {c8:.3f}, DP(2ms) {c2:.3f}, credit {cc:.3f}: with the "
              "streamcluster bg memory-bound, holding the bg's wake-ups costs the coarse fg too, "
              "`--dp-sides`)")


# Why Fig. 9 does not show with the memory model either (measured each run).
FIG9M_GAP = ("with streamcluster memory-bound (Fig. 10's coefficients) CPU time is no longer work "
             "(credit's work inflation {ilo:.3f}-{ihi:.3f} per pair), so the CPU-share floor no "
             "longer bounds the gain; but the delays hardly move the memory relief: no setting "
             "moves a pair's inflation more than {dinf:.3f} from credit's, the memory-bound bursts "
             "running together per burst stay at {olo:.2f}-{ohi:.2f} in the mixed pairs under every "
             "setting (credit {ocr:.2f}; alone about 4), since pinned 1:1 each pCPU alternates one "
             "vCPU of each VM whatever the delay, and in fine/fine all four pCPUs run memory-bound "
             "bursts at any moment (inflation {iff:.3f} > 1 in every setting); the overall gains vs credit are "
             "DP(2ms) {g2:+.1f}%, DP(8ms) {g8:+.1f}%, adaptive {ga:+.1f}% (mean of {n} seeds)")


def fig9(hvsim, fgs=None, bgs=None, dp=None, seed=9, extra="", dmax=True):
    """Slowdowns of fg (completion) and bg (progress = CPU time of a blocking
    program, relative to its rate alone) for each fg x bg pair and DP setting,
    with what explains them: idle pCPU time, each VM's share of the machine,
    the preemptions DP held, the largest adaptive delay of the run, and each
    program's use of the machine alone (u = CPU time / (pCPUs x completion)).

    What bounds any scheduler here: a blocking program's slowdown is u / s
    (s = its share of the machine beside the other) times its work inflation
    (CPU time it needed / the CPU time it needed alone; 1 unless something
    costs compute, e.g. `cache_refill`). So gmean = sqrt(u_f u_b / (s_f s_b))
    x inflation, and with s_f + s_b <= 1 no schedule can bring a pair below
    2 sqrt(u_f u_b) x inflation ("floor")."""
    fgs, bgs, dp = fgs or FG, bgs or BG, dp or DP
    solo_fg, u_fg = {}, {}
    for k, v in fgs.items():
        r = run(hvsim, scenario(v, None, extra, seed))["vm"]["fg"]
        solo_fg[k] = float(r["completion_ms"])
        u_fg[k] = float(r["cpu_ms"]) / (PCPUS * solo_fg[k])
    solo_bg, u_bg = {}, {}   # the bg's progress rate alone (work_ms per ms), its use u
    for k, v in bgs.items():
        rr = run(hvsim, scenario(bg_solo(v), None, extra, seed))
        r, end = rr["vm"]["fg"], float(rr["run"]["end_ms"])   # end: done, or the duration
        solo_bg[k] = float(r["work_ms"]) / end
        u_bg[k] = float(r["cpu_ms"]) / (PCPUS * end)
    rows = []
    for fk, fv in fgs.items():
        for bk, bv in bgs.items():
            for name, opts in dp:
                text = scenario(fv, bv, extra, seed)
                r = run(hvsim, text, opts)
                end = float(r["run"]["end_ms"])
                fgs_ = float(r["vm"]["fg"]["completion_ms"]) / solo_fg[fk]
                rate = float(r["vm"]["bg"]["work_ms"]) / end
                bgs_ = solo_bg[bk] / rate if rate > 0 else float("inf")
                sf, sb = float(r["vm"]["fg"]["share"]), float(r["vm"]["bg"]["share"])
                uf, ub = u_fg[fk], u_bg[bk]
                g = math.sqrt(fgs_ * bgs_)
                infl = g / math.sqrt(uf * ub / (sf * sb)) if sf > 0 and sb > 0 else float("inf")
                diag = {
                    "idle": float(r["run"]["idle_ms"]) / (PCPUS * end),
                    "share_fg": sf,
                    "share_bg": sb,
                    "delayed": sum(int(v["delayed"]) for v in r["vcpu"]),
                    "preempt": sum(int(v["preempt"]) for v in r["vcpu"]),
                    "dmax_us": dp_delay_max_us(hvsim, text, opts)
                    if dmax and "sched_dp=adaptive" in opts else None,
                    "u": (uf, ub),
                    "lag": lags(r),
                    "inflation": infl,
                    # memory model: bursts running together per burst time
                    "overlap": float(r["run"].get("mem_overlap", 0)),
                    "floor": 2 * math.sqrt(uf * ub) * infl,
                }
                rows.append((fk, bk, name, fgs_, bgs_, g, diag))
    return rows


def why_variants():
    """--dp-why: the Fig. 9 pairs with one feature of the paper's testbed or
    programs changed at a time (docs/sched.md "Why Fig. 9 does not show")."""
    def progs(fine, coarse, nf, nc, sf=None, sc=None):
        return ({"fine": barrier_prog(fine, nf, "b", sf), "coarse": barrier_prog(coarse, nc, "b", sc)},
                {"fine": barrier_prog(fine, "forever", "c", sf),
                 "coarse": barrier_prog(coarse, "forever", "c", sc)})
    base = progs("20ms..30ms", "1s..1500ms", 150, 3)
    return [
        ("Fig. 9 pairs as above", base, "", []),
        ("no rate limit (Xen 4.0.2)", base, "", ["sched_ratelimit_us=0"]),
        ("paper grains: coarse 5-7 s", progs("20ms..30ms", "5s..7s", 150, 3), "duration 300s\n", []),
        ("fine grain 2-3 ms", progs("2ms..3ms", "1s..1500ms", 1500, 3), "", []),
        ("equal 25 ms / 1.25 s", progs("25ms", "1250ms", 150, 3), "", []),
        ("uneven 5-45 ms / 0.5-2 s", progs("5ms..45ms", "500ms..2s", 150, 3), "", []),
        ("serial phase 5 / 50 ms", progs("20ms..30ms", "1s..1500ms", 150, 3, "5ms", "50ms"), "", []),
        ("mutex 1 ms per 20-30 ms", ({"fine": lock_prog("10ms..15ms", "1ms", 150, "b", "L"),
                                      "coarse": base[0]["coarse"]},
                                     {"fine": lock_prog("10ms..15ms", "1ms", "forever", "c", "M"),
                                      "coarse": base[1]["coarse"]}), "lock L\nlock M\n", []),
        ("cache refill 0.5 ms/switch", base, "cache_refill 500us\n", []),
        ("cache refill 2 ms/switch", base, "cache_refill 2ms\n", []),
    ]


def dp_why(hvsim, seeds):
    """Overall gmean (4 pairs) under credit, DP(1/2/8 ms) and adaptive per
    variant and workload seed: gain vs credit as mean +- sd over the seeds,
    credit's idle time, the floor's bound on any scheduler's gain, the
    work inflation, and in how many seeds Fig. 9a's split holds."""
    dp = [("credit", []), ("DP(1ms)", ["sched_dp_us=1000"]), ("DP(2ms)", ["sched_dp_us=2000"]),
          ("DP(8ms)", ["sched_dp_us=8000"]), ("adaptive", ["sched_dp=adaptive"])]
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    out = []
    for name, (fgs, bgs), extra, base in why_variants():
        per = {n: [] for n, _ in dp}
        idle, bound, infl, split = [], [], [], 0
        for sd in seeds:
            rows = fig9(hvsim, fgs, bgs, [(n, base + o) for n, o in dp], sd, extra, dmax=False)
            by = {(f, b, n): (g, d, fs) for f, b, n, fs, _, g, d in rows}
            allg = {n: gm([by[k][0] for k in by if k[2] == n]) for n, _ in dp}
            for n, _ in dp:
                per[n].append(1 - allg[n] / allg["credit"])
            cr = [by[k] for k in by if k[2] == "credit"]
            idle.append(sum(d["idle"] for _, d, _ in cr) / len(cr))
            bound.append(1 - gm([d["floor"] for _, d, _ in cr]) / allg["credit"])
            infl.append(gm([d["inflation"] for _, d, _ in cr]))
            split += (by[("fine", "fine", "DP(2ms)")][2] < by[("fine", "fine", "DP(8ms)")][2] and
                      by[("coarse", "fine", "DP(8ms)")][2] < by[("coarse", "fine", "DP(2ms)")][2])
        mean = lambda xs: sum(xs) / len(xs)
        sdv = lambda xs: (sum((x - mean(xs)) ** 2 for x in xs) / max(len(xs) - 1, 1)) ** 0.5
        out.append((name, {n: (mean(v), sdv(v)) for n, v in per.items() if n != "credit"},
                    mean(idle), mean(bound), mean(infl), split))
    return out


def dp_sides(hvsim, seeds):
    """--dp-sides: each Fig. 9 pair (ours, and with the paper's grains: fine
    20-30 ms streamcluster, coarse 5-7 s fluidanimate) with a fixed delay on
    every wake-up, on the bg's wake-ups only (the fg's running vCPUs
    protected) and on the fg's only: the fg's slowdown, mean over seeds, and
    in how many seeds DP(2ms) beats DP(8ms) for it (Fig. 9a: yes for the
    fine fg, no for the coarse, beside the fine bg)."""
    fine, paper = why_variants()[0][1], why_variants()[2]
    sets = [("ours", fine, ""), ("paper grains", paper[1], paper[2]),
            ("memory", preempt_mem.mem_progs(), preempt_mem.MEM)]
    cols = [("credit", None, None)] + [(f"{w}{d // 1000}", w, d) for d in (2000, 8000)
                                        for w in ("all", "bg", "fg")]
    out = []
    for label, (fgs, bgs), extra in sets:
        for fk in fgs:
            for bk in bgs:
                acc = {c: [] for c, _, _ in cols}
                for sd in seeds:
                    text = scenario(fgs[fk], bgs[bk], extra, sd)
                    solo = float(run(hvsim, scenario(fgs[fk], None, extra, sd))
                                 ["vm"]["fg"]["completion_ms"])
                    for c, w, d in cols:
                        if w is None:
                            r = run(hvsim, text)
                        elif w == "all":
                            r = run(hvsim, text, [f"sched_dp_us={d}"])
                        else:   # w's wake-ups held: protect the other VM
                            r = run(hvsim, one_side(text, "fg" if w == "bg" else "bg", d))
                        acc[c].append(float(r["vm"]["fg"]["completion_ms"]) / solo)
                short = sum(a < b for a, b in zip(acc["all2"], acc["all8"]))
                out.append((label, fk, bk, {c: sum(v) / len(v) for c, v in acc.items()}, short))
    return [c for c, _, _ in cols], out


# §5.1's motivating case (Fig. 7): a blocking parallel program beside 4-loop
# periodic interference (10 ms on / 10 ms off, §2.4), pinned. Both sides sleep,
# so pCPUs idle while a loop's wake-up preempts a thread about to block.
P51_GRAINS = {"1-3ms": "1ms..3ms", "20-30ms": "20ms..30ms"}


def dp_periodic(hvsim, dp=None):
    """Rows per grain and setting, and per grain what explains adaptive DP:
    credit's largest eq. 1 lag per VM over the run, and the gmean with 8 ms
    on one side's wake-ups only (held[X] = X's wake-ups held)."""
    rows, why = [], {}
    for grain, t in P51_GRAINS.items():
        iters = 3000 if grain == "1-3ms" else 150
        base = (f"pcpus {PCPUS}\nduration 60s\nvm fg vcpus=4\nbarrier b 4\nprogram p\n"
                f"  loop {iters}\n    compute {t}\n    barrier b block\n  end\nend\n"
                f"thread fg.0-3 p\n")
        solo = float(run(hvsim, base + pins("fg"))["vm"]["fg"]["completion_ms"])
        text = base + "vm bg vcpus=4\nthread bg.0-3 periodic 10ms 10ms\n" + pins("fg", "bg")

        def slowdowns(r):
            end = float(r["run"]["end_ms"])
            fgs = float(r["vm"]["fg"]["completion_ms"]) / solo
            bgs = 0.5 * PCPUS * end / float(r["vm"]["bg"]["cpu_ms"])   # alone: 50% duty
            return fgs, bgs, end
        for name, opts in dp or DP:
            r = run(hvsim, text, opts)
            fgs, bgs, end = slowdowns(r)
            rows.append((grain, name, fgs, bgs, math.sqrt(fgs * bgs),
                         float(r["run"]["idle_ms"]) / (PCPUS * end),
                         sum(int(v["delayed"]) for v in r["vcpu"]),
                         dp_delay_max_us(hvsim, text, opts) if "sched_dp=adaptive" in opts
                         else None))
            if name == "credit":
                why[grain] = {"lag": lags(r), "held": {}}
        for held, protect in (("fg", "bg"), ("bg", "fg")):
            fgs, bgs, _ = slowdowns(run(hvsim, one_side(text, protect, 8000)))
            why[grain]["held"][held] = math.sqrt(fgs * bgs)
    return rows, why


def fig10(hvsim):
    """Spinning (spin-then-block 200 us) 4-thread programs, memory-bound and
    CPU-bound, against 4-loop persistent and periodic (10 ms on / 10 ms off)
    interference (§2.4), pinned as the paper's testbed (§3.1); credit with
    30 ms slices vs DS with random 10-30 ms slices per pCPU (§5.2), DS as the
    mean over DS_SEEDS (its per-pCPU PRNG seeds)."""
    rows = []
    for kind in ("mem", "cpu"):
        burst = "compute 5ms mem" if kind == "mem" else "compute 5ms"
        prog = f"loop 300\n    {burst}\n    barrier b spin-block=200us\n  end"
        for intf in ("persistent", "periodic 10ms 10ms"):
            text = (f"pcpus {PCPUS}\nseed 5\nduration 60s\nmemory alpha=0.6 free=1\n"
                    f"vm par vcpus=4\nvm intf vcpus=4\nbarrier b 4\n"
                    f"program worker\n  {prog}\nend\nthread par.0-3 worker\n"
                    f"thread intf.0-3 {intf}\n" + pins("par", "intf"))
            c = float(run(hvsim, text)["vm"]["par"]["completion_ms"])
            ds = [float(run(hvsim, text, ["sched_ds_min_ms=10", "sched_ds_max_ms=30",
                                          f"sched_seed={sd}"])["vm"]["par"]["completion_ms"])
                  for sd in DS_SEEDS]
            d = sum(ds) / len(ds)
            rows.append((kind, intf.split()[0], c, d, 1 - d / c, [1 - x / c for x in ds]))
    return rows


def ple(hvsim):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "sim")
    rows = []
    for name in ("ple-lock-4", "ple-lock-undirected-4", "ple-lock-off-4", "ple-solo-4",
                 "ple-solo-off-4"):
        with open(os.path.join(here, name + ".wl")) as f:
            r = run(hvsim, f.read())
        rows.append((name, float(r["vm"]["par"]["completion_ms"])))
    return rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hvsim", default="build/sim/hvsim")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", choices=["dp", "ds", "ple"])
    ap.add_argument("--dp-sweep", action="store_true",
                    help="only: Fig. 9 pairs under fixed delays 0-16 ms (fg slowdown/gmean)")
    ap.add_argument("--dp-why", action="store_true",
                    help="only: Fig. 9 overall gmean per testbed/program variant (why no split)")
    ap.add_argument("--dp-sides", action="store_true",
                    help="only: Fig. 9 fg slowdowns with the delay on both / the bg's / the fg's "
                    "wake-ups (why Fig. 9a's split does not show)")
    ap.add_argument("--fig9-mem", action="store_true",
                    help="only: Fig. 9 pairs with streamcluster memory-bound (the memory model)")
    ap.add_argument("--seeds", default="1,2,3",
                    help="workload seeds of --dp-why/--dp-sides/--fig9-mem (1,2,3)")
    ap.add_argument("--mem", default=None, metavar="'alpha=A free=F'",
                    help="with --fig9-mem: other memory-model coefficients (default Fig. 10's)")
    ap.add_argument("--paper-grains", action="store_true",
                    help="with --fig9-mem: the coarse programs at 5-7 s (fluidanimate)")
    ap.add_argument("--dp-readings", action="store_true",
                    help="only: adaptive DP under each reading of eq. 1 (sched_dp_scope, "
                    "sched_dp_idle) on Fig. 9 and the §5.1 case")
    a = ap.parse_args(argv)
    if a.dp_readings:
        preempt_readings.report(fig9, dp_periodic, a.hvsim, [int(x) for x in a.seeds.split(",")])
        return 0
    if a.fig9_mem:
        seeds = [int(x) for x in a.seeds.split(",")]
        if a.mem:   # a sensitivity run; the checks use Fig. 10's coefficients
            preempt_mem.MEM = f"memory {a.mem}\n"
        per, overall = preempt_mem.fig9_mem(fig9, a.hvsim, DP, seeds,
                                            "5s..7s" if a.paper_grains else None)
        _, split = preempt_mem.report(per, overall, DP, seeds)
        print(f"  Fig. 9a split (DP(2ms) best for the fine fg, DP(8ms) for the coarse fg, beside the "
              f"fine bg) in {split} of {len(seeds)} seeds")
        print(f"  Fig. 3 check: the memory-bound fine program's compute time drops "
              f"{100 * preempt_mem.fig3_drop(a.hvsim, seeds):.1f}% beside one persistent loop "
              f"(paper: streamcluster 12%)")
        return 0
    if a.dp_sides:
        seeds = [int(x) for x in a.seeds.split(",")]
        cols, rows = dp_sides(a.hvsim, seeds)
        print(f"Fig. 9 fg slowdown, mean of workload seeds {a.seeds}: allD = D ms on every "
              "wake-up, bgD = on the bg's wake-ups only (the fg protected), fgD = on the fg's "
              "only; 2<8 = seeds where DP(2ms) beats DP(8ms) for the fg. Paper (Fig. 9a, fine "
              "bg): 2 ms best for fine fgs, 8 ms for coarse ones.")
        print(f"  {'grains':13}{'fg/bg':14}" + "".join(f"{c:>8}" for c in cols) + f"{'2<8':>6}")
        for label, fk, bk, m, short in rows:
            print(f"  {label:13}{fk + '/' + bk:14}" + "".join(f"{m[c]:8.3f}" for c in cols)
                  + f"{short:4d}/{len(seeds)}")
        return 0
    if a.dp_why:
        seeds = [int(x) for x in a.seeds.split(",")]
        print(f"Fig. 9 overall gmean of the 4 pairs per variant, workload seeds {a.seeds}: gain vs "
              "credit (mean +- sd over seeds); idle = credit's idle pCPU time; floor = the most any "
              "scheduler can gain (2 sqrt(u_fg u_bg) x inflation); infl = work inflation under "
              "credit; 9a = seeds where DP(2ms) is best for the fine fg and DP(8ms) for the coarse "
              "fg beside the fine bg. Paper: adaptive +12%, 9a split yes.")
        rows = dp_why(a.hvsim, seeds)
        names = list(rows[0][1])
        print(f"  {'variant':27}" + "".join(f"{n:>13}" for n in names) +
              f"{'idle':>7}{'floor':>7}{'infl':>6}{'9a':>5}")
        for name, g, idle, bound, infl, split in rows:
            print(f"  {name:27}" + "".join(f"{100 * g[n][0]:+6.1f}+-{100 * g[n][1]:<4.1f}" for n in names)
                  + f"{100 * idle:6.1f}%{100 * bound:6.1f}%{infl:6.3f}{split:3d}/{len(seeds)}")
        return 0
    if a.dp_sweep:
        sweep = [("0", [])] + [(f"{d // 1000 if d >= 1000 else d / 1000}ms", [f"sched_dp_us={d}"])
                               for d in (500, 1000, 2000, 4000, 8000, 16000)]
        rows = fig9(a.hvsim, dp=sweep)
        print("Fig. 9 pairs, pinned, fixed delay sweep: fg slowdown / gmean of fg and bg")
        print(f"  {'fg/bg':14}" + "".join(f"{n:>14}" for n, _ in sweep))
        for fk in FG:
            for bk in BG:
                print(f"  {fk + '/' + bk:14}" + "".join(f"   {f:.3f}/{g:.3f}" for x, y, _, f, _, g, _
                                                       in rows if (x, y) == (fk, bk)))
        return 0
    bad = []

    def want(ok, what):
        print(f"  {'PASS' if ok else 'FAIL'} {what}")
        if not ok:
            bad.append(what)

    def xfail(ok, what, why):
        """A shape hvsim does not reproduce (docs/sched.md): XFAIL with its
        measured cause, XPASS once it holds; neither fails the run."""
        print(f"  {'XPASS' if ok else 'XFAIL'} {what}" + ("" if ok else f" [known gap: {why}]"))

    if a.only in (None, "dp"):
        rows = fig9(a.hvsim)
        print("Fig. 9 shape, pinned (slowdown vs alone; gmean = sqrt(fg x bg); idle = idle pCPU "
              "time; share = VM's part of the machine; held = wake-up preemptions DP held / preemptions that happened (a hold ended by prev blocking is no preemption); "
              "dmax = largest adaptive delay in the run):")
        print(f"  {'fg':7} {'bg':7} {'setting':9} {'fg':>6} {'bg':>6} {'gmean':>6} {'idle':>6} "
              f"{'share':>11} {'held':>8} {'dmax':>8}")
        for fk, bk, name, fgs, bgs, g, d in rows:
            dm = f"{d['dmax_us']:.0f}us" if d["dmax_us"] is not None else "-"
            print(f"  {fk:7} {bk:7} {name:9} {fgs:6.3f} {bgs:6.3f} {g:6.3f} "
                  f"{100 * d['idle']:5.1f}% {d['share_fg']:.3f}/{d['share_bg']:.3f} "
                  f"{d['delayed']:3d}/{d['preempt']:<4d} {dm:>8}")
        by = {(fk, bk, n): (f, b, g, d) for fk, bk, n, f, b, g, d in rows}
        allg = {n: math.exp(sum(math.log(by[k][2]) for k in by if k[2] == n) /
                            sum(1 for k in by if k[2] == n)) for n, _ in DP}
        for n, g in allg.items():
            print(f"  overall gmean {n:9} {g:6.3f}  ({100 * (1 - g / allg['credit']):+.1f}% vs credit; paper: adaptive +12%)")
        idle = max(by[k][3]["idle"] for k in by if k[2] == "credit")
        print(f"  credit leaves at most {100 * idle:.1f}% of pCPU time idle in any pair")
        floor = {k[:2]: by[k][3]["floor"] for k in by if k[2] == "credit"}
        for (fk, bk), fl in floor.items():
            u = by[(fk, bk, "credit")][3]["u"]
            lg = by[(fk, bk, "credit")][3]["lag"]
            print(f"  floor {fk + '/' + bk:14} u {u[0]:.3f}/{u[1]:.3f}  2 sqrt(u_fg u_bg) = {fl:.3f}"
                  f"  credit {by[(fk, bk, 'credit')][2]:.3f}: no scheduler wins more than "
                  f"{100 * (1 - fl / by[(fk, bk, 'credit')][2]):.1f}%; credit's largest eq. 1 lag "
                  f"fg {lg['fg']:+.3f} bg {lg['bg']:+.3f}")
        gfloor = math.exp(sum(math.log(v) for v in floor.values()) / len(floor))
        maxgain = 100 * (1 - gfloor / allg["credit"])
        print(f"  overall floor {gfloor:.3f}: no scheduler can beat credit by more than "
              f"{maxgain:.1f}% here (paper: adaptive DP +12%)")
        worst = max(abs(by[k][3]["inflation"] - 1) for k in by)
        if a.check:
            best = {}
            for fk in FG:
                for bk in BG:
                    fixed = {n: by[(fk, bk, n)][2] for n in ("DP(2ms)", "DP(8ms)")}
                    best[(fk, bk)] = min(fixed.values())
            want(allg["adaptive"] < 1.02 * allg["credit"], "adaptive DP overall gmean within 2% of credit or better")
            for (fk, bk), b in best.items():
                want(by[(fk, bk, "adaptive")][2] <= 1.10 * b,
                     f"adaptive within 10% of the best fixed delay ({fk} fg, {bk} bg)")
            want(all(by[k][3]["delayed"] > 0 for k in by if k[2] in ("DP(2ms)", "DP(8ms)")),
                 "fixed DP holds wake-up preemptions in every pair")
            # The premise of the XFAILs below: CPU time is work, so the gmean is set by
            # the shares (a cost added to the model moves the inflation off 1; then
            # the floor no longer bounds the gain and Fig. 9 must be looked at again).
            want(worst < 0.04, f"slowdowns are set by the CPU shares: work inflation within 4% "
                 f"of 1 in every run (worst {100 * worst:.1f}%)")
            # The paper's shapes (§5.1, Fig. 9): known gaps, see FIG9_GAP.
            xfail(allg["adaptive"] <= 0.95 * allg["credit"],
                  f"adaptive DP overall gmean >= 5% below credit (paper 12%): "
                  f"{allg['adaptive']:.3f} vs {allg['credit']:.3f}", FIG9_GAP.format(
                      gain=maxgain, infl=100 * worst,
                      lag=max(max(by[k][3]["lag"].values()) for k in by if k[2] == "credit")))
            fine = by[("fine", "fine", "DP(2ms)")][0] < by[("fine", "fine", "DP(8ms)")][0]
            coarse = by[("coarse", "fine", "DP(8ms)")][0] < by[("coarse", "fine", "DP(2ms)")][0]
            # The fine fg's two sides: 8 ms on the bg's wake-ups only, on its own only.
            text = scenario(FG["fine"], BG["fine"])
            solo = float(run(a.hvsim, scenario(FG["fine"], None))["vm"]["fg"]["completion_ms"])
            fgs = {w: float(run(a.hvsim, one_side(text, p, 8000))["vm"]["fg"]["completion_ms"]) / solo
                   for w, p in (("bg", "fg"), ("fg", "bg"))}
            xfail(fine and coarse, "fine bg (Fig. 9a): DP(2ms) best for the fine fg, DP(8ms) for "
                  "the coarse fg", FIG9A_GAP.format(
                      chalf="holds" if coarse else "fails", c2=by[("coarse", "fine", "DP(2ms)")][0],
                      c8=by[("coarse", "fine", "DP(8ms)")][0], f2=by[("fine", "fine", "DP(2ms)")][0],
                      f8=by[("fine", "fine", "DP(8ms)")][0], fb=fgs["bg"], ff=fgs["fg"],
                      fc=by[("fine", "fine", "credit")][0]))
    if a.only in (None, "dp"):
        # Fig. 9 again with the memory model (streamcluster memory-bound), 3 seeds.
        seeds = preempt_mem.MEM_SEEDS
        per, overall = preempt_mem.fig9_mem(fig9, a.hvsim, DP, seeds)
        gains, split = preempt_mem.report(per, overall, DP, seeds)
        drop = preempt_mem.fig3_drop(a.hvsim)
        print(f"  Fig. 3 check: the memory-bound fine program's compute time drops "
              f"{100 * drop:.1f}% beside one persistent loop (paper: streamcluster 12%)")
        if a.check:
            infl = {k: preempt_mem.mean([x[3]["inflation"] for x in v]) for k, v in per.items()}
            cr = {k[:2]: v for k, v in infl.items() if k[2] == "credit"}
            mixed = [cr[("fine", "coarse")], cr[("coarse", "fine")]]
            # The model's coefficients are Fig. 10's; Fig. 3 checks them.
            want(0.05 <= drop <= 0.30, f"memory model vs Fig. 3: the memory-bound program's "
                 f"compute time drops 5-30% beside one persistent loop ({100 * drop:.1f}%; "
                 f"paper: streamcluster 12%)")
            # The premise of the memory runs: CPU time is not work there (the
            # 4% inflation check above is for the CPU-only runs).
            want(max(mixed) < 0.95, f"memory runs: the memory-bound program needs less CPU time "
                 f"per unit of work beside the CPU-bound one (credit's work inflation "
                 f"{' / '.join(f'{x:.3f}' for x in mixed)} < 0.95 in the mixed pairs, §3.3)")
            dinf = max(abs(v - cr[k[:2]]) for k, v in infl.items())
            ovl = {k: preempt_mem.mean([x[3]["overlap"] for x in v]) for k, v in per.items()
                   if k[:2] in (("fine", "coarse"), ("coarse", "fine"))}
            xfail(gains["adaptive"] >= 0.05, f"memory runs: adaptive DP overall gmean >= 5% below "
                  f"credit (paper 12%): {100 * gains['adaptive']:+.1f}%", FIG9M_GAP.format(
                      ilo=min(cr.values()), ihi=max(cr.values()), dinf=dinf,
                      olo=min(ovl.values()), ohi=max(ovl.values()),
                      ocr=preempt_mem.mean([v for k, v in ovl.items() if k[2] == "credit"]),
                      iff=min(v for k, v in infl.items() if k[:2] == ("fine", "fine")),
                      g2=100 * gains["DP(2ms)"], g8=100 * gains["DP(8ms)"],
                      ga=100 * gains["adaptive"], n=len(seeds)))
            xfail(2 * split > len(seeds), f"memory runs, fine bg (Fig. 9a): DP(2ms) best for the "
                  f"fine fg and DP(8ms) for the coarse fg in most seeds ({split} of {len(seeds)})",
                  FIG9AM_GAP.format(**{k: preempt_mem.mean([x[0] for x in per[p]]) for k, p in (
                      ("f2", ("fine", "fine", "DP(2ms)")), ("f8", ("fine", "fine", "DP(8ms)")),
                      ("c2", ("coarse", "fine", "DP(2ms)")), ("c8", ("coarse", "fine", "DP(8ms)")),
                      ("cc", ("coarse", "fine", "credit")))}))
        rows, why = dp_periodic(a.hvsim)
        print("§5.1 case, pinned: blocking program (barrier every 1-3 / 20-30 ms) beside 4-loop "
              "periodic interference 10/10 ms (bg slowdown = CPU rate vs its 50% alone):")
        for grain, name, fgs, bgs, g, idle, held, dm in rows:
            dms = f"{dm:.0f}us" if dm is not None else "-"
            print(f"  {grain:8} {name:9} fg {fgs:6.3f} bg {bgs:6.3f} gmean {g:6.3f} "
                  f"idle {100 * idle:5.1f}% held {held:5d} dmax {dms:>8}")
        for gr, w in why.items():
            print(f"  {gr:8} 8 ms on one side's wake-ups only: program's held gmean "
                  f"{w['held']['fg']:.3f}, loops' held {w['held']['bg']:.3f}; credit's largest "
                  f"eq. 1 lag (run) program {w['lag']['fg']:+.3f}, loops {w['lag']['bg']:+.3f}")
        if a.check:
            by = {(gr, n): (g, idle) for gr, n, _, _, g, idle, _, _ in rows}
            for gr in P51_GRAINS:
                want(by[(gr, "DP(8ms)")][1] < by[(gr, "credit")][1] and
                     by[(gr, "DP(8ms)")][0] < by[(gr, "credit")][0],
                     f"{gr}: DP(8ms) cuts idle pCPU time and the gmean slowdown vs credit")
                best = min(by[(gr, n)][0] for n in ("DP(2ms)", "DP(8ms)"))
                cr, ad = by[(gr, "credit")][0], by[(gr, "adaptive")][0]
                w = why[gr]
                pay = [x for x in ("fg", "bg") if w["held"][x] < cr]
                # The premise of the XFAIL below: the delay pays only on wakers
                # that are under t_fair, whose delays eq. 1-2 never lengthen.
                want(pay and all(w["lag"][x] <= 0.01 for x in pay),
                     f"{gr}: the wakers whose held wake-ups pay "
                     f"({', '.join(SIDE[x] for x in pay) or 'none'}) compute no more than t_fair "
                     f"under credit (largest lag program {w['lag']['fg']:+.3f}, loops "
                     f"{w['lag']['bg']:+.3f})")
                xfail(cr - ad >= 0.5 * (cr - best),
                      f"{gr}: adaptive DP wins at least half the best fixed delay's gain "
                      f"(credit {cr:.3f}, adaptive {ad:.3f}, best fixed {best:.3f})",
                      P51_GAP.format(gp=w["held"]["fg"], gl=w["held"]["bg"], gc=cr,
                                     lp=w["lag"]["fg"], ll=w["lag"]["bg"]))
    if a.only in (None, "ds"):
        rows = fig10(a.hvsim)
        print(f"Fig. 10 shape, pinned (completion ms, credit 30 ms slices vs DS 10-30 ms, DS mean "
              f"of sched_seed {','.join(map(str, DS_SEEDS))}):")
        for kind, intf, c, d, gain, per in rows:
            print(f"  {kind:4} {intf:10} credit {c:9.1f} DS {d:9.1f} gain {100 * gain:+5.1f}% "
                  f"(per seed {' '.join(f'{100 * x:+.1f}' for x in per)})")
        print("  paper: persistent (10a) memory-bound +32% avg (up to +38%), CPU-bound (cg) about 0;"
              " periodic (10b) DS better on all but cg, cg slightly worse")
        if a.check:
            g = {(k, i): gain for k, i, _, _, gain, _ in rows}
            want(g[("mem", "persistent")] > 0.05, "DS helps the memory-bound program > 5% (persistent)")
            want(abs(g[("cpu", "persistent")]) < 0.05, "DS leaves the CPU-bound program within 5% (persistent)")
            want(g[("mem", "periodic")] > 0.05, "DS helps the memory-bound program > 5% (periodic)")
            want(-0.05 < g[("cpu", "periodic")] < 0.02,
                 "DS leaves the CPU-bound program within 5%, not better (periodic)")
    if a.only in (None, "ple"):
        rows = dict(ple(a.hvsim))
        print("PLE (completion ms of the spinlock VM):")
        for k, v in rows.items():
            print(f"  {k:24} {v:9.1f}")
        if a.check:
            want(rows["ple-lock-4"] < rows["ple-lock-undirected-4"] < rows["ple-lock-off-4"],
                 "directed < undirected < off under over-commit")
            want(rows["ple-solo-4"] < 1.02 * rows["ple-solo-off-4"], "PLE costs < 2% without over-commit")
    if bad:
        print(f"repro_preempt: {len(bad)} shape check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
