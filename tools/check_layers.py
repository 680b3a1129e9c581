#!/usr/bin/env python3
"""Layering checks for hv/ (issue 11), run by `make unit`.

1. No dependency cycle between hv/ source files. File A depends on file B
   when A's object refers to a symbol B's object defines (nm on the image's
   objects, so a call through a header counts, whatever header declares it).
   A cycle A -> ... -> A fails the check, naming the files and one symbol per
   edge, unless it stays within the folders of an ALLOWED_CYCLES entry (the
   cycles that exist today; a ratchet).
2. hv/vmx must not include hv/vm headers (hv/vm calls hv/vmx, never the
   reverse). Until that holds the count of such #include lines is a ratchet:
   the check fails if it grows beyond VMX_INCLUDES_VM_MAX, and asks to lower
   the bound when it shrinks.
3. hv/vm must not issue VMREAD/VMWRITE (hv/vmx owns the VMCS: hv/vm uses
   the role accessors of vmx/vcpu_state.h and vmx_*/vmcs_setup_* calls).
   Same ratchet, VM_VMCS_ACCESS_MAX, counting vmcs_read*/vmcs_write*/
   vmcs_vmread/vmcs_vmwrite calls and vmread/vmwrite instructions.

Usage: check_layers.py [--obj build/obj] [--src .] [OBJECT...]
"""
import argparse
import os
import re
import subprocess
import sys

# Lower this as hv/vmx stops including hv/vm headers; 0 is the target.
# 14 before session 7, 9 after it, 7 since port I/O routing moved to vm/io.c,
# 6 since exit_dispatch moved to vm/exit_route.h, 4 since MMIO moved to vm/mmio.c,
# 3 since vmcs_setup() takes a struct vmcs_config from hv/vm, 0 since hv/vmx
# keeps its part of a vCPU and a VM in struct vmx_vcpu / struct vmx_vm (vmx/vcpu.h).
VMX_INCLUDES_VM_MAX = 0
# Lines of hv/vm issuing VMREAD/VMWRITE: 43 before vmx/vcpu_state.h, 0 since.
VM_VMCS_ACCESS_MAX = 0
VMCS_ACCESS_RE = re.compile(r"\bvmcs_(?:vm)?(?:read|write)(?:16|32|64|nat)?\s*\(|\bvm(?:read|write)\b")
# log.h's services (log lines, panic) are used by everything, like libc:
# they are not edges (their implementation may use anything).
LOG_SYMBOLS = {"log_printf", "log_vprintf", "panic_at", "log_level"}
# Cycles that exist today: a cycle whose files all match one entry (exact
# files, or folder prefixes ending in "/") is reported, any other fails. The
# scheduler framework's files call each other by design; so do hv/vm's (the
# run loop, the pCPU loop and the routes). hv/vm <-> hv/vmx (issue 11) is
# gone: hv/vmx reaches hv/vm only through what hv/vm registers at init. So
# are arch apic/isr/trap (the IDT in idt.c, the spurious handler registered by
# main.c) and trace vprof/spin/dedicated_period (the state in record.c, the
# setup in setup.c).
ALLOWED_CYCLES = [
    ("hv/sched/",),
    ("hv/vm/",),
]


def allowed_file(f, entry):
    return any(f.startswith(e) if e.endswith("/") else f == e for e in entry)


def objects(obj_dir, objs):
    """(source, object) of the image's hv/ objects: the given list (the
    Makefile's HV_OBJS, so stale objects of removed sources do not count),
    else every object under obj_dir/hv."""
    if not objs:
        objs = [os.path.join(root, f) for root, _, files in os.walk(os.path.join(obj_dir, "hv"))
                for f in files if f.endswith(".o")]
    for path in objs:
        src = os.path.relpath(path, obj_dir)[:-2]      # hv/x/y.c
        if src.startswith("hv/"):
            yield src, path


