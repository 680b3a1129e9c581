"""Backends: hvsim (the scheduler simulator, papers' scale) and Bochs through
tools/hvrun (the hypervisor itself, small scale). Each returns a Result whose
fields the headlines read; a policy or option the tree does not know raises
NotYet. Results are cached per (run, scale, repeat seed)."""
import hashlib
import os
import re
import subprocess
import sys
import types

from .registry import NotYet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Placeholders of workload texts per scale. paper: the seed papers' run
# lengths (tens of seconds of parallel work); quick: the same shapes, short,
# for `make test`.
SCALES = {
    "paper": {"iters": 2000, "dur": "60s", "bochs_iters": 200},
    "quick": {"iters": 60, "dur": "2s", "bochs_iters": 20},
}


def _num(v):
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def _fields(line):
    return types.SimpleNamespace(**{k: _num(v) for k, v in
                                    (t.split("=", 1) for t in line.split()[1:] if "=" in t)})


def parse_hvsim(out):
    res = types.SimpleNamespace(run=None, vm={}, vcpu={}, guest={})
    for line in out.splitlines():
        kind = line.split(" ", 1)[0]
        if kind == "run":
            res.run = _fields(line)
        elif kind == "guest":         # guest model figures (IRS, balloon, latprobe)
            f = _fields(line)
            res.guest[f.vm] = f
        elif kind == "vm":
            f = _fields(line)
            res.vm[f.name] = f
        elif kind == "vcpu":
            f = _fields(line)
            res.vcpu[f.vm, f.id] = f
    return res


class Runner:
    def __init__(self, out_dir, scale, hvsim=None):
        self.work = os.path.join(out_dir, "work")
        self.scale = scale
        self.hvsim = hvsim or os.path.join(ROOT, "build", "sim", "hvsim")
        self.cache = {}

    def key(self, run, rep):
        return (run, self.scale, rep)

    def text(self, run):
        return run.wl.format(root=ROOT, **SCALES[self.scale])

    def run(self, run, rep):
        k = self.key(run, rep)
        if k not in self.cache:
            try:
                self.cache[k] = (self._hvsim if run.backend == "hvsim" else self._bochs)(run, rep)
            except NotYet as e:
                self.cache[k] = e
        r = self.cache[k]
        if isinstance(r, NotYet):
            raise r
        return r

    def _wl_file(self, text, ext=".wl"):
        os.makedirs(self.work, exist_ok=True)
        path = os.path.join(self.work, hashlib.sha1(text.encode()).hexdigest()[:16] + ext)
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(text)
        return path

    def _hvsim(self, run, rep):
        wl = self._wl_file(self.text(run))
        cmd = [self.hvsim, "-s", str(rep), "-p", run.policy, "-o", f"sched_seed={rep}"]
        for k, v in run.options:
            cmd += ["-o", f"{k}={v}"]
        prm = dict(run.params)
        trace = None
        if "predict" in prm:
            trace = os.path.join(self.work, f"{os.path.basename(wl)}-{rep}.vprof")
            cmd += ["-t", trace, "-P", prm["predict"]]
        p = subprocess.run(cmd + [wl], capture_output=True, text=True, timeout=1800)
        bad = re.search(r"bad option (\w+)", p.stderr)
        if bad:
            raise NotYet(f"option {bad.group(1)} has not landed")
        if p.returncode:
            raise RuntimeError(f"hvsim failed ({' '.join(cmd)} {wl}): {p.stderr.strip()[-500:]}")
        res = parse_hvsim(p.stdout)
        if res.run is None:
            raise RuntimeError(f"hvsim printed no run line for {wl}")
        if res.run.policy != run.policy:
            raise NotYet(f"policy {run.policy} has not landed")
        if trace:
            res.predicted = _vprof_predict(trace, prm["predict"].split(":")[0])
        return res

    def _bochs(self, run, rep):
        """Boot the hypervisor in Bochs with the VMs of `run.wl` (lines
        `--vm ...` / `--image ...` after formatting) and parse the summary."""
        prm = dict(run.params)
        args = [a for a in self.text(run).split("\n") if a.strip()]
        cmdline = " ".join([f"sched={run.policy}", f"sched_seed={rep}"] +
                           [f"{k}={v}" for k, v in run.options] +
                           ([prm["cmdline"]] if prm.get("cmdline") else []))
        cmd = ["python3", os.path.join(ROOT, "tools", "hvrun"), "--emu", "bochs",
               "--cpus", str(prm.get("cpus", 2)), "--cmdline", cmdline]
        for a in args:
            opt, _, val = a.strip().partition(" ")
            cmd += [opt, val]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=int(prm.get("timeout", 900)))
        out = p.stdout + p.stderr
        if p.returncode:
            raise RuntimeError(f"Bochs run failed ({p.returncode}): {out.strip()[-800:]}")
        return parse_summary(out)


def _vprof_predict(trace, vm):
    """Seed 001 §4: the slowdown `tools/vprof predict` gives from the
    dedicated and normal dumps in an hvsim trace."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "vprof"), "predict", trace,
                        "--vm", vm], capture_output=True, text=True, timeout=600)
    m = re.search(r"predicted slowdown: ([0-9.]+)x", p.stdout)
    if not m:
        raise RuntimeError(f"vprof predict {trace}: {(p.stdout + p.stderr).strip()[-500:]}")
    return float(m.group(1))


def parse_summary(out):
    """The hypervisor's end-of-run summary: exits per VM and by reason."""
    res = types.SimpleNamespace(vm={})
    for m in re.finditer(r"summary: (\S+) status=(-?\d+) reason=(\S+) exits=(\d+)", out):
        res.vm[m.group(1)] = types.SimpleNamespace(exits=int(m.group(4)), by_reason={},
                                                   ok=m.group(3))
    for m in re.finditer(r"summary:\s+(\S+) vcpu\d+ exits by reason:([ 0-9:]*)", out):
        vm = res.vm.setdefault(m.group(1), types.SimpleNamespace(exits=0, by_reason={}, ok="?"))
        for pair in m.group(2).split():
            r, n = pair.split(":")
            vm.by_reason[int(r)] = vm.by_reason.get(int(r), 0) + int(n)
    if not res.vm:
        raise RuntimeError("no hypervisor summary in the Bochs output")
    return res
