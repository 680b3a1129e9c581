# The Linux latprobe's schedule (guest-shim/linux/src/latprobe.c) in hvsim:
# `iowait T restart` restarts the schedule after an overrun, so a cap parking
# gives one late request, not a queue of them, and the request rate falls
# (Bochs, docs/results/sim-vs-bochs.md section 3: 265/s, p99 13.8 ms);
# `io_latency` delays every request by the guest's wake-up path (the p50).
pcpus 1
seed 1
duration 3s
warmup 1s
io_latency 175.5us
vm vm vcpus=1 cap=50 guest=cfs
program latprobe
  loop forever
    iowait 2ms restart
    compute 200us
  end
end
thread vm.0 latprobe io
thread vm.0 persistent
expect guest['vm'].io_per_s > 250 and guest['vm'].io_per_s < 290
expect guest['vm'].io_p99_us > 13000 and guest['vm'].io_p99_us < 14500
expect abs(guest['vm'].io_p50_us - 175.5) < 5
