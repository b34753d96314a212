#pragma once
// The viewer's link between a simulation backend and the vertex buffers the renderer draws.
// Three ways the positions reach the buffers, chosen at load time:
//   interop    CUDA backend, buffers registered with CUDA: each step maps the two position
//              buffers and the kernel reads one and writes the other. Nothing crosses the bus.
//   host copy  CUDA backend, but the driver refused registration (Optimus laptops, WSL2,
//              remote desktops, a GL context on another GPU): the backend steps its own buffers,
//              positions come back to the host and go up again with glBufferSubData.
//   upload     host backends (cpu, reference): positions are on the host already and are
//              uploaded once per frame.
// On the host backends in a window, the leapfrog steps run beside the frame loop on their own thread
// (run_beside(), simulation_thread.hpp): advance() then hands out steps and uploads the newest
// complete state without waiting for a step, and what touches the backend is posted to run
// between steps (between_steps()).
// With hermite4/6 (viewer_hermite.hpp) the state lives in double on the host whatever the backend,
// and its positions are uploaded once per frame; the backend waits, to take the state back. In a
// window the block steps run on their own thread too (hermite_beside(), hermite_thread.hpp).

#include <chrono>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/render/particle_buffers.hpp"
#include "nbody/sim/backend.hpp"
#include "nbody/sim/cluster_profile.hpp"
#include "nbody/sim/scene.hpp"
#include "nbody/sim/trail_sampler.hpp"
#include "hermite_thread.hpp"
#include "simulation_thread.hpp"
#include "viewer_hermite.hpp"

namespace nbody {
class CudaBackend;
}

namespace nbody::app {

enum class TransferPath { Interop, HostCopy, Upload };
const char* describe(TransferPath path);

// What one frame's stepping did and cost.
struct StepReport {
    int steps = 0;
    double ms_per_step = 0;  // force pass (CUDA events) or wall clock (host backends)
    bool ms_from_gpu_events = false;
    std::size_t bytes_to_host = 0;   // device-to-host this frame (CUDA backend's own counter)
    std::size_t bytes_uploaded = 0;  // host-to-GL this frame
    // Host (CPU wall-clock) time of this frame's stepping, by part. Interop: mapping the vertex
    // buffers (it waits for GL to be done with them), queueing the kernels, unmapping. Host
    // paths: `launch` is the backend's step itself (the cpu backend computes there) plus the
    // copy back, `upload` the glBufferSubData.
    double host_map_ms = 0, host_launch_ms = 0, host_unmap_ms = 0, host_upload_ms = 0;
    // Exact steps on the simulation thread given up for a stop (set_give_up): the state shown is
    // still the last complete frame's, and this frame should not be drawn as a new one.
    bool cut_short = false;
};

// A Hermite run of `state`, from its double state `precise` and, where given, a saved run's block
// steps `resume` (null: a fresh start with one force evaluation); says on `log` how it starts.
// Throws for a state it cannot start from (a block level outside 0..max_level, a pair at zero
// separation without softening, ...).
std::unique_ptr<ViewerHermite> make_viewer_hermite(const HermiteSettings& settings, const State& state,
                                                  const PreciseState* precise, const hermite::Bodies* resume,
                                                  std::ostream& log);

class SimulationDriver {
  public:
    // Creates the backend; `log` receives notices (auto backend choice, fallbacks).
    // gpus: two or more steps the cuda backend on those GPUs (CudaBackend::use_gpus); the positions
    // end on the first, which draws them. Throws std::invalid_argument when the backend is not cuda.
    SimulationDriver(BackendKind kind, std::ostream& log, const std::vector<int>& gpus = {});
    ~SimulationDriver();

    // Loads `state` into the backend and the buffers and picks the transfer path. `dt` is the
    // step the speed colouring assumes before the first step.
    void load(const State& state, double dt);
    // The loaded system's double state and a saved Hermite run's block-step state (Scene::precise,
    // Scene::hermite_state; after load()): start_hermite() starts from them while the state on
    // screen is still theirs, rounded.
    void set_exact_start(const std::optional<PreciseState>& precise, const std::optional<hermite::Bodies>& resume,
                         int resume_order);

    // Advances `steps` leapfrog steps and leaves the newest positions in buffers().current().
    // `frame` tags the GPU timing of these steps (gpu_step_timer()).
    // Beside the frame loop: hands out `steps` (at most two frames' worth owed) and uploads the
    // newest state completed, without waiting; the report counts the steps completed since the
    // last call. `exact` (a recorded frame): waits until exactly `steps` are done and shows them.
    StepReport advance(int steps, const StepParams& params, long long frame = 0, bool exact = false);

