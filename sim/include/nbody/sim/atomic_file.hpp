#pragma once
// Files the program writes are written whole or not at all: data goes to a temporary name in the
// same folder, is flushed, and is renamed over the final name only when complete.

#include <functional>
#include <iosfwd>
#include <string>

namespace nbody {

// Calls `write` with a stream on a temporary file next to `path`, then renames it to `path`.
// Throws std::runtime_error naming the path and the OS reason when any step fails; the
// temporary file is removed on failure.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Removes the temporary files of the write_file_atomically() calls in progress, and those
// registered with PendingTemporary (up to 16 at once are tracked, from any thread).
// Async-signal-safe (only unlink): for a signal handler that is about to end the process, so that
// no partial `*.tmpPID` is left behind.
void remove_pending_temporary_files() noexcept;

namespace detail {
struct PendingSlot;
}

// While alive, `path` (a temporary being written by other means, e.g. the MP4 ffmpeg makes) is
// one of the files remove_pending_temporary_files() removes. Not tracked when all slots are taken.
class PendingTemporary {
  public:
    explicit PendingTemporary(const std::string& path);
    ~PendingTemporary();
    PendingTemporary(const PendingTemporary&) = delete;
    PendingTemporary& operator=(const PendingTemporary&) = delete;

  private:
    detail::PendingSlot* slot_ = nullptr;
};

}  // namespace nbody
