// state_store_bench: the PostgreSQL state store against SQLite (the peer, same run) on a
// generated 10k-node project. Snapshots and ledger plans are the real ones: made by the
// planner's record() and plan() from generated project inputs. Measures
//   - one commit of the first (full) snapshot, and one latest() of it;
//   - the database's growth per run over R runs where nothing changed (each run commits a
//     snapshot and a ledger entry), and over R runs that rebuild 1% of the nodes;
// and prints the figures, the ratios to the targets (commit and read < 1 s; a no-change
// run adds < 1% of the first snapshot's size) and PostgreSQL/SQLite ratios.
//
//   state_store_bench [NODES [RUNS]]     defaults: 10000 100
// Starts its own PostgreSQL server (tests/harness/postgres_server.h: fsync off) and
// writes SQLite files in a temp dir.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "document_pieces.h"
#include "harness/postgres_server.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/state/stores.h"

namespace {

using ods::contracts::StateStore;
using namespace ods::planner;
namespace fs = std::filesystem;

constexpr char kScope[] = "bench/prod";

std::string hex_of(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string digest_of(std::mt19937_64& random) {
  return "sha256:" + hex_of(random()) + hex_of(random()) + hex_of(random()) + hex_of(random());
}

// A project of `count` nodes in a DAG (each node reads two earlier ones, or a source), with
// ids whose sorted order is unrelated to the DAG, as in real projects.
ProjectInputs make_inputs(int count) {
  std::mt19937_64 random(42);
  ProjectInputs in;
  in.project = "bench";
  in.target = "prod";
  in.target_identity = "duckdb:bench.main";
  for (int s = 0; s < 50; ++s) {
    SourceInput source;
    source.id = "source.bench.raw.t" + std::to_string(s);
    source.name = "raw.t" + std::to_string(s);
    // Known and unchanged: a reader builds only when its own code changes.
    source.version = DataVersion{"rows=1000;hash=" + std::to_string(s), Exactness::exact, "duckdb_content",
                                 "2026-11-01T00:00:01.000000Z"};
    in.sources.push_back(source);
  }
  for (int i = 0; i < count; ++i) {
    NodeInput node;
    node.name = "m_" + hex_of(random()).substr(0, 10) + "_" + std::to_string(i);
    node.id = "model.bench." + node.name;
    node.resource_type = "model";
    node.relation = "\"bench\".\"main\".\"" + node.name + "\"";
    for (const char* component : {"sql", "config", "macros", "vars", "adapter"}) {
      node.fingerprint.components[component] = digest_of(random);
    }
    node.raw_digest = digest_of(random);
    node.checks_digest = i % 3 == 0 ? digest_of(random) : "";
    if (i < 500) {
      node.parents.push_back(in.sources[static_cast<std::size_t>(i % 50)].id);
    } else {
      node.parents.push_back(in.nodes[static_cast<std::size_t>(random() % static_cast<std::uint64_t>(i))].id);
      node.parents.push_back(in.nodes[static_cast<std::size_t>(random() % static_cast<std::uint64_t>(i))].id);
      std::sort(node.parents.begin(), node.parents.end());
      node.parents.erase(std::unique(node.parents.begin(), node.parents.end()), node.parents.end());
    }
    in.nodes.push_back(node);
  }
  return in;
}

// Nodes no other node reads: rebuilding one rebuilds nothing else.
std::vector<std::size_t> leaves(const ProjectInputs& in) {
  std::set<std::string> read;
  for (const auto& node : in.nodes) read.insert(node.parents.begin(), node.parents.end());
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < in.nodes.size(); ++i)
    if (!read.contains(in.nodes[i].id)) out.push_back(i);
  return out;
}

std::string at_second(int second) {
  char text[40];
  std::snprintf(text, sizeof text, "2026-11-%02dT%02d:%02d:%02d.000000Z", 1 + second / 86400, second / 3600 % 24,
                second / 60 % 60, second % 60);
  return text;
}

// Run 0: every node built, every source's version measured before it started.
RunOutcome full_build(const ProjectInputs& in) {
  RunOutcome outcome{"run-0", at_second(600), {}, {}, {}, {}};
  for (const auto& node : in.nodes) outcome.node_status[node.id] = "success";
  for (const auto& source : in.sources) outcome.source_versions[source.id] = *source.version;
  return outcome;
}

double seconds(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "state_store_bench: %s\n", message.c_str());
  std::exit(1);
}

