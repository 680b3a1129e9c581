"""Seed 004 (xBalloon, SoCC '17): a CPU balloon that keeps I/O prioritised in
a capped or shared VM. hvsim runs the real hv/sched balloon path (mode per
accounting period from credit's vm_budget, mode upcall, HC_SCHED_SLEEP with
cancel-if-pending) with its guest model (docs/sched.md "Guest model"): a
latprobe I/O thread (a request every 1 ms, 50 us of work) beside a CPU hog in
a 1-vCPU VM capped at 50%. The paper's 125x is sockperf p99 under dynamic
priority against the rq_clock_task guest (our PV arm). The full table
(static/dynamic, SMP, two VMs sharing) is `make exp-balloon-sim`."""
from ..registry import headline, sim

WL = """duration {dur}
warmup 1s
pcpus 1
vm vm vcpus=1 cap=50 %s
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread vm.0 latprobe io
thread vm.0 persistent
"""


def _ratio(r):
    return r["pv"].guest["vm"].io_p99_us / max(r["balloon"].guest["vm"].io_p99_us, 1e-3)


headline(seed="004", key="tail_latency",
         claim="xBalloon vs credit: 99th-percentile wake-up latency of an I/O task beside a CPU "
               "hog in a VM capped at 50%",
         paper=125.0, unit="x lower", paper_text="up to 125x lower network tail latency (sockperf)",
         runs={"pv": sim(WL % "guest=cfs pv=on"), "balloon": sim(WL % "balloon=dynamic")},
         value=_ratio)
headline(seed="004", key="net_throughput",
         claim="xBalloon vs credit: TCP throughput of an I/O task beside a CPU hog",
         paper=136.0, unit="% higher", paper_text="up to +136% network throughput (netperf)",
         landed=False, pending="no closed-loop (TCP-like) I/O workload in hvsim: latprobe is "
                               "open-loop, its throughput is its request rate")
