#!/usr/bin/env bash
# Device run 12: the screenshots of run 11 that did not come back (at most 8 files return), in one tar.
set -u
t0=$SECONDS
[ -d .dev-17 ] || tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes; W=$(mktemp -d); P=$W/shots; mkdir -p $P
v() { (cd $W && timeout 120 $D/nbody "$@" > /dev/null 2>&1); echo "$? $*" | cut -c1-150; }
v view --headless --backend cuda --size 1280x720 --frames 260 --scene $S/rv770-figure-eight-3.toml --select 1200 --screenshot $P/gpu-figure-eight-3-trails-selected.png
v view --headless --backend cuda --size 1280x720 --frames 3500 --scene $S/few-body/pythagorean-three-body.toml --screenshot $P/gpu-pythagorean-t70.png
v view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/star-cluster-kroupa.toml --screenshot $P/gpu-star-cluster-kroupa.png
v view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/star-cluster-binaries.toml --screenshot $P/gpu-star-cluster-binaries.png
v view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/plummer.toml --no-ui --screenshot $P/gpu-plummer.png
v view --headless --backend cuda --size 1280x720 --frames 300 --scene $S/rv770-random-cube.toml --no-ui --screenshot $P/gpu-random-cube.png
v view --headless --backend cuda --size 1280x720 --frames 2 --open-dialog --screenshot $P/gpu-open-dialog.png
v run --backend cuda --scene $S/milky-way-andromeda.toml --steps 3200 --out $W/mw.nbsnap
v view --headless --backend cuda --size 1280x720 --frames 1 --scene $W/mw.nbsnap --screenshot $P/gpu-mw-m31-65536-from-snapshot-t064.png
v view --headless --backend cuda --size 1280x720 --frames 330 --scene $S/milky-way-andromeda.toml --no-ui --trails 48 --screenshot $P/gpu-mw-m31-65536-trails-t066.png
tar cf $OUT/shots.tar -C $W shots; ls -la $OUT
echo "end at $((SECONDS-t0)) s"
