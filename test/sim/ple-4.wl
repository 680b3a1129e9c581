# spin-4.wl with PAUSE-loop exits every 100 us of spinning. Credit's
# undirected yield (Xen semantics: the yield affects one scheduling decision)
# lets the barrier's late arrivals run sooner: the spinning VM keeps its fair
# share but wastes far less of it spinning and finishes much earlier than
# without PLE (seed 002: PLE helps spinning that is not lock-holder
# preemption). This is the undirected baseline for directed yield.
# (An earlier credit kept stale yield flags on queued vCPUs, which starved
# them and made PLE look harmful; test_sched_credit guards against it.)
pcpus 4
seed 1
duration 10s
ple 100us
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b spin
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
expect vm['par'].yields > 100
expect abs(vm['par'].share - 0.5) < 0.05
expect vm['par'].completion_ms < 0.5 * ref('spin-4.wl').vm['par'].completion_ms
expect vm['par'].spin_ms < 0.5 * ref('spin-4.wl').vm['par'].spin_ms
