# Installs the build tree into a scratch prefix, then configures, builds and runs samples/hello as a separate
# project that finds Tumble with find_package(tumble), and runs its scene test (tumble_add_scene_test).
# Usage: cmake -DBUILD_DIR=<tumble build> -DSOURCE_DIR=<tumble source> -DWORK_DIR=<scratch> -P check_find_package.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/samples/hello" -B "${WORK_DIR}/hello"
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release ${EXTRA_FLAGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/hello" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK_DIR}/hello/tumble-hello" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer ran but failed: ${out}")
endif()
message(STATUS "find_package(tumble) consumer: ${out}")
# Its scene test, registered with the installed tumble_add_scene_test and run by the installed `tumble` command.
get_filename_component(cmake_bin "${CMAKE_COMMAND}" DIRECTORY)
execute_process(COMMAND "${cmake_bin}/ctest" --test-dir "${WORK_DIR}/hello" --output-on-failure
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "hello_scene \\.+ +Passed" OR NOT out MATCHES "tests passed, 0 tests failed out of 1\n")
  message(FATAL_ERROR "the consumer's scene test did not pass (${rc}):\n${out}\n${err}")
endif()
message(STATUS "find_package(tumble) consumer scene test:\n${out}")
