#!/usr/bin/env bash
# Device run 101 (one GPU): variants of the tree walk by occupied slices, each evaluation at one
# call site (run 100's first form, with a second copy of every instance for the lists' remainder,
# ran 2.1x slower: its 160 KB of code missed the instruction cache). nbody-base is the head before
# the walk changes. nbody-sXuY: slices evaluated with instances for S..B occupied slices (s1: every
# count 1..4; s3: 3 and 4, fewer slices run as 3), cell loop unrolled Y times. Each with the body
# loop unrolled 8 (default) and 4 (--unroll 4). Plummer, softening 0.05, dt 1/16, theta 0.5.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |tree: build|median|error|==PROF=="
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05 --theta 0.5"
A="accuracy --gravity tree --backend cuda --scene $D/scenes/plummer.toml --sample 4096 --no-direct --steps 3 --bodies 1M"
V="nbody-base nbody-s1u4 nbody-s3u4 nbody-s3u2 nbody-s1u2"
for round in 1 2; do
  for exe in $V; do
    for u in 8 4; do step b1m-$exe-u$u-$round 60 $D/$exe $B -n 1M --unroll $u; done
  done
done
for exe in $V; do step b16m-$exe 90 $D/$exe $B -n 16M; done
for exe in nbody-base nbody-s3u2; do step acc-$exe 90 $D/$exe $A --theta 0.5; done
# Leaf and group sizes (runtime options) with one slices build: error and step time.
for lg in "8 128" "12 128" "24 128" "32 128" "16 64" "16 96"; do
  set -- $lg
  SHOW="tree " step sweep-l$1-g$2 60 $D/nbody-s3u2 $A --theta 0.5 --leaf-size $1 --group-size $2
done
for exe in nbody-s3u4 nbody-s3u2; do
  step ncu-$exe 120 ncu --clock-control none --set full -k regex:walk_kernel -s 3 -c 1 -o $OUT/walk-$exe \
    $D/$exe bench --backend cuda --gravity tree -n 1M --repeats 1 --warmup 1 --steps 3 --dt 0.0625 --softening 0.05
  timeout 60 ncu --import $OUT/walk-$exe.ncu-rep --page details > $L/ncu-details-$exe.txt 2>&1
  timeout 60 ncu --import $OUT/walk-$exe.ncu-rep --page source --csv --print-source sass > $L/ncu-sass-$exe.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  " $L/ncu-details-$exe.txt | head -8
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
