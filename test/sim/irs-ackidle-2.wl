# irs-ackbusy-2.wl with the old model: a vCPU inside its ack hypercall looks
# idle to the guest (irs_ack_busy=off), and no pull-back (irs_pullback=off).
pcpus 4
seed 1
vm par vcpus=4 irs=on irs_ack_busy=off irs_pullback=off
vm intf vcpus=2
barrier b 4
program bt
  loop 400
    compute 2ms..4ms
    barrier b spin
  end
end
thread par.0-3 bt
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
thread intf.0-1 persistent
pin intf.0 0
pin intf.1 1
expect vm['par'].done == 1
expect guest['par'].sa_pullback == 0
