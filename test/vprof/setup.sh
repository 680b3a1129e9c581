#!/usr/bin/env bash
# Install what test-vprof needs beyond tools/deps.sh: atheris (libFuzzer for
# Python, a PyPI wheel) for the decoder fuzz target. Idempotent; if the
# install fails the fuzz test falls back to its built-in random mutator and
# says so, so a machine without network still passes.
set -u
PY=${PYTHON:-python3}
"$PY" -c 'import atheris' 2>/dev/null && exit 0
echo "vprof: installing atheris (PyPI) for the decoder fuzz target"
timeout 300 "$PY" -m pip install --quiet --disable-pip-version-check atheris >/dev/null 2>&1 \
	|| echo "vprof: atheris not installed; the fuzz test uses its fallback mutator"
exit 0
