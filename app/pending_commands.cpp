// TEMPORARY (integration scaffolding, removed once view/bench land): weak fallbacks.
#include "commands.hpp"
namespace nbody::app {
__attribute__((weak)) void add_view_command(CLI::App&, int&) {}
__attribute__((weak)) void add_bench_command(CLI::App&, int&) {}
}
