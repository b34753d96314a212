#!/usr/bin/env bash
# Device run 192 (nvidia-h100-x4): several GPUs' tree shares walked costliest group first, as one
# GPU's whole pass is (each GPU orders its own share by the groups' |a|; the shares still cut in key
# order), against the key order before (build-pack/before.tar.xz: 0b87adf, the same tree code
# otherwise), alternately: the share and two-GPU tests, then bench tree 1M, 4M, 16M on two and four GPUs.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before.tar.xz -C .pkb
OLD=$PWD/.pkb/bin/nbody
SHOW="PASSED|FAILED|Failure|Expected|Which is"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='ForceShares.*:TwoGpus.*:WalkRoom.*:GpuTree*:TreeGpu*'
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for n in 1M 4M; do
  step b$n-1 60 $D/nbody $A -n $n
  for g in 2 4; do
    step b$n-$g-old 60 $OLD $A -n $n --gpus $g
    step b$n-$g-new 60 $D/nbody $A -n $n --gpus $g
  done
done
step b16m-1 60 $D/nbody $A -n 16M
for k in a b; do
  step b16m-4-old-$k 60 $OLD $A -n 16M --gpus 4
  step b16m-4-new-$k 60 $D/nbody $A -n 16M --gpus 4
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
