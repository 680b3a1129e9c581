"""Seed 003 (PCS and BCS): hybrid co-scheduling (CS), co-descheduling (CDS),
Partial (PCS, Alg. 1) and Boost (BCS, Alg. 2) co-scheduling against credit,
hvsim at the paper's scale: 4 pCPUs, CON domains of 4 vCPUs with spinning
synchronisation. Policies `cs`, `cds`, `pcs`, `bcs` come with issue 12
(branch cosched); until then their runs report the policy has not landed."""
from ..registry import headline, pct_faster, sim

CON = """duration 4000s
pcpus 4
%s
barrier b 4
barrier c 4
program worker
  loop {iters}
    compute 4ms..6ms
    barrier b spin
  end
end
program other
  loop {iters}
    compute 4ms..6ms
    barrier c spin
  end
end
thread con1.0-3 worker
%s
"""
SOLO = CON % ("vm con1 vcpus=4 type=con\nvm hit vcpus=4 type=hit", "thread hit.0-3 persistent")
DUAL = CON % ("vm con1 vcpus=4 type=con\nvm con2 vcpus=4 type=con", "thread con2.0-3 other")


def _t(r, run):
    return r[run].vm["con1"].completion_ms


def _runs(wl):
    return {p: sim(wl, policy=p) for p in ("credit", "cs", "cds", "pcs", "bcs")}


def _norm(r):
    return {p: _t(r, p) / _t(r, "credit") for p in ("credit", "cs", "cds", "pcs", "bcs")}


headline(seed="003", key="cosched_solo_con",
         claim="hybrid co-scheduling vs credit, one CON domain beside a HIT domain: completion",
         paper=9.4, unit="% faster", paper_text="BT 197.67 s -> about 180 s (CS/CDS/PCS/BCS)",
         runs={"credit": sim(SOLO), "cs": sim(SOLO, policy="cs")},
         value=lambda r: pct_faster(_t(r, "credit"), _t(r, "cs")),
         pending="co-scheduling policies (issue 12, branch cosched)")
headline(seed="003", key="pcs_dual_con",
         claim="PCS vs credit, two CON domains: completion time",
         paper=25.0, unit="% faster", paper_text="BT dual-CON: PCS 84.90 s vs credit 106.13 s",
         runs=_runs(DUAL), value=lambda r: pct_faster(_t(r, "credit"), _t(r, "pcs")),
         figure=_norm, pending="co-scheduling policies (issue 12, branch cosched)")
headline(seed="003", key="cs_dual_con",
         claim="CS vs credit, two CON domains: completion time ratio",
         paper=3.5, unit="x credit's time", paper_text="BT dual-CON: CS/CDS about 375 s, 3.5x credit",
         runs={"credit": sim(DUAL), "cs": sim(DUAL, policy="cs")},
         value=lambda r: _t(r, "cs") / _t(r, "credit"),
         pending="co-scheduling policies (issue 12, branch cosched)")
headline(seed="003", key="bcs_dual_con",
         claim="BCS vs credit, two CON domains: completion time ratio",
         paper=3.16, unit="x credit's time", paper_text="BT dual-CON: BCS 335.11 s vs credit 106.13 s",
         runs={"credit": sim(DUAL), "bcs": sim(DUAL, policy="bcs")},
         value=lambda r: _t(r, "bcs") / _t(r, "credit"),
         pending="co-scheduling policies (issue 12, branch cosched)")
