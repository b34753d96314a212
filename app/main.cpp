// nbody: interactive and headless GPU N-body simulator.
// With no arguments it opens the viewer on the default galaxy collision.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "recorder_interrupt.hpp"

int main(int argc, char** argv) {
    // Before any work: a Ctrl-C, SIGTERM or SIGHUP in the first milliseconds is a request to stop
    // that the command honours like any other (recorder_interrupt.hpp), never the default action.
    const nbody::app::InterruptGuard stop_signals;
    CLI::App app{"nbody: all-pairs gravitational N-body simulator (CUDA, with a CPU fallback)", "nbody"};
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", std::string("nbody ") + NBODY_VERSION);
    int exit_code = 0;
    nbody::app::add_run_command(app, exit_code);
    nbody::app::add_view_command(app, exit_code);
    nbody::app::add_bench_command(app, exit_code);
    nbody::app::add_accuracy_command(app, exit_code);
    nbody::app::add_record_command(app, exit_code);
    nbody::app::add_forces_command(app, exit_code);

    // No subcommand at all means "open the viewer with its defaults".
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) args.push_back("view");
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody: error: %s\n", e.what());
        return 1;
    }
    return exit_code;
}
