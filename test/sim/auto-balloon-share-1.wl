# sched=auto and the CPU balloon (hv/sched/auto_mech.c auto_balloon, issue 16;
# seed 004 §4.3). The SWC mode needs no choice (auto decides it as credit
# does, from each VM's budget); what auto chooses is the host's
# sched_balloon_share: two uncapped 1-vCPU VMs whose guests run the static
# balloon and latprobe beside a hog share one pCPU (repro_pv's "share"
# case). Under the paper's rule each request can wait out the other VM's
# 30 ms slice; auto sees two VMs listening to the mode upcall on a common
# pCPU and turns `excl` on. Measured (hvsim, this file): credit p99 28048
# us, credit with sched_balloon_share=excl 998 us, auto 998 us.
policy auto
pcpus 1
duration 3s
warmup 1s
vm a vcpus=1 balloon=static
vm b vcpus=1 balloon=static
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread a.0 latprobe io
thread b.0 latprobe io
thread a.0 persistent
thread b.0 persistent
expect guest['a'].io_p99_us < 2000 and guest['b'].io_p99_us < 2000
expect ref('auto-ref-credit-balloon-share-1.wl').guest['a'].io_p99_us > 10000
expect guest['a'].compute_ms > 0.8 * ref('auto-ref-credit-balloon-share-1.wl').guest['a'].compute_ms
expect guest['b'].compute_ms > 0.8 * ref('auto-ref-credit-balloon-share-1.wl').guest['b'].compute_ms
