# Shared settings for every ODS target, linked PRIVATE (ccache's standard_warnings pattern).
add_library(ods_settings INTERFACE)
target_compile_options(ods_settings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
  $<$<BOOL:${ODS_WERROR}>:-Werror>)
# cpprestsdk's U macro otherwise breaks GoogleTest's headers.
target_compile_definitions(ods_settings INTERFACE _TURN_OFF_PLATFORM_STRING)

# ods_add_library(<component> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Creates ods_<component> with alias ods::<component>; public headers in ./include.
function(ods_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(ods_${name} STATIC ${ARG_SOURCES})
  add_library(ods::${name} ALIAS ods_${name})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_include_directories(ods_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  target_link_libraries(ods_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ods_settings ${ARG_PRIVATE_DEPS})
endfunction()

# The source tree's and the build's paths for the tests (tests/harness/source_paths.h). The one
# object that has them compiled in: every other test object is free of the clone's path, so its
# ccache entry serves any clone (CCACHE_BASEDIR, CMakeLists.txt; docs/hardening.md).
add_library(ods_test_paths STATIC ${PROJECT_SOURCE_DIR}/tests/harness/source_paths.cc)
target_include_directories(ods_test_paths PUBLIC ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(ods_test_paths PRIVATE ods_settings)
target_compile_definitions(ods_test_paths PRIVATE
  ODS_CONFIGURED_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ODS_CONFIGURED_BIN_DIR="${CMAKE_BINARY_DIR}/bin")

# ods_add_test(<name> LABEL unit|integration|e2e SOURCES ... DEPS ... [TIMEOUT s] [ONE_PROCESS|NO_CTEST])
# One GoogleTest executable, discovered into ctest with its label. ONE_PROCESS registers the
# whole binary as one ctest test, for suites that share an expensive fixture per process.
# NO_CTEST registers nothing: the caller adds its own ctest tests (e.g. one per --gtest_filter).
include(GoogleTest)
function(ods_add_test name)
  cmake_parse_arguments(ARG "ONE_PROCESS;NO_CTEST" "LABEL;TIMEOUT" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE ods_settings ods_test_paths ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${ODS_TEST_COMPILE_OPTIONS})  # cmake/OdsHardening.cmake
  if(ARG_NO_CTEST)
    return()
  elseif(ARG_ONE_PROCESS)
    add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
    set_tests_properties(${name} PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT})
  else()
    gtest_discover_tests(${name} PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT}
      DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