template <class T>
T must(ods::Result<T> result, const std::string& what) {
  if (!result) die(what + ": " + result.error().code + ": " + result.error().message);
  return std::move(*result);
}

void must(ods::Result<void> result, const std::string& what) {
  if (!result) die(what + ": " + result.error().code + ": " + result.error().message);
}

// One store under measurement, with how to read its size.
struct Target {
  std::string name;
  std::unique_ptr<StateStore> store;
  std::function<long long()> bytes;
};

struct Figures {
  double first_commit = 0, first_latest = 0, median_commit = 0, median_latest = 0;
  long long after_first = 0, after_second = 0, after_runs = 0;
};

// Runs 1 + `runs` recorded runs on `target`: the first builds everything; each later one
// rebuilds `rebuilt_per_run` random leaves (0: nothing changed).
Figures measure(Target& target, ProjectInputs in, int runs, int rebuilt_per_run) {
  Figures figures;
  std::mt19937_64 random(7);
  const std::vector<std::size_t> leaf = leaves(in);
  std::optional<StateSnapshot> head;
  std::optional<std::string> head_id;
  std::vector<double> commits, latests;
  for (int run = 0; run <= runs; ++run) {
    RunOutcome outcome;
    outcome.run_id = "run-" + std::to_string(run);
    outcome.started_at = at_second(600 * (run + 1));
    for (auto& source : in.sources) {  // measured by this run's probe, just before it started
      source.version->observed_at = at_second(600 * (run + 1) - 1);
      outcome.source_versions[source.id] = *source.version;
    }
    if (run == 0) {
      for (const auto& node : in.nodes) outcome.node_status[node.id] = "success";
    } else {
      for (int k = 0; k < rebuilt_per_run; ++k) {
        NodeInput& node = in.nodes[leaf[random() % leaf.size()]];
        node.fingerprint.components["sql"] = digest_of(random);
        outcome.node_status[node.id] = "success";
      }
    }
    PlanOptions options;
    options.now = outcome.started_at;
    auto plan = must(ods::planner::plan(in, head ? &*head : nullptr, options), "planning");
    auto next = must(record(in, head ? &*head : nullptr, outcome), "recording");
    const std::string document = to_json(next);
    ods::contracts::StoredSnapshot stored;
    const double commit =
        seconds([&] { stored = must(target.store->commit(kScope, head_id, outcome.run_id, document), "commit"); });
    must(target.store->append_run({outcome.run_id, kScope, outcome.started_at, outcome.started_at, "success",
                                   "sha256:inputs", to_json(plan, false), "{}", stored.id}),
         "append_run");
    std::optional<ods::contracts::StoredSnapshot> latest;
    const double read = seconds([&] { latest = must(target.store->latest(kScope), "latest"); });
    if (!latest || latest->document != document) die(target.name + ": latest() did not return the committed document");
    head = std::move(next);
    head_id = stored.id;
    if (run == 0) {
      figures.first_commit = commit;
      figures.first_latest = read;
      figures.after_first = target.bytes();
    } else {
      if (run == 1) figures.after_second = target.bytes();
      commits.push_back(commit);
      latests.push_back(read);
    }
  }
  std::sort(commits.begin(), commits.end());
  std::sort(latests.begin(), latests.end());
  if (!commits.empty()) {
    figures.median_commit = commits[commits.size() / 2];
    figures.median_latest = latests[latests.size() / 2];
  }
  figures.after_runs = target.bytes();
  return figures;
}

