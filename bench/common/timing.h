#pragma once
// What the C++ benchmarks share: wall and CPU time of one call, and a nlohmann SAX handler
// that accepts everything (the cost of nlohmann's lexer alone). Header-only; include as
// "common/timing.h" with <repo>/bench on the include path.
#include <chrono>
#include <cstddef>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

namespace ods::bench {

struct Timing {
  double wall = 0;
  double cpu = 0;
};

template <class F>
Timing timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC};
}

struct NoopSax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool /*v*/) override { return true; }
  bool number_integer(number_integer_t /*v*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*v*/) override { return true; }
  bool number_float(number_float_t /*v*/, const string_t& /*s*/) override { return true; }
  bool string(string_t& /*v*/) override { return true; }
  bool binary(binary_t& /*v*/) override { return true; }
  bool start_object(std::size_t /*n*/) override { return true; }
  bool key(string_t& /*v*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*n*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t /*p*/, const std::string& /*t*/, const nlohmann::detail::exception& /*e*/) override {
    return false;
  }
};

}  // namespace ods::bench
