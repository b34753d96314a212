# Sourced by the device-run scripts from 2026-11-25 run 16 on, in the repository root on the GPU
# machine: unpacks .dev-pack/dev17.tar.gz (README.md here says how it is made), points the
# executables at its bundled libraries, the tests at this checkout, EGL at the NVIDIA driver, and
# makes $OUT/logs. Sets t0 (the script's start) and D (the folder of the executables).
set -u
t0=$SECONDS
rm -rf .dev-17; tar -xf .dev-pack/dev17.tar.gz  # gzip or xz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p $OUT/logs