long long file_bytes(const std::string& path) {
  long long total = 0;
  for (const std::string suffix : {"", "-wal"}) {
    struct stat info {};
    if (stat((path + suffix).c_str(), &info) == 0) total += info.st_size;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // flushed before every child process starts
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 100;
  const ProjectInputs in = make_inputs(nodes);
  const std::size_t first_size = to_json(must(record(in, nullptr, full_build(in)), "recording")).size();
  auto server = ods::testing::PostgresServer::start();
  if (!server) die("starting PostgreSQL: " + server.error());
  const fs::path dir = fs::temp_directory_path() / ("ods-state-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf("state store bench: %d nodes, %d runs per scenario, first snapshot %.2f MB\n", nodes, runs,
              static_cast<double>(first_size) / 1e6);
  {  // The client-side share of a PostgreSQL commit and read: cutting into pieces, putting back.
    const std::string document = to_json(must(record(in, nullptr, full_build(in)), "recording"));
    ods::state::internal::SplitDocument split;
    const double cut = seconds([&] { split = ods::state::internal::split_document(document); });
    std::vector<std::string> entries;
    for (const auto& chunk : split.chunks) entries.push_back(chunk.entries);
    std::string back;
    const double put = seconds([&] {
      back = must(ods::state::internal::assemble_document(split.skeleton, entries, split.pieces), "assembling");
    });
    if (back != document) die("the pieces do not give the document back");
    std::printf("split into %zu pieces, %zu chunks: %.3f s; put back together: %.3f s\n", split.pieces.size(),
                split.chunks.size(), cut, put);
  }
  std::printf("bytes/run: growth per run over runs 2..R; run 1 (the first plan with reuses) separately\n");
  std::printf("%-10s %-10s %10s %10s %12s %12s %12s %10s %12s\n", "store", "scenario", "commit1 s", "latest1 s",
              "commit p50 s", "latest p50 s", "run 1 bytes", "bytes/run", "% of snap1");
  int db = 0;
  for (const auto& [scenario, rebuilt] : {std::pair{"no-change", 0}, std::pair{"1%-rebuilt", nodes / 100}}) {
    std::vector<Figures> results;
    for (const std::string kind : {"postgres", "sqlite"}) {
      Target target;
      target.name = kind;
      if (kind == "postgres") {
        const std::string name = "bench_" + std::to_string(db++);
        (*server)->psql("CREATE DATABASE " + name);
        const std::string dsn =
            "host=127.0.0.1 port=" + std::to_string((*server)->port()) + " user=postgres dbname=" + name;
        target.store = must(ods::state::open_postgres_store(dsn), "opening PostgreSQL");
        ods::testing::PostgresServer* pg = server->get();
        target.bytes = [pg, name] {
          auto size = pg->psql(
              "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
              " WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace",
              name);
          return std::atoll(size.output.c_str());
        };
      } else {
        const std::string path = (dir / (std::string(scenario) + ".db")).string();
        target.store = must(ods::state::open_sqlite_store(path), "opening SQLite");
        target.bytes = [path] { return file_bytes(path); };
      }
      const Figures f = measure(target, in, runs, rebuilt);
      if (kind == "postgres") {
        auto tables = (*server)->psql(
            "SELECT string_agg(relname || ' ' || pg_total_relation_size(oid), ', ' ORDER BY relname)"
            " FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace",
            "bench_" + std::to_string(db - 1));
        auto documents = (*server)->psql(
            "SELECT count(*) || ' documents (' || count(manifest) || ' split), skeletons avg '"
            " || round(avg(length(skeleton))) || ' B, ' || (SELECT count(*) FROM pieces)"
            " || ' pieces, ' || (SELECT count(*) FROM chunks) || ' chunks' FROM documents",
            "bench_" + std::to_string(db - 1));
        std::printf("  postgres tables (bytes): %s  %s", tables.output.c_str(), documents.output.c_str());
      }
      const double per_run = static_cast<double>(f.after_runs - f.after_second) / std::max(1, runs - 1);
      std::printf("%-10s %-10s %10.3f %10.3f %12.3f %12.3f %12lld %10.0f %11.3f%%\n", kind.c_str(), scenario,
                  f.first_commit, f.first_latest, f.median_commit, f.median_latest, f.after_second - f.after_first,
                  per_run, 100.0 * per_run / static_cast<double>(first_size));
      results.push_back(f);
    }
    const double pg_growth = static_cast<double>(results[0].after_runs - results[0].after_second);
    const double sqlite_growth = static_cast<double>(results[1].after_runs - results[1].after_second);
    std::printf("  %s: postgres/sqlite growth %.4f, commit p50 %.2fx, latest p50 %.2fx\n", scenario,
                pg_growth / std::max(1.0, sqlite_growth),
                results[0].median_commit / std::max(1e-9, results[1].median_commit),
                results[0].median_latest / std::max(1e-9, results[1].median_latest));
    if (std::string(scenario) == "no-change") {
      std::printf(
          "  targets: first commit %.3f s / 1 s = %.2f; first latest %.3f s / 1 s = %.2f; "
          "no-change growth %.3f%% / 1%% = %.2f\n",
          results[0].first_commit, results[0].first_commit, results[0].first_latest, results[0].first_latest,
          100.0 * pg_growth / std::max(1, runs - 1) / static_cast<double>(first_size),
          100.0 * pg_growth / std::max(1, runs - 1) / static_cast<double>(first_size));
    }
  }
  fs::remove_all(dir);
  return 0;
}
