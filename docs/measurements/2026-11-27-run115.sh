#!/usr/bin/env bash
# Device run 115 (nvidia-h100-x1): the tree's leaves are the sorted bodies (no per-leaf node
# figures: gather writes positions only, the moments pass and the walk read a body child's
# position). The tree tests; the 1M / 16M step before (main at efb82d9, build-pack/before.tar.xz)
# and after, alternately, in this call; Nsight Compute on the build's kernels at 16M, before and
# after (duration, DRAM throughput, occupancy, stalls).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|MiB"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:*Tree*:GpuBlockSteps*:CudaTree*'
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
T="bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20"
for k in a b; do
  step before-$k 60 .pk/before/bin/nbody $T
  step after-$k 60 $D/nbody $T
done
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216 --frames 30"
SHOW="tree: build"
step view16m-before 90 .pk/before/bin/nbody $V
step view16m-after 90 $D/nbody $V
N="--clock-control none -k regex:gather|radix_tree|moments|mark_groups|keys_kernel|box_partial --launch-count 6 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats"
B="bench --backend cuda --gravity tree -n 16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 1 --warmup 0"
SHOW="^  [a-z_]+kernel|Duration|DRAM Throughput|Achieved Occupancy|Memory Throughput"
step ncu-before 150 ncu $N .pk/before/bin/nbody $B
step ncu-after 150 ncu $N $D/nbody $B
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
