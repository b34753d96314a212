#!/usr/bin/env bash
# Device run 105 (one GPU): the merged head (the walk by occupied slices, GPU block steps, issue 33
# item 3's GPU defaults and looks): the render suite and the tree/block/interop CUDA tests; the
# viewer's start-up choice of N (--bodies auto) and its frame rate at 1080p; the 1M tree viewer at one
# step per frame (issue 33's >= 100 frames/s); frames of the default collision at 1M and 4M after the
# first passage with the new looks and the old ones (recorded), judged by eye.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|fps_report|tree step|looks|showing|first frame"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-all 240 $D/nbody_render_tests --gtest_color=no
step cuda-some 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='GpuTree*:Tree*:GpuBlockSteps*:CudaGlInterop*:PublishedPositions*:GpuDefaults*'
step view-auto 90 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --no-ui --screenshot $OUT/view-auto.png
step view-auto-ui 90 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --screenshot $OUT/view-auto-ui.png
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-compute 60 $V --bodies 1048576 --frames 300 --sprites compute
step view1m-points 60 $V --bodies 1048576 --frames 300 --sprites points
printf "0 150 60 110 0 0 0\n" > $OUT/cam.txt
R="$D/nbody record --backend cuda --gravity tree --frames 2 --steps-per-frame 3200 --size 1920x1080 --camera path:$OUT/cam.txt"
step rec1m-new 120 $R --bodies 1048576 --out $OUT/after-1m
step rec1m-old 120 $R --bodies 1048576 --out $OUT/before-1m --point-size 3 --exposure 1 --glow 1.5
step rec4m-new 240 $R --bodies 4194304 --out $OUT/after-4m
rm -f $OUT/*/frame_000000.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
