// The gate that holds a GPU's collective until every GPU of the process reached it (peer_gate.hpp):
// a stream behind it stays held until the other rank arrives at that pass, and only then.
// Two streams of one GPU stand for the two GPUs: the waits are the GPU front end's, the same on
// one device as across devices.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/peer_gate.hpp"
#include "require_gpu.hpp"

namespace nbody::cuda {
namespace {

// True once `event` completes within `seconds`.
bool completes_within(const Event& event, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        const cudaError_t q = cudaEventQuery(event.get());
        if (q == cudaSuccess) return true;
        if (q != cudaErrorNotReady) ADD_FAILURE() << cudaGetErrorString(q);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

TEST(PeerGate, HoldsAStreamUntilTheOtherRankArrivesAtThatPass) {
    REQUIRE_GPU();
    std::string why;
    const std::unique_ptr<PeerGate> gate = PeerGate::create({0, 0}, &why);
    ASSERT_TRUE(gate) << why;
    ASSERT_EQ(gate->ranks(), 2);
    Stream waiting{cudaStreamNonBlocking}, other{cudaStreamNonBlocking};
    Event passed{cudaEventDisableTiming};

    gate->wait_for_others(waiting.get(), 0, 1);
    passed.record(waiting.get());
    EXPECT_FALSE(completes_within(passed, 0.2)) << "went through before rank 1 arrived at pass 1";

    gate->arrive(other.get(), 0, 1);  // rank 0's own arrival does not open its wait
    other.synchronize();
    EXPECT_FALSE(completes_within(passed, 0.1)) << "opened by the waiting rank's own arrival";

    gate->arrive(other.get(), 1, 1);
    EXPECT_TRUE(completes_within(passed, 5.0)) << "still held after rank 1 arrived";

    // The next pass waits again; an arrival at a later pass opens an earlier one too.
    gate->wait_for_others(waiting.get(), 0, 2);
    passed.record(waiting.get());
    EXPECT_FALSE(completes_within(passed, 0.1));
    gate->arrive(other.get(), 1, 3);
    EXPECT_TRUE(completes_within(passed, 5.0));
    waiting.synchronize();
}

}  // namespace
}  // namespace nbody::cuda
