#!/usr/bin/env python3
"""make bench-sched: instructions per scheduling decision under callgrind.

For each (vCPUs, pCPUs) pair, runs hvsched-bench under
  valgrind --tool=callgrind --toggle-collect=<fn> --callgrind-out-file=...
once per entry point and divides the collected Ir by the number of calls
(printed by the bench). Prints one table row per configuration.
"""
import os
import re
import subprocess
import sys
import tempfile

VCPUS = [4, 16, 64, 256, 1024]
PCPUS = [4, 16, 64, 256]
STEPS = 3000
FNS = [("sched_schedule", "decisions"), ("sched_wake", "wakes"), ("sched_timer_fire", "timers")]


# Co-scheduling variants (issue 12): every 2nd 4-vCPU VM is CON; budget 2x credit.
VARIANTS = ["credit", "gang", "cs", "cds", "pcs", "bcs", "relaxed"]
VARIANT_CONFIGS = [(1024, 256), (64, 16)]


def ir_of(bench, nv, np_, fn, tmp, extra=()):
    out = os.path.join(tmp, f"cg.{nv}.{np_}.{fn}.{'.'.join(extra)}")
    p = subprocess.run(["valgrind", "--tool=callgrind", f"--toggle-collect={fn}",
                        f"--callgrind-out-file={out}", bench, str(nv), str(np_), str(STEPS),
                        *extra],
                       capture_output=True, text=True, check=True)
    counts = dict(kv.split("=") for kv in p.stdout.split())
    with open(out) as f:
        text = f.read()
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    return int(m.group(1)), counts


def main(bench):
    print("bench-sched: instructions (Ir) per call, credit policy, "
          f"{STEPS} steps, valgrind --tool=callgrind --toggle-collect=FN")
    print(f"{'vcpus':>6} {'pcpus':>6} {'schedule':>10} {'wake':>10} {'timer_fire':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for np_ in PCPUS:
            for nv in VCPUS:
                if nv < np_:
                    continue
                row = []
                for fn, key in FNS:
                    ir, counts = ir_of(bench, nv, np_, fn, tmp)
                    row.append(ir / max(1, int(counts[key])))
                print(f"{nv:>6} {np_:>6} {row[0]:>10.0f} {row[1]:>10.0f} {row[2]:>11.0f}")
        print("bench-sched: co-scheduling variants, half the VMs CON (hvsched-bench ... POLICY 2)")
        print(f"{'policy':>7} {'vcpus':>6} {'pcpus':>6} {'schedule':>10} {'wake':>10} "
              f"{'timer_fire':>11} {'sched/credit':>13}")
        bad = 0
        for nv, np_ in VARIANT_CONFIGS:
            base = None
            for pol in VARIANTS:
                row = []
                for fn, key in FNS:
                    ir, counts = ir_of(bench, nv, np_, fn, tmp, (pol, "2"))
                    row.append(ir / max(1, int(counts[key])))
                base = base or row[0]
                ratio = row[0] / base
                bad += ratio > 2.0
                print(f"{pol:>7} {nv:>6} {np_:>6} {row[0]:>10.0f} {row[1]:>10.0f} "
                      f"{row[2]:>11.0f} {ratio:>12.2f}x{'  OVER 2x' if ratio > 2.0 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
