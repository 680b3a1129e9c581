# A guest whose receiver takes longer than the grace (sched_sa_limit_us,
# 500 us) to ack: every upcall times out and its ack is stale (-ESTALE,
# ignored, counted); the hypervisor preempted the vCPU at the grace each time.
pcpus 4
seed 2
vm par vcpus=4 irs=on ack_latency=2ms
vm intf vcpus=1
barrier b 4
program bt
  loop 40
    compute 20ms..30ms
    barrier b block
  end
end
thread par.0-3 bt
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
thread intf.0 persistent
pin intf.0 0
expect vm['par'].done == 1
expect guest['par'].sa_taken > 0
expect guest['par'].sa_stale == guest['par'].sa_taken
expect guest['par'].sa_ack_block + guest['par'].sa_ack_yield == 0
expect guest['par'].sa_timeout == guest['par'].sa_taken
