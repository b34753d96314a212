#!/usr/bin/env bash
# Device run 27 (issue 18): where hermite6's 9.9e-9 on the 16K Plummer comes from. Run 26 showed
# dE/E = +9.877e-9 at t = 1 and the same to 1e-12 at t = 10: one jump early on. The same system
# to t = 1/16, 1/4 and 1, and to t = 1 with smaller first steps (ETA_START, the bench's knob for
# HermiteParams::eta_start) and a smaller eta.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
p() { local name=$1; shift; timeout 100 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/$name.log | grep -o "[0-9.e+]* force evaluations\|dE/E| = .*"; }
B="$D/nbody_hermite_bench plummer 16384"
E=6.103515625e-05
p t0.0625 $B 0.0625 0.1 $E cuda fp64 0 6
p t0.25 $B 0.25 0.1 $E cuda fp64 0 6
p t1 $B 1 0.1 $E cuda fp64 0 6
p t1-start1024 env ETA_START=0.0009765625 $B 1 0.1 $E cuda fp64 0 6
p t1-start4096 env ETA_START=0.000244140625 $B 1 0.1 $E cuda fp64 0 6
p t1-eta0.05 $B 1 0.05 $E cuda fp64 0 6
p t1-h4 $B 1 0.01 $E cuda ds 0 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
