# CPU balloon (seed 004 §4.3-4.4): a 1-vCPU VM capped at 50 % runs latprobe
# (a request every 1 ms) beside a hog; the static balloon sleeps the vCPU in
# NWC so no request waits for the cap's refill, and the hog keeps its share.
pcpus 1
seed 1
duration 3s
warmup 500ms
vm vm vcpus=1 cap=50 balloon=static
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread vm.0 latprobe io
thread vm.0 persistent
expect guest['vm'].sleeps > 100
expect guest['vm'].mode_upcalls > 10
expect guest['vm'].io_p99_us < 100
expect guest['vm'].io_per_s > 990
expect guest['vm'].compute_ms > 0.4 * run.end_ms
expect ref('balloon-off-1.wl').guest['vm'].io_p99_us > 10000
