// The tree walk with room for other streams' kernels (WalkRoom: one resident block per SM fewer,
// or the pass in slices) gives the accelerations of the walk with none, bit for bit: a group's
// sums do not depend on which warp, block or launch walks it. Skipped without a usable GPU.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../sim/cuda/cuda_raii.hpp"
#include "../../sim/cuda/tree/gpu_tree.hpp"
#include "nbody/sim/cuda_backend.hpp"
#include "nbody/sim/tree/walk_room.hpp"
#include "require_gpu.hpp"
#include "tree_test_support.hpp"

namespace nbody {
namespace {

constexpr float kEps2 = 0.01f * 0.01f;

// How many bodies' accelerations differ in any bit, and the first of them.
std::string bit_differences(const std::vector<float4>& expected, const std::vector<float4>& got) {
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (std::memcmp(&expected[i], &got[i], sizeof(float4)) != 0 && count++ == 0) first = i;
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(expected.size()) + " accelerations differ; the first: body " +
           std::to_string(first);
}

// The accelerations of a pass over `share` of the groups with `room` (acc cleared first for a share).
// Each pass from the same |a|: the defaults' relative criterion would otherwise measure every pass by
// the one before it; forgotten, they are estimated from the positions alone (under `room` too).
std::vector<float4> walk(cuda::GpuTree& tree, const cuda::DeviceBuffer<float4>& pos, int n, const WalkRoom& room,
                         cuda::WalkShare share = {}) {
    cuda::DeviceBuffer<float4> acc(static_cast<std::size_t>(n));
    tree.set_walk_room(room);
    tree.forget_accelerations();
    tree.force(pos.get(), n, kEps2, TreeParams{}, 8, acc.get(), nullptr, 0, nullptr, share);
    tree.check_errors();
    std::vector<float4> out(static_cast<std::size_t>(n));
    CUDA_CHECK(cudaMemcpy(out.data(), acc.get(), out.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    return out;
}

TEST(WalkRoom, OneBlockFewerAndSlicesWalkTheSameSumsBitForBit) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(50000, 11);
    const int n = int(s.size());
    const cuda::DeviceBuffer<float4> pos(s.size());
    CUDA_CHECK(cudaMemcpy(pos.get(), s.pos_mass.data(), s.size() * sizeof(float4), cudaMemcpyHostToDevice));
    cuda::GpuTree tree;
    const std::vector<float4> expected = walk(tree, pos, n, WalkRoom{});
    for (const WalkRoom room : {WalkRoom{WalkRoom::Kind::Block, 1}, WalkRoom{WalkRoom::Kind::Slices, 2},
                                WalkRoom{WalkRoom::Kind::Slices, 7}, WalkRoom{WalkRoom::Kind::Slices, 64}}) {
        SCOPED_TRACE(walk_room_name(room));
        EXPECT_EQ(bit_differences(expected, walk(tree, pos, n, room)), "");
    }
    // Slices of a share of the groups (several GPUs): the share's bodies, the same bits.
    const cuda::WalkShare share{0.3, 0.71};
    const std::vector<float4> shared = walk(tree, pos, n, WalkRoom{}, share);
    EXPECT_EQ(bit_differences(shared, walk(tree, pos, n, WalkRoom{WalkRoom::Kind::Slices, 5}, share)), "");
    EXPECT_THROW(tree.set_walk_room(WalkRoom{WalkRoom::Kind::Slices, 1}), std::invalid_argument);
    EXPECT_THROW(tree.set_walk_room(WalkRoom{WalkRoom::Kind::Slices, WalkRoom::kMaxSlices + 1}), std::invalid_argument);
}

// Through the backend the viewer uses (a backend each: it keeps the accelerations it computed).
TEST(WalkRoom, TheCudaBackendTakesItForItsTreeWalk) {
    REQUIRE_GPU();
    const State s = test::plummer_sphere(50000, 13);
    const auto accelerations = [&s](const WalkRoom& room) {
        CudaBackend b;
        b.set_walk_room(room);
        b.load(s);
        b.set_gravity(test::tree_config(0.5));
        return b.accelerations(0.01);
    };
    const std::vector<Vec3d> expected = accelerations(WalkRoom{});
    for (const WalkRoom room : {WalkRoom{WalkRoom::Kind::Block, 1}, WalkRoom{WalkRoom::Kind::Slices, 3}}) {
        SCOPED_TRACE(walk_room_name(room));
        const std::vector<Vec3d> got = accelerations(room);
        ASSERT_EQ(got.size(), expected.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
            differ += got[i].x != expected[i].x || got[i].y != expected[i].y || got[i].z != expected[i].z;
        EXPECT_EQ(differ, 0u);
    }
    CudaBackend b;
    EXPECT_THROW(b.set_walk_room(WalkRoom{WalkRoom::Kind::Slices, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
