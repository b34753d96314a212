#include "nbody/sim/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace nbody {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    namespace fs = std::filesystem;
    // Same folder as the target so that rename() is atomic (one filesystem); the pid keeps two
    // writers of the same name from sharing a temporary.
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
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
