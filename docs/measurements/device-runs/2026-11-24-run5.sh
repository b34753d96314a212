#!/usr/bin/env bash
# Device run 5: the experiment flags on their instances at p1024 (every pair, 256K and 1M).
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D NBODY_AUTOTUNE_CACHE=$OUT/cache.json
b() { local name=$1; shift; timeout 200 $D/nbody bench --backend cuda --json $OUT/$name.json "$@" > $OUT/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ *[0-9]+ " $OUT/$name.log | grep -v refused | sort -k10,10g | tail -14; }
b flags-256k --bodies 256K --unroll 8,16,32 --block 512,1024 --threads-per-body 1,2,4 --bodies-per-thread 4 --kernel-flags 0,1,2,3,5,7,15 --split classic,balanced --repeats 3
b flags-1M --bodies 1M --unroll 8,32 --block 1024 --threads-per-body 1,2 --bodies-per-thread 4 --kernel-flags 5,7 --split classic,balanced --repeats 2 --steps 2
echo "end at $((SECONDS-t0)) s"
