#!/usr/bin/env bash
# Device run 77 (issue 17): run 76's LDS probe let the compiler hoist two of the three differences;
# here every coordinate of the probe's j-body moves with one FADD, so the loop keeps its 11 FP32
# instructions and MUFU and only the LDS is gone.
set -u
VARIANTS=variants-probe2.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
