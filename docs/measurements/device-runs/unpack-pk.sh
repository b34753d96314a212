# Sourced by device runs 85-91 (2026-11-26), in the repository root on the GPU machine: unpacks
# build-pack/pack.tar.xz (the sm_90 build: bin/ with nbody, the test executables and the Python
# module; lib/ with its libraries less MPI and NCCL) and build-pack/py.tar.xz (Debian's python3.11
# with numpy and pytest) into .pk/, points the executables, the tests, EGL and Python at them, and
# keeps NVLink multicast off. Sets t0, D (the executables), L (the log folder) and PY.
set -u; t0=$SECONDS
mkdir -p .pk && tar -xJf build-pack/pack.tar.xz -C .pk
[ -f build-pack/py.tar.xz ] && tar -xJf build-pack/py.tar.xz -C .pk  # carried only for Python runs
D=$PWD/.pk/bin
export LD_LIBRARY_PATH=$PWD/.pk/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD NBODY_SHADER_DIR=$D/shaders NCCL_NVLS_ENABLE=0
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
L=$OUT/logs; mkdir -p $L
PY="env LD_LIBRARY_PATH=$PWD/.pk/py/so:$LD_LIBRARY_PATH PYTHONHOME=$PWD/.pk/py PYTHONPATH=$PWD/.pk/py/site:$D/python $PWD/.pk/py/bin/python3.11"
# step NAME LIMIT COMMAND...: runs COMMAND under a kill timeout with its output in $L/NAME.log, then
# prints its exit status, its time and the log's lines that match $SHOW (set by the run script).
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS
  timeout -s KILL $limit "$@" > $L/$name.log 2>&1; local rc=$?
  echo "--- $name: exit $rc in $((SECONDS-s)) s (t = $((SECONDS-t0)) s)"
  grep -E "${SHOW:-PASSED|FAILED}" $L/$name.log | cut -c1-260 | head -14; }
