#!/usr/bin/env bash
# Device run for issue 29's Hermite host work (docs/HERMITE.md, "The host's share of a block step"):
# Hermite4, 128K Plummer to t = 0.25, one GPU and two, with --profile, the host loops on the pool
# and serial (NBODY_HERMITE_THREADS=1), the integrator alone (nbody_hermite_host_bench), and the
# Hermite GPU tests. On nvidia-h100-x2 (or -h200-x2). BEFORE=path/to/main's/nbody (optional): the
# same runs with main's build first, in the same call, for the before/after.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="blocks,|energy error|profile:|  [a-z]|GPU [0-9]|PASSED|FAILED|error"
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
S="--integrator hermite4 --scene $PWD/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
if [ -n "${BEFORE:-}" ]; then
  step before-1gpu 180 $BEFORE run $S
  step before-2gpu 180 $BEFORE run $S --gpus 2
fi
step after-1gpu 180 $D/nbody run $S --profile
step after-1gpu-serial 180 env NBODY_HERMITE_THREADS=1 $D/nbody run $S --profile
step after-2gpu 180 $D/nbody run $S --gpus 2 --profile
step after-2gpu-serial 180 env NBODY_HERMITE_THREADS=1 $D/nbody run $S --gpus 2 --profile
step after-1gpu-from256 180 env NBODY_HERMITE_THREADS_FROM=256 $D/nbody run $S --profile
step host-bench 120 $D/nbody_hermite_host_bench 131072 0.25 0.0002
step host-bench-serial 120 env NBODY_HERMITE_THREADS=1 $D/nbody_hermite_host_bench 131072 0.25 0.0002
step cuda-tests 300 $D/nbody_cuda_tests --gtest_filter='Hermite*'
step g6-tests 120 $D/nbody_g6_tests
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
