#pragma once
// GLFW without an OpenGL header of its own: GLEW's (gl.hpp) is the one this project uses, and
// it must come before any other.

#include "nbody/render/gl.hpp"
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
