#pragma once
// An emulated warehouse for the emulator suites: the cached venv of scripts/warehouse-venv.sh
// (the vendor's dbt adapter and the emulator), the emulator started on a free port of 127.0.0.1
// and stopped with the suite, a copy of examples/warehouses whose target is this warehouse, and
// `ods state run` with an outer timeout (fakesnow can leave its client retrying forever).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/background_process.h"
#include "harness/dbt_project.h"

namespace ods::testing {

struct EmulatorKind {
  std::string name;                    // "snowflake" or "bigquery": the venv, the dbt target
  std::vector<std::string> extra_env;  // for every ods call (e.g. the content hash fakesnow has)
};

class EmulatedWarehouse {
 public:
  // Builds or finds the venv, starts the emulator and waits until it answers, copies the example
  // and creates the raw tables. Fails the calling test (fatal) when any of it fails.
  void start(const EmulatorKind& kind);
  void stop();

  // scripts/warehouse.py <kind> <port> sql <statements...> with the venv's python, 120 s at most.
  void sql(const std::vector<std::string>& statements) const;
  // `ods state run --format json --cutoff always` with the venv's dbt and `env` added (the last
  // entry of a name wins), 900 s at most (a slow machine, not a hang); entries by node name. `document` gets the whole
  // answer.
  std::map<std::string, nlohmann::json> run(const std::vector<std::string>& env = {},
                                            nlohmann::json* document = nullptr) const;
  // dbt <args> with the venv's dbt on this project, 600 s at most.
  ProcessResult dbt(const std::vector<std::string>& args) const;
  // Writes `content` to `relative` in the project's copy (a model, as its author would).
  void write(const std::string& relative, const std::string& content) const { project_->write(relative, content); }

  const EmulatorKind& kind() const { return kind_; }
  std::string log_tail() const { return server_ ? server_->log_tail(40) : ""; }

 private:
  EmulatorKind kind_;
  std::filesystem::path venv_;
  int port_ = 0;
  std::unique_ptr<BackgroundProcess> server_;
  std::unique_ptr<DbtProject> project_;
};

std::string decision(const nlohmann::json& entry);
// The first evidence of `kind` about `subject` on an entry, or null.
const nlohmann::json* evidence_about(const nlohmann::json& entry, const std::string& kind, const std::string& subject);

}  // namespace ods::testing
