# PLE when not over-committed (seed 002 §4: PLE exits are overhead when no
# vCPU is preempted): the spinlock program alone, 4 vCPUs on 4 pCPUs, PLE on
# with directed yield costs under 2 % against PLE off.
pcpus 4
seed 3
ple 50us
vm par vcpus=4
lock L
program worker
  loop 300
    compute 3ms
    lock L spin
    compute 1ms
    unlock L
  end
end
thread par.0-3 worker
expect vm['par'].completion_ms < 1.02 * ref('ple-solo-off-4.wl').vm['par'].completion_ms
