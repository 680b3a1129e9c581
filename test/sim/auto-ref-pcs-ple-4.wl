# Reference for auto-*.wl: the same workload under pcs with the parallel VM
# declared CON at creation (the best fixed choice of co-scheduling there).
policy pcs
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
vm par vcpus=4 type=con
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
