#!/usr/bin/env bash
# Device run 37 (issue 17): every-pair fp32 at 256K and 1M with eight bodies per thread (B = 8) on
# blocks of 256 and 512, where ptxas may give the loop up to 128 registers (no B = 8 config was timed
# since the uniform-mass tiles and the 128-register companions), against the default's every-pair
# config (U8 p1024 q1 B4) and the best measured (U32 p1024 q2 B4, flags 5) in the same call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 250 $D/nbody bench --pairs full --repeats 5 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "interactions|e\+12" $OUT/logs/$name.log | head -20; }
b default -n 256K,1M --unroll 8 --block 1024 --threads-per-body 1 --bodies-per-thread 4
b flags5 -n 256K,1M --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5
b b8 -n 256K,1M --unroll 4,8 --block 256,512 --threads-per-body 1,2 --bodies-per-thread 8
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
