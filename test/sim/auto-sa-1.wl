# sched=auto's SA choice (hv/sched/auto_mech.c auto_sa, issue 16; seed 000 Alg.
# 1-2, docs/pv-abi.md): irs-1.wl's guest runs the IRS receiver (it registers
# the upcall vector at boot) but the VM is created with sa=off. The hog on
# pCPU 0 steals from par.0; auto sees the steal (288 per mille in the first
# period) on a VM that advertises the ABI and turns SA on, and then keeps it
# (an unneeded SA sends nothing; off only after 10 quiet periods). Measured
# (hvsim, this file): credit 1622 ms, SA on from creation (irs-1.wl) 1197
# ms, auto 1197 ms.
policy auto
pcpus 4
seed 2
vm par vcpus=4 irs=on sa=off
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
expect vm['par'].done == 1 and vm['par'].auto_sa == 1
expect guest['par'].sa_taken > 0 and guest['par'].sa_migrate == guest['par'].sa_taken
expect vm['par'].completion_ms < 1.02 * ref('irs-1.wl').vm['par'].completion_ms
expect vm['par'].completion_ms < 0.85 * ref('auto-ref-credit-sa-1.wl').vm['par'].completion_ms
expect ref('auto-ref-credit-sa-1.wl').guest['par'].sa_taken == 0
