#!/usr/bin/env bash
# Device run 117 (nvidia-h100-x1): the moments pass in two kernels (each block of 256 sorted bodies
# finishes its own nodes in shared memory and lists where its climbs meet a node that straddles
# blocks; a second kernel climbs on from those with device-wide arrivals), leaves' boxes not
# stored (their positions are), the walk as on main. The tree tests; a 1M tree run's final state
# and the force errors before (main at efb82d9) and after; the 1M / 16M step alternately; the 16M
# and 1M viewer's phases; Nsight Compute on the moments kernels. Then the branch cudasplat at
# 88f6148 (build-pack/splat.tar.xz: nbody and nbody_render_tests with its shaders): the sprite
# tests, and the viewer beside the frame loop at 1M and 16M with --sprites compute and cuda.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|MiB"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:*Tree*:GpuBlockSteps*:CudaTree*'
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
R="run --backend cuda --gravity tree --scene scenes/milky-way-andromeda.toml --bodies 1048576 --steps 5"
step run-before 90 .pk/before/bin/nbody $R --out $L/before.nbsnap
step run-after 90 $D/nbody $R --out $L/after.nbsnap
cmp $L/before.nbsnap $L/after.nbsnap && echo "final states byte-identical"; rm -f $L/*.nbsnap
A="accuracy --gravity tree --backend cuda --scene scenes/plummer.toml --bodies 1M --theta 0.5 --sample 4096 --no-direct"
SHOW="median|p99"
step accuracy-before 90 .pk/before/bin/nbody $A
step accuracy-after 90 $D/nbody $A
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^ +[0-9]+ symm|MiB"
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
N="--clock-control none -k regex:moments|gather --launch-count 3 --section SpeedOfLight --section Occupancy --section WarpStateStats"
B="bench --backend cuda --gravity tree -n 16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 1 --warmup 0"
SHOW="^  [a-z_:<>]+kernel|Duration|DRAM Throughput|L2 Cache Throughput|Achieved Occupancy|Active Threads"
step ncu-after 150 ncu $N $D/nbody $B
mkdir -p .pk/splat && tar -xJf build-pack/splat.tar.xz -C .pk/splat; S=$PWD/.pk/splat/bin
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|differ"
step splat-tests 300 env NBODY_SHADER_DIR=$S/shaders NBODY_EXECUTABLE=$S/nbody $S/nbody_render_tests --gtest_color=no --gtest_filter='CudaSprites*:SpriteDrawing*:SplatLayers*:CudaGlInterop*:PublishedPositions*'
SHOW="frames 2|GPU:|sprites drawn|steps|fps"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
for s in compute cuda; do
  step splat-1m-$s 90 env NBODY_SHADER_DIR=$S/shaders NBODY_SIM_THREAD=1 $S/nbody $V --bodies 1048576 --frames 600 --sprites $s --screenshot $OUT/beside-1m-$s.png
done
for s in compute cuda; do
  step splat-16m-$s 120 env NBODY_SHADER_DIR=$S/shaders NBODY_SIM_THREAD=1 $S/nbody $V --bodies 16777216 --frames 300 --sprites $s --screenshot $OUT/beside-16m-$s.png
done
step splat-16m-loop 120 env NBODY_SHADER_DIR=$S/shaders $S/nbody $V --bodies 16777216 --frames 60 --sprites compute
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
