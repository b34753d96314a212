#pragma once
// Subcommands of `nbody`. Each add_*_command() registers its options and a callback that
// returns the process exit code through `exit_code`.

#include <CLI/CLI.hpp>

namespace nbody::app {

void add_run_command(CLI::App& app, int& exit_code);
void add_view_command(CLI::App& app, int& exit_code);   // also the default with no subcommand
void add_bench_command(CLI::App& app, int& exit_code);
void add_accuracy_command(CLI::App& app, int& exit_code);  // cmd_accuracy.cpp
void add_record_command(CLI::App& app, int& exit_code);    // cmd_record.cpp
void add_forces_command(CLI::App& app, int& exit_code);    // cmd_forces.cpp

}  // namespace nbody::app
