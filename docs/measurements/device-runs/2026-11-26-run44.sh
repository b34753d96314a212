#!/usr/bin/env bash
# Device run 44 (issue 18): the final build's 32K and 16K Plummer runs again, with the bench's timing
# wrapper no longer reading the clock twice per set_j() (run 43's figures include that cost); run 43's
# bench (.dev-17/bin/old) in the same call on 16K, to show what the per-call timing cost.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
p plummer32k $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
p plummer16k $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
p plummer16k-timed-set-j $D/old/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
