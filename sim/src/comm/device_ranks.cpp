// The parts of nccl_communicator.hpp that need neither CUDA nor NCCL: running one thread per rank,
// choosing the GPUs of --gpus, and the factories' refusal in a build without NCCL.

#include <algorithm>
#include <cctype>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "nbody/sim/comm/nccl_communicator.hpp"

namespace nbody::comm {

void run_on_each_rank(std::span<const std::unique_ptr<DeviceCommunicator>> ranks,
                      const std::function<void(DeviceCommunicator&)>& body) {
    std::mutex first_error_mutex;
    std::exception_ptr first_error;
    std::vector<std::jthread> threads;
    threads.reserve(ranks.size());
    for (const auto& rank : ranks)
        threads.emplace_back([&, comm = rank.get()] {
            try {
                body(*comm);
            } catch (...) {
                const std::lock_guard lock(first_error_mutex);
                if (!first_error) first_error = std::current_exception();
            }
        });
    threads.clear();  // joins
    if (first_error) std::rethrow_exception(first_error);
}

std::vector<int> select_gpus(const std::string& spec, int available) {
    const std::string machine = "this machine has " + std::to_string(available) + " GPU" + (available == 1 ? "" : "s");
    if (available < 1) throw std::invalid_argument("--gpus " + spec + ": no usable GPU (" + machine + ")");
    int count = 0;
    if (spec == "all") {
        count = available;
    } else {
        const bool digits = !spec.empty() && spec.size() <= 4 &&
                            std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c); });
        if (!digits) throw std::invalid_argument("--gpus " + spec + ": give a whole number of GPUs or 'all'");
        count = std::stoi(spec);
        if (count < 1) throw std::invalid_argument("--gpus " + spec + ": give 1 or more GPUs, or 'all'");
        if (count > available) throw std::invalid_argument("--gpus " + spec + ": " + machine);
    }
    std::vector<int> devices(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) devices[std::size_t(k)] = k;
    return devices;
}

#ifndef NBODY_HAVE_NCCL
namespace {
[[noreturn]] void refuse_without_nccl() {
    throw std::runtime_error("this build has no NCCL (configured without it: it needs the CUDA backend and the "
                             "CUDA Toolkit's nccl.h and libnccl.so; NBODY_NCCL=AUTO or ON)");
}
}  // namespace

bool have_nccl() { return false; }
int visible_gpu_count() { return 0; }
std::vector<std::unique_ptr<DeviceCommunicator>> make_nccl_communicators(std::span<const int>) { refuse_without_nccl(); }
std::unique_ptr<DeviceCommunicator> make_nccl_communicator(Communicator&, int) { refuse_without_nccl(); }
#endif

}  // namespace nbody::comm
