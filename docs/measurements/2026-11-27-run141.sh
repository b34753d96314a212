#!/usr/bin/env bash
# Device run 141 (one H100): the viewer's Hermite run of 131,072 stars on the cuda engine, its start beside
# the window with the first energy's potential on the GPU (run 140: not started after 300 frames, the host
# summing 8.6e9 pair terms); `run`'s Hermite energy through the same function (dE/E as before: 3.514e-8).
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="first frame|frames 2|hermite_report|not waiting|force engine|energy line"
step view-hermite-start 120 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --size 1280x720 --frames 300 \
  --scene $PWD/scenes/star-cluster-kroupa.toml --bodies 131072 --screenshot $OUT/hermite-131072.png
SHOW="in [0-9.]+ s:|dE/E|energy"
step run-hermite 60 $D/nbody run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072
SHOW="PASSED|FAILED|OK \]"
step render-tests 300 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.LargeHermite*:HermiteViewer.*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
