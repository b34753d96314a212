#!/usr/bin/env bash
# Device run 85 (nvidia-h100-x2): the merged head of this session's issues 29, 31, 32, 33, 34 on the
# GPU. build-pack/pack.tar.xz: the sm_90 build (nbody, the test executables, libg6, the Python
# module) with its libraries less MPI and NCCL (the machine has its own); build-pack/py.tar.xz:
# Debian's python3.11 with numpy and pytest, since the module is built for Debian's Python.
source docs/measurements/device-runs/unpack-pk.sh
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS
  [ $((SECONDS-t0+limit)) -gt 540 ] && limit=$((540-SECONDS+t0)); [ $limit -lt 10 ] && { echo "--- $name: skipped (the call's time is spent)"; return; }
  timeout -s KILL $limit "$@" > $L/$name.log 2>&1; local rc=$?
  echo "--- $name: exit $rc in $((SECONDS-s)) s (t = $((SECONDS-t0)) s)"
  grep -E "^\[  (PASSED|FAILED) +\]|^\[  SKIPPED \] [0-9]|passed|failed|error|interactions/s|ms per|fps_report|^ +[0-9]+ " $L/$name.log | cut -c1-220 | head -14; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; ldconfig -p | grep -cE "libmpi.so.40|libnccl.so.2"
step cuda-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1
step render-tests 150 $D/nbody_render_tests --gtest_color=no --gtest_brief=1
step python-render 90 $PY docs/measurements/python-render-bench.py 262144 1M
step tree-run-16m 120 $D/nbody run --gravity tree --backend cuda --scene $D/scenes/plummer.toml --bodies 16777216 --steps 2
step python-tests 120 $PY -m pytest tests/python -q -p no:cacheprovider -k "not install"
step bench-1m 60 $D/nbody bench --backend cuda --bodies 1M --pairs full
step viewer-tree-1m 60 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1M --gravity tree --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080
[ -f docs/measurements/device-runs/2026-11-26-run85-extra.sh ] && source docs/measurements/device-runs/2026-11-26-run85-extra.sh
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
