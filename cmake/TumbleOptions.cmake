# Compiler settings shared by every Tumble target.
#
# -ffp-contract=off: the compiler must not fuse a*b+c into an FMA on its own, or the same source gives
# different bits on machines with and without FMA and golden state hashes drift (Box2D does the same).

if(TUMBLE_SANITIZE)
  # Applies to every target defined after this point: the libraries, the tests and the samples.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

if(TUMBLE_BUILD_FUZZERS)
  # libFuzzer (https://llvm.org/docs/LibFuzzer.html): every target is compiled with the coverage instrumentation the
  # fuzzer needs (fuzzer-no-link) and with ASan+UBSan, so that a bad access or undefined behaviour anywhere in the
  # libraries stops the run; only the fuzz executables link the fuzzer's main (-fsanitize=fuzzer, tests/fuzz).
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TUMBLE_BUILD_FUZZERS needs Clang (libFuzzer); use the 'fuzz' preset (clang++-16)")
  endif()
  if(TUMBLE_SANITIZE)
    message(FATAL_ERROR "TUMBLE_BUILD_FUZZERS already adds ASan+UBSan: leave TUMBLE_SANITIZE off")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# TUMBLE_ASSERT (core/include/tumble/core/assert.hpp) checks internal invariants where TUMBLE_ENABLE_ASSERTS is 1:
# in Debug configurations, the sanitizer and fuzz builds (whose presets are RelWithDebInfo with NDEBUG, hence the
# explicit definition rather than NDEBUG) and with TUMBLE_ASSERTS; 0 everywhere else. Every target defined after
# this point gets it: the libraries, the tests and the samples agree. It is not exported: a project using an
# installed Tumble decides for its own code (assert.hpp then follows NDEBUG).
if(TUMBLE_ASSERTS OR TUMBLE_SANITIZE OR TUMBLE_BUILD_FUZZERS)
  add_compile_definitions(TUMBLE_ENABLE_ASSERTS=1)
else()
  add_compile_definitions($<IF:$<CONFIG:Debug>,TUMBLE_ENABLE_ASSERTS=1,TUMBLE_ENABLE_ASSERTS=0>)
endif()

function(tumble_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  if(TUMBLE_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# tumble_add_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Creates the library tumble_NAME with the alias tumble::NAME, public headers in NAME/include.
function(tumble_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(tumble_${name} ${ARG_SOURCES})
  add_library(tumble::${name} ALIAS tumble_${name})
  set_target_properties(tumble_${name} PROPERTIES
    EXPORT_NAME ${name}
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(tumble_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(tumble_${name} PUBLIC cxx_std_20)
  target_compile_options(tumble_${name} PRIVATE -ffp-contract=off)
  target_link_libraries(tumble_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  tumble_set_warnings(tumble_${name})
endfunction()
