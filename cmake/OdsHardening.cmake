# Sanitizer and fuzzing builds (docs/hardening.md), each in a build directory of its own
# (scripts/sanitize.sh: build-asan/, build-tsan/; scripts/fuzz.sh: build-fuzz/).
#   -DODS_SANITIZE=address,undefined | thread   every target compiled and linked with
#       -fsanitize=<list>; a finding stops the process (-fno-sanitize-recover=all).
#   -DODS_FUZZ=ON   clang only: every target gets libFuzzer's coverage instrumentation
#       (-fsanitize=fuzzer-no-link) and fuzz/ is added (one executable per target).
set(ODS_SANITIZE "" CACHE STRING "sanitizers for every target, e.g. address,undefined or thread")
option(ODS_FUZZ "build the libFuzzer targets in fuzz/ (clang)" OFF)

if(ODS_SANITIZE OR ODS_FUZZ)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 17)
    # clang 16 with g++ 12's libstdc++ (as scripts/lint.sh's clang-tidy): std::expected is
    # declared only when __cpp_concepts says 202002, and C++23 constexpr needs no marker.
    add_compile_options(-U__cpp_concepts -D__cpp_concepts=202002L -D_GLIBCXX23_CONSTEXPR=
      -Wno-builtin-macro-redefined)
  endif()
endif()

if(ODS_SANITIZE)
  add_compile_options(-fsanitize=${ODS_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${ODS_SANITIZE})
  # The test executables' own sources (ods_add_test) at -O0 with line tables only: the product's
  # libraries keep RelWithDebInfo (and so their ccache entries, shared with the fuzz targets),
  # while a test file, whose object misses the cache whenever it changes, compiles in half the
  # CPU time (6.5 s -> 3.1 s for planner/tests/fingerprint_test.cc under ASan+UBSan) and links
  # smaller. The sanitizers check -O0 code fully.
  set(ODS_TEST_COMPILE_OPTIONS -O0 -gline-tables-only)
endif()

if(ODS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ODS_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++-16")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
