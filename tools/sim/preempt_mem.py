"""Seed 001 Fig. 9 with the memory-contention model (issue 13, session 10):
the Fig. 9 pairs of tools/sim/repro_preempt.py with the paper's
memory-intensive program marked memory-bound, and the §3.3 / Fig. 3 check of
the model's coefficients. Used by repro_preempt.py (--fig9-mem, --check).

Which programs are memory-bound, from the paper's text (seed 001):
  - streamcluster, the fine-grained programs' model (Fig. 9a's background:
    "streamcluster has fine-grained synchronizations at the granularity of
    20-30ms"), is: §4, "the real streamcluster workload that has varying CPU
    demands and contends on shared memory resources", and §3.3, its compute
    time drops by 12% under 1-loop persistent interference (Fig. 3);
  - no sentence says so of fluidanimate (the coarse background) or of the
    coarse foregrounds (swaptions, blackscholes, x264), so they stay
    CPU-bound.
The coefficients are Fig. 10's (repro_preempt.fig10: alpha 0.6, free 1), not
tuned to Fig. 9; `fig3_drop` checks them against Fig. 3 (streamcluster's
compute time -12% beside one persistent loop)."""
import math

from preempt_scen import PCPUS, FG, BG, pins, run

MEM = "memory alpha=0.6 free=1\n"   # Fig. 10's coefficients (repro_preempt.fig10)
MEM_SEEDS = (1, 2, 3)               # workload seeds of the memory runs in --check


def mem_progs(coarse=None):
    """Fig. 9's programs with the fine (streamcluster) bursts memory-bound;
    coarse = another coarse grain (the paper's fluidanimate: "5s..7s")."""
    mark = lambda p: p.replace("compute 20ms..30ms\n", "compute 20ms..30ms mem\n")
    grain = lambda p: p.replace("compute 1s..1500ms", f"compute {coarse}") if coarse else p
    return ({"fine": mark(FG["fine"]), "coarse": grain(FG["coarse"])},
            {"fine": mark(BG["fine"]), "coarse": grain(BG["coarse"])})


def fig3_drop(hvsim, seeds=MEM_SEEDS):
    """§3.3 / Fig. 3 on the model: the fine memory-bound program (4 threads,
    pinned) alone and beside one persistent loop pinned on pCPU 0: how much
    its compute (CPU) time drops, mean over seeds (paper: streamcluster 12%)."""
    out = []
    for sd in seeds:
        base = (f"pcpus {PCPUS}\nseed {sd}\nduration 60s\n{MEM}vm fg vcpus=4\nbarrier b 4\n"
                f"program p\n  {mem_progs()[0]['fine']}\nend\nthread fg.0-3 p\n" + pins("fg"))
        alone = float(run(hvsim, base)["vm"]["fg"]["cpu_ms"])
        loop = float(run(hvsim, base + "vm bg vcpus=1\nthread bg.0 persistent\npin bg.0 0\n")
                     ["vm"]["fg"]["cpu_ms"])
        out.append(1 - loop / alone)
    return sum(out) / len(out)


def fig9_mem(fig9, hvsim, dp, seeds=MEM_SEEDS, coarse=None):
    """The Fig. 9 pairs (repro_preempt.fig9) with the memory-bound programs
    of mem_progs() for each seed. Returns per (fg, bg, setting) the lists over
    seeds of (fg slowdown, bg slowdown, gmean, diag), and per setting the
    overall gmean per seed."""
    fgs, bgs = mem_progs(coarse)
    extra = "duration 300s\n" if coarse else ""   # 3 coarse intervals of up to 7 s, 2x slower
    per, overall = {}, {n: [] for n, _ in dp}
    for sd in seeds:
        rows = fig9(hvsim, fgs, bgs, dp, sd, extra + MEM, dmax=False)
        for fk, bk, n, f, b, g, d in rows:
            per.setdefault((fk, bk, n), []).append((f, b, g, d))
        for n, _ in dp:
            gs = [g for fk, bk, m, _, _, g, _ in rows if m == n]
            overall[n].append(math.exp(sum(map(math.log, gs)) / len(gs)))
    return per, overall


def mean(xs):
    return sum(xs) / len(xs)


def sd(xs):
    m = mean(xs)
    return (sum((x - m) ** 2 for x in xs) / max(len(xs) - 1, 1)) ** 0.5


def report(per, overall, dp, seeds):
    """Print the memory runs' table: per pair and setting the mean over seeds
    of the fg and bg slowdowns, the gmean, idle pCPU time and the work
    inflation (CPU time the pair needed per unit of work over what it needed
    alone; below 1 = compute time dropped beside the other program, Fig. 3),
    the memory overlap (memory-bound bursts running together, averaged over
    each burst's time; alone the fine program's is about 4),
    then the overall gmean's gain vs credit per seed. Returns the mean
    overall gain per setting and the Fig. 9a split count."""
    print(f"Fig. 9 with the memory model ({MEM.strip()}; fine = streamcluster = memory-bound, "
          f"coarse CPU-bound), pinned, mean of workload seeds {','.join(map(str, seeds))}:")
    print(f"  {'fg':7} {'bg':7} {'setting':9} {'fg':>6} {'bg':>6} {'gmean':>6} {'sd':>6} "
          f"{'idle':>6} {'infl':>6} {'ovl':>5} {'held':>5}")
    for (fk, bk, n), v in per.items():
        print(f"  {fk:7} {bk:7} {n:9} {mean([x[0] for x in v]):6.3f} "
              f"{mean([x[1] for x in v]):6.3f} {mean([x[2] for x in v]):6.3f} "
              f"{sd([x[2] for x in v]):6.3f} {100 * mean([x[3]['idle'] for x in v]):5.1f}% "
              f"{mean([x[3]['inflation'] for x in v]):6.3f} "
              f"{mean([x[3]['overlap'] for x in v]):5.2f} "
              f"{mean([x[3]['delayed'] for x in v]):5.0f}")
    gains = {}
    for n, _ in dp:
        g = [1 - a / c for a, c in zip(overall[n], overall["credit"])]
        gains[n] = mean(g)
        print(f"  overall gmean {n:9} {mean(overall[n]):6.3f}  ({100 * mean(g):+.1f}% +- "
              f"{100 * sd(g):.1f} vs credit; per seed "
              f"{' '.join(f'{100 * x:+.1f}' for x in g)}; paper: adaptive +12%)")
    split = sum(per[("fine", "fine", "DP(2ms)")][i][0] < per[("fine", "fine", "DP(8ms)")][i][0] and
                per[("coarse", "fine", "DP(8ms)")][i][0] < per[("coarse", "fine", "DP(2ms)")][i][0]
                for i in range(len(seeds)))
    return gains, split
