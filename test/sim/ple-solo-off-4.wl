# ple-solo-4.wl with ple=off (the reference).
pcpus 4
seed 3
ple 50us
vm par vcpus=4
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
option ple=off
