// nbody: interactive and headless GPU N-body simulator.
// With no arguments it opens the viewer on the default galaxy collision.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distributed_run.hpp"
#include "nbody/sim/comm/mpi_session.hpp"
#include "nbody/sim/memory_check.hpp"
#include "rank_output.hpp"
#include "recorder_interrupt.hpp"

namespace {

// Under mpirun every rank runs the same command line (docs/DISTRIBUTED.md): MPI is initialised once
// here, rank 0 alone prints, and a rank that fails prints why and ends every rank (MPI_Abort), so
// that no rank waits for ever in a collective the failed one will not join.
int run_main(int argc, char** argv, nbody::comm::MpiSession& mpi, const nbody::app::RankOutput& output) {
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
        nbody::app::refuse_command_across_ranks(args.back());
        nbody::app::choose_process_gpu();
        // Ranks of one launch must run one build: the compile time of this file tells builds apart.
        nbody::app::require_same_build_on_every_rank(std::string(NBODY_VERSION) + " built " + __DATE__ + " " + __TIME__);
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::bad_alloc&) {
        // An estimate fell short (or a library allocated more than it said): never the class name.
        output.report_error(nbody::out_of_memory_message());
        if (mpi.size() > 1) mpi.abort_all(1);
        return 1;
    } catch (const std::exception& e) {
        output.report_error(e.what());
        if (mpi.size() > 1) mpi.abort_all(1);
        return 1;
    }
    return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    // Before any work: a Ctrl-C, SIGTERM or SIGHUP in the first milliseconds is a request to stop
    // that the command honours like any other (recorder_interrupt.hpp), never the default action.
    const nbody::app::InterruptGuard stop_signals;
    std::unique_ptr<nbody::comm::MpiSession> mpi;
    try {
        mpi = std::make_unique<nbody::comm::MpiSession>(&argc, &argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody: error: %s\n", e.what());
        return 1;
    }
    const nbody::app::RankOutput output(mpi->rank(), mpi->size());
    return run_main(argc, argv, *mpi, output);
}
