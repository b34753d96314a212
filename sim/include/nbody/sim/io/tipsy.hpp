#pragma once
// TIPSY binary particle files (Katz, Quinn & Stadel's format, read by tipsy, pynbody, yt, and
// written by pkdgrav, ChaNGa and GASOLINE):
//   header  double time; int nbodies, ndim, nsph, ndark, nstar; [int pad]   28 or 32 bytes
//   gas     float mass, pos[3], vel[3], rho, temp, hsmooth, metals, phi      48 bytes each
//   dark    float mass, pos[3], vel[3], eps, phi                             36 bytes each
//   star    float mass, pos[3], vel[3], metals, tform, eps, phi              44 bytes each
// in that order. Byte order is detected from the header (ndim must read 3); the 4-byte pad is
// detected from the file size (and, for a damaged file, from whether those bytes are zero).
//
// Labels: dark particles are our Halo, star particles everything else. Reading gives dark ->
// Halo, star -> Star, gas -> Unspecified (there is no gas physics here: gas particles move as
// collisionless masses), all in galaxy 0. Writing puts Halo particles first (as dark), the others
// after (as star), each group in its original order. Galaxy indices and the disk/bulge split do
// not survive a TIPSY file; our snapshot format (.nbsnap) keeps them.

#include <string>
#include <string_view>

#include "nbody/sim/state.hpp"

namespace nbody::io {

enum class Endian { Little, Big };

struct TipsyWriteOptions {
    Endian endian = Endian::Big;  // the "standard" (XDR) byte order most codes write
    bool padded_header = true;    // 32-byte header; false writes the 28-byte one
    float softening = 0.0f;       // stored in each record's eps field
};

struct TipsyInfo {
    Endian endian = Endian::Big;
    bool padded_header = true;
    std::size_t gas = 0, dark = 0, star = 0;
};

// Throws std::runtime_error naming the file and the problem: not TIPSY (ndim is not 3 in either
// byte order), inconsistent counts, truncation (with the byte offset where data runs out), extra
// bytes, a negative or non-finite mass or coordinate (with the record and its offset).
State read_tipsy(const std::string& path, TipsyInfo* info = nullptr);
State decode_tipsy(std::string_view bytes, const std::string& source_name, TipsyInfo* info = nullptr);

// Written through a temporary file renamed into place.
void write_tipsy(const std::string& path, const State& state, const TipsyWriteOptions& options = {});
std::string encode_tipsy(const State& state, const TipsyWriteOptions& options = {});

}  // namespace nbody::io
