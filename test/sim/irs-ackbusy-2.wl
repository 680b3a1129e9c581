# IRS (seed 000 Alg. 1-2) with a spinning barrier at 2-inter: a vCPU that
# acked stays inside its ack hypercall (the guest's stopper is current) until
# the hypervisor runs it again, so the other vCPUs must not take it for idle
# (no wake-up placed on it, no NOHZ pull into it, no Alg. 2 idle target);
# its tick wakes it. Modelled as idle (irs_ack_busy=off, the model before),
# threads were pulled onto a vCPU that had acked block and waited there
# behind the hog's slice (about 29% slower). When the ack returns, the
# thread moved away is taken back if it still waits queued on its target
# (guest patch 0106, irs_pullback).
pcpus 4
seed 1
vm par vcpus=4 irs=on
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
expect guest['par'].sa_migrate > 0
expect guest['par'].sa_pullback > 0
expect guest['par'].sa_timeout == 0
expect vm['par'].completion_ms < 0.85 * ref('irs-ackidle-2.wl').vm['par'].completion_ms
