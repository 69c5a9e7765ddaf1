#pragma once
/// @file
/// OpenGL 3.3 core declarations for the viewer. On Linux, libGL (GLVND) exports every core entry point, so the
/// prototypes of the Khronos header are linked directly and no loader is needed; GLFW only creates the context.
/// (Dear ImGui's OpenGL 3 backend loads its own functions.)

#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
