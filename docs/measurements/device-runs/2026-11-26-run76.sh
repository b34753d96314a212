#!/usr/bin/env bash
# Device run 76 (issue 17): which unit holds the every-pair kernel at ~2.41e12? The kernel lab's
# probes (wrong forces, same issue slots): one FADD per j-body instead of its LDS (S 128), an FMUL
# instead of the MUFU.RSQ (S 256), both (384); and a software-pipelined order (S 64).
set -u
VARIANTS=variants-probe.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
