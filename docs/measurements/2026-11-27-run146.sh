#!/usr/bin/env bash
# Device run 146 (nvidia-h100-x1): the particles kept between steps (--particle-cache, issue 33). Beside the frame
# loop at 16M one GPU drew every particle 60 times a second while a step came ~7 times a second: the drawing took the
# GPU from the steps (run 144: 135 ms a step against 98.6 in the loop, 73 %). Now a frame with no new step keeps the
# particles' light. Same call: the loop's own step (the baseline), beside the loop with the cache on and off, with the
# walk leaving no room, with the camera turning every frame (every frame draws), 1M, and the tests that touch it.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU|step:|particles: drawn|PASSED|FAILED"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step in-loop 120 $D/nbody $V --frames 60
step beside-cache-on 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step beside-cache-off 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --particle-cache off
step beside-cache-on-room-none 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --walk-room none
step beside-turning 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --camera orbit:0.25
step beside-cache-on-again 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step beside-1m 60 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600
step render-tests 240 $D/nbody_render_tests --gtest_filter='ParticleCache.*:ViewerExecutable.Frames*:Glow.*:CudaSprites*:Splat*:Trails*'
step cuda-interop-tests 240 $D/nbody_cuda_tests --gtest_filter='CudaGlInterop.*:WalkRoom.*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
