#pragma once
// Shared by the scene, orbit and encounter sources for their error messages: numbers as a person
// wrote them ("15", "0.9", "1e+06"), and degrees.

#include <cstdio>
#include <numbers>
#include <string>

namespace nbody::message_format {

inline constexpr double kDegree = std::numbers::pi / 180.0;

inline std::string short_number(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

}  // namespace nbody::message_format
