#!/usr/bin/env bash
# Device run 102 (one GPU): more walk variants after run 101 showed the walk's speed set by its code
# size (the instruction cache) as much as by its instruction count. nbody-sXuY as in run 101
# (instances for S..B occupied slices, cell loop unrolled Y times); -o6: __launch_bounds__ asking
# for 6 blocks of 4 warps per SM (80 registers instead of 96). Bench 1M with the body loop
# unrolled 8 and 4, twice; 16M once; Plummer, softening 0.05, dt 1/16, theta 0.5.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^ +[0-9]+ |tree: build|median|error|==PROF=="
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="bench --backend cuda --gravity tree --repeats 5 --warmup 20 --dt 0.0625 --softening 0.05 --theta 0.5"
V="nbody-base nbody-s3u2 nbody-s1u2 nbody-s1u1 nbody-s3u2o6 nbody-s1u2o6"
for round in 1 2; do
  for exe in $V; do
    for u in 8 4; do step b1m-$exe-u$u-$round 60 $D/$exe $B -n 1M --unroll $u; done
  done
done
for exe in $V; do for u in 8 4; do step b16m-$exe-u$u 90 $D/$exe $B -n 16M --unroll $u; done; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
