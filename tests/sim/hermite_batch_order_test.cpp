// BatchOrder (sim/src/hermite/batch_order.hpp): the cuda engine's large i-batches put in the order of
// their j-particles' slots on the host threads give, for every batch, the order the one-thread form
// gave (the kernel's sums follow it, so the run's bits do): ascending slot, then the entries with no
// slot of their own in the batch's order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "../../sim/src/hermite/batch_order.hpp"

namespace nbody::hermite {
namespace {

// The one-thread form the engine used before (engine_cuda.cpp, sort_batch, until 2026-11-27).
std::vector<std::uint32_t> one_thread_order(const std::vector<int>& ids, const std::vector<std::uint32_t>& slot_of) {
    const std::size_t slots = slot_of.size();
    std::vector<int> place(slots, -1);
    std::vector<std::uint32_t> order, rest;
    for (std::size_t q = 0; q < ids.size(); ++q) {
        const int id = ids[q];
        if (id >= 0 && std::size_t(id) < slots && place[slot_of[std::size_t(id)]] < 0)
            place[slot_of[std::size_t(id)]] = int(q);
        else
            rest.push_back(std::uint32_t(q));
    }
    for (int q : place)
        if (q >= 0) order.push_back(std::uint32_t(q));
    order.insert(order.end(), rest.begin(), rest.end());
    return order;
}

std::vector<std::uint32_t> shuffled_slots(std::size_t n, std::mt19937& rng) {
    std::vector<std::uint32_t> slot_of(n);
    std::iota(slot_of.begin(), slot_of.end(), 0u);
    std::shuffle(slot_of.begin(), slot_of.end(), rng);
    return slot_of;
}

// `active` of the n addresses in ascending order (as the integrator lists a block), with `odd` ids
// replaced by repeats of earlier ones, negative ids or ids past the slots (a GRAPE-6 program's).
std::vector<int> batch(std::size_t n, std::size_t active, std::size_t odd, std::mt19937& rng) {
    std::vector<int> all(n);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<int> ids(all.begin(), all.begin() + std::ptrdiff_t(active));
    std::sort(ids.begin(), ids.end());
    std::uniform_int_distribution<std::size_t> at(0, active - 1);
    for (std::size_t k = 0; k < odd; ++k) {
        const std::size_t q = at(rng);
        ids[q] = k % 3 == 0 ? -1 - int(k) : k % 3 == 1 ? int(n + k) : ids[at(rng)];
    }
    return ids;
}

TEST(HermiteBatchOrder, EveryBatchInTheOrderOfTheOneThreadForm) {
    std::mt19937 rng(20261127);
    BatchOrder order;
    for (const std::size_t n : {std::size_t(1000), std::size_t(131072), std::size_t(50000)}) {  // the slots change
        const std::vector<std::uint32_t> slot_of = shuffled_slots(n, rng);
        for (const std::size_t active : {n / 100 + 1, n / 4, n - 7, n}) {
            for (const std::size_t odd : {std::size_t(0), std::size_t(5), active / 10}) {
                SCOPED_TRACE(::testing::Message() << n << " slots, " << active << " active, " << odd << " odd ids");
                const std::vector<int> ids = batch(n, active, odd, rng);
                const auto got = order.order(ids.size(), [&](std::size_t q) { return ids[q]; }, slot_of, 1024);
                EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), one_thread_order(ids, slot_of));
                const auto serial = order.order(ids.size(), [&](std::size_t q) { return ids[q]; }, slot_of, ids.size() + 1);
                EXPECT_EQ(std::vector<std::uint32_t>(serial.begin(), serial.end()), one_thread_order(ids, slot_of))
                    << "on one thread";
            }
        }
    }
}

TEST(HermiteBatchOrder, AnEmptyBatchAndNoSlots) {
    BatchOrder order;
    const std::vector<std::uint32_t> slot_of = {2, 0, 1};
    EXPECT_TRUE(order.order(0, [](std::size_t) { return 0; }, slot_of).empty());
    const std::vector<int> ids = {2, 0, 5};
    const auto got = order.order(ids.size(), [&](std::size_t q) { return ids[q]; }, std::span<const std::uint32_t>());
    EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), (std::vector<std::uint32_t>{0, 1, 2}))
        << "no slots: every entry in the batch's order";
    const std::vector<int> swapped = {0, 2, 5};  // slots 2, 1 and none
    const auto back = order.order(swapped.size(), [&](std::size_t q) { return swapped[q]; }, slot_of);
    EXPECT_EQ(std::vector<std::uint32_t>(back.begin(), back.end()), (std::vector<std::uint32_t>{1, 0, 2}));
}

}  // namespace
}  // namespace nbody::hermite
