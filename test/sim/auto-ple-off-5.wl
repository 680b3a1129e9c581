# sched=auto's PLE choice (hv/sched/auto_mech.c auto_ple, issue 16; seed 002 §4:
# preempting a spinning vCPU when nobody holding the lock is preempted is
# overhead only). Two VMs that are not over-subscribed: par (4 vCPUs on 4
# pCPUs, a kernel spinlock) and uni (1 vCPU on its own pCPU, two guest
# threads sharing a lock: its spin waits for the guest's own scheduler, no
# sibling can help). Their PAUSE-loop exits never find a preempted sibling
# and their vCPUs are never preempted: auto turns PLE off for both (windows
# at the VMCS maximum) after 3 such periods. hvsim charges no cost to an
# exit, so completion stays credit's to the microsecond; the exits go:
# measured (hvsim, this file) par 132 -> 14, uni 2704 -> 43.
policy auto
pcpus 5
seed 3
ple 50us
vm par vcpus=4
vm uni vcpus=1
lock L
lock M
program worker
  loop 400
    compute 2ms..6ms
    lock L spin
    compute 300us
    unlock L
  end
end
program uw
  loop 400
    compute 2ms..4ms
    lock M spin
    compute 1ms
    unlock M
  end
end
thread par.0-3 worker
thread uni.0 uw
thread uni.0 uw
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin uni.0 4
expect vm['par'].auto_ple_off == 1 and vm['uni'].auto_ple_off == 1
expect vm['par'].completion_ms < 1.01 * ref('auto-ref-credit-ple-off-5.wl').vm['par'].completion_ms
expect vm['uni'].completion_ms < 1.01 * ref('auto-ref-credit-ple-off-5.wl').vm['uni'].completion_ms
expect vm['uni'].yields < 0.1 * ref('auto-ref-credit-ple-off-5.wl').vm['uni'].yields
expect vm['par'].yields < 0.7 * ref('auto-ref-credit-ple-off-5.wl').vm['par'].yields
