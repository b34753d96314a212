#!/usr/bin/env bash
# Device run 114 (nvidia-h100-x2): one rule from a share's fraction to its first item
# (sim/cuda/share_start.cuh, three copies before; the tree walk's is in its kernel): the share and
# two-GPU tests, and the 1M / 16M tree step on one GPU and two with the build before (run 113's,
# build-pack/before.tar.xz) and after, in this call.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|GPU shares"
nvidia-smi --query-gpu=name --format=csv,noheader
step tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*:GpuTree.*'
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
T="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20"
for k in a b; do
  step before-1gpu-$k 60 .pk/before/bin/nbody $T
  step after-1gpu-$k 60 $D/nbody $T
done
step before-2gpu 60 .pk/before/bin/nbody $T --gpus 2
step after-2gpu 60 $D/nbody $T --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
