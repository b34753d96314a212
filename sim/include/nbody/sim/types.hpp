#pragma once
// Plain value types shared by every backend. Vec4f has the exact layout of CUDA's float4 and of
// the OpenGL vertex attribute (x, y, z, w), so one array serves the kernel and the vertex buffer.

#include <cmath>
#include <cstdint>

namespace nbody {

struct alignas(16) Vec4f {
    float x = 0, y = 0, z = 0, w = 0;
};
static_assert(sizeof(Vec4f) == 16, "Vec4f must match float4");

struct Vec3d {
    double x = 0, y = 0, z = 0;

    constexpr Vec3d& operator+=(const Vec3d& o) { x += o.x; y += o.y; z += o.z; return *this; }
    constexpr Vec3d& operator-=(const Vec3d& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    constexpr Vec3d& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
    friend constexpr Vec3d operator+(Vec3d a, const Vec3d& b) { return a += b; }
    friend constexpr Vec3d operator-(Vec3d a, const Vec3d& b) { return a -= b; }
    friend constexpr Vec3d operator*(Vec3d a, double s) { return a *= s; }
    friend constexpr Vec3d operator*(double s, Vec3d a) { return a *= s; }
    friend constexpr Vec3d operator/(Vec3d a, double s) { return a *= (1.0 / s); }
};

constexpr double dot(const Vec3d& a, const Vec3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3d cross(const Vec3d& a, const Vec3d& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(const Vec3d& a) { return std::sqrt(dot(a, a)); }

inline Vec3d xyz(const Vec4f& v) { return {v.x, v.y, v.z}; }

}  // namespace nbody
