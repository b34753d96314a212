#!/usr/bin/env bash
# Device run 11 (issues 15 and 18 merged): CUDA and render tests; the merged viewer's features on
# the CUDA backend with CUDA-GL interop (trails, picking, camera path, snapshot view, encounter
# panel, open dialog, hermite4 on the GPU engine in the viewer); screenshots at the default N.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p $OUT/logs $OUT/shots
W=$(mktemp -d)
nv() {  # nv NAME LIMIT ARGS...: nbody with its log in logs/NAME.log, summary lines here
  local name=$1 limit=$2; shift 2
  (cd $W && timeout $limit $D/nbody "$@" > $OUT/logs/$name.log 2>&1); local rc=$?
  echo "--- $name: exit $rc (t = $((SECONDS-t0)) s)"
  grep -E "frames 2|fps_report|hermite4 \(|hermite_report|selected|body [0-9]+:|scene:|error|Error|refus|opened|record_report" $OUT/logs/$name.log | cut -c1-260 | head -8
}
timeout 220 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
(cd $W && timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/render-tests.log 2>&1)
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
S=$D/scenes
nv fe3-trails-pick 60 view --headless --backend cuda --size 1280x720 --frames 260 --scene $S/rv770-figure-eight-3.toml --select 1200 --screenshot $OUT/shots/gpu-figure-eight-3-trails-selected.png
nv fe3-pick 60 view --headless --backend cuda --size 640x360 --frames 2 --scene $S/rv770-figure-eight-3.toml --pick 320,180 --no-ui
nv fewbody-fe-hermite 60 view --headless --backend cuda --size 1280x720 --frames 640 --scene $S/few-body/figure-eight.toml --screenshot $OUT/shots/gpu-few-body-figure-eight.png
nv pythagorean 90 view --headless --backend cuda --size 1280x720 --frames 3500 --scene $S/few-body/pythagorean-three-body.toml --screenshot $OUT/shots/gpu-pythagorean-t70.png
nv kroupa 120 view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/star-cluster-kroupa.toml --screenshot $OUT/shots/gpu-star-cluster-kroupa.png
nv binaries 120 view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/star-cluster-binaries.toml --screenshot $OUT/shots/gpu-star-cluster-binaries.png
nv plummer 60 view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/plummer.toml --no-ui --screenshot $OUT/shots/gpu-plummer.png
nv cube 60 view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/rv770-random-cube.toml --no-ui --screenshot $OUT/shots/gpu-random-cube.png
nv encounter 60 view --headless --backend cuda --size 1280x720 --frames 2 --encounter --screenshot $OUT/shots/gpu-encounter-panel.png
nv open-dialog 60 view --headless --backend cuda --size 1280x720 --frames 2 --open-dialog --screenshot $OUT/shots/gpu-open-dialog.png
nv mw-trails 60 view --headless --backend cuda --size 1920x1080 --frames 300 --no-ui --trails 64 --steps-per-frame 1
nv mw-snap-run 120 run --backend cuda --scene $S/milky-way-andromeda.toml --steps 3200 --out $W/mw.nbsnap
nv mw-snap-view 60 view --headless --backend cuda --size 1280x720 --frames 1 --scene $W/mw.nbsnap --screenshot $OUT/shots/gpu-mw-m31-65536-from-snapshot-t064.png
nv record-path 180 record --backend cuda --scene $S/milky-way-andromeda.toml --frames 600 --size 1280x720 --out $W/flyby --camera path:$D/assets/camera-paths/collision-flyby.txt
for f in 000000 000200 000260 000400 000599; do cp $W/flyby/frame_$f.png $OUT/shots/flyby-$f.png 2>/dev/null; done
ls $W/flyby | wc -l
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
