// One particle's sprite: its width on screen and its light. Shared by the two ways particles
// are drawn (particles.vert: GL points; splat.comp: a compute pass), so they cannot drift apart.
// Included after `#version`; the includer names the particle's data.
//
// render/include/nbody/render/sprite_arithmetic.hpp is the C++ copy the CUDA deposit
// (`--sprites cuda`) runs; it says why there are two. Both are written operation for operation
// alike, on `precise` values here (no multiply fused into an add, nothing reordered; mix() and
// matrix products written out, divisions as a * (1.0 / b)), so that they round alike and the
// deposits' integer sums agree to the bit. Change one, change the other.

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_point_size;          // sprite diameter, pixels, at u_reference_distance
uniform float u_reference_distance;  // 0: every sprite is u_point_size wide
uniform float u_min_size;            // narrower sprites alias; they are drawn this wide, dimmed
uniform float u_intensity;           // peak light of one sprite
uniform int u_colour_mode;           // 0 galaxy, 1 component, 2 speed, 3 plain, 4 stellar mass
uniform int u_hide_halo;            // 1: halo particles are not drawn
uniform float u_halo_brightness;
uniform float u_inv_dt;              // 1 / time between the two buffers; 0 when unknown
uniform float u_inv_speed_scale;
uniform float u_solar_masses_per_unit;  // mode 4: a body's mass in solar masses
uniform sampler2D u_colour_map;      // mode 2: the speed map; mode 4: stellar colours by log mass
uniform vec3 u_galaxy_colours[8];
uniform vec3 u_component_colours[5];
uniform vec3 u_plain_colour;
uniform float u_variety;             // 0: every particle of a kind alike; 1: full spread

const uint kBulge = 2u;
const uint kHalo = 3u;
const float kMaxSpritePixels = 64.0;

// Integer hash (Wellons' lowbias32): a fixed pseudo-random value per particle index.
uint hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// a (1 - t) + b t as written (mix() leaves the compiler the form).
vec3 lerp(vec3 a, vec3 b, float t) {
    precise vec3 r = a * (1.0 - t) + b * t;
    return r;
}

// m v, summed column by column in this order (a matrix product leaves the order open).
vec4 transform(mat4 m, vec4 v) {
    precise vec4 r = m[0] * v.x + m[1] * v.y + m[2] * v.z + m[3] * v.w;
    return r;
}

// Stars are not all alike: each particle gets a fixed brightness and a shift toward red or
// blue, which turns a flat tint into something that reads as a stellar population. Mean
// brightness stays 1, so exposure means the same at any variety.
vec3 variation(uint index) {
    uint h = hash(index);
    precise float u1 = float(h & 0xffffu) * (1.0 / 65535.0);
    precise float u2 = float(h >> 16) * (1.0 / 65535.0);
    precise float brightness = 0.45 + 1.65 * u1 * u1;          // mean 1.0, a few bright ones
    precise vec3 tint = lerp(vec3(1.25, 0.92, 0.72), vec3(0.78, 0.92, 1.25), u2);
    precise vec3 r = lerp(vec3(1.0), tint * brightness, u_variety);
    return r;
}

// Mode 4 (stellar_colours.hpp): the table spans 0.08 to 100 solar masses in log mass:
// ln(m / 0.08) / ln(1250) = log2(m / 0.08) / log2(1250).
float stellar_mass(float mass) { return max(mass * u_solar_masses_per_unit, 1e-30); }
float stellar_table_position(float mass) {
    precise float t = log2(stellar_mass(mass) * (1.0 / 0.08)) * (1.0 / 10.2877124);
    return clamp(t, 0.0, 1.0);
}
// Mirrors stellar_size_factor(): width as M^(1/3), 0.6 to 3 times a solar-mass star's.
float stellar_size(float mass) {
    precise float s = exp2(log2(stellar_mass(mass)) * (1.0 / 3.0));
    return clamp(s, 0.6, 3.0);
}

vec3 particle_colour(vec4 position, vec4 previous, uint galaxy, uint component) {
    if (u_colour_mode == 4) return textureLod(u_colour_map, vec2(stellar_table_position(position.w), 0.5), 0.0).rgb;
    if (u_colour_mode == 2 && u_inv_dt > 0.0) {
        // Leapfrog drifts x by v(t + dt/2) dt, so displacement over time is the drift speed.
        precise float speed = length(position.xyz - previous.xyz) * u_inv_dt;
        precise float t = clamp(speed * u_inv_speed_scale, 0.0, 1.0);
        // Start the map above its darkest end so that slow particles stay visible.
        precise float at = 0.12 + 0.88 * t;
        return textureLod(u_colour_map, vec2(at, 0.5), 0.0).rgb;
    }
    if (u_colour_mode == 0) {
        vec3 c = u_galaxy_colours[galaxy & 7u];
        // Bulges are old, redder-white stars: lift them toward warm white within the galaxy's hue.
        return component == kBulge ? lerp(c, vec3(1.0, 0.85, 0.65), 0.45) : c;
    }
    if (u_colour_mode == 1) return u_component_colours[min(component, 4u)];
    return u_plain_colour;
}

struct Sprite {
    vec4 clip;      // clip-space centre
    float width;    // drawn diameter, physical pixels
    vec3 light;     // at the centre; the profile is sprite_profile()
    bool visible;
};

Sprite particle_sprite(vec4 position, vec4 previous, uint label, uint index) {
    Sprite s;
    uint galaxy = label & 0xffffu;
    uint component = label >> 16;
    precise vec4 eye = transform(u_view, vec4(position.xyz, 1.0));
    precise vec4 clip = transform(u_projection, eye);
    s.clip = clip;
    s.visible = !(u_hide_halo != 0 && component == kHalo);
    precise float dist = max(-eye.z, 1e-6);
    precise float star = u_colour_mode == 4 ? stellar_size(position.w) : 1.0;
    precise float size =
        star * (u_reference_distance > 0.0 ? u_point_size * u_reference_distance * (1.0 / dist) : u_point_size);
    s.width = clamp(size, u_min_size, kMaxSpritePixels);
    // A sprite drawn wider than it should be keeps its total light: dim by the area ratio.
    // One nearer than the target grows, but its light only in proportion to its width, not
    // its area: a halo particle passing the camera is a soft haze, not a bright blob.
    precise float dim = size < s.width ? size * size * (1.0 / (s.width * s.width))
                                       : u_point_size * (1.0 / max(s.width, u_point_size));
    float halo = component == kHalo ? u_halo_brightness : 1.0;
    precise vec3 colour = particle_colour(position, previous, galaxy, component);
    if (u_colour_mode != 2 && u_colour_mode != 4) colour = colour * variation(index);  // data: left as it is
    precise vec3 light = colour * (u_intensity * dim * halo * star * star);  // a heavy star: wider and brighter
    s.light = light;
    return s;
}

// Soft Gaussian sprite at `r2` = (distance from the centre / half the width)^2. exp(-4 r^2) is
// 1.8% at the rim (r = 1); subtracting that and rescaling brings it to exactly zero there, so
// overlapping sprites show no hard edges.
float sprite_profile(float r2) {
    const float rim = 0.01831564;  // exp(-4)
    return r2 >= 1.0 ? 0.0 : (exp(-4.0 * r2) - rim) / (1.0 - rim);
}
