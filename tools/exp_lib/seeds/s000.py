"""Seed 000 (IRS, Middleware '17): scheduler-activation upcall before an
involuntary preemption (Alg. 1) and the guest's context switcher / migrator
(Alg. 2). The hypervisor side exists (hv/sched/preempt.c, `sa=on`); the guest
side does not, in hvsim or in the Linux guest, so these stay "not yet". The
runs are written so that landing the guest model is one line (landed=True)."""
from ..registry import headline, pct_faster, sim

PENDING = ("IRS guest side: the hvsim guest model and the Linux guest do not act on the SA "
           "upcall yet (seed 000 Alg. 2)")

WL = """duration 2000s
pcpus 4
vm par vcpus=4 sa=%s
vm intf vcpus=4
%s 4
program worker
  loop {iters}
    compute 4ms..6ms
    %s
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
"""


def _irs(kind, sync):
    on, off = WL % ("on", kind, sync), WL % ("off", kind, sync)
    return {"credit": sim(off), "irs": sim(on)}


def _gain(r):
    return pct_faster(r["credit"].vm["par"].completion_ms, r["irs"].vm["par"].completion_ms)


headline(seed="000", key="irs_blocking", claim="IRS vs credit: parallel VM with blocking "
         "synchronisation under interference", paper=42.0, unit="% faster",
         paper_text="up to 42% (blocking sync)", runs=_irs("barrier b", "barrier b block"),
         value=_gain, landed=False, pending=PENDING)
headline(seed="000", key="irs_spinning", claim="IRS vs credit: parallel VM with spinning "
         "synchronisation under interference", paper=43.0, unit="% faster",
         paper_text="up to 43% (spinning sync)", runs=_irs("barrier b", "barrier b spin"),
         value=_gain, landed=False, pending=PENDING)
headline(seed="000", key="irs_server", claim="IRS vs credit: multi-threaded server workload "
         "under interference", paper=46.0, unit="% better", paper_text="up to 46% (server)",
         landed=False, pending=PENDING + "; no server workload in hvsim")
