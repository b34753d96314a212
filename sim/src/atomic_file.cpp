#include "nbody/sim/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace nbody {
namespace detail {

// Paths of the temporaries being written, for remove_pending_temporary_files(). A slot is taken
// (state 0 -> 1), filled, published (1 -> 2), and released (2 -> 0); a signal handler only reads
// slots in state 2, whose path is complete.
struct PendingSlot {
    std::atomic<int> state{0};
    char path[4096];
};

}  // namespace detail

namespace {
detail::PendingSlot g_pending[16];
}  // namespace

PendingTemporary::PendingTemporary(const std::string& path) {
    if (path.size() >= sizeof(detail::PendingSlot::path)) return;
    for (detail::PendingSlot& s : g_pending) {
        int expected = 0;
        if (s.state.compare_exchange_strong(expected, 1)) {
            std::memcpy(s.path, path.c_str(), path.size() + 1);
            s.state.store(2);
            slot_ = &s;
            return;
        }
    }
}

PendingTemporary::~PendingTemporary() {
    if (slot_) slot_->state.store(0);
}

void remove_pending_temporary_files() noexcept {
    for (detail::PendingSlot& s : g_pending)
        if (s.state.load() == 2) ::unlink(s.path);
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    namespace fs = std::filesystem;
    // Same folder as the target so that rename() is atomic (one filesystem); the pid keeps two
    // writers of the same name from sharing a temporary.
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    const PendingTemporary pending(tmp);
    try {
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
            write(out);
            out.flush();
            if (!out) throw std::runtime_error("writing '" + path + "' failed (disk full?): " + std::strerror(errno));
            out.close();
            if (out.fail()) throw std::runtime_error("writing '" + path + "' failed on close: " + std::strerror(errno));
        }
        std::error_code ec;
        fs::rename(tmp, path, ec);
        if (ec) throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
}

}  // namespace nbody
