#!/usr/bin/env bash
# Device run 58 (issue 18): run 57's engine benchmark left the engine's nearest-neighbour search on
# (its default; the integrator's block steps turn it off), which takes no far tiles. The engine's
# compute() with every body active, without and with the nearest neighbours; the kernel beside it.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
e() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log; }
e engine-256k $D/nbody_hermite_bench engine 262144 5
e engine-1m $D/nbody_hermite_bench engine 1048576 2
e engine-32k $D/nbody_hermite_bench engine 32768 20
HERMITE_BENCH_NEAREST=1 e engine-256k-nearest $D/nbody_hermite_bench engine 262144 3
k() { local name=$1; shift; timeout 200 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/^kernel ds N [0-9]* active [0-9]* //' | sort -t, -k2 -g | tail -${TOP:-3}; }
k new-256k-128x4x4 $D/nbody_hermite_bench kernel 262144 262144 3 128 4 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
