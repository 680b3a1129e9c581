# Issue 16 run-time policy switch: weights 256/512 on one pCPU, credit for
# 1 s, rr (no weights) for 1 s, credit again for 1 s. Each switch is
# installed at once (one pCPU), the CPU splits 2:1, 1:1, 2:1 in the three
# windows: b gets 2/3 + 1/2 + 2/3 s of the 3 s, a the rest, nothing lost.
pcpus 1
seed 1
duration 3s
vm a weight=256
vm b weight=512
thread a.0 persistent
thread b.0 persistent
switch 1000ms rr
switch 2000ms credit sched_credit_tslice_ms=30
expect len(switch) == 2 and all(w.rc == 0 for w in switch)
expect all(0 <= w.installed_ms - w.at_ms < 1 for w in switch)
expect run.policy == 'credit'
expect abs(vm['b'].cpu_ms - 1833) < 0.03 * 1833
expect abs(vm['a'].cpu_ms - 1167) < 0.05 * 1167
expect abs(vm['a'].cpu_ms + vm['b'].cpu_ms - 3000) < 1
