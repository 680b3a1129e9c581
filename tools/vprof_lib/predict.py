"""Online slowdown prediction, seed 001 section 4.

Useful work in a sample: t_ideal = t_total - t_steal - t_sync - t_mem, summed
over the VM's vCPUs. t_total excludes offline time; t_sync is spinning plus
blocked-while-a-sibling-is-active; t_mem is OFFCORE_STALL cycles / CPU clock,
only when the PMU measured it. The samples may differ in length, so progress
is compared as useful work per wall-clock second:
    slowdown = (t'_ideal / wall') / (t_ideal / wall)
with ' the dedicated-mode sample (equal to the paper's t'_ideal / t_ideal
when the two samples are equally long)."""
from dataclasses import dataclass

from . import analysis


@dataclass
class Sample:
    dump: object
    total: int
    steal: int
    sync: int
    mem: object       # ns, or None when not measurable
    ideal: int
    wall: int

    @property
    def rate(self):
        return self.ideal / self.wall if self.wall > 0 else 0.0


def t_mem(d, cpu_mhz):
    """OFFCORE_STALL cycles in ns, or None with the reason."""
    cycles = 0
    for v in d.vcpus.values():
        x = v.pmu_value("offcore_stall") if v.pmu_samples else None
        if x is None:
            return None, "OFFCORE_STALL absent (no usable PMU): t_mem cannot be measured, taken as 0"
        cycles += x
    if not cpu_mhz:
        return None, "OFFCORE_STALL present but --cpu-mhz not given: t_mem taken as 0"
    return int(cycles * 1000 / cpu_mhz), None


def sample(d, cpu_mhz=None):
    s = analysis.summarize(d)
    total, steal, sync = s.sum("total"), s.sum("steal"), s.sum("sync")
    mem, why = t_mem(d, cpu_mhz)
    ideal = total - steal - sync - (mem or 0)
    return Sample(d, total, steal, sync, mem, max(0, ideal), d.window_ns), why


def pick(dumps, vm=None):
    """Latest dedicated (>= half its window dedicated) and latest normal dump of a VM."""
    cands = [d for d in dumps if vm is None or d.vm == vm]
    ded = [d for d in cands if d.window_ns and d.ded_ns * 2 >= d.window_ns]
    norm = [d for d in cands if d.ded_ns == 0]
    return (ded[-1] if ded else None), (norm[-1] if norm else None)


def predict(ded, norm, cpu_mhz=None):
    """Returns (text lines, slowdown or None)."""
    a, why_a = sample(ded, cpu_mhz)
    b, why_b = sample(norm, cpu_mhz)
    out = [f"slowdown prediction for VM {norm.vm} (seed 001 section 4)"]
    for name, s in (("dedicated", a), ("normal", b)):
        mem = f"{s.mem / 1e6:.3f}" if s.mem is not None else "n/a"
        out.append(f"  {name:9} dump {s.dump.dump_id}: wall {s.wall / 1e6:.3f} ms total {s.total / 1e6:.3f}"
                   f" steal {s.steal / 1e6:.3f} sync {s.sync / 1e6:.3f} mem {mem}"
                   f" -> t_ideal {s.ideal / 1e6:.3f} ms ({s.rate:.3f} CPU-s of useful work per s)")
    for why in sorted({w for w in (why_a, why_b) if w}):
        out.append(f"  note: {why}")
    if ded.ded_ns < ded.window_ns:
        out.append(f"  note: dedicated mode covered {100.0 * ded.ded_ns / ded.window_ns:.1f}% of the dedicated sample")
    if b.rate <= 0:
        out.append("  predicted slowdown: undefined (no useful work in the normal sample)")
        return out, None
    sd = a.rate / b.rate
    out.append(f"  predicted slowdown: {sd:.3f}x (dedicated progress / progress under interference)")
    return out, sd
