# Reference for auto-cap-guard-1.wl: credit (sched_balloon_guard=0).
policy credit
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
