"""Seed 004 (xBalloon, SoCC '17): a CPU balloon that keeps I/O prioritised in
a capped or shared VM. The scheduler's balloon sleep exists (sched_sleep,
HC_SCHED_SLEEP); neither the hvsim guest model nor the Linux guest runs the
balloon process and an I/O task yet, so the headline is "not yet"."""
from ..registry import headline

headline(seed="004", key="tail_latency",
         claim="xBalloon vs credit: 99th-percentile network latency of an I/O task beside a CPU "
               "hog in a capped VM",
         paper=125.0, unit="x lower", paper_text="up to 125x lower network tail latency (sockperf)",
         landed=False, pending="balloon process and I/O task in the guest (hvsim guest model, "
                               "Linux initramfs workload)")
headline(seed="004", key="net_throughput",
         claim="xBalloon vs credit: TCP throughput of an I/O task beside a CPU hog",
         paper=136.0, unit="% higher", paper_text="up to +136% network throughput (netperf)",
         landed=False, pending="balloon process and network I/O in the guest")
