#pragma once
// Is a CUDA device usable? Plain C++ (no CUDA headers), for the backend factory.

#include <cstddef>
#include <string>

namespace nbody {

// True when the CUDA driver is present and new enough, at least one device exists and this
// build's kernels can run on the probed device (0 unless set_probed_gpu said otherwise). Otherwise false, with the reason in `why_not` (when not
// null): "no CUDA driver ...", "no CUDA device ...", "... no kernel image for sm_XY ...".
// Never throws; cheap enough to call more than once (the runtime initialises once).
bool cuda_probe(std::string* why_not);

// The device the probe checks and makes current: `local_rank` modulo the devices this process sees
// (0 until set; nbody::set_process_gpu). Counting the devices opens no context.
void set_probed_gpu(int local_rank);

// Free and total memory of the probed device in bytes (cudaMemGetInfo); false when no device is
// usable.
bool cuda_memory_info(std::size_t* free_bytes, std::size_t* total_bytes);

}  // namespace nbody
