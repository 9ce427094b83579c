#pragma once
// One private PostgreSQL server per test process (started on first use, stopped at exit),
// and a fresh database per test, for the PostgreSQL state store tests.
#include <memory>
#include <string>

#include "harness/postgres_server.h"
#include "ods/contracts/state_store.h"
#include "ods/state/stores.h"

namespace ods::testing {

// The shared server; fails the calling test (and returns nullptr) when it cannot start.
PostgresServer* shared_postgres();

// Creates a new, empty database on the shared server and returns its libpq key/value
// connection string. Empty when the server is not running (the test has already failed).
std::string fresh_database();

// The same database as a postgresql:// URL.
std::string url_of(const std::string& dsn);

// Opens a store on `dsn`; fails the test (and returns nullptr) on error.
std::unique_ptr<ods::contracts::StateStore> open_pg(const std::string& dsn, ods::state::OpenOptions options = {});

// A snapshot-shaped document with `nodes` nodes; node i's state is `variant(i)`.
std::string node_document(int nodes, const std::string& run_id, int changed_from = -1, const std::string& change = "");

}  // namespace ods::testing
