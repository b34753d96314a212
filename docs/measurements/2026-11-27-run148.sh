#!/usr/bin/env bash
# Device run 148 (nvidia-h100-x2): the particles kept between steps on two GPUs (the first draws; its share of the walk
# now cut by its GL time a frame averaged over ~10 frames, most of them kept), against the cache off in the same call
# (run 144: 59.63 frames/s, 73.3 ms a step); the automatic energy line of a cuda Hermite run above 100,000 bodies in
# the viewer (summed on the GPU, not run on a GPU before); the two-GPU, Hermite and interop tests.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU|step:|particles: drawn|gpus:|energy line|hermite|PASSED|FAILED"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step one-gpu-in-loop 120 $D/nbody $V --frames 60
step two-gpus-cache-on 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --gpus 2 --screenshot $OUT/16m-two-gpus-kept.png
step two-gpus-cache-off 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --gpus 2 --particle-cache off
step two-gpus-cache-on-again 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --gpus 2
step hermite-262144-energy-line 180 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --scene scenes/star-cluster-kroupa.toml --bodies 262144 --frames 900 --size 1280x720 --screenshot $OUT/hermite-262144.png
step cuda-tests 400 $D/nbody_cuda_tests --gtest_filter='Hermite*:*TwoGpus*:ForceShares*:PeerGate*:CudaGlInterop*:WalkRoom*:PublishedPositions*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
