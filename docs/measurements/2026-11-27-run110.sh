#!/usr/bin/env bash
# Device run 110 (nvidia-h100-x2): main after the untimed-pass fix (run 109's balancing test: a host
# ~30 passes ahead got its shares cut from one stale figure): the two-GPU tests, the viewer at 1M on
# one GPU and two again, --gpus 2 against mpirun -np 2 twice (run 109: mpirun 14 % slower, runs
# 107-108: 2 %). Then branch hermiteids' build (build-pack/hermite.tar.xz) by its own script: the
# Hermite tests and 128K / 512K on one GPU and two.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|gpus:|steps of dt|evaluates to|GPU 0: "
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step two-gpu-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 600
step view1m-2gpu 60 $V --bodies 1048576 --frames 600 --gpus 2
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b; do
  step tree4m-2gpu-$k 60 $RT --gpus 2
  step tree4m-mpi2-$k 60 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
done
tar czf $OUT/logs-main.tgz -C $OUT logs; rm -rf $L
echo "main part ends at $((SECONDS-t0)) s"
if [ -f build-pack/hermite.tar.xz ]; then
  rm -rf .pk && mv build-pack/hermite.tar.xz build-pack/pack.tar.xz
  bash docs/measurements/2026-11-27-hermite-two-gpus.sh
fi
