#!/usr/bin/env bash
# Device run 6 (final, merged tree): every GPU test; the default scene's figures (issue 17) on the
# new milky-way-andromeda.toml; the viewer on the tree code at 1M (issue 16); the GPU screenshot
# series at each scene's default N (issue 15), packed into shots.tgz.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D NBODY_AUTOTUNE_CACHE=$OUT/cache.json
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD G6_HERMITE_EXECUTABLE=$D/g6_hermite
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes/milky-way-andromeda.toml
mkdir -p $OUT/logs $OUT/shots
for t in cuda render g6; do
  timeout 150 $D/nbody_${t}_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/$t-tests.log 2>&1
  echo "$t tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/$t-tests.log | head -12
done
b() { local name=$1; shift; timeout 120 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $?"; grep -E "^ *[0-9]+ " $OUT/logs/$name.log | head; }
b scene-default --scene $S --bodies 256K --repeats 3
b scene-full --scene $S --bodies 256K --pairs full --repeats 3
v() { local name=$1; shift; timeout 90 $D/nbody view --headless "$@" > $OUT/logs/view-$name.log 2>&1; echo "--- view $name: exit $?"; grep -E "^nbody: kernel|frames 2|gravity:|force error" $OUT/logs/view-$name.log | cut -c1-200; }
v mw-256k --scene $S --bodies 262144 --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080
v tree-1M --scene $S --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 60 --no-ui --size 1920x1080
v tree-256k --scene $S --bodies 262144 --gravity tree --steps-per-frame 1 --frames 100 --no-ui --size 1920x1080
echo "=== screenshots (t = $((SECONDS-t0)) s)"
s() { local name=$1 scene=$2 frames=$3; shift 3; timeout 60 $D/nbody view --headless --scene $D/scenes/$scene --frames $frames --size 960x540 --screenshot $OUT/shots/$name.png "$@" > $OUT/logs/shot-$name.log 2>&1; echo "$name: exit $? $(grep -oE 't = [0-9.]+ [A-Za-z]+' $OUT/logs/shot-$name.log | tail -1)"; }
s gpu-mw-m31-65536-t000 milky-way-andromeda.toml 1 --no-ui
s gpu-mw-m31-65536-t056 milky-way-andromeda.toml 280 --no-ui
s gpu-mw-m31-65536-t064 milky-way-andromeda.toml 320 --no-ui
s gpu-mw-m31-65536-t072 milky-way-andromeda.toml 360 --no-ui
timeout 60 $D/nbody view --headless --scene $S --frames 320 --size 1280x720 --screenshot $OUT/shots/gpu-mw-m31-65536-t064-ui.png > $OUT/logs/shot-ui.log 2>&1; echo "ui shot: exit $?"
s gpu-antennae-t030 antennae.toml 300 --no-ui
s gpu-antennae-t060 antennae.toml 600 --no-ui
s gpu-cartwheel-t014 cartwheel.toml 280 --no-ui
s gpu-isolated-disk-t019 isolated-disk.toml 380 --no-ui
s gpu-figure-eight-3 rv770-figure-eight-3.toml 130 --no-ui
tar czf $OUT/shots.tgz -C $OUT shots; tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/shots $OUT/logs
echo "end at $((SECONDS-t0)) s"
