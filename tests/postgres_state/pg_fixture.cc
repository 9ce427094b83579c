#include "pg_fixture.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ods::testing {

PostgresServer* shared_postgres() {
  static std::unique_ptr<PostgresServer> server;
  static std::string failure;
  if (!server && failure.empty()) {
    auto started = PostgresServer::start();
    if (started) {
      server = std::move(*started);
    } else {
      failure = started.error();
    }
  }
  if (!server) ADD_FAILURE() << "the PostgreSQL test server did not start: " << failure;
  return server.get();
}

std::string fresh_database() {
  static std::atomic<int> next{0};
  PostgresServer* server = shared_postgres();
  if (server == nullptr) return {};
  if (!server->running()) {
    auto restarted = server->restart();
    if (!restarted) ADD_FAILURE() << restarted.error();
  }
  const std::string name = "state_" + std::to_string(next++);
  ProcessResult created = server->psql("CREATE DATABASE " + name);
  EXPECT_EQ(created.exit_code, 0) << created.errors;
  return "host=127.0.0.1 port=" + std::to_string(server->port()) + " user=" + server->user() + " dbname=" + name;
}

std::string url_of(const std::string& dsn) {
  std::string host, port, user, dbname;
  std::istringstream in(dsn);
  for (std::string pair; in >> pair;) {
    const auto eq = pair.find('=');
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    if (key == "host") host = value;
    if (key == "port") port = value;
    if (key == "user") user = value;
    if (key == "dbname") dbname = value;
  }
  return "postgresql://" + user + "@" + host + ":" + port + "/" + dbname;
}

std::unique_ptr<ods::contracts::StateStore> open_pg(const std::string& dsn, ods::state::OpenOptions options) {
  auto opened = ods::state::open_postgres_store(dsn, ods::system_clock(), std::move(options));
  if (!opened) {
    ADD_FAILURE() << opened.error().code << ": " << opened.error().message;
    return nullptr;
  }
  return std::move(*opened);
}

std::string node_document(int nodes, const std::string& run_id, int changed_from, const std::string& change) {
  nlohmann::json doc{{"schema_version", "1.2"}, {"project", "bench"},
                     {"environment", "prod"},   {"target_identity", "duckdb:bench"},
                     {"run_id", run_id},        {"run_started_at", "2026-11-29T00:00:00.000000Z"}};
  nlohmann::json all = nlohmann::json::object();
  for (int i = 0; i < nodes; ++i) {
    const std::string id = "model.bench.node_" + std::to_string(i);
    const bool changed = changed_from >= 0 && i >= changed_from;
    all[id] = {{"fingerprint", {{"code", "sha256:" + std::to_string(i) + (changed ? change : "")}}},
               {"raw_digest", "sha256:raw" + std::to_string(i)},
               {"built_at", "2026-11-28T00:00:00.000000Z"},
               {"run_id", changed ? run_id : "first"},
               {"parent_runs", nlohmann::json::object()},
               {"source_versions", nlohmann::json::object()}};
  }
  doc["nodes"] = all;
  return doc.dump();
}

}  // namespace ods::testing
