# Issue 16, moving one VM between policies (hv/sched/vmpolicy.c): seed 001's
# fixed-DP scenario (tools/exp_lib/seeds/s001.py DP, 300 iterations) on a
# credit host. At 100 ms the foreground VM alone moves to "credit with a
# fixed 8 ms delayed preemption" (`switch ... vm=fg sched_dp_us=8000`). Its
# running vCPUs then keep their pCPU for up to 8 ms when a background
# vCPU's wake-up would preempt them, the background VM's never are, and the
# foreground finishes as with DP for the whole host. Measured
# (hvsim, this file): credit alone 2995 ms, the whole host with
# sched_dp_us=8000 2227 ms, this move 2260 ms; moving the background VM
# instead gives 3058 ms (no gain).
duration 20s
pcpus 4
vm fg vcpus=4
vm bg vcpus=4
barrier b 4
barrier c 4
program worker
  loop 300
    compute 4ms..6ms
    barrier b block
  end
end
program bgw
  loop forever
    compute 1ms..3ms
    barrier c block
  end
end
thread fg.0-3 worker
thread bg.0-3 bgw
pin fg.0 0
pin fg.1 1
pin fg.2 2
pin fg.3 3
pin bg.0 0
pin bg.1 1
pin bg.2 2
pin bg.3 3
switch 100ms credit vm=fg sched_dp_us=8000
expect len(switch) == 1 and switch[0].rc == 0 and switch[0].installed_ms == switch[0].at_ms
expect vm['fg'].done == 1 and vm['fg'].completion_ms < 0.85 * 2995
expect all(vcpu['fg', i].delayed > 50 for i in range(4))
expect all(vcpu['bg', i].delayed == 0 for i in range(4))
expect vm['fg'].policy == 'credit' and vm['fg'].dp_us == 8000 and vm['fg'].moves == 1
