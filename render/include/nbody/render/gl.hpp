#pragma once
// The one way this project includes OpenGL: GLEW first (it must precede any other GL header),
// then nothing else. Include this instead of <GL/gl.h> or <GL/glew.h>.

#include <GL/glew.h>