def symbols(paths):
    out = subprocess.run(["nm", "-A", "-g"] + paths, check=True, capture_output=True,
                         text=True).stdout
    defs, uses = {}, {}
    for line in out.splitlines():
        m = re.match(r"^(.*?):\s*(?:[0-9a-fA-F]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        path, kind, name = m.groups()
        if kind == "U":
            uses.setdefault(path, set()).add(name)
        elif kind not in "wWvV":
            defs.setdefault(name, path)
    return defs, uses


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_cycles(obj_dir, obj_list, verbose):
    objs = dict(objects(obj_dir, obj_list))
    if not objs:
        print(f"check_layers: no objects under {obj_dir}/hv (build the image first)")
        return 1
    by_path = {p: s for s, p in objs.items()}
    defs, uses = symbols(sorted(objs.values()))
    graph, why = {}, {}
    for path, names in uses.items():
        a = by_path[path]
        for name in sorted(names):
            if name in defs and defs[name] != path and name not in LOG_SYMBOLS:
                b = by_path[defs[name]]
                graph.setdefault(a, set()).add(b)
                why.setdefault((a, b), name)
    bad = known = 0
    for comp in sccs(graph):
        if len(comp) < 2:
            continue
        allowed = any(all(allowed_file(f, e) for f in comp) for e in ALLOWED_CYCLES)
        known += allowed
        if allowed and not verbose:
            continue
        print(f"check_layers: {'allowed' if allowed else 'CYCLE'} between "
              f"{', '.join(sorted(comp))}")
        for a in sorted(comp) if not allowed else ():
            for b in sorted(graph[a] & comp):
                print(f"    {a} -> {b} ({why[(a, b)]})")
        bad += not allowed
    print(f"check_layers: {known} known cycles (ALLOWED_CYCLES), {bad} new")
    return bad


def check_vmx_includes(src):
    hits = []
    vmx = os.path.join(src, "hv", "vmx")
    for f in sorted(os.listdir(vmx)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(vmx, f), encoding="utf-8", errors="replace") as fh:
                for i, line in enumerate(fh, 1):
                    if re.match(r'\s*#\s*include\s+"vm/', line):
                        hits.append(f"hv/vmx/{f}:{i}: {line.strip()}")
    n = len(hits)
    if n > VMX_INCLUDES_VM_MAX:
        print(f"check_layers: hv/vmx includes hv/vm headers {n} times, at most "
              f"{VMX_INCLUDES_VM_MAX} allowed (hv/vm calls hv/vmx, not the reverse):")
        print("\n".join("    " + h for h in hits))
        return 1
    note = f" (lower VMX_INCLUDES_VM_MAX to {n})" if n < VMX_INCLUDES_VM_MAX else ""
    print(f"check_layers: hv/vmx includes hv/vm headers {n} times "
          f"(ratchet {VMX_INCLUDES_VM_MAX}){note}")
    return 0


def check_vm_vmcs(src):
    hits = []
    vm = os.path.join(src, "hv", "vm")
    for f in sorted(os.listdir(vm)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(vm, f), encoding="utf-8", errors="replace") as fh:
                for i, line in enumerate(fh, 1):
                    code = line.split("//")[0]
                    if VMCS_ACCESS_RE.search(code) and not code.lstrip().startswith(("*", "/*")):
                        hits.append(f"hv/vm/{f}:{i}: {line.strip()}")
    n = len(hits)
    if n > VM_VMCS_ACCESS_MAX:
        print(f"check_layers: hv/vm issues VMREAD/VMWRITE {n} times, at most "
              f"{VM_VMCS_ACCESS_MAX} allowed (use vmx/vcpu_state.h or a vmx_* call):")
        print("\n".join("    " + h for h in hits))
        return 1
    note = f" (lower VM_VMCS_ACCESS_MAX to {n})" if n < VM_VMCS_ACCESS_MAX else ""
    print(f"check_layers: hv/vm issues VMREAD/VMWRITE {n} times "
          f"(ratchet {VM_VMCS_ACCESS_MAX}){note}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obj", default="build/obj")
    ap.add_argument("--src", default=".")
    ap.add_argument("-v", action="store_true", help="also list the known cycles")
    ap.add_argument("objects", nargs="*", help="the image's objects (default: all under --obj)")
    a = ap.parse_args()
    bad = (check_cycles(a.obj, a.objects, a.v) + check_vmx_includes(a.src) +
           check_vm_vmcs(a.src))
    print("check_layers: " + ("FAILED" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
