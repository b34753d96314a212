#version 450 core
// One point sprite per particle. Light adds up in a float target; see particles.frag.

layout(location = 0) in vec4 a_position;  // x, y, z, mass: the buffer the integrator just wrote
layout(location = 1) in vec4 a_previous;  // the same particle in the other ping-pong buffer
layout(location = 2) in uint a_label;     // galaxy | component << 16

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

out vec3 v_light;

const uint kBulge = 2u;
const uint kHalo = 3u;

// Integer hash (Wellons' lowbias32): a fixed pseudo-random value per particle index.
uint hash(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Stars are not all alike: each particle gets a fixed brightness and a shift toward red or
// blue, which turns a flat tint into something that reads as a stellar population. Mean
// brightness stays 1, so exposure means the same at any variety.
vec3 variation(uint index) {
    uint h = hash(index);
    float u1 = float(h & 0xffffu) / 65535.0;
    float u2 = float(h >> 16) / 65535.0;
    float brightness = 0.45 + 1.65 * u1 * u1;          // mean 1.0, a few bright ones
    vec3 tint = mix(vec3(1.25, 0.92, 0.72), vec3(0.78, 0.92, 1.25), u2);
    return mix(vec3(1.0), brightness * tint, u_variety);
}

// Mode 4 (stellar_colours.hpp): the table spans 0.08 to 100 solar masses in log mass.
float stellar_mass() { return max(a_position.w * u_solar_masses_per_unit, 1e-30); }
float stellar_table_position() { return clamp(log(stellar_mass() / 0.08) / log(100.0 / 0.08), 0.0, 1.0); }
// Mirrors stellar_size_factor(): width as M^(1/3), 0.6 to 3 times a solar-mass star's.
float stellar_size() { return clamp(pow(stellar_mass(), 1.0 / 3.0), 0.6, 3.0); }

vec3 particle_colour(uint galaxy, uint component) {
    if (u_colour_mode == 4) return texture(u_colour_map, vec2(stellar_table_position(), 0.5)).rgb;
    if (u_colour_mode == 2 && u_inv_dt > 0.0) {
        // Leapfrog drifts x by v(t + dt/2) dt, so displacement over time is the drift speed.
        float speed = length(a_position.xyz - a_previous.xyz) * u_inv_dt;
        float t = clamp(speed * u_inv_speed_scale, 0.0, 1.0);
        // Start the map above its darkest end so that slow particles stay visible.
        return texture(u_colour_map, vec2(0.12 + 0.88 * t, 0.5)).rgb;
    }
    if (u_colour_mode == 0) {
        vec3 c = u_galaxy_colours[galaxy & 7u];
        // Bulges are old, redder-white stars: lift them toward warm white within the galaxy's hue.
        return component == kBulge ? mix(c, vec3(1.0, 0.85, 0.65), 0.45) : c;
    }
    if (u_colour_mode == 1) return u_component_colours[min(component, 4u)];
    return u_plain_colour;
}

void main() {
    uint galaxy = a_label & 0xffffu;
    uint component = a_label >> 16;
    vec4 eye = u_view * vec4(a_position.xyz, 1.0);
    gl_Position = u_projection * eye;
    if (u_hide_halo != 0 && component == kHalo) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside every clip plane: the point is dropped
        gl_PointSize = 1.0;
        v_light = vec3(0.0);
        return;
    }
    float dist = max(-eye.z, 1e-6);
    float star = u_colour_mode == 4 ? stellar_size() : 1.0;
    float size = star * (u_reference_distance > 0.0 ? u_point_size * u_reference_distance / dist : u_point_size);
    float drawn = clamp(size, u_min_size, 64.0);
    // A sprite drawn wider than it should be keeps its total light: dim by the area ratio.
    // One nearer than the target grows, but its light only in proportion to its width, not
    // its area: a halo particle passing the camera is a soft haze, not a bright blob.
    float dim = size < drawn ? (size * size) / (drawn * drawn) : u_point_size / max(drawn, u_point_size);
    gl_PointSize = drawn;
    float halo = component == kHalo ? u_halo_brightness : 1.0;
    vec3 colour = particle_colour(galaxy, component);
    if (u_colour_mode != 2 && u_colour_mode != 4) colour *= variation(uint(gl_VertexID));  // data: left as it is
    v_light = colour * (u_intensity * dim * halo * star * star);  // a heavy star: wider and brighter
}
