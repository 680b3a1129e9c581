#!/usr/bin/env python3
"""Issue 14/15 simulator reproductions on hvsim with the guest model
(docs/sched.md "Guest model"): IRS (seed 000 §5, Fig. 5-6) and the CPU
balloon (seed 004 §6). Generates the scenarios, runs hvsim over a few seeds,
prints tables beside the papers' numbers and, with --check, asserts what
issues 14 and 15 ask (make test-sim runs `--check --quick`).

  repro_pv.py [--hvsim build/sim/hvsim] [--only irs|balloon] [--check] [--quick]
              [--seeds N] [--markdown]

IRS: a 4-vCPU VM runs a bartest-like loop (4 threads: compute, then a
blocking or spinning barrier) beside 1, 2 or 4 CPU-hog vCPUs; every vCPU is
pinned to its own pCPU and hog i shares pCPU i (seed 000 §5 "CPU pinning").
Arms: vanilla (guest load balancing, no PV), PV (+ the guest reads steal /
preempted), IRS (+ SA upcall, receiver and migrator, ack after
ack_latency; ack block as section 3.2 and the guest's default irs_block=1,
--irs-yield for irs_block=0; the moved thread taken back when the ack returns
as guest patch 0106's default irs_pullback=1, --irs-nopb for irs_pullback=0).
Policy: credit.

Balloon: latprobe (a request every 1 ms on a timer, 50 us of work; latencies
from 1 s on, after the first credit periods) beside a
CPU hog in a 1-vCPU VM capped at 50%; arms vanilla (CFS, task clock
includes steal), PV (steal excluded), balloon static (§4.4), balloon
dynamic (§4.5), and the I/O-only reference. Then a 4-vCPU VM capped at 200%
(one latprobe and one hog per vCPU), the 1-vCPU VM (no cap) beside a
CPU-bound VM on one pCPU (§6.2.1), and two uncapped 1-vCPU VMs, each with
latprobe and a hog, sharing one pCPU (§6.2.2).
"""
import argparse
import statistics
import subprocess
import sys

ARMS = [("vanilla", "gbal=on"), ("pv", "gbal=on pv=on"), ("irs", "irs=on")]
# grain -> (compute per iteration, iterations, barriers). "bochs" is the
# Bochs experiment's futex-coarse barrier (tools/linux/irsexp.py: bartest 4
# threads, 10 iterations of 10^6 work loops, ~100 ms each; blocking only),
# to put hvsim beside Bochs on the same workload (docs/sched.md "IRS").
GRAINS = {"fine": ("2ms..4ms", 400, ("block", "spin")),
          "coarse": ("20ms..30ms", 60, ("block", "spin")),
          "bochs": ("100ms", 10, ("block",))}


