# sched=auto's DP choice (hv/sched/auto_mech.c, issue 16): seed 001's fixed-DP
# scenario (as vmmove-dp-4.wl) under `policy auto` with no hand move. The
# foreground VM blocks at barriers and the background VM's wake-ups preempt
# its running vCPUs: auto gives the foreground alone a fixed delay (twice
# its mean run between blocks, 1-10 ms) within the first periods. Measured
# (hvsim, this file): credit 2995 ms, DP 8 ms for the whole host 2227 ms,
# auto 2229 ms.
policy auto
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
expect vm['fg'].done == 1 and vm['fg'].completion_ms < 0.85 * 2995
expect all(vcpu['fg', i].delayed > 50 for i in range(4))
expect all(vcpu['bg', i].delayed == 0 for i in range(4))
