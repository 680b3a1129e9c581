"""Seed 000 (IRS, Middleware '17): scheduler-activation upcall before an
involuntary preemption (Alg. 1) and the guest's context switcher / migrator
(Alg. 2). hvsim runs the real hv/sched SA path with its guest model
(docs/sched.md "Guest model": `irs=on` = guest load balancing + PV + the SA
receiver acking after 20 us); the baseline is vanilla credit with a guest that
balances load but knows nothing of preemption. Setup as §5 "CPU pinning": a
4-vCPU parallel VM beside one CPU hog (1-inter), each vCPU pinned to its own
pCPU, the hog sharing pCPU 0. The full three-arm table (vanilla, PV, IRS at
1/2/4-inter, blocking and spinning, two grains) is `make exp-irs-sim`."""
from ..registry import headline, sim

WL = """duration 4000s
pcpus 4
vm par vcpus=4 %s
vm intf vcpus=1
barrier b 4
program worker
  loop {iters}
    compute 20ms..30ms
    barrier b %s
  end
end
thread par.0-3 worker
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
thread intf.0 persistent
pin intf.0 0
"""


def _irs(sync):
    return {"credit": sim(WL % ("gbal=on", sync)), "irs": sim(WL % ("irs=on", sync))}


def _gain(r):
    """Performance improvement as the paper plots it: T_credit / T_irs - 1."""
    return 100.0 * (r["credit"].vm["par"].completion_ms / r["irs"].vm["par"].completion_ms - 1)


headline(seed="000", key="irs_blocking", claim="IRS vs credit: parallel VM with blocking "
         "synchronisation at 1-inter", paper=42.0, unit="% better",
         paper_text="+42% (PARSEC, blocking sync, 1-inter)", runs=_irs("block"), value=_gain)
headline(seed="000", key="irs_spinning", claim="IRS vs credit: parallel VM with spinning "
         "synchronisation at 1-inter", paper=43.0, unit="% better",
         paper_text="+43% (NPB, 1-inter)", runs=_irs("spin"), value=_gain)
headline(seed="000", key="irs_server", claim="IRS vs credit: multi-threaded server workload "
         "under interference", paper=46.0, unit="% better", paper_text="up to 46% (server)",
         landed=False, pending="no server workload in hvsim")