    // From now on the leapfrog steps run on their own thread (host backends only; the CUDA backend
    // keeps stepping in the frame loop). False when the backend cannot.
    // `describe` is read after each step (the tree's timings), for description().
    bool run_beside(SimulationThread::Describe describe = {});
    SimulationThread::StepNote description() const { return beside_ ? beside_->description() : SimulationThread::StepNote{}; }
    // With --gpus: each GPU's share of the force pass, its time and the balance (the mean share time
    // over the slowest); empty on one GPU.
    std::string gpu_shares_text() const;
    bool beside() const { return beside_ != nullptr; }
    // Back to stepping in the caller's thread, after the step in progress and what was posted;
    // the state shown becomes the backend's newest.
    void stop_beside();
    // After a stop: no step after the one in progress, waited for at most `patience` (false when
    // it still runs). The simulation stays beside the loop and the state shown (snapshot(),
    // time()) stays the one drawn last, which outputs written now must match, not the backend's
    // newest (a frame cut short by the stop may have taken some of its steps).
    bool settle_beside(std::chrono::milliseconds patience);
    // After a stop: a step in progress on the simulation thread, which will not be waited for,
    // gives its cores to what is left to write (SimulationThread::yield_cores).
    void yield_abandoned_step() {
        if (const auto a = beside_ ? beside_->activity() : std::nullopt; a) beside_->yield_cores();
    }
    // Polled while a frame waits for its exact steps on the simulation thread (a stop signal):
    // when it says so the wait ends at once, the frame cut short (StepReport::cut_short).
    void set_give_up(std::function<bool()> give_up) { give_up_ = std::move(give_up); }
    // No step after the one in progress (pause, Hermite taking over).
    void hold();
    // Runs `task` on the backend between two steps (at once when not beside the frame loop) and
    // `done` with its outcome on this thread, in finish_tasks() (at once when not beside).
    void between_steps(SimulationThread::Task task, SimulationThread::Done done, std::string what = "");
    // What the simulation thread (or the Hermite run's) is doing now and for how long (none when
    // idle or not beside).
    std::optional<SimulationThread::Activity> activity() const;
    void finish_tasks();
    // The running gravity solver (as published by the simulation thread when beside).
    GravityConfig gravity() const;

    // A host copy of the current state (positions, velocities, labels, time). On the CUDA
    // paths this copies from the device; call it rarely. Those bytes are counted in
    // snapshot_bytes(), not in the per-step StepReport.
    // With hermite4, the Hermite state at the time on screen (no device copy); stepping on its own
    // thread, the state it published last and the window drew.
    State snapshot();
    std::size_t snapshot_bytes() const { return snapshot_bytes_; }
    // In the frame loop on the interop path the newest positions are in a vertex buffer: this copies
    // them into the backend on the GPU (no host copy), for work that reads the backend (a task
    // between steps, the auto-tune). True when it did; elsewhere the backend holds them already.
    bool hand_positions_to_backend();

    const render::ParticleBuffers& buffers() const { return buffers_; }
    Backend& backend() { return *backend_; }
    const Backend& backend() const { return *backend_; }
    CudaBackend* cuda() const { return cuda_; }
    TransferPath path() const { return path_; }
    double time() const {
        return hermite_ ? hermite_summary_.time : beside_ ? host_.time : backend_->time();
    }
    std::size_t size() const { return buffers_.size(); }

#if NBODY_HAVE_CUDA
    // GPU time of each frame's steps (kick-drift and force passes, CUDA events on the backend's
    // stream); null on the host backends.
    render::CudaStreamTimer* gpu_step_timer() { return step_timer_.get(); }
#endif

    // hermite4: starts the Hermite run from the current state (the backend then waits); throws,
    // leaving leapfrog running, for bad input. load() ends it (a new system starts on leapfrog).
    void start_hermite(const HermiteSettings& settings);
    // What start_hermite() starts from, for a start made elsewhere (on a worker, beside the window):
    // the state on screen, the backend held, and the double state and saved block steps where they
    // still match it. The run made from it is then adopt_hermite()ed.
    struct HermiteStartFrom {
        State state;
        std::optional<PreciseState> precise;
        std::optional<hermite::Bodies> resume;
        // The run made from it (make_viewer_hermite): the forces and energy of every body.
        std::unique_ptr<ViewerHermite> start(const HermiteSettings& settings, std::ostream& log) const;
    };
    HermiteStartFrom hermite_start_from(int order);
    bool hermite_runs_beside() const { return hermite_beside_wanted_; }
    // Installs a run made by make_viewer_hermite from the state just load()ed (a file opened:
    // started before the running system was replaced, so that a state it cannot start from is
    // refused with the old system still running).
    void adopt_hermite(std::unique_ptr<ViewerHermite> run);
    // Back to leapfrog from Hermite's state at its time on screen (`dt`: the speed colouring's).
    void stop_hermite(double dt);
    // While the run steps on its own thread (hermite_beside()), the frame loop calls only its
    // energy sum's accessors and settings() and engine_line() on it; the rest under park_hermite().
    ViewerHermite* hermite() { return hermite_.get(); }
    const ViewerHermite* hermite() const { return hermite_.get(); }
    // The run as the panels show it (the time on screen, the block steps of the last frame); null
    // without a Hermite run.
    const HermiteSummary* hermite_summary() const { return hermite_ ? &hermite_summary_ : nullptr; }
    // Hermite block steps to model time t (one block when `one_block`), `budget_s` of wall clock
    // at most (0: no limit), then the positions at the time reached uploaded to the buffers.
    // Throws hermite::HermiteError with the last good state kept (and still on screen).
    StepReport advance_hermite(double t, double budget_s, bool one_block = false);

