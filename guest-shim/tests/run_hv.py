#!/usr/bin/env python3
"""The guest images under the hypervisor: `test/system/run.py --suite guest-hv`
with these arguments (the cases and their judgements are guest_cases.py).

usage: run_hv.py [--all] [--seed N] [--cmdline "..."] [--apicv on,off] [-k SUBSTR[,SUBSTR...]]
                 [--emu bochs|qemu] [--hv ELF] [-j JOBS] [--timeout S]
"""
import os
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "test" / "system" / "run.py"
os.execv(sys.executable, [sys.executable, str(RUN), "--suite", "guest-hv"] + sys.argv[1:])
