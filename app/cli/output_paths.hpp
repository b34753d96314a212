#pragma once
// Every output of every command is checked before any work starts, so that a long run is never
// thrown away at the end because its result cannot be written. One rule for all commands:
//   - the path is not empty (output_path_check(), attached to every writing option) and its
//     extension names what the option writes (.png for a PNG, ...), so the content never
//     contradicts the name;
//   - an existing path that is not a regular file or a folder (a FIFO, a device such as
//     /dev/null, a socket) is refused: opening a FIFO blocks, and renaming over a device would
//     replace it;
//   - the parent folder exists or is created now; it must take a new file (a probe file is
//     written and removed: permissions alone do not say, root ignores them);
//   - the path is not a folder (for a file output) / not a file (for a folder output);
//   - an existing file of another kind (a scene file given as --screenshot, a PNG as --out
//     o.csv), or one of the command's inputs, is replaced only with --overwrite;
//   - where the size of the output is known, the free space must hold it.
// An existing file of the same kind (the result of an earlier run) is replaced without asking:
// writes are atomic, so the old file survives any failure.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace nbody::app {

// What a command writes to a path; decides which existing files count as "the same kind".
enum class OutputKind { Csv, Tipsy, Snapshot, Png, Mp4, Json, Text, Folder };

struct OutputRequest {
    std::string option;           // "--out", "--screenshot", ... for messages
    std::string path;             // empty: the option was not given (skipped)
    OutputKind kind;
    std::uint64_t expected_bytes = 0;  // 0: unknown; else the free space must hold it
};

// The kind among `accepted` that the extension of `path` names; throws std::invalid_argument naming
// `option`, the path and the extensions `option` can write otherwise, or when the path is a folder.
OutputKind output_kind_for(const std::string& option, const std::string& path,
                           std::initializer_list<OutputKind> accepted);
// The kind of particle file `path` names (.csv, .tipsy/.std/.bin, .nbsnap), as output_kind_for.
OutputKind particle_output_kind(const std::string& path, const std::string& option = "--out");

// Bytes a particle file of `bodies` bodies takes, a little over (for the free-space check);
// `precise`: the double state goes with it (17-digit CSV, a snapshot's F64S block); `hermite`: a
// snapshot also keeps the block-step state that resumes a Hermite run.
std::uint64_t particle_file_bytes(OutputKind kind, std::uint64_t bodies, bool precise, bool hermite = false);

// A CLI11 check for every option that names an output: an empty path (--out "") names no file,
// and is refused instead of being taken as "not given".
CLI::Validator output_path_check();

// Checks the outputs as described above against the command's `inputs` (paths; empty ones are
// skipped). Throws std::invalid_argument naming the option, the path and the problem. Creates
// missing parent folders (and folder outputs).
void check_outputs(const std::vector<OutputRequest>& outputs, const std::vector<std::string>& inputs,
                   bool overwrite);

// The same --overwrite flag, with the same help, in every command that writes files.
CLI::Option* add_overwrite_flag(CLI::App& cmd, bool& overwrite);

// What an existing file looks like (for the messages and the same-kind rule): "PNG image",
// "nbody snapshot", "MP4 video", "JSON", "TIPSY", "CSV", "text", "binary data", "empty".
std::string describe_existing_file(const std::string& path);

}  // namespace nbody::app
