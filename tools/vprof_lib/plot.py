"""Plots like seed 001's figures: runtime breakdown bars per vCPU and CPU
utilisation against fair share per VM. matplotlib is optional: without it
`available()` is False; `python_with_matplotlib()` finds Debian's
/usr/bin/python3 (python3-matplotlib, tools/deps.sh) when the running
interpreter (e.g. a pyenv one) lacks it, and the CLI re-runs there."""
import os
import subprocess
import sys

from . import analysis

SYSTEM_PYTHON = "/usr/bin/python3"
MISSING = ("matplotlib is not installed for {exe}{also}; no plots written. Install Debian's "
           "python3-matplotlib (`make deps` / tools/deps.sh does) or `pip install matplotlib`")

COLOURS = {"compute": "#4c72b0", "spin": "#dd8452", "blocked sync": "#c44e52",
           "steal": "#8172b3", "idle": "#cccccc"}


def available():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def python_with_matplotlib():
    """An interpreter that can import matplotlib: this one, else the system one."""
    if available():
        return sys.executable
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
            os.access(SYSTEM_PYTHON, os.X_OK):
        r = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True)
        if r.returncode == 0:
            return SYSTEM_PYTHON
    return None


def missing_message():
    also = "" if os.path.realpath(sys.executable) == os.path.realpath(SYSTEM_PYTHON) \
        else f" nor {SYSTEM_PYTHON}"
    return MISSING.format(exe=sys.executable, also=also)


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def breakdown(dumps, path):
    plt = _plt()
    labels, parts = [], {k: [] for k in COLOURS}
    for d in dumps:
        for b in analysis.summarize(d).vcpus:
            t = b.total or 1
            labels.append(f"d{d.dump_id}\nvm{d.vm}.{b.vcpu}")
            for k, v in (("compute", b.compute), ("spin", b.spin), ("blocked sync", b.blocked_sync),
                         ("steal", b.steal), ("idle", b.idle)):
                parts[k].append(100.0 * v / t)
    fig, ax = plt.subplots(figsize=(max(4, 0.6 * len(labels) + 2), 4))
    bottom = [0.0] * len(labels)
    for k, vals in parts.items():
        ax.bar(labels, vals, bottom=bottom, label=k, color=COLOURS[k])
        bottom = [a + b for a, b in zip(bottom, vals)]
    ax.set_ylabel("% of vCPU time (excluding offline)")
    ax.set_title("vProfile runtime breakdown")
    ax.legend(fontsize="small", ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def utilisation(dumps, path, weights=None):
    """Fair share of VM i: npcpus * w_i / sum(w), capped at its vCPU count."""
    plt = _plt()
    vms = sorted({d.vm for d in dumps})
    weights = weights or {}
    wsum = sum(weights.get(vm, 1) for vm in vms) or 1
    latest = {d.vm: d for d in dumps}
    util = [analysis.utilisation(latest[vm]) for vm in vms]
    fair = [min(latest[vm].nvcpus, latest[vm].npcpus * weights.get(vm, 1) / wsum) for vm in vms]
    fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(vms) + 2), 4))
    xs = range(len(vms))
    ax.bar([x - 0.2 for x in xs], util, width=0.4, label="utilisation")
    ax.bar([x + 0.2 for x in xs], fair, width=0.4, label="fair share")
    ax.set_xticks(list(xs), [f"VM {vm}" for vm in vms])
    ax.set_ylabel("CPUs")
    ax.set_title("CPU utilisation vs fair share")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def dp_delays(dumps, path):
    """Each vCPU's adaptive preemption delay over time (VPE_DP_DELAY)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    n = 0
    for d in dumps:
        for vcpu, pts in sorted(analysis.dp_delays(d).items()):
            t0 = d.t0
            ax.plot([(t - t0) / 1e6 for t, _ in pts], [v / 1e3 for _, v in pts],
                    label=f"d{d.dump_id} vm{d.vm}.{vcpu}")
            n += 1
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("preemption delay (us)")
    ax.set_title("adaptive delayed preemption (seed 001 eq. 1-2)")
    if n:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return n
