# The credit reference of auto-balloon-share-1.wl (sched_balloon_share=paper).
policy credit
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
expect guest['a'].io_n > 0
