#!/usr/bin/env bash
# Device run 155 (one GPU): the tree's relative opening criterion (TreeParams::alpha, `--alpha`)
# against the angle alone (alpha 0, theta 0.5: the default), in one binary and one call: the whole
# step at 1M and 16M (bench, the issue 32 comparison's settings), the force error at 1M on the
# Plummer sphere and the galaxy scene (accuracy), and the GPU tree tests.
# Pack: docs/measurements/2026-11-27-make-pack146.sh; build-pack/before.tar.xz is run 150's nbody (the
# tree code as at the head before this change) for the angle alone before it.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before.tar.xz -C .pkb
BEFORE=$(find $PWD/.pkb -name nbody -type f | head -1)
SHOW="^ +[0-9]+ |median|PASSED|FAILED|Failure|list per"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:GpuBlockSteps*:CudaGlInterop.Tree*'
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05"
for round in 1 2; do
  step b1m-before-$round 60 $BEFORE $B -n 1M --theta 0.5
  step b1m-angle-$round 60 $D/nbody $B -n 1M --theta 0.5
  step b1m-a10-t10-$round 60 $D/nbody $B -n 1M --theta 1.0 --alpha 0.001
  step b1m-a13-t10-$round 60 $D/nbody $B -n 1M --theta 1.0 --alpha 0.0013
  step b1m-a10-t07-$round 60 $D/nbody $B -n 1M --theta 0.7 --alpha 0.001
done
step b16m-before 90 $BEFORE $B -n 16M --theta 0.5
step b16m-angle 90 $D/nbody $B -n 16M --theta 0.5
step b16m-a10-t10 90 $D/nbody $B -n 16M --theta 1.0 --alpha 0.001
step b16m-a13-t10 90 $D/nbody $B -n 16M --theta 1.0 --alpha 0.0013
A="accuracy --gravity tree --backend cuda --sample 4096 --no-direct --steps 3 --bodies 1M"
for scene in plummer milky-way-andromeda; do
  step acc-$scene-angle 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 0.5
  step acc-$scene-a10 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 0.7,1.0 --alpha 0.001
  step acc-$scene-a13 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 1.0 --alpha 0.0013
  step acc-$scene-a07 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 1.0 --alpha 0.0007
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
