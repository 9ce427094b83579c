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

# Tests come in two tiers (docs/testing.md). Tier 1 (`make test`, every change): the unit suites and
# the integration suites that prove the CLI's main job; its tests carry the ctest label `tier1`.
# Tier 2 (`make test-all`): everything, run by CI a shard at a time; each test outside tier 1
# carries exactly one label `shard_<name>` (scripts/test-tiers.sh lists the shards and checks
# that every test has its tier). The build follows the tiers: the custom targets `tier1_tests`,
# `unit_tests` and `shard_<name>_tests` depend on the test programs of their set only.
#
# ods_test_tier(<target> TIER1|SHARD <name> [UNIT])
# Records <target> (an executable a set's tests run) in the build target of its set.
function(ods_test_tier target)
  cmake_parse_arguments(ARG "TIER1;UNIT" "SHARD" "" ${ARGN})
  if(ARG_TIER1)
    set_property(GLOBAL APPEND PROPERTY ODS_TESTS_TIER1 ${target})
  endif()
  if(ARG_UNIT)
    set_property(GLOBAL APPEND PROPERTY ODS_TESTS_UNIT ${target})
  endif()
  if(ARG_SHARD)
    set_property(GLOBAL APPEND PROPERTY ODS_TEST_SHARDS ${ARG_SHARD})
    set_property(GLOBAL APPEND PROPERTY ODS_TESTS_SHARD_${ARG_SHARD} ${target})
  endif()
endfunction()

# ods_tier_labels(<out-var> <label> TIER1|SHARD <name>): the ctest labels of a test of that set.
function(ods_tier_labels out label)
  cmake_parse_arguments(ARG "TIER1" "SHARD" "" ${ARGN})
  if(label STREQUAL "unit" OR ARG_TIER1)
    set(${out} "${label};tier1" PARENT_SCOPE)
  elseif(ARG_SHARD)
    set(${out} "${label};shard_${ARG_SHARD}" PARENT_SCOPE)
  else()
    message(FATAL_ERROR "a ${label} test needs TIER1 or SHARD <name> (cmake/OdsHelpers.cmake)")
  endif()
endfunction()

# ods_define_test_sets(): the build targets of the sets, after every test is declared.
function(ods_define_test_sets)
  get_property(tier1 GLOBAL PROPERTY ODS_TESTS_TIER1)
  get_property(unit GLOBAL PROPERTY ODS_TESTS_UNIT)
  get_property(shards GLOBAL PROPERTY ODS_TEST_SHARDS)
  list(REMOVE_DUPLICATES tier1)
  add_custom_target(tier1_tests)
  add_dependencies(tier1_tests ${tier1} ods)
  if(TARGET ods-operator)
    add_dependencies(tier1_tests ods-operator)  # the image check reads what it links
  endif()
  add_custom_target(unit_tests)
  add_dependencies(unit_tests ${unit})
  list(REMOVE_DUPLICATES shards)
  foreach(shard ${shards})
    get_property(targets GLOBAL PROPERTY ODS_TESTS_SHARD_${shard})
    list(REMOVE_DUPLICATES targets)
    add_custom_target(shard_${shard}_tests)
    add_dependencies(shard_${shard}_tests ${targets} tier1_tests)  # fixtures and binaries tier 1 has
  endforeach()
endfunction()

# ods_add_filtered_test(<name> <binary> <filter> [ARGS ...]): a ctest test running the part of the
# GoogleTest executable <binary> that --gtest_filter=<filter> selects, through
# tests/harness/gtest_filter.sh: it fails when any pattern of the filter (selected or excluded)
# matches no test, so a rename cannot leave a test that runs nothing. Give it its labels after.
function(ods_add_filtered_test name binary filter)
  cmake_parse_arguments(ARG "" "" "ARGS" ${ARGN})
  add_test(NAME ${name} COMMAND ${PROJECT_SOURCE_DIR}/tests/harness/gtest_filter.sh $<TARGET_FILE:${binary}> ${filter}
    --gtest_color=no ${ARG_ARGS})
endfunction()

# ods_add_test(<name> LABEL unit|integration|e2e SOURCES ... DEPS ... [TIMEOUT s] [COST c]
#              [TIER1 | SHARD <name>] [ONE_PROCESS|NO_CTEST])
# One GoogleTest executable, discovered into ctest with its label. Unit suites are tier 1;
# any other suite says TIER1 or its SHARD. COST (ctest's, seconds as measured) starts long
# tests first. ONE_PROCESS registers the whole binary as one ctest test, for suites that share
# an expensive fixture per process. NO_CTEST registers nothing: the caller adds its own ctest
# tests (e.g. one per --gtest_filter, ods_add_filtered_test) with ods_tier_labels(); TIER1/SHARD still place the binary
# in the build targets of its sets.
include(GoogleTest)
function(ods_add_test name)
  cmake_parse_arguments(ARG "ONE_PROCESS;NO_CTEST;TIER1" "LABEL;TIMEOUT;COST;SHARD" "SOURCES;DEPS" ${ARGN})
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
  set(tier_args)
  if(ARG_LABEL STREQUAL "unit")
    ods_test_tier(${name} TIER1 UNIT)
  elseif(ARG_TIER1)
    ods_test_tier(${name} TIER1)
    set(tier_args TIER1)
  elseif(ARG_SHARD)
    ods_test_tier(${name} SHARD ${ARG_SHARD})
    set(tier_args SHARD ${ARG_SHARD})
  elseif(NOT ARG_NO_CTEST)
    message(FATAL_ERROR "ods_add_test(${name}): a ${ARG_LABEL} suite needs TIER1 or SHARD <name>")
  endif()
  if(ARG_NO_CTEST)
    return()
  endif()
  ods_tier_labels(labels ${ARG_LABEL} ${tier_args})
  if(ARG_ONE_PROCESS)
    add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT})
    if(ARG_COST)
      set_tests_properties(${name} PROPERTIES COST ${ARG_COST})
    endif()
  else()
    gtest_discover_tests(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} DISCOVERY_TIMEOUT 60)
    # The labels after discovery (gtest_discover_tests splits a list value of PROPERTIES): a
    # ctest include file that runs after the discovered tests' own.
    set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
    file(WRITE ${label_file} "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\")\nendif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
  endif()
endfunction()
