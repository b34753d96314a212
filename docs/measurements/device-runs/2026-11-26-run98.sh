#!/usr/bin/env bash
# Device run 98 (nvidia-h100-x2): the compute sprites' resolve as one shared-memory pass per tile
# (run 97: the two-pass blur with float planes cost ~4.3 ms a frame at 1080p whatever N). The
# render suite's sprite and interop tests, then the viewer at 1M and 16M (tree, 1080p, one step per
# frame, no panels): points and compute in the loop, compute beside the frame loop. Then the
# Hermite host work of branch hermitehost (build-pack/hermite.tar.xz: its nbody, cuda tests and
# host bench): Hermite4 128K Plummer to t = 0.25 with main's nbody (before) and the branch's (after,
# --profile), one GPU and two, and its Hermite GPU tests.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-some 120 $D/nbody_render_tests --gtest_color=no --gtest_filter='Sprite*:Splat*:CudaGlInterop.*:PublishedPositions.*:ParticleRenderer.*:Glow.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-points 60 $V --bodies 1048576 --frames 300 --sprites points
step view1m-compute 60 $V --bodies 1048576 --frames 300 --sprites compute --screenshot $OUT/view1m-compute.png
step view16m-compute 90 $V --bodies 16777216 --frames 60 --sprites compute
step beside1m 60 env NBODY_SIM_THREAD=1 $V --bodies 1048576 --frames 600 --sprites compute
step beside16m 90 env NBODY_SIM_THREAD=1 $V --bodies 16777216 --frames 300 --sprites compute
mkdir -p .pk/h && tar -xJf build-pack/hermite.tar.xz -C .pk/h
H=$PWD/.pk/h
SHOW="blocks,|energy error|profile:|GPU [0-9]|PASSED|FAILED|rror"
S="--integrator hermite4 --scene $PWD/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step before-1gpu 120 $D/nbody run $S
step before-2gpu 120 $D/nbody run $S --gpus 2
step after-1gpu 120 $H/nbody-h run $S --profile
step after-2gpu 120 $H/nbody-h run $S --gpus 2 --profile
step after-1gpu-serial 120 env NBODY_HERMITE_THREADS=1 $H/nbody-h run $S --profile
step host-bench 90 $H/nbody_hermite_host_bench 131072 0.25 0.0002
step cuda-tests-h 240 $H/cuda-tests-h --gtest_color=no --gtest_filter='Hermite*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