    // From now on Hermite runs step on their own thread (a window, free-running), the one running
    // now too. Scripted runs keep stepping in the frame loop: their frames reach their times exactly.
    void run_hermite_beside();
    bool hermite_beside() const { return hermite_thread_ != nullptr; }
    // Beside the loop: asks for model time `t` (clamped by the caller), takes the newest state the
    // thread published into the buffers, without waiting. Throws, the last good block on screen,
    // when a run or a job failed.
    StepReport play_hermite_to(std::optional<double> t);
    // No block step after those in progress (pause).
    void hold_hermite();
    // One block step (the N key) and, separately, the energy sum: on the thread between runs.
    void step_hermite_block();
    void measure_hermite_energy();
    // The run is the caller's while the guard lives (the thread waits); nothing to wait for in
    // the frame loop. Empty when not beside.
    std::optional<HermiteThread::Parked> park_hermite();
    // The run's state (its floats into snap.state), double state and block steps into `snap`
    // (ViewerHermite::save_into); false
    // without a Hermite run, or after a stop that left a long block running (settle_beside):
    // the snapshot then has the floats drawn last.
    bool save_hermite_into(io::Snapshot& snap);

    // Sampled by model time where the steps are taken (issue 33): after each step on the
    // simulation thread, at each sample time of a Hermite run, between runs of steps in the frame
    // loop on the host backends. The CUDA paths sample the cluster once a frame when due and leave
    // the trails to the renderer's copy of the vertex buffer (trails_on_host() false).
    TrailSampler& trail_sampler() { return trails_; }
    const ClusterHistory& cluster_history() const { return cluster_; }
    ClusterHistory& cluster_history() { return cluster_; }
    bool trails_on_host() const { return !cuda_ || hermite_; }

    // Lines worth showing the user (fallbacks taken and why). Newest last.
    const std::vector<std::string>& notices() const { return notices_; }

    // Kernel tuning (CUDA only): empty when `config` can run, else why not.
    bool tunable() const { return cuda_ != nullptr; }
    std::string check_kernel_config(const KernelConfig& config) const;
    // Applies `config` from the next step on (state untouched); returns why not if refused.
    std::string apply_kernel_config(const KernelConfig& config);

  private:
    void notice(const std::string& line);
    StepReport advance_beside(int steps, const StepParams& params, bool exact);
    bool run_beside_on_gpu(SimulationThread::Describe describe);
    void show_newest_beside();  // the newest state the simulation thread published, into buffers_
    void pause_beside();        // no step runs or starts until the next advance()
#if NBODY_HAVE_CUDA
    State stored_from_cuda();  // host_ with the cuda backend's state stored in it (bytes to the host counted)
#endif
    void observe(const State& state);  // the samples due at state.time
    double next_sample_time() const;
    void step_host_sampled(int steps, const StepParams& params);
    HermiteFrame advance_hermite_sampled(double t, double budget_s);
    void hermite_started();  // its summary, and its thread when beside
    void end_hermite();      // the thread first, then the run
    std::size_t show_hermite_published();  // the thread's newest state into the buffers: bytes uploaded

    std::ostream& log_;
    std::unique_ptr<Backend> backend_;
    CudaBackend* cuda_ = nullptr;
    render::ParticleBuffers buffers_;
    TransferPath path_ = TransferPath::Upload;
    State host_;                // labels, and positions on the host paths
    std::size_t d2h_seen_ = 0;  // CudaBackend::bytes_copied_to_host() at the last report
    std::size_t snapshot_bytes_ = 0;
    bool interop_refused_ = false;  // once refused, do not retry on every reload
    std::vector<std::string> notices_;
    TrailSampler trails_;
    ClusterHistory cluster_;
    std::unique_ptr<ViewerHermite> hermite_;  // hermite4 running; null: leapfrog
    HermiteSummary hermite_summary_;
    State hermite_sampled_;  // where the run steps: the state at a trail or cluster sample time
    bool hermite_beside_wanted_ = false;
    std::string hermite_error_;  // a run of blocks failed on the thread: thrown by the next play_hermite_to
    bool hermite_abandoned_ = false;  // a stop left a block running: not waited for
    std::unique_ptr<HermiteThread> hermite_thread_;  // after hermite_: stopped before the run goes
    std::optional<PreciseState> exact_;         // set_exact_start(); load() clears them
    std::optional<hermite::Bodies> exact_resume_;
    int exact_resume_order_ = 0;
#if NBODY_HAVE_CUDA
    std::unique_ptr<render::CudaStreamTimer> step_timer_;
    // The cuda backend beside the frame loop: its steps' positions, handed over on the GPU.
    std::unique_ptr<render::PublishedPositions> published_;  // before beside_: outlives its thread
#endif
    std::function<bool()> give_up_;
    std::unique_ptr<SimulationThread> beside_;  // after backend_: stopped before it is destroyed
};

}  // namespace nbody::app
