// The JSON readers side by side on one file (issue #13: one way to read JSON, chosen by
// measurement). Every mode reads the whole text and validates it; the walk modes touch every
// value, so simdjson's On-Demand API (which validates only what it is asked for) does the same
// work as the others.
//
// Usage: json_readers_bench <file.json> [--mode NAME] [--rounds N]
//   without --mode: every mode in turn, interleaved over N rounds (default 3), best and median
//   wall and CPU per mode, MB/s, and each mode's ratio to `ods_json_walk`;
//   with --mode: that mode once (for peak memory: run under /usr/bin/time -v, one process a mode).
// Modes:
//   ods_json_walk      json/ Reader (ods::json): pull every value (strings decoded)
//   ods_json_skip      json/ Reader: skip() the whole value (validating, no DOM): the same work
//                      as dbt_reader_skip, tokenizer against tokenizer
//   dbt_reader_skip    providers/dbt JsonReader (over json/'s Reader since ADR-0030's last
//                      step): skip the value (validating, no DOM)
//   dbt_reader_dom     providers/dbt JsonReader: build an ordered nlohmann DOM
//   nlohmann_sax       nlohmann::json::sax_parse with a handler that does nothing
//   nlohmann_dom       nlohmann::json::parse
//   simdjson_ondemand  simdjson On-Demand: walk every value (strings unescaped)
//   simdjson_dom       simdjson DOM parser
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/timing.h"
#include "json_reader.h"  // providers/dbt/src (internal)
#include "ods/json/reader.h"

namespace {

using ods::bench::NoopSax;
using ods::bench::timed;
using ods::bench::Timing;

// Every value of the current position, depth first; returns a count so nothing is optimised away.
std::size_t walk(ods::json::Reader& r) {
  std::size_t n = 1;
  switch (r.peek()) {
    case ods::json::Type::object: {
      r.begin_object();
      std::string_view key;
      while (r.next_member(key)) n += walk(r);
      break;
    }
    case ods::json::Type::array:
      r.begin_array();
      while (r.next_element()) n += walk(r);
      break;
    case ods::json::Type::string:
      n += r.string_view().size();
      break;
    case ods::json::Type::number:
      n += r.number_text().size();
      break;
    case ods::json::Type::boolean:
      n += r.boolean() ? 1 : 0;
      break;
    case ods::json::Type::null:
      r.null();
      break;
  }
  return n;
}

std::size_t walk(simdjson::ondemand::value value) {
  std::size_t n = 1;
  switch (value.type()) {
    case simdjson::ondemand::json_type::object:
      for (auto field : value.get_object()) {
        n += std::string_view(field.unescaped_key().value()).size();
        n += walk(field.value());
      }
      break;
    case simdjson::ondemand::json_type::array:
      for (auto element : value.get_array()) n += walk(element.value());
      break;
    case simdjson::ondemand::json_type::string:
      n += std::string_view(value.get_string().value()).size();
      break;
    case simdjson::ondemand::json_type::number:
      n += static_cast<std::size_t>(value.get_double().value() != 0);
      break;
    case simdjson::ondemand::json_type::boolean:
      n += value.get_bool().value() ? 1 : 0;
      break;
    case simdjson::ondemand::json_type::null:
      n += value.is_null() ? 1 : 0;
      break;
  }
  return n;
}

using Mode = std::function<std::size_t(const std::string&)>;

std::map<std::string, Mode> modes() {
  return {
      {"ods_json_walk",
       [](const std::string& text) {
         ods::json::Reader r(text);
         const std::size_t n = walk(r);
         r.finish();
         return n;
       }},
      {"ods_json_skip",
       [](const std::string& text) {
         ods::json::Reader r(text);
         r.skip();
         r.finish();
         return text.size();
       }},
      {"dbt_reader_skip",
       [](const std::string& text) {
         ods::dbt::internal::JsonReader r(text, "bench");
         r.read_value(nullptr);
         r.tokens().finish();
         return text.size();
       }},
      {"dbt_reader_dom",
       [](const std::string& text) {
         ods::dbt::internal::JsonReader r(text, "bench");
         ods::dbt::internal::Json doc;
         r.read_value(&doc);
         r.tokens().finish();
         return doc.size();
       }},
      {"nlohmann_sax",
       [](const std::string& text) {
         NoopSax sax;
         if (!nlohmann::json::sax_parse(text, &sax)) throw std::runtime_error("nlohmann sax: parse error");
         return text.size();
       }},
      {"nlohmann_dom", [](const std::string& text) { return nlohmann::json::parse(text).size(); }},
      {"simdjson_ondemand",
       [](const std::string& text) {
         static simdjson::ondemand::parser parser;
         simdjson::padded_string padded(text);
         auto doc = parser.iterate(padded);
         return walk(doc.get_value().value());
       }},
      {"simdjson_dom",
       [](const std::string& text) {
         static simdjson::dom::parser parser;
         simdjson::dom::element root = parser.parse(text);
         return static_cast<std::size_t>(root.is_object());
       }},
  };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <file.json> [--mode NAME] [--rounds N]\n", argv[0]);
    return 2;
  }
  std::string only;
  int rounds = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--mode") {
      only = argv[i + 1];
    } else if (flag == "--rounds") {
      rounds = std::max(1, std::stoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const double mb = static_cast<double>(text.size()) / 1e6;
  const auto all = modes();
  try {
    if (!only.empty()) {
      auto it = all.find(only);
      if (it == all.end()) {
        std::fprintf(stderr, "unknown mode %s\n", only.c_str());
        return 2;
      }
      std::size_t n = 0;
      const Timing t = timed([&] { n = it->second(text); });
      std::printf("%-18s %.1f MB  wall=%.3fs (%.1f MB/s) cpu=%.3fs  [%zu]\n", only.c_str(), mb, t.wall, mb / t.wall,
                  t.cpu, n);
      return 0;
    }
    std::map<std::string, std::vector<double>> walls, cpus;
    for (int round = 0; round < rounds; ++round) {
      for (const auto& [name, mode] : all) {
        std::size_t n = 0;
        const Timing t = timed([&] { n = mode(text); });
        if (n == 0) std::printf("%s read nothing\n", name.c_str());
        walls[name].push_back(t.wall);
        cpus[name].push_back(t.cpu);
      }
    }
    const double base = median(cpus["ods_json_walk"]);
    std::printf("%.1f MB, %d rounds interleaved; MB/s from the median CPU time (wall beside it)\n", mb, rounds);
    std::printf("%-18s %10s %10s %10s %12s\n", "mode", "cpu s", "MB/s", "wall s", "vs ods_json");
    for (const auto& [name, cpu] : cpus) {
      const double c = median(cpu);
      std::printf("%-18s %10.3f %10.1f %10.3f %11.2fx\n", name.c_str(), c, mb / c, median(walls[name]), base / c);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
