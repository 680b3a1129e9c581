# ple-lock-4.wl with ple_directed=off: a plain yield on each PLE exit.
pcpus 4
seed 3
ple 50us
vm par vcpus=4
vm intf vcpus=4
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
thread intf.0-3 persistent
option ple_directed=off
expect sum(vcpu['par', i].yield_to for i in range(4)) == 0
