#!/usr/bin/env python3
"""vProfile system test under Bochs: `test/system/run.py --suite vprof` with
these arguments (the scenarios and their checks are vprof_cases.py).

usage: system_test.py [--image ELF] [--cmdline "..."] [--timeout S] [--no-spin]
                      [--pmu absent|present] [-k SCENARIO[,SCENARIO...]]
"""
import os
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "test" / "system" / "run.py"
os.execv(sys.executable, [sys.executable, str(RUN), "--suite", "vprof"] + sys.argv[1:])
