// Parse throughput of read_dbt_project on a (large) manifest, e.g. one made by
// gen_big_manifest.py.
//
// Usage: ods_dbt_parse_bench <manifest.json> [--compare]
// Prints nodes, size, wall and CPU seconds and MB/s. With --compare it also times
// nlohmann::json's own parser on the same bytes in the same run (SAX with a handler that
// does nothing, and the DOM), so results can be read as ratios on any machine. Peak
// memory: run without --compare under /usr/bin/time -v (the DOM takes ~10x the file).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "ods/dbt/artifacts.h"

namespace {

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

// A SAX handler that accepts everything: the cost of nlohmann's lexer alone.
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

void report(const char* what, double mb, const Timing& t) {
  std::printf("%-28s wall=%.3fs (%.1f MB/s) cpu=%.3fs (%.1f MB/s)\n", what, t.wall, mb / t.wall, t.cpu, mb / t.cpu);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <manifest.json> [--compare]\n", argv[0]);
    return 2;
  }
  const bool compare = argc > 2 && std::string_view(argv[2]) == "--compare";
  ods::dbt::ArtifactPaths paths;
  paths.manifest = argv[1];
  const double mb = static_cast<double>(std::filesystem::file_size(paths.manifest)) / 1e6;

  ods::Result<ods::dbt::DbtProject> project = ods::fail("not_run", "");
  const Timing ours = timed([&] { project = ods::dbt::read_dbt_project(paths, {}); });
  if (!project) {
    std::fprintf(stderr, "%s: %s\n", project.error().code.c_str(), project.error().message.c_str());
    return 1;
  }
  std::printf("nodes=%zu sources=%zu size=%.1fMB\n", project->inputs.nodes.size(), project->inputs.sources.size(), mb);
  report("ods read_dbt_project", mb, ours);
  if (!compare) return 0;

  std::ifstream in(paths.manifest, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  NoopSax sax;
  const Timing noop = timed([&] { nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &sax); });
  report("nlohmann SAX, no-op handler", mb, noop);
  std::size_t members = 0;
  const Timing dom = timed([&] { members = nlohmann::json::parse(text).size(); });
  report("nlohmann DOM", mb, dom);
  if (members == 0) return 1;
  std::printf("ratio (cpu): ods / nlohmann SAX no-op = %.2fx faster, ods / nlohmann DOM = %.2fx faster\n",
              noop.cpu / ours.cpu, dom.cpu / ours.cpu);
  return 0;
}
