#pragma once
// An H.264 MP4 made by piping raw frames into ffmpeg (the ffmpeg executable, found on PATH; no
// link-time dependency). ffmpeg writes to a temporary name next to the requested file, which is
// renamed into place only after ffmpeg has exited cleanly: an interrupted or failed encode never
// leaves a truncated movie under the final name.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/sim/atomic_file.hpp"

namespace nbody::app {

// The ffmpeg executable: $NBODY_FFMPEG when set (an empty value: none), else the first
// `ffmpeg` on PATH that can be executed; nothing when there is none.
std::optional<std::string> find_ffmpeg();

// The size an H.264 4:2:0 movie of a width x height frame has: both even (yuv420p samples
// colour at half resolution in both directions), so an odd side loses its last column or row.
struct Mp4Size {
    int width = 0, height = 0;
    bool cropped = false;
};
Mp4Size mp4_size(int width, int height);

// Checks a finished MP4 before it is renamed into place: ffmpeg can exit 0 after failing to write
// its trailer (a full disk), leaving a file with no index ("moov" box) that nothing can play.
// Returns the problem, or "" when the file is sound:
//   - the top-level boxes must cover the file exactly and include "ftyp", "moov" and "mdat";
//   - with `ffprobe` (found next to `ffmpeg`, or on PATH; $NBODY_FFPROBE overrides, empty: none)
//     the number of video frames it reads must be `expected_frames`.
// `checked_with` gets what was used ("boxes" or "boxes + ffprobe").
std::string verify_mp4(const std::string& path, long long expected_frames, const std::string& ffmpeg,
                       std::string* checked_with = nullptr);

class FfmpegPipe {
  public:
    // Starts `ffmpeg` reading width x height frames of `channels` bytes per pixel (3: rgb24,
    // 4: rgba), bottom row first (as GL reads them), at `fps` frames per second, writing
    // `output` (through a temporary name). Throws std::runtime_error with the reason if it cannot
    // be started.
    FfmpegPipe(const std::string& ffmpeg, const std::string& output, int width, int height, int channels,
               int fps);
    // Abandons an unfinished movie: kills ffmpeg and removes the temporary file.
    ~FfmpegPipe();
    FfmpegPipe(const FfmpegPipe&) = delete;
    FfmpegPipe& operator=(const FfmpegPipe&) = delete;

    // Writes one frame (width * height * channels bytes). Throws std::runtime_error with ffmpeg's own
    // message when ffmpeg has gone away (it closed the pipe).
    void write(const std::uint8_t* rgb, std::size_t bytes);
    // Closes ffmpeg's input, waits for it to finish the file, checks it (ffmpeg's log must be
    // free of errors, and verify_mp4()) and renames it into place. Throws with the reason (and
    // ffmpeg's message) when it failed; the bad file is removed, never renamed. Returns the final
    // path.
    std::string finish();

    const std::string& output() const { return output_; }
    const std::string& temporary() const { return temporary_; }
    long long frames() const { return frames_; }

  private:
    std::string log_tail() const;  // the end of ffmpeg's stderr, for error messages
    void abandon() noexcept;

    std::string ffmpeg_, output_, temporary_, log_path_;
    // The temporary MP4 is removed by a second Ctrl-C's handler too (InterruptGuard).
    std::unique_ptr<PendingTemporary> pending_;
    int fd_ = -1;  // write end of ffmpeg's stdin
    pid_t pid_ = -1;
    std::size_t frame_bytes_ = 0;
    long long frames_ = 0;
};

}  // namespace nbody::app
