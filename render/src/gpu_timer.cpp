#include "nbody/render/gpu_timer.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

const char* gpu_stage_name(GpuStage stage) {
    switch (stage) {
        case GpuStage::Particles:
            return "particles";
        case GpuStage::Glow:
            return "glow";
        case GpuStage::Tonemap:
            return "tonemap";
        case GpuStage::Ui:
            return "ui";
        case GpuStage::Readback:
            return "readback";
        case GpuStage::Upscale:
            return "upscale";
    }
    return "unknown";
}

GpuFrameTimer::GpuFrameTimer(int frames_in_flight) : slots_(std::size_t(std::max(frames_in_flight, 2))) {}

void GpuFrameTimer::begin_frame(long long index) {
    if (in_stage_) end();
    current_ = (current_ + 1) % int(slots_.size());
    Slot& slot = slots_[std::size_t(current_)];
    // Normally read a couple of frames ago; if the GPU is that far behind, drop the figure
    // rather than wait for it.
    if (slot.pending && !collect(slot, false)) {
        slot.pending = false;
        ++dropped_;
    }
    slot.used = 0;
    slot.stages.clear();
    slot.frame = index;
    // Results of other slots that came in meanwhile: keeps latest_ms() fresh.
    for (Slot& s : slots_)
        if (&s != &slot && s.pending) collect(s, false);
}

void GpuFrameTimer::begin(GpuStage stage) {
    if (current_ < 0) return;
    if (in_stage_) end();
    Slot& slot = slots_[std::size_t(current_)];
    if (slot.used == slot.queries.size()) slot.queries.push_back(create_query(GL_TIME_ELAPSED));
    glBeginQuery(GL_TIME_ELAPSED, slot.queries[slot.used].id());
    slot.stages.push_back(stage);
    ++slot.used;
    in_stage_ = true;
}

void GpuFrameTimer::end() {
    if (!in_stage_) return;
    glEndQuery(GL_TIME_ELAPSED);
    in_stage_ = false;
}

void GpuFrameTimer::end_frame() {
    if (current_ < 0) return;
    if (in_stage_) end();
    Slot& slot = slots_[std::size_t(current_)];
    slot.pending = slot.used > 0;
}

bool GpuFrameTimer::collect(Slot& slot, bool wait) {
    if (!slot.pending) return true;
    if (!wait) {
        // Queries complete in order: the last one available means all are.
        GLuint available = GL_FALSE;
        glGetQueryObjectuiv(slot.queries[slot.used - 1].id(), GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available) return false;
    }
    std::array<double, kGpuStageCount> ms{};
    std::array<bool, kGpuStageCount> ran{};
    for (std::size_t i = 0; i < slot.used; ++i) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(slot.queries[i].id(), GL_QUERY_RESULT, &ns);
        ms[std::size_t(slot.stages[i])] += double(ns) * 1e-6;
        ran[std::size_t(slot.stages[i])] = true;
    }
    slot.pending = false;
    latest_ms_ = ms;
    if (slot.frame >= count_from_) {
        for (int s = 0; s < kGpuStageCount; ++s) {
            total_ms_[std::size_t(s)] += ms[std::size_t(s)];
            stage_frames_[std::size_t(s)] += ran[std::size_t(s)] ? 1 : 0;
        }
        ++frames_counted_;
    }
    return true;
}

void GpuFrameTimer::drain() {
    if (in_stage_) end();
    // Oldest first, so that latest_ms() ends on the newest frame.
    for (std::size_t k = 1; k <= slots_.size(); ++k) {
        Slot& s = slots_[(std::size_t(std::max(current_, 0)) + k) % slots_.size()];
        if (s.pending) collect(s, true);
    }
    log_gl_errors("collecting GPU timer queries", __FILE__, __LINE__);
}

}  // namespace nbody::render
