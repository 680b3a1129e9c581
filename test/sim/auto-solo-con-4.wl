# sched=auto on seed 003's solo-CON setting: the VM declared type=con spins
# without PAUSE, so it makes no PLE exit and no yield; auto must keep the
# user's CON (seed 003 §V-B: the type is the administrator's) rather than
# turn it HIT for lack of a spin signal (which made it 2.7x slower than cs).
policy auto
pcpus 4
seed 1
vm con1 vcpus=4 type=con
vm hit vcpus=4 type=hit
barrier b 4
program worker
  loop 200
    compute 4ms..6ms
    barrier b spin
  end
end
thread con1.0-3 worker
thread hit.0-3 persistent
expect run.policy == 'auto'
expect vm['con1'].completion_ms < 1.05 * ref('auto-ref-cs-solo-con-4.wl').vm['con1'].completion_ms
expect vm['hit'].share > 0.4
