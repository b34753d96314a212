#!/usr/bin/env bash
# Device run 13 (issue 15): the render tests with annotations (EGL on the H200), an annotated
# 1080p recording on the CUDA backend, the panel layout of a hermite4 scene (legend kept clear).
set -u
t0=$SECONDS
rm -rf .dev-17; tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes; W=$(mktemp -d); P=$W/shots; mkdir -p $P $OUT/logs
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
v() { local name=$1; shift; (cd $W && timeout 150 $D/nbody "$@" > $OUT/logs/$name.log 2>&1); echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "frames 2|record_report|scene:" $OUT/logs/$name.log | cut -c1-200; }
v record-annotated record --backend cuda --scene $S/milky-way-andromeda.toml --frames 600 --size 1920x1080 --annotate --out $W/rec --camera path:$D/assets/camera-paths/collision-flyby.txt
cp $W/rec/frame_000330.png $P/gpu-annotated-1080p-frame000330.png
v binaries-layout view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/star-cluster-binaries.toml --screenshot $P/gpu-star-cluster-binaries.png
v pythagorean-layout view --headless --backend cuda --size 1280x720 --frames 3500 --scene $S/few-body/pythagorean-three-body.toml --screenshot $P/gpu-pythagorean-t70.png
v mw-default view --headless --backend cuda --size 1280x720 --frames 320 --screenshot $P/gpu-mw-m31-65536-t064-ui.png
tar cf $OUT/shots.tar -C $W shots; tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
