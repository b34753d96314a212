// The MPI tests' main: MPI is initialised for the whole run (as nbody's main does), then every
// rank runs every test.

#include <gtest/gtest.h>

#include "nbody/sim/comm/mpi_session.hpp"

int main(int argc, char** argv) {
    nbody::comm::MpiSession mpi(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
