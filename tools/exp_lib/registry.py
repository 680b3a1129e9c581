"""Headlines and the runs they need. One `headline(...)` call registers one of a
seed paper's headline claims: the paper's figure, the runs that measure ours
(hvsim at the paper's scale, optionally Bochs at a small scale) and how the
runs turn into one number. A mechanism that has not landed yet shows as
"not yet" (its policy or option is unknown to the tree, or `pending` says what
is missing): never a made-up number.

A scenario plugs in with one call in tools/exp_lib/seeds/sNNN.py:

    headline(seed="003", key="pcs_dual_con", claim="...", paper=25.0, unit="% faster",
             paper_text="BT dual-CON: PCS 84.90 s vs credit 106.13 s",
             runs={"credit": sim(WL), "pcs": sim(WL, policy="pcs")},
             value=lambda r: pct_faster(r["credit"].vm["par"].completion_ms,
                                        r["pcs"].vm["par"].completion_ms))
"""
from dataclasses import dataclass, field

SEEDS = ("000", "001", "002", "003", "004")
PAPERS = {
    "000": "IRS: scheduler activations for interference-resilient SMP VM scheduling (Middleware '17)",
    "001": "Multithreaded programs under interference: vProfile, DP, DS (PACT '16)",
    "002": "Diagnosing virtualization overhead for multi-threaded computation (Ding & Shan)",
    "003": "Hybrid co-scheduling optimizations: PCS and BCS",
    "004": "xBalloon: preserving I/O prioritization in virtualized OSes (SoCC '17)",
}


class NotYet(Exception):
    """The tree cannot measure this headline yet; the message says why."""


@dataclass(frozen=True)
class Run:
    """One measurement: a backend, a workload and its settings. `wl` is a
    workload text with {placeholders} filled from `scale` (SCALES[...])."""
    backend: str                       # "hvsim" or "bochs"
    wl: str
    policy: str = "credit"
    options: tuple = ()                # (("sched_dp_us", "2000"), ...)
    params: tuple = ()                 # backend-specific extras (bochs)

    def label(self):
        opts = " ".join(f"{k}={v}" for k, v in self.options)
        return f"{self.policy}{' ' + opts if opts else ''}"


def sim(wl, policy="credit", options=None, **params):
    """params: predict="VM:DED_MS:NORM_MS" also samples VM in dedicated mode
    then under interference (hvsim -P) and sets the result's `predicted`
    slowdown from `tools/vprof predict` (seed 001 §4)."""
    return Run("hvsim", wl, policy, tuple(sorted((options or {}).items())),
               tuple(sorted(params.items())))


def bochs(wl, policy="credit", options=None, **params):
    return Run("bochs", wl, policy, tuple(sorted((options or {}).items())),
               tuple(sorted(params.items())))


@dataclass
class Headline:
    seed: str
    key: str
    claim: str
    paper: object                      # number, or None when the paper gives none
    paper_text: str
    unit: str
    runs: dict = field(default_factory=dict)     # name -> Run
    value: object = None               # f(results by run name) -> float
    pending: str = ""                  # what has not landed (shown when not measurable)
    landed: bool = True                # False: not yet, whatever the tree says
    figure: object = None              # f(results) -> {series: value} for the figure
    order: int = 0

    @property
    def backend(self):
        kinds = sorted({r.backend for r in self.runs.values()})
        return "+".join(kinds) if kinds else "-"


REGISTRY = []


def headline(**kw):
    h = Headline(**kw, order=len(REGISTRY))
    if h.seed not in SEEDS:
        raise ValueError(f"unknown seed {h.seed}")
    if any(x.seed == h.seed and x.key == h.key for x in REGISTRY):
        raise ValueError(f"duplicate headline {h.seed}/{h.key}")
    REGISTRY.append(h)
    return h


def pct_faster(base, new):
    """How much less time `new` takes than `base`, in % of base."""
    return 100.0 * (base - new) / base


def load_all():
    from .seeds import s000, s001, s002, s003, s004  # noqa: F401  (registration)
    return REGISTRY
