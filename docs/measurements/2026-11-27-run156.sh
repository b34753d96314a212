#!/usr/bin/env bash
# Device run 156 (one GPU): the relative criterion as the default (theta 1.0, alpha 0.0007) against
# the angle alone (theta 0.5, alpha 0: the default before) and run 150's build (build-pack/before.tar.xz),
# in one call: the whole step at 1M and 16M (bench, issue 32's settings), the force error at 1M and
# 16M (accuracy), the energy of a 1,000-step run of the galaxy scene at 1M, the 1M viewer's frame
# rate, and the GPU tree, potential, block-step and interop tests.
# Pack: docs/measurements/2026-11-27-make-pack146.sh.
source docs/measurements/device-runs/unpack-pk.sh
mkdir -p .pkb && tar -xJf build-pack/before.tar.xz -C .pkb
BEFORE=$(find $PWD/.pkb -name nbody -type f | head -1)
SHOW="^ +[0-9]+ |median|PASSED|FAILED|Failure|list per|relative energy|energy error|frames/s|fps"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:GpuBlockSteps*:CudaGlInterop.Tree*:*Tree*Energy*'
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05"
for round in 1 2; do
  step b1m-before-$round 60 $BEFORE $B -n 1M --theta 0.5
  step b1m-angle-$round 60 $D/nbody $B -n 1M --theta 0.5 --alpha 0
  step b1m-default-$round 60 $D/nbody $B -n 1M
  step b1m-a08-$round 60 $D/nbody $B -n 1M --alpha 0.0008
  step b1m-a06-$round 60 $D/nbody $B -n 1M --alpha 0.0006
done
step b16m-before 90 $BEFORE $B -n 16M --theta 0.5
step b16m-angle 90 $D/nbody $B -n 16M --theta 0.5 --alpha 0
step b16m-default 90 $D/nbody $B -n 16M
step b16m-a08 90 $D/nbody $B -n 16M --alpha 0.0008
A="accuracy --gravity tree --backend cuda --sample 4096 --no-direct --steps 3 --bodies 1M"
for scene in plummer milky-way-andromeda; do
  step acc-$scene-angle 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 0.5 --alpha 0
  step acc-$scene-default 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 1.0
  step acc-$scene-a08 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 1.0 --alpha 0.0008
  step acc-$scene-a06 90 $D/nbody $A --scene $D/scenes/$scene.toml --theta 1.0 --alpha 0.0006
done
A16="accuracy --gravity tree --backend cuda --sample 256 --no-direct --steps 1 --repeats 1 --bodies 16M --scene $D/scenes/plummer.toml"
step acc16m-angle 150 $D/nbody $A16 --theta 0.5 --alpha 0
step acc16m-default 150 $D/nbody $A16 --theta 1.0
R="run --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --backend cuda --gravity tree --steps 1000"
step energy-angle 120 $D/nbody $R --theta 0.5 --alpha 0
step energy-default 120 $D/nbody $R
V="view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
step view-angle 120 $D/nbody $V --theta 0.5 --alpha 0
step view-default 120 $D/nbody $V
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
