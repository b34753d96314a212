#!/usr/bin/env bash
# Device run 116 (nvidia-h100-x1): run 115's leaves-as-bodies plus the moments pass finished per
# block of 256 bodies in shared memory (device-wide fences only for the nodes that straddle
# blocks) and the walk's body nodes read by selects instead of a branch. The tree tests; the final
# state of a 1M tree run before (main at efb82d9) and after, compared byte for byte; the 1M / 16M
# step alternately; the 16M viewer's phases; Nsight Compute on the moments pass after.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|MiB"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:*Tree*:GpuBlockSteps*:CudaTree*'
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
R="run --backend cuda --gravity tree --scene scenes/milky-way-andromeda.toml --bodies 1048576 --steps 5"
step run-before 90 .pk/before/bin/nbody $R --out $L/before.nbsnap
step run-after 90 $D/nbody $R --out $L/after.nbsnap
cmp $L/before.nbsnap $L/after.nbsnap && echo "final states byte-identical"; rm -f $L/*.nbsnap
T="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20"
for k in a b; do
  step before-$k 60 .pk/before/bin/nbody $T
  step after-$k 60 $D/nbody $T
done
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 30"
SHOW="tree: build|frames/s"
step view16m-before 90 .pk/before/bin/nbody $V
step view16m-after 90 $D/nbody $V
V1="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 300"
step view1m-after 90 $D/nbody $V1
N="--clock-control none -k regex:moments|gather --launch-count 2 --section SpeedOfLight --section Occupancy --section WarpStateStats"
B="bench --backend cuda --gravity tree -n 16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 1 --warmup 0"
SHOW="^  [a-z_:<>]+kernel|Duration|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Active Threads"
step ncu-after 150 ncu $N $D/nbody $B
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
