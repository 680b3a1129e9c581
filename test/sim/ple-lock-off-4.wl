# ple-lock-4.wl with ple=off: no PAUSE-loop exits (the spinners burn their slices).
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
option ple=off
expect vm['par'].yields == 0
