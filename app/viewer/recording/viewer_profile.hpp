#pragma once
// Where a frame's time goes, for the report of a --frames run (view and record): host time of
// each stage of the frame loop (CPU wall clock), and GPU time of the CUDA steps and of each GL
// pass. Host and GPU figures overlap (the CPU queues work the GPU runs later), so they are shown
// side by side, not added up: a host stage that is large while its GPU time is small is the CPU
// waiting for something (a map that waits for GL, a fence, a full encoder queue).

#include <array>
#include <chrono>
#include <string>

#include "nbody/render/gpu_timer.hpp"

namespace nbody::app {

enum class HostStage { Events = 0, Map, Launch, Unmap, Upload, Draw, Ui, Capture, Present };
inline constexpr int kHostStageCount = 9;
const char* host_stage_name(HostStage stage);

struct GpuTotals {
    double cuda_step_ms = 0;  // sum over counted frames
    long long cuda_frames = 0;
    double cuda_sprites_ms = 0;  // the CUDA deposit (--sprites cuda), CUDA events; sum over counted frames
    long long cuda_sprite_frames = 0;
    std::array<double, render::kGpuStageCount> gl_ms{};
    long long gl_frames = 0;
    std::array<long long, render::kGpuStageCount> gl_stage_frames{};  // of gl_frames, those that ran the stage
};

class FrameProfile {
  public:
    // `counted`: this frame is part of the averages (frames after the warm-up frame).
    void begin_frame(bool counted);
    void add(HostStage stage, double ms) { current_[std::size_t(stage)] += ms; }
    // Wall time of this frame that is not the frame's work (a screenshot written): left out.
    void set_aside(double ms) { set_aside_ms_ += ms; }
    void end_frame();

    long long frames() const { return frames_; }
    double host_mean_ms(HostStage stage) const;
    double frame_mean_ms() const;

    // Lines for the end-of-run report (two-space indented, no trailing newline).
    std::string report(const GpuTotals& gpu) const;
    // " host_map_ms=0.41 ... gpu_tonemap_ms=0.62" for the fps_report line.
    std::string fields(const GpuTotals& gpu) const;

  private:
    using Clock = std::chrono::steady_clock;
    std::array<double, kHostStageCount> current_{}, total_{};
    double frame_total_ = 0, set_aside_ms_ = 0;
    long long frames_ = 0;
    bool counted_ = false;
    Clock::time_point frame_start_{};
};

// Adds the wall time of a scope to `stage`.
class HostStageTimer {
  public:
    HostStageTimer(FrameProfile& profile, HostStage stage)
        : profile_(profile), stage_(stage), start_(std::chrono::steady_clock::now()) {}
    ~HostStageTimer() {
        profile_.add(
            stage_,
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
    }
    HostStageTimer(const HostStageTimer&) = delete;
    HostStageTimer& operator=(const HostStageTimer&) = delete;

  private:
    FrameProfile& profile_;
    HostStage stage_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace nbody::app
