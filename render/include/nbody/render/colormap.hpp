#pragma once
// Colour maps for colouring particles by a scalar (speed). Tables are in linear RGB, since the
// renderer adds light linearly and encodes to sRGB only at the end.

#include <array>
#include <glm/vec3.hpp>
#include <string_view>
#include <vector>

namespace nbody::render {

enum class ColorMap { Inferno = 0, Viridis = 1, IceFire = 2, Plasma = 3 };
inline constexpr std::array<std::string_view, 4> kColorMapNames{"inferno", "viridis", "ice-fire", "plasma"};

// `n` samples from 0 to 1, linear RGB.
std::vector<glm::vec3> colormap_table(ColorMap map, int n = 256);

// sRGB-encoded [0, 1] to linear.
float srgb_to_linear(float c);
glm::vec3 srgb_to_linear(const glm::vec3& c);

}  // namespace nbody::render
