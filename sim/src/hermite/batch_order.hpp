#pragma once
// A large i-batch put in the order of the slots its bodies' j-particles hold (the cuda engine keeps
// its j-memory in Morton order: docs/HERMITE.md, version 4), on the host threads. The one-thread form
// (a slot-sized array filled, the batch scattered into it, the array scanned) took ~1 ms for a batch of
// 40,000-130,000 bodies at 128K, 0.14 s of a 2.4 s Hermite run, the same on every GPU count (device
// run 119, "spatial order: batch sort").

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "parallel.hpp"

namespace nbody::hermite {

class BatchOrder {
  public:
    // place -> index in the batch of `n` entries whose ids are id_of(q): the entries in ascending
    // slot_of[id], then those whose id has no slot (negative, or not below slot_of.size()) or repeats
    // an earlier entry's, in the batch's order. Parallel from `parallel_from` entries: three passes,
    // each over the batch or the slots; the scratch is kept, all -1, between calls.
    template <class IdOf>
    std::span<const std::uint32_t> order(std::size_t n, const IdOf& id_of, std::span<const std::uint32_t> slot_of,
                                         std::size_t parallel_from = 1024) {
        const std::size_t slots = slot_of.size();
        if (place_.size() != slots) place_.assign(slots, -1);
        const auto slot_for = [&](std::size_t q) {
            const int id = id_of(q);
            return id >= 0 && std::size_t(id) < slots ? std::size_t(slot_of[std::size_t(id)]) : slots;
        };
        const std::size_t chunks_from = n >= parallel_from ? 2 : kChunks + 1;  // serial for a small batch
        take_slots(n, slot_for, slots, parallel_from);
        parallel_for(
            kChunks, [&](std::size_t c0, std::size_t c1) { collect_rest(c0, c1, n, slot_for, slots); }, chunks_from);
        parallel_for(kChunks, [&](std::size_t c0, std::size_t c1) { collect_slots(c0, c1, slots); }, chunks_from);
        order_.clear();
        for (const auto& part : parts_) order_.insert(order_.end(), part.begin(), part.end());
        for (const auto& part : rest_) order_.insert(order_.end(), part.begin(), part.end());
        return order_;
    }

  private:
    // Chunks of the last two passes, fixed in number so that their parts join in order whichever
    // thread ran them.
    static constexpr std::size_t kChunks = 64;
    static std::pair<std::size_t, std::size_t> chunk(std::size_t c, std::size_t n) {
        return {n * c / kChunks, n * (c + 1) / kChunks};
    }

    // Each slot takes its first entry: the smallest index wins where ids repeat.
    template <class SlotFor>
    void take_slots(std::size_t n, const SlotFor& slot_for, std::size_t slots, std::size_t parallel_from) {
        parallel_for(
            n,
            [&](std::size_t begin, std::size_t end) {
                for (std::size_t q = begin; q < end; ++q) {
                    const std::size_t s = slot_for(q);
                    if (s == slots) continue;
                    std::atomic_ref<int> place(place_[s]);
                    int seen = place.load(std::memory_order_relaxed);
                    while ((seen < 0 || seen > int(q)) &&
                           !place.compare_exchange_weak(seen, int(q), std::memory_order_relaxed)) {
                    }
                }
            },
            parallel_from);
    }
    // The entries of chunks [c0, c1) of the batch without a slot of their own, in the batch's order.
    template <class SlotFor>
    void collect_rest(std::size_t c0, std::size_t c1, std::size_t n, const SlotFor& slot_for, std::size_t slots) {
        for (std::size_t c = c0; c < c1; ++c) {
            rest_[c].clear();
            const auto [begin, end] = chunk(c, n);
            for (std::size_t q = begin; q < end; ++q)
                if (const std::size_t s = slot_for(q); s == slots || place_[s] != int(q)) rest_[c].push_back(std::uint32_t(q));
        }
    }
    // The taken slots of chunks [c0, c1) in order, each emptied again for the next call.
    void collect_slots(std::size_t c0, std::size_t c1, std::size_t slots) {
        for (std::size_t c = c0; c < c1; ++c) {
            parts_[c].clear();
            const auto [begin, end] = chunk(c, slots);
            for (std::size_t s = begin; s < end; ++s)
                if (place_[s] >= 0) parts_[c].push_back(std::uint32_t(std::exchange(place_[s], -1)));
        }
    }

    std::vector<int> place_;  // slot -> the first batch entry in it; -1 between calls
    std::vector<std::uint32_t> order_;
    std::vector<std::vector<std::uint32_t>> parts_ = std::vector<std::vector<std::uint32_t>>(kChunks),
                                            rest_ = std::vector<std::vector<std::uint32_t>>(kChunks);
};

}  // namespace nbody::hermite
