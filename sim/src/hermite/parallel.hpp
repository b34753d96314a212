#pragma once
// Threads for the Hermite host loops. nbody_hermite does not use nbody_sim's pool so that it can
// be linked into libg6.so alone; a pass here is long (>= 0.2 M interactions) next to a thread start.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace nbody::hermite {

template <class Body>
void parallel_for(std::size_t n, const Body& body) {
    const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n));
    if (workers == 1) {
        body(std::size_t(0), n);
        return;
    }
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(workers);
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            try {
                body(n * w / workers, n * (w + 1) / workers);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace nbody::hermite
