#pragma once
// The CPU backends' worker threads (one pool shared by the process, sim/src/thread_pool.hpp).

namespace nbody {

// Drops the workers to the lowest scheduling priority (nice 19) for the rest of the process: a
// viewer that stops without waiting for a step in progress gives their cores to what it has left
// to write (the last frame's pixels and PNG, the report). Linux; a refusal changes nothing.
void lower_cpu_worker_priority();

}  // namespace nbody
