# tumble_add_scene_test: registers a headless regression scene with CTest.
#
#   tumble_add_scene_test(NAME SCENE GOLDEN
#                         [TOLERANCE T]          # metres and radians (velocities T / dt); default 1e-5
#                         [BIT_IDENTICAL]        # also fail when every state is within T but not every bit the same
#                         [REQUIRES FILE...]     # skip the test (not fail) when one of these files is absent
#                         [COMMAND PATH]         # the tumble executable; default: the target tumble::cli
#                         [LABELS LABEL...])
#
# The test runs `tumble check SCENE GOLDEN`: it passes when every box state recorded in GOLDEN is reproduced within
# the tolerance, and fails with a report of the first step and box that differ otherwise. When it fails, the
# expected and actual pictures are written side by side to <build dir>/NAME.png. Relative SCENE, GOLDEN and
# REQUIRES paths are relative to the current source directory. Write GOLDEN with `tumble bless SCENE -o GOLDEN`.
#
# Available after find_package(tumble) (from an install of Tumble built with TUMBLE_BUILD_TOOLS=ON, which provides
# tumble::cli) and inside Tumble's own build. Needs enable_testing() (or include(CTest)) in the calling project.

set(_TUMBLE_SCENE_TEST_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(tumble_add_scene_test name scene golden)
  cmake_parse_arguments(ARG "BIT_IDENTICAL" "TOLERANCE;COMMAND" "REQUIRES;LABELS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tumble_add_scene_test(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(ARG_COMMAND)
    set(exe "${ARG_COMMAND}")
  elseif(TARGET tumble::cli)
    set(exe "$<TARGET_FILE:tumble::cli>")
  else()
    message(FATAL_ERROR "tumble_add_scene_test(${name}): the tumble command (target tumble::cli) is not available. "
                        "Use a Tumble built with TUMBLE_BUILD_TOOLS=ON, or pass COMMAND <path to tumble>.")
  endif()
  get_filename_component(scene "${scene}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(golden "${golden}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(args check "${scene}" "${golden}" --pictures "${CMAKE_CURRENT_BINARY_DIR}/${name}.png")
  if(DEFINED ARG_TOLERANCE)
    list(APPEND args --tolerance "${ARG_TOLERANCE}")
  endif()
  if(ARG_BIT_IDENTICAL)
    list(APPEND args --bit-identical)
  endif()
  if(ARG_REQUIRES)
    set(required "")
    foreach(file IN LISTS ARG_REQUIRES)
      get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND required "${file}")
    endforeach()
    # Checked when the test runs, not when CMake configures, so that a file that appears later is used. CMake
    # scripts cannot choose their exit code before CMake 3.29, hence the skip marker in the output.
    string(REPLACE ";" "|" args_text "${args}")
    string(REPLACE ";" "|" required_text "${required}")
    add_test(NAME ${name} COMMAND "${CMAKE_COMMAND}" "-DTUMBLE=${exe}" "-DARGS=${args_text}"
             "-DREQUIRES=${required_text}" -P "${_TUMBLE_SCENE_TEST_DIR}/TumbleSceneTestRun.cmake")
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "TUMBLE_SCENE_TEST_SKIPPED")
  else()
    add_test(NAME ${name} COMMAND "${exe}" ${args})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "tumble_scene;${ARG_LABELS}")
endfunction()
