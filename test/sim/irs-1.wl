# IRS (seed 000 Alg. 1-2): a 4-vCPU VM with a blocking barrier beside one
# CPU hog sharing pCPU 0; with the guest's SA receiver the preempted vCPU's
# thread migrates to an idle sibling and the vCPU acks block (nothing left).
pcpus 4
seed 2
vm par vcpus=4 irs=on
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
expect guest['par'].sa_migrate == guest['par'].sa_taken
expect guest['par'].sa_ack_block + guest['par'].sa_ack_yield == guest['par'].sa_taken
expect guest['par'].sa_stale == 0
expect guest['par'].ack_lat_max_us == 20.0
expect vm['par'].completion_ms < 0.85 * ref('irs-off-1.wl').vm['par'].completion_ms
expect guest['par'].sa_timeout == 0
