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

#include "common/timing.h"
#include "ods/dbt/artifacts.h"

namespace {

using ods::bench::NoopSax;
using ods::bench::timed;
using ods::bench::Timing;

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
