#pragma once
// Brightness of a captured frame as the eye weighs the channels (Rec. 709 weights on the sRGB
// bytes): the measure the render tests compare frames and find lit pixels by.

#include "nbody/render/frame_capture.hpp"

namespace nbody::render {

inline float luminance(const Image& image, int x, int y) {
    const std::uint8_t* p = image.pixel(x, y);
    return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
}

inline double mean_luminance(const Image& image) {
    double sum = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) sum += luminance(image, x, y);
    return sum / (double(image.width) * image.height);
}

}  // namespace nbody::render
