// Host tests of the triangular block map lambda(omega) (sim/cuda/triangular_map.hpp). No GPU needed:
// the device's MUFU.RSQ is stood in for by 1 / sqrtf, and by deliberately perturbed versions of it
// that err far more than MUFU does; the device itself is checked exhaustively by
// SymmetricMapDevice.* in symmetric_kernel_test.cpp.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "../../sim/cuda/triangular_map.hpp"

namespace {

using nbody::cuda::tri::Coord;
using nbody::cuda::tri::triangular;
namespace tri = nbody::cuda::tri;

// 1 / sqrtf scaled by (1 + rel): an rsqrt that is wrong by `rel` everywhere.
struct PerturbedRsqrt {
    float rel = 0;
    float operator()(float x) const { return (1.0f / std::sqrt(x)) * (1.0f + rel); }
};

std::string where(std::uint64_t k, Coord got, std::uint64_t row) {
    return "k=" + std::to_string(k) + ": got (" + std::to_string(got.row) + ", " + std::to_string(got.col) +
           "), want row " + std::to_string(row);
}

// Checks `map` (k -> Coord, with diagonal) at k and returns false with a message on the first miss.
template <class Map>
::testing::AssertionResult maps_right(Map map, std::uint64_t k, std::uint64_t row) {
    const Coord c = map(static_cast<std::uint32_t>(k));
    if (c.row == row && triangular(row) + c.col == k && c.col <= c.row) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << where(k, c, row);
}

// The k values around the start of row r (with diagonal): the last two of row r-1, the first two
// of row r, its middle and its last. These are where a float square root is closest to an integer.
template <class Check>
void for_each_boundary_k(std::uint32_t tiles_per_side, Check check) {
    for (std::uint64_t r = 0; r < tiles_per_side; ++r) {
        const std::uint64_t first = triangular(r), last = first + r;
        if (r > 0) {
            check(first - 1, r - 1);
            if (r > 1) check(first - 2, r - 1);
        }
        check(first, r);
        if (first + 1 <= last) check(first + 1, r);
        check(first + r / 2, r);
        check(last, r);
    }
}

TEST(TriangularMap, TriangularNumbersNeed64Bits) {
    EXPECT_EQ(triangular(0), 0u);
    EXPECT_EQ(triangular(1), 1u);
    EXPECT_EQ(triangular(4), 10u);
    // The N-body launch at T = 65536 tiles per side: more than 2^31 - 1 blocks, fewer than 2^32.
    EXPECT_EQ(triangular(65536), 2147516416ull);
    EXPECT_GT(triangular(65536), 2147483647ull);
    EXPECT_LT(triangular(tri::kMaxTilesPerSide), 1ull << 32);
}

TEST(TriangularMap, SmallCasesByHand) {
    const Coord want[] = {{0, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}, {3, 0}};
    for (std::uint32_t k = 0; k < 7; ++k) {
        for (const Coord c :
             {tri::lambda_exact(k), tri::lambda_fast(k), tri::lambda_paper(k, tri::kPaperEpsilon)}) {
            EXPECT_EQ(c.row, want[k].row) << "k=" << k;
            EXPECT_EQ(c.col, want[k].col) << "k=" << k;
        }
        // Eq. 5 (no diagonal): the same cells one row further down, col < row.
        const Coord nd = tri::lambda_nodiag_fast(k);
        EXPECT_EQ(nd.row, want[k].row + 1) << "k=" << k;
        EXPECT_EQ(nd.col, want[k].col) << "k=" << k;
    }
}

// Every k of every grid up to 4096 tiles per side (8.4 million blocks), both equations, the
// exact and the fast evaluation.
TEST(TriangularMap, ExhaustiveTo4096TilesPerSide) {
    constexpr std::uint32_t kT = 4096;
    std::uint64_t row = 0;
    for (std::uint64_t k = 0; k < triangular(kT); ++k) {
        if (k >= triangular(row + 1)) ++row;
        const auto k32 = static_cast<std::uint32_t>(k);
        const Coord f = tri::lambda_fast(k32), e = tri::lambda_exact(k32), nd = tri::lambda_nodiag_fast(k32),
                    nde = tri::lambda_nodiag_exact(k32);
        const std::uint64_t col = k - triangular(row);
        if (f.row != row || f.col != col || e.row != row || e.col != col || nd.row != row + 1 ||
            nd.col != col || nde.row != row + 1 || nde.col != col) {
            FAIL() << where(k, f, row) << " (exact: " << e.row << ", " << e.col << "; eq. 5 fast: " << nd.row
                   << ", " << nd.col << "; eq. 5 exact: " << nde.row << ", " << nde.col << ")";
        }
    }
}

// Up to 65536 tiles per side (n = 4M bodies with tiles of 64): the k next to every row boundary.
TEST(TriangularMap, RowBoundariesTo65536TilesPerSide) {
    int misses = 0;
    for_each_boundary_k(tri::kMaxTilesPerSide, [&](std::uint64_t k, std::uint64_t row) {
        if (misses > 5) return;
        const auto fast = [](std::uint32_t kk) { return tri::lambda_fast(kk); };
        const auto exact = [](std::uint32_t kk) { return tri::lambda_exact(kk); };
        const auto nodiag = [](std::uint32_t kk) {
            const Coord c = tri::lambda_nodiag_fast(kk);
            return Coord{c.row - 1, c.col};
        };
        for (auto r : {maps_right(fast, k, row), maps_right(exact, k, row), maps_right(nodiag, k, row)}) {
            if (!r) {
                ++misses;
                ADD_FAILURE() << r.message();
            }
        }
    });
    EXPECT_EQ(misses, 0);
}

// MUFU.RSQ is not 1 / sqrtf: CUDA documents rsqrtf at 2 ulp (2^-22 relative). The single integer
// correction tolerates any estimate within 1/2 of sqrt(2k + 1/4) (relative 2^-17 at the last row),
// so the fast map must stay exact with rsqrt errors 8x that bound (2^-19) in either direction...
TEST(TriangularMap, FastMapToleratesRsqrtErrorsFarBeyondMufu) {
    for (const float rel : {-0x1p-19f, -0x1p-21f, 0x1p-21f, 0x1p-19f}) {
        int misses = 0;
        const PerturbedRsqrt rsqrt{rel};
        const auto fast = [&](std::uint32_t k) { return tri::lambda_fast(k, rsqrt); };
        const auto nodiag = [&](std::uint32_t k) {
            const Coord c = tri::lambda_nodiag_fast(k, rsqrt);
            return Coord{c.row - 1, c.col};
        };
        for_each_boundary_k(tri::kMaxTilesPerSide, [&](std::uint64_t k, std::uint64_t row) {
            for (auto r : {maps_right(fast, k, row), maps_right(nodiag, k, row)}) {
                if (!r && ++misses <= 3) ADD_FAILURE() << "rsqrt error " << rel << ": " << r.message();
            }
        });
        EXPECT_EQ(misses, 0) << "rsqrt relative error " << rel;
    }
}

// ... and the check above is not vacuous: an rsqrt wrong by 2^-12 (an estimate off by up to 16
// rows at row 65535) does break the one-step correction.
TEST(TriangularMap, BoundaryCheckCatchesAnRsqrtTooCoarseForOneCorrection) {
    const PerturbedRsqrt coarse{0x1p-12f};
    int misses = 0;
    for_each_boundary_k(tri::kMaxTilesPerSide, [&](std::uint64_t k, std::uint64_t row) {
        const Coord c = tri::lambda_fast(static_cast<std::uint32_t>(k), coarse);
        if (!(c.row == row && tri::is_cell_of(k, c))) ++misses;
    });
    EXPECT_GT(misses, 0);
}

// The paper's variant (floor(x rsqrt(x) - 1/2 + eps), no integer step) is exact only while eps
// sits between the float error (~row * 2^-23) and the gap to the next boundary (~1/row); with the
// best eps found for 1 / sqrtf (3e-4) its first wrong block is in row 2410. That is why the kernel,
// whose tile grids reach row 65535, corrects the estimate instead.
TEST(TriangularMap, PaperVariantIsExactOnlyForSmallGrids) {
    std::uint64_t row = 0, first_wrong = 0;
    bool wrong = false;
    for (std::uint64_t k = 0; k < triangular(tri::kMaxTilesPerSide) && !wrong; ++k) {
        if (k >= triangular(row + 1)) ++row;
        const Coord c = tri::lambda_paper(static_cast<std::uint32_t>(k), tri::kPaperEpsilon);
        if (c.row != row || c.col != k - triangular(row)) {
            wrong = true;
            first_wrong = k;
        }
    }
    ASSERT_TRUE(wrong) << "the uncorrected variant was exact everywhere: the correction would be unneeded";
    EXPECT_GE(first_wrong, triangular(2000))
        << "eps = " << tri::kPaperEpsilon << " no longer reaches 2000 rows";
    std::printf("paper variant (eps %g, host 1/sqrtf): first wrong k = %llu, in row %llu\n",
                static_cast<double>(tri::kPaperEpsilon), static_cast<unsigned long long>(first_wrong),
                static_cast<unsigned long long>(row));
    // Eq. 5 with the same eps: exact through the same small range.
    for (std::uint64_t k = 0; k < triangular(1000); ++k) {
        const Coord c = tri::lambda_nodiag_paper(static_cast<std::uint32_t>(k), tri::kPaperEpsilon);
        ASSERT_TRUE(c.row >= 1 && tri::is_cell_of(k, Coord{c.row - 1, c.col})) << "k=" << k;
    }
}

// Every k up to T = 65536 (2.1e9 blocks): ~10 s on one core, so not part of the default run.
// Run with --gtest_also_run_disabled_tests --gtest_filter='*ExhaustiveTo65536*'.
TEST(TriangularMap, DISABLED_ExhaustiveTo65536TilesPerSide) {
    std::uint64_t row = 0;
    for (std::uint64_t k = 0; k < triangular(tri::kMaxTilesPerSide); ++k) {
        if (k >= triangular(row + 1)) ++row;
        const Coord f = tri::lambda_fast(static_cast<std::uint32_t>(k));
        if (f.row != row || f.col != k - triangular(row)) FAIL() << where(k, f, row);
    }
}

}  // namespace
