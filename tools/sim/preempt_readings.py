"""--dp-readings of tools/sim/repro_preempt.py: adaptive DP (seed 001 §5.1,
eq. 1-2) under each reading of eq. 1 the hypervisor offers as an option
(hv/sched/dp_ds.c; docs/sched.md "Adaptive DP against the paper"), on the
Fig. 9 pairs (CPU-only and with the memory model) and the §5.1 case:
  - per vCPU, t_idle = the vCPU's sync + steal (the default);
  - sched_dp_scope=vm: one lag per VM from its vCPUs' summed figures;
  - sched_dp_idle=pcpu: t_idle = the idle time of the vCPU's pCPU;
  - both."""
import math

import preempt_mem

READINGS = [("per vCPU (default)", []), ("per VM", ["sched_dp_scope=vm"]),
            ("pCPU idle", ["sched_dp_idle=pcpu"]),
            ("per VM + pCPU idle", ["sched_dp_scope=vm", "sched_dp_idle=pcpu"])]


def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def measure(fig9, dp_periodic, hvsim, seeds):
    """Rows per reading: Fig. 9 overall gain vs credit (CPU-only and memory,
    mean over seeds), and the §5.1 gmean and largest delay per grain."""
    dp = [("credit", [])] + [(n, ["sched_dp=adaptive"] + o) for n, o in READINGS]
    fig = {}
    for label, fgs, bgs, extra in (("cpu", None, None, ""),
                                   ("mem",) + preempt_mem.mem_progs() + (preempt_mem.MEM,)):
        gains = {n: [] for n, _ in dp}
        for sd in seeds:
            rows = fig9(hvsim, fgs, bgs, dp, sd, extra, dmax=False)
            allg = {n: gm([g for _, _, m, _, _, g, _ in rows if m == n]) for n, _ in dp}
            for n, _ in dp:
                gains[n].append(1 - allg[n] / allg["credit"])
        fig[label] = {n: (preempt_mem.mean(v), preempt_mem.sd(v)) for n, v in gains.items()}
    rows, _ = dp_periodic(hvsim, dp)
    p51 = {(gr, n): (g, dm) for gr, n, _, _, g, _, _, dm in rows}
    return dp, fig, p51


def report(fig9, dp_periodic, hvsim, seeds):
    dp, fig, p51 = measure(fig9, dp_periodic, hvsim, seeds)
    grains = sorted({gr for gr, _ in p51})
    print(f"Adaptive DP per reading of eq. 1: Fig. 9 overall gmean gain vs credit (mean +- sd "
          f"over workload seeds {','.join(map(str, seeds))}; CPU-only and memory model), §5.1 "
          f"gmean (credit / reading) and the largest delay of the run:")
    print(f"  {'reading':22}{'Fig.9 cpu':>14}{'Fig.9 mem':>14}" +
          "".join(f"{'§5.1 ' + gr:>24}" for gr in grains))
    for n, _ in dp[1:]:
        cells = "".join(f"{p51[(gr, 'credit')][0]:8.3f} /{p51[(gr, n)][0]:6.3f}"
                        f"{p51[(gr, n)][1] or 0:7.0f}us" for gr in grains)
        print(f"  {n:22}" + "".join(f"{100 * fig[k][n][0]:+7.1f}+-{100 * fig[k][n][1]:<4.1f}"
                                    for k in ("cpu", "mem")) + " " + cells)