def run(hvsim, text, seed):
    out = subprocess.run([hvsim, "-s", str(seed), "-o", f"sched_seed={seed}", "-"], input=text,
                         capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise RuntimeError(f"hvsim failed: {out.stderr.strip()}\n{text}")
    res = {"vm": {}, "guest": {}, "run": {}}
    for line in out.stdout.splitlines():
        kind, *fields = line.split()
        kv = {}
        for f in fields:
            k, v = f.split("=", 1)
            try:
                kv[k] = float(v)
            except ValueError:
                kv[k] = v
        if kind == "vm":
            res["vm"][kv["name"]] = kv
        elif kind == "guest":
            res["guest"][kv["vm"]] = kv
        elif kind == "run":
            res["run"] = kv
    return res


# ---- IRS (seed 000) ---------------------------------------------------------

def irs_wl(arm, k, grain, sync):
    comp, loops, _ = GRAINS[grain]
    s = f"pcpus 4\nduration 200s\nvm par vcpus=4 {arm}\n"
    if k:
        s += f"vm intf vcpus={k}\n"
    s += (f"barrier b 4\nprogram bt\n  loop {loops}\n    compute {comp}\n    barrier b {sync}\n"
          f"  end\nend\nthread par.0-3 bt\n")
    s += "".join(f"pin par.{i} {i}\n" for i in range(4))
    if k:
        s += f"thread intf.0-{k - 1} persistent\n"
        s += "".join(f"pin intf.{i} {i}\n" for i in range(k))
    return s


def irs_rows(hvsim, seeds):
    rows = []
    for grain in GRAINS:
        for sync in GRAINS[grain][2]:
            solo = statistics.mean(run(hvsim, irs_wl("gbal=on", 0, grain, sync), s)
                                   ["vm"]["par"]["completion_ms"] for s in seeds)
            for k in (1, 2, 4):
                r = {name: [run(hvsim, irs_wl(arm, k, grain, sync), s) for s in seeds]
                     for name, arm in ARMS}
                t = {n: statistics.mean(x["vm"]["par"]["completion_ms"] for x in v)
                     for n, v in r.items()}
                g = [x["guest"]["par"] for x in r["irs"]]
                acks = sum(x["sa_ack_yield"] + x["sa_ack_block"] for x in g)
                lat = (sum(x["ack_lat_avg_us"] * (x["sa_ack_yield"] + x["sa_ack_block"])
                           for x in g) / acks) if acks else 0.0
                rows.append(dict(grain=grain, sync=sync, k=k, solo=solo, **t,
                                 vs_van=100.0 * (t["vanilla"] / t["irs"] - 1),
                                 vs_pv=100.0 * (t["pv"] / t["irs"] - 1),
                                 upcalls=sum(x["sa_taken"] for x in g) / len(g),
                                 migr=sum(x["sa_migrate"] for x in g) / len(g),
                                 blocks=sum(x["sa_ack_block"] for x in g) / len(g),
                                 pulled=sum(x.get("sa_pullback", 0) for x in g) / len(g),
                                 lat=lat, lat_max=max(x["ack_lat_max_us"] for x in g)))
    return rows


def irs_print(rows):
    print("IRS (seed 000 Fig. 5/6): bartest-like 4 threads in a 4-vCPU VM, credit, pinned; "
          "completion ms (mean over seeds); IRS gain = T_base / T_irs - 1")
    print(f"{'grain':7} {'sync':5} {'inter':>5} {'solo':>8} {'vanilla':>8} {'pv':>8} {'irs':>8} "
          f"{'vs van':>7} {'vs pv':>7} {'upcalls':>7} {'migr':>6} {'ackblk':>6} "
          f"{'pullbk':>6} {'ack us':>6} {'max us':>6}")
    for r in rows:
        print(f"{r['grain']:7} {r['sync']:5} {r['k']:>4}i {r['solo']:8.0f} {r['vanilla']:8.0f} "
              f"{r['pv']:8.0f} {r['irs']:8.0f} {r['vs_van']:+6.1f}% {r['vs_pv']:+6.1f}% "
              f"{r['upcalls']:7.0f} {r['migr']:6.0f} {r['blocks']:6.0f} {r['pulled']:6.0f} {r['lat']:6.1f} "
              f"{r['lat_max']:6.1f}")
    print("paper: IRS +42% (PARSEC, blocking) / +43% (NPB) vs credit at 1-inter, gains shrink "
          "with interference and may turn into losses at 4-inter; ack 20-26 us")


# Known gaps (docs/sched.md "IRS"): reported as XFAIL, XPASS once they hold.
# The spinning 4-inter gap closed: the migrator skips siblings with an SA
# upcall pending (Alg. 2 line 12 takes RUNNING vCPUs only, as the Linux
# migrator does).
IRS_GAPS = {}


def irs_markdown(rows):
    print("| grain | sync | inter | solo | vanilla | PV | IRS | IRS vs vanilla | IRS vs PV | "
          "upcalls | acks block | pulled back |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['grain']} | {r['sync']} | {r['k']} | {r['solo']:.0f} | {r['vanilla']:.0f} | "
              f"{r['pv']:.0f} | {r['irs']:.0f} | {r['vs_van']:+.1f}% | {r['vs_pv']:+.1f}% | "
              f"{r['upcalls']:.0f} | {r['blocks']:.0f} | {r['pulled']:.0f} |")


def irs_check(rows):
    """(failures, expected failures)."""
    bad, gaps = [], []
    for r in rows:
        tag = f"{r['grain']} {r['sync']} {r['k']}-inter"
        if r["sync"] == "block" and r["k"] == 1 and r["upcalls"] > 0 and \
                not (r["irs"] < r["vanilla"] and r["irs"] < r["pv"]):
            bad.append(f"{tag}: IRS {r['irs']:.0f} ms does not beat vanilla {r['vanilla']:.0f} "
                       f"and PV {r['pv']:.0f}")
        if r["sync"] == "block" and r["k"] == 1 and r["upcalls"] == 0 and \
                r["irs"] > 1.01 * min(r["vanilla"], r["pv"]):
            bad.append(f"{tag}: no upcall, yet IRS {r['irs']:.0f} ms is >1% behind the baselines")
        # The issue asks it at 4-inter (spinning 2-inter is -21% with section
        # 3.2's ack block, +44% with --irs-yield: docs/sched.md "IRS").
        if r["k"] == 4:
            msg = (f"{tag}: IRS {r['irs']:.0f} ms vs vanilla {r['vanilla']:.0f} ms "
                   "(at most 5% slower)")
            ok = r["irs"] <= 1.05 * r["vanilla"]
            if r["sync"] in IRS_GAPS:
                gaps.append(("XPASS " if ok else "XFAIL ") + msg +
                            ("" if ok else f" [known gap: {IRS_GAPS[r['sync']]}]"))
            elif not ok:
                bad.append(msg)
        if r["upcalls"] and r["lat_max"] > 500:
            bad.append(f"{tag}: ack latency {r['lat_max']:.0f} us beyond the 500 us grace")
    if not any(r["sync"] == "block" and r["k"] == 1 and r["upcalls"] > 0 for r in rows):
        bad.append("no blocking 1-inter scenario sent an SA upcall: nothing was tested")
    return bad, gaps


# ---- balloon (seed 004) -----------------------------------------------------

LATPROBE = "program latprobe\n  loop forever\n    iowait 1ms\n    compute 50us\n  end\nend\n"
BKINDS = ("up", "smp", "smp63", "mixed", "share")
BARMS = [("vanilla", "guest=cfs"), ("pv", "guest=cfs pv=on"), ("static", "balloon=static"),
         ("dynamic", "balloon=dynamic")]


GUARD_PCT = 25   # sched_balloon_guard for the -g rows (docs/sched.md "Balloon mode")


def bal_wl(kind, arm, hog=True, dur="10s", cap=200):
    if arm.endswith(" excl"):  # our extension for VMs sharing pCPUs (docs/sched.md)
        return ("option sched_balloon_share=excl\n" +
                bal_wl(kind, arm[:-len(" excl")], hog, dur, cap))
    if arm.endswith(" guard"):  # our NWC guard for dynamic priority (docs/sched.md)
        return (f"option sched_balloon_guard={GUARD_PCT}\n" +
                bal_wl(kind, arm[:-len(" guard")], hog, dur, cap))
    if kind == "up":       # 1 vCPU capped at 50%
        s = f"pcpus 1\nduration {dur}\nwarmup 1s\nvm vm vcpus=1 cap=50 {arm}\n{LATPROBE}thread vm.0 latprobe io\n"
        return s + ("thread vm.0 persistent\n" if hog else "")
    if kind == "smp":      # 4 vCPUs capped at 200% (ours: seed 004 §6.1's cap on §6.3's VM)
        s = f"pcpus 4\nduration {dur}\nwarmup 1s\nvm vm vcpus=4 cap={cap} {arm}\n{LATPROBE}"
        s += "thread vm.0-3 latprobe io\n" + ("thread vm.0-3 persistent\n" if hog else "")
        return s + "".join(f"pin vm.{i} {i}\n" for i in range(4))
    if kind == "smp63":    # §6.3 Table 1: two 4-vCPU VMs on 4 pCPUs, vCPU i of each
        # pinned to pCPU i, equal weights, no cap; the other VM CPU-bound
        s = (f"pcpus 4\nduration {dur}\nwarmup 1s\nvm a vcpus=4 {arm}\nvm b vcpus=4 guest=cfs\n"
             f"{LATPROBE}thread a.0-3 latprobe io\nthread b.0-3 persistent\n")
        s += "thread a.0-3 persistent\n" if hog else ""
        return s + "".join(f"pin a.{i} {i}\npin b.{i} {i}\n" for i in range(4))
    if kind == "mixed":    # §6.2.1: the mixed VM beside a CPU-bound VM (no balloon), one pCPU
        s = (f"pcpus 1\nduration {dur}\nwarmup 1s\nvm a vcpus=1 {arm}\nvm b vcpus=1 guest=cfs\n"
             f"{LATPROBE}thread a.0 latprobe io\nthread b.0 persistent\n")
        return s + ("thread a.0 persistent\n" if hog else "")
    # two uncapped 1-vCPU VMs sharing one pCPU
    s = f"pcpus 1\nduration {dur}\nwarmup 1s\nvm a vcpus=1 {arm}\nvm b vcpus=1 {arm}\n{LATPROBE}"
    s += "thread a.0 latprobe io\nthread b.0 latprobe io\n"
    return s + ("thread a.0 persistent\nthread b.0 persistent\n" if hog else "")


def bal_rows(hvsim, seeds, dur, kinds=BKINDS):
    rows = []
    for kind in kinds:
        arms = [("io-only", "guest=cfs", False)] + [(n, a, True) for n, a in BARMS]
        arms.append(("dynamic-g", "balloon=dynamic guard", True))
        if kind == "share":
            arms += [(n + "-x", a + " excl", True) for n, a in BARMS[2:]]
            arms.append(("dynamic-xg", "balloon=dynamic excl guard", True))
        for name, arm, hog in arms:
            rs = [run(hvsim, bal_wl(kind, arm, hog, dur), s) for s in seeds]
            # mixed, smp63: only VM a runs latprobe (VM b is the CPU-bound VM)
            gs = [g for r in rs for n, g in r["guest"].items()
                  if kind not in ("mixed", "smp63") or n == "a"]
            end = statistics.mean(r["run"]["end_ms"] for r in rs)
            npc = rs[0]["run"]["pcpus"]
            rows.append(dict(
                kind=kind, arm=name,
                p50=statistics.mean(g["io_p50_us"] for g in gs),
                p99=statistics.mean(g["io_p99_us"] for g in gs),
                pmax=max(g["io_max_us"] for g in gs),
                tput=statistics.mean(g["io_per_s"] for g in gs),
                comp=100.0 * statistics.mean(sum(g["compute_ms"] for g in r["guest"].values())
                                             for r in rs) / (end * npc),
                idle=100.0 * statistics.mean(r["run"]["idle_ms"] for r in rs) / (end * npc),
                swc=100.0 * statistics.mean(r["run"]["swc_idle_ms"] for r in rs) / end,
                sleeps=statistics.mean(g["sleeps"] for g in gs),
                modes=statistics.mean(g["mode_upcalls"] for g in gs)))
    return rows


def bal_print(rows):
    print("Balloon (seed 004 §6): latprobe (1 ms timer, 50 us work) + CPU hog; wake-up latency "
          "(us), requests/s, hog CPU % of the machine, pCPU idle %, idle while a balloon "
          "sleeps with work % (mean over seeds)")
    print(f"{'case':5} {'arm':10} {'p50':>8} {'p99':>8} {'max':>8} {'req/s':>7} {'hog%':>6} "
          f"{'idle%':>6} {'swc%':>6} {'sleeps':>7} {'modes':>6}")
    for r in rows:
        print(f"{r['kind']:5} {r['arm']:10} {r['p50']:8.1f} {r['p99']:8.1f} {r['pmax']:8.0f} "
              f"{r['tput']:7.1f} {r['comp']:6.1f} {r['idle']:6.1f} {r['swc']:6.2f} "
              f"{r['sleeps']:7.0f} {r['modes']:6.0f}")
    print("paper: xBalloon near the I/O-only reference; sockperf p99 up to 125x lower than "
          "I/O+CPU (rq_clock_task), 417x latency hike without it (static); host stays "
          "work-conserving when SWC VMs share CPUs")


# Known gaps (docs/sched.md "Balloon"): checks that fail with the real policy
# and the model as they are; reported as XFAIL (and XPASS once they hold).
def cap_sweep(hvsim, seeds, dur):
    """The 4-vCPU case at caps 200-300 (docs/sched.md: the figure behind the
    dynamic XFAIL): p99/max us and hog % per arm, mean over seeds."""
    print("smp cap sweep (4 vCPUs, latprobe + hog per vCPU): p99 us / max us / hog % of the VM's vCPUs")
    arms = (("static", "balloon=static"), ("dynamic", "balloon=dynamic"),
            ("dynamic-g", "balloon=dynamic guard"))
    print(f"{'cap':>4} " + " ".join(f"{n:>24}" for n, _ in arms))
    for cap in (200, 220, 240, 260, 300):
        cells = []
        for _, arm in arms:
            rs = [run(hvsim, bal_wl("smp", arm, True, dur, cap), s) for s in seeds]
            gs = [r["guest"]["vm"] for r in rs]
            end = statistics.mean(r["run"]["end_ms"] for r in rs)
            cells.append(f"{statistics.mean(g['io_p99_us'] for g in gs):8.0f} "
                         f"{max(g['io_max_us'] for g in gs):7.0f} "
                         f"{100 * statistics.mean(g['compute_ms'] for g in gs) / (4 * end):6.1f}%")
        print(f"{cap:4} " + " ".join(f"{c:>24}" for c in cells))


MIXED_GAP = ("§4.5 footnote 2: in NWC the dynamic guest still runs compute, CFS giving it "
             "(1 - r_io)/2 of the vCPU beside the balloon, so the VM asks for (1 + r_io)/2 = 52.5% "
             "against its 50% share; some periods end past its credit, it is OVER after the refill "
             "and, as in Xen credit1, its next wake gets no BOOST: 28 ms behind the CPU-bound VM's "
             "slice. sched_balloon_guard (the -g rows) closes it")
SHARE_GAP = ("seed 004 §4.3 as specified (docs/sched.md): each period one VM's saved credit lets it "
             "turn WC ~1 ms after the refill, the other turns WC at refill - budget (~15 ms); from "
             "then both hogs run and a vCPU preempted by the other VM's hog is RUNNABLE: its "
             "requests get no BOOST (credit1's csched_vcpu_wake ignores a vCPU already on the run "
             "queue; so does ours) and wait out the slice; sched_balloon_share=excl (the -x rows) "
             "closes it for static priority. Our BOOST rules are Xen's (test_boost_rules_as_xen); "
             "the paper's Fig. 15 gives no number and no mechanism (docs/sched.md \"The two-VM "
             "case against Xen's credit1\")")
DYN_GAP = ("§4.5 as specified, with a cap the paper did not put on an SMP VM (its §6.3 case is the "
           "smp63 rows): compute gets (1 - r_io)/2 = 47.5% of each vCPU in NWC, the VM uses 50.6% "
           "of each against a 50% cap and the budget parks it ~1.45 ms per vCPU before each refill "
           "(1 vCPU: 1.13 ms, p99 998 us, inside the bound); caps 220-300 give 2 us "
           "(repro_pv.py --cap-sweep); sched_balloon_guard (-g) closes it")
XG_GAP = ("excl + guard: the NWC VM's dynamic compute still runs between its requests until the "
          "guard trips, BOOSTed after a wake, in CFS turns of up to the guest's 1 ms wake-up "
          "granularity, so the WC VM's RUNNABLE vCPU waits up to ~2 ms (p99 a 2050 / b 828 us; "
          "static-x, whose balloon runs right after the I/O, 998 us)")
GUARD_SHARE_GAP = ("guard without excl (docs/sched.md, traced seed 1, 10 s): the guard keeps the "
                   "NWC VM UNDER, so the late wakes of an OVER balloon sleeper (2250 of dynamic's "
                   "2550 requests late by over 1 ms) are gone, but 1602 stay: 875 wake from balloon "
                   "sleep BOOSTed while the other VM runs its hog under the BOOST of its own last "
                   "request (credit1 preempts only for a higher priority; its tick demotes without "
                   "rescheduling), 341 come to a RUNNABLE OVER vCPU (no BOOST), 366 in WC. Xen 4.5's "
                   "rules, not ours (test_boost_rules_as_xen)")
BAL_GAPS = {
    ("mixed", "dynamic", "close"): MIXED_GAP, ("mixed", "dynamic", "far"): MIXED_GAP,
    ("smp63", "dynamic", "close"): MIXED_GAP, ("smp63", "dynamic", "far"): MIXED_GAP,
    ("share", "static", "close"): SHARE_GAP, ("share", "static", "far"): SHARE_GAP,
    ("share", "dynamic", "close"): SHARE_GAP, ("share", "dynamic", "far"): SHARE_GAP,
    ("share", "dynamic-g", "close"): GUARD_SHARE_GAP, ("share", "dynamic-g", "far"): GUARD_SHARE_GAP,
    ("share", "dynamic-x", "close"): MIXED_GAP, ("share", "dynamic-x", "far"): MIXED_GAP,
    ("share", "dynamic-xg", "close"): XG_GAP,
    ("smp", "dynamic", "close"): DYN_GAP,
}


def bal_markdown(rows):
    names = {"up": "1 vCPU, cap 50", "smp": "4 vCPUs, cap 200",
             "smp63": "4 vCPUs + CPU-bound 4-vCPU VM, 4 pCPUs (§6.3)",
             "mixed": "+ CPU-bound VM, 1 pCPU (§6.2.1)", "share": "2 VMs, 1 pCPU, no cap"}
    arms = {"io-only": "I/O only", "vanilla": "vanilla", "pv": "PV", "static": "balloon static",
            "dynamic": "balloon dynamic", "static-x": "balloon static, excl",
            "dynamic-x": "balloon dynamic, excl", "dynamic-g": "balloon dynamic, guard",
            "dynamic-xg": "balloon dynamic, excl + guard"}
    print("| case | arm | p50 us | p99 us | max us | req/s | hog % | swc idle % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    last = None
    for r in rows:
        case = names[r["kind"]] if r["kind"] != last else ""
        last = r["kind"]
        print(f"| {case} | {arms[r['arm']]} | {r['p50']:.0f} | {r['p99']:.0f} | {r['pmax']:.0f} | "
              f"{r['tput']:.1f} | {r['comp']:.1f} | {r['swc']:.1f} |")


def bal_check(rows):
    """(failures, expected failures). Close to the reference: p99 within one
    request period (1 ms) of I/O-only; far below the WC guest: 10x lower p99
    than vanilla; work-conserving: a pCPU idle while a ballooning vCPU
    sleeps with work queued less than 1% of the time."""
    bad, gaps = [], []
    by = {(r["kind"], r["arm"]): r for r in rows}

    def verdict(key, ok, msg):
        if key in BAL_GAPS:
            gaps.append(("XPASS " if ok else "XFAIL ") + msg + ("" if ok else
                        f" [known gap: {BAL_GAPS[key]}]"))
        elif not ok:
            bad.append(msg)

    for kind in BKINDS:
        ref, van = by[kind, "io-only"], by[kind, "vanilla"]
        for arm in ("static", "dynamic", "dynamic-g") + \
                (("static-x", "dynamic-x", "dynamic-xg") if kind == "share" else ()):
            b = by[kind, arm]
            verdict((kind, arm, "close"), b["p99"] <= ref["p99"] + 1000,
                    f"{kind} {arm}: p99 {b['p99']:.0f} us vs I/O-only {ref['p99']:.0f} us "
                    "(close: within 1 ms)")
            verdict((kind, arm, "far"), van["p99"] >= 10 * b["p99"],
                    f"{kind} {arm}: p99 {b['p99']:.0f} us vs vanilla {van['p99']:.0f} us "
                    "(far below: 10x)")
            verdict((kind, arm, "swc"), b["swc"] <= 1.0 or kind not in ("mixed", "smp63", "share"),
                    f"{kind} {arm}: pCPU idle {b['swc']:.2f}% of the time while a ballooning "
                    "VM had work (at most 1%)")
    return bad, gaps


def closed_share(hvsim, seeds, dur):
    """--closed: the two-VM case (§6.2.2) measured as its sockperf UDP
    ping-pong client would: each request sent 1 ms (--probe) after the previous reply
    (hvsim `iowait 1ms closed`), so a stall delays one request instead of
    every request an open-loop timer issues meanwhile. Prints the rows; no
    assertion (docs/sched.md "The two-VM case against Xen's credit1")."""
    global LATPROBE
    period = LATPROBE.split("iowait ", 1)[1].split()[0]
    LATPROBE = LATPROBE.replace(f"iowait {period}", f"iowait {period} closed")
    rows = bal_rows(hvsim, seeds, dur, kinds=("share",))
    print(f"closed-loop probe (the next request {period} after the reply):")
    bal_print(rows)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hvsim", default="build/sim/hvsim")
    ap.add_argument("--only", choices=("irs", "balloon"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quick", action="store_true", help="fewer seeds, shorter balloon runs")
    ap.add_argument("--seeds", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="also print the docs/sched.md tables")
    ap.add_argument("--irs-yield", action="store_true",
                    help="IRS arm always acks yield (guest irs_block=0) instead of section "
                         "3.2's block when its run queue is left empty")
    ap.add_argument("--cap-sweep", action="store_true",
                    help="only the 4-vCPU balloon case at caps 200-300")
    ap.add_argument("--probe", metavar="PERIOD,WORK",
                    help="only the balloon cases with Bochs' numbers (up, smp, share), latprobe "
                    "every PERIOD with WORK per request, e.g. 2ms,200us as balloonexp.py; "
                    "prints the rows, no assertion; with --closed, that client's period and work")
    ap.add_argument("--closed", action="store_true",
                    help="only the two-VM balloon case, with a closed-loop (ping-pong) probe")
    ap.add_argument("--irs-nopb", action="store_true",
                    help="IRS arm without the pull-back when the ack returns (guest "
                         "irs_pullback=0, section 3.3 as published)")
    a = ap.parse_args()
    seeds = list(range(1, 1 + (a.seeds or (2 if a.quick else 5))))
    if a.cap_sweep:
        cap_sweep(a.hvsim, seeds, "10s" if a.quick else "30s")
        return
    if a.probe:
        global LATPROBE
        period, work = a.probe.split(",")
        LATPROBE = LATPROBE.replace("iowait 1ms", f"iowait {period}").replace(
            "compute 50us", f"compute {work}")
    if a.probe and not a.closed:
        rows = bal_rows(a.hvsim, seeds, "10s" if a.quick else "30s", kinds=("up", "smp", "share"))
        bal_print(rows)
        if a.markdown:
            bal_markdown(rows)
        return
    if a.closed:
        rows = closed_share(a.hvsim, seeds, "10s" if a.quick else "30s")
        if a.markdown:
            bal_markdown(rows)
        return
    if a.irs_yield or a.irs_nopb:
        ARMS[2] = ("irs", "irs=on" + (" irs_block=off" if a.irs_yield else "") +
                   (" irs_pullback=off" if a.irs_nopb else ""))
    bad = []
    if a.only in (None, "irs"):
        rows = irs_rows(a.hvsim, seeds)
        irs_print(rows)
        if a.markdown:
            irs_markdown(rows)
        b, gaps = irs_check(rows)
        bad += b
        for g in gaps:
            print(g)
    if a.only in (None, "balloon"):
        rows = bal_rows(a.hvsim, seeds, "10s" if a.quick else "30s")
        bal_print(rows)
        if a.markdown:
            bal_markdown(rows)
        b, gaps = bal_check(rows)
        bad += b
        for g in gaps:
            print(g)
    for b in bad:
        print("FAIL", b)
    if a.check:
        if bad:
            sys.exit(1)
        print(f"repro_pv: IRS and balloon assertions hold ({len(seeds)} seeds)")


if __name__ == "__main__":
    main()
