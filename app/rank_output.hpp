#pragma once
// Under mpirun every rank runs the same command; rank 0 alone speaks. The other ranks' stdout and
// stderr go to /dev/null, and a copy of the real stderr is kept so that a rank that fails can
// still say why, once, before the launch is ended (main.cpp).

#include <string>

namespace nbody::app {

class RankOutput {
public:
    RankOutput(int rank, int ranks);
    ~RankOutput();
    RankOutput(const RankOutput&) = delete;
    RankOutput& operator=(const RankOutput&) = delete;

    // "nbody: error: <message>" on one rank; "nbody: error on rank R of P: <message>" on several,
    // written to the real stderr of this rank. Rank 0 prints at once; the others wait a moment
    // first, because a cause every rank meets (a bad input) ends the launch from rank 0 with one
    // message, and a rank that fails alone still gets its message out before it ends the launch.
    void report_error(const std::string& message) const;

private:
    int rank_ = 0, ranks_ = 1;
    int saved_stderr_ = -1;  // the real stderr on a silenced rank
};

}  // namespace nbody::app
