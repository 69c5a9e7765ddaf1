# Runs one scene test registered by tumble_add_scene_test with REQUIRES: skips it (prints the marker CTest looks
# for) when a required file is absent, otherwise runs tumble check and fails when it does.
# Usage: cmake -DTUMBLE=<tumble> -DARGS=<a|b|c> -DREQUIRES=<f1|f2> -P TumbleSceneTestRun.cmake
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" required "${REQUIRES}")
foreach(file IN LISTS required)
  if(NOT EXISTS "${file}")
    message("TUMBLE_SCENE_TEST_SKIPPED: ${file} is not present")
    return()
  endif()
endforeach()
execute_process(COMMAND "${TUMBLE}" ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tumble ${args} exited with ${rc}")
endif()
