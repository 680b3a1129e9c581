# sched=auto's sibling skew (hv/sched/auto.c, issue 16; seed 000 §5.1's
# progress: a vCPU progresses while it runs or idles, not while it waits
# RUNNABLE; the VM's skew is the spread of that over its vCPUs in a period).
# par: 4 vCPUs on 4 pCPUs of their own contend for one kernel spinlock: its
# PLE exits (over 400 per running s) alone ask for CON, but no sibling ever
# waits RUNNABLE (skew 0 per mille): the spin is contention inside the
# guest, which co-scheduling cannot help (seed 003 Fig. 1-2). auto holds it
# HIT, and, nobody being preempted, turns its PLE off. Before the skew
# signal auto made it CON (pcs type=con, auto-ref-pcs-con-skew-5.wl) and
# kept PLE on. hvsim charges nothing for an exit: completion is the same
# under every choice, the exits go. Measured (hvsim, this file): completion
# 1012.751 ms under credit, pcs CON and auto; PLE exits+yields credit 1538,
# pcs CON 1538, auto 169.
policy auto
pcpus 5
seed 3
ple 50us
vm par vcpus=4
vm uni vcpus=1
lock L
program worker
  loop 1000
    compute 400us..800us
    lock L spin
    compute 250us
    unlock L
  end
end
thread par.0-3 worker
thread uni.0 persistent
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin uni.0 4
expect run.policy == 'auto'
expect vm['par'].auto_con == 0 and vm['par'].auto_ple_off == 1
expect vm['par'].completion_ms < 1.05 * ref('auto-ref-pcs-con-skew-5.wl').vm['par'].completion_ms
expect vm['par'].completion_ms < 1.05 * ref('auto-ref-credit-skew-5.wl').vm['par'].completion_ms
expect vm['par'].yields < 0.3 * ref('auto-ref-pcs-con-skew-5.wl').vm['par'].yields
