#!/usr/bin/env bash
# Device run 3: flags 3 vs 7 per instance after the remainder fix; every-pair sweep on the scene.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D NBODY_AUTOTUNE_CACHE=$OUT/cache.json
S=$D/scenes/milky-way-andromeda.toml
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda --json $OUT/$name.json "$@" > $OUT/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ *[0-9]+ " $OUT/$name.log | sort -k3,3 -k4,4n -k5,5n -k6,6n -k7,7n -k8,8 ; }
b ab-256k --bodies 256K --unroll 8,16,32 --block 1024 --threads-per-body 1,2 --bodies-per-thread 2,4 --kernel-flags 3,7 --repeats 3
b scene-full-256k --scene $S --bodies 256K --unroll 8,16,32 --block 512,1024 --threads-per-body 1,2 --bodies-per-thread 2,4 --repeats 3
b scene-default-full --scene $S --bodies 256K --pairs full --repeats 5
b plummer-default-full --bodies 256K,1M --pairs full --repeats 5
echo "end at $((SECONDS-t0)) s"
