#pragma once
// GPU time of each stage of a frame (particles, glow, tone mapping, UI, readback), measured with
// GL_TIME_ELAPSED queries. Results are collected a few frames later, when the driver has them,
// so measuring never makes the CPU wait for the GPU (a glGetQueryObject on a query still in
// flight would stall the frame loop exactly like the glFinish it is meant to replace).

#include <array>
#include <vector>

#include "nbody/render/gl_objects.hpp"

namespace nbody::render {

// Upscale: enlarging a frame drawn below render scale 1 (particle_renderer.hpp); last, so that the
// report's fields keep their order.
enum class GpuStage { Particles = 0, Glow, Tonemap, Ui, Readback, Upscale };
inline constexpr int kGpuStageCount = 6;
const char* gpu_stage_name(GpuStage stage);  // "particles", "glow", ...

class GpuFrameTimer {
  public:
    // `frames_in_flight`: how many frames' queries may be outstanding; a slot whose results are
    // still not in when it comes round again is dropped (counted in dropped_frames()).
    explicit GpuFrameTimer(int frames_in_flight = 4);

    // Starts frame `index`; frames below count_from() are measured but left out of the totals.
    void begin_frame(long long index);
    // Brackets one stage. Stages do not nest (GL allows one GL_TIME_ELAPSED query at a time);
    // a stage timed twice in a frame adds up.
    void begin(GpuStage stage);
    void end();
    void end_frame();

    // Waits for every outstanding result (end of a run, after the last frame).
    void drain();

    void set_count_from(long long frame) { count_from_ = frame; }
    long long count_from() const { return count_from_; }

    // Sums over the frames counted so far, per stage, and how many frames they cover.
    const std::array<double, kGpuStageCount>& total_ms() const { return total_ms_; }
    long long frames_counted() const { return frames_counted_; }
    // Of those frames, how many ran each stage (a frame that kept its particles ran no particles
    // stage: particle_renderer.hpp).
    const std::array<long long, kGpuStageCount>& stage_frames() const { return stage_frames_; }
    long long dropped_frames() const { return dropped_; }
    // The newest frame whose results are in (ms per stage; 0 for stages it did not run).
    const std::array<double, kGpuStageCount>& latest_ms() const { return latest_ms_; }

  private:
    struct Slot {
        std::vector<GlQuery> queries;  // one per bracket issued this frame
        std::vector<GpuStage> stages;
        std::size_t used = 0;
        long long frame = -1;
        bool pending = false;
    };
    // Reads `slot` if its results are available (or `wait`); returns whether it was consumed.
    bool collect(Slot& slot, bool wait);

    std::vector<Slot> slots_;
    int current_ = -1;
    bool in_stage_ = false;
    long long count_from_ = 0;
    std::array<double, kGpuStageCount> total_ms_{};
    std::array<double, kGpuStageCount> latest_ms_{};
    std::array<long long, kGpuStageCount> stage_frames_{};
    long long frames_counted_ = 0, dropped_ = 0;
};

// Times a scope as `stage` when `timer` is not null.
class GpuStageScope {
  public:
    GpuStageScope(GpuFrameTimer* timer, GpuStage stage) : timer_(timer) {
        if (timer_) timer_->begin(stage);
    }
    ~GpuStageScope() {
        if (timer_) timer_->end();
    }
    GpuStageScope(const GpuStageScope&) = delete;
    GpuStageScope& operator=(const GpuStageScope&) = delete;

  private:
    GpuFrameTimer* timer_;
};

}  // namespace nbody::render
