# sched=auto's cap pressure (hv/sched/auto_mech.c auto_cap_guard, issue 16; seed
# 004 §4.3, §4.5). A 1-vCPU VM capped at 50 runs latprobe and a hog with the
# dynamic balloon (CFS priorities in the guest): in NWC its compute keeps
# running, the VM reaches its cap before the refill and is parked, and a
# request waits for the refill. auto sees a capped VM listening to the mode
# upcall parked by its cap and sets sched_balloon_guard=25 (the guest ranks
# the balloon above compute once the budget is short). Measured (hvsim,
# this file): p99 credit 998 us, credit with sched_balloon_guard=25 2 us,
# auto 2 us; compute 1371 / 1280 / 1280 ms.
policy auto
pcpus 1
seed 1
duration 3s
warmup 1s
vm vm vcpus=1 cap=50 balloon=dynamic
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread vm.0 latprobe io
thread vm.0 persistent
expect vm['vm'].auto_guard == 1
expect guest['vm'].io_p99_us <= 1.05 * ref('auto-ref-guard-cap-1.wl').guest['vm'].io_p99_us + 1
expect ref('auto-ref-credit-cap-1.wl').guest['vm'].io_p99_us > 500
expect guest['vm'].compute_ms > 0.95 * ref('auto-ref-guard-cap-1.wl').guest['vm'].compute_ms
expect guest['vm'].io_per_s > 990
