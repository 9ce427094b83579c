// run_results.json (v6): reading, `ods state record` refusals, and the RunOutcome.
#include "ods/dbt/run_results.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "json_access.h"
#include "json_stream.h"
#include "mapped_file.h"
#include "ods/base/iso8601.h"
#include "ods/base/result.h"

namespace ods::dbt {
namespace {

using internal::Field;
using internal::Json;
using internal::Keep;
using internal::SectionMode;

enum Section : std::size_t { metadata_section, args_section, elapsed_section, results_section };
constexpr std::array<internal::SectionSpec, 4> kSections = {{{"metadata", SectionMode::whole},
                                                             {"args", SectionMode::whole},
                                                             {"elapsed_time", SectionMode::whole},
                                                             {"results", SectionMode::entry_list}}};

// The commands whose success means the nodes' relations were (re)built.
constexpr std::array<std::string_view, 4> kBuildingCommands = {"build", "run", "seed", "snapshot"};

class RunResultsSink final : public internal::StreamSink {
 public:
  explicit RunResultsSink(std::string file) : file_(std::move(file)) {}

  Keep keep_key(std::size_t /*section*/, const internal::EntrySoFar& /*partial*/, std::string_view key) const override {
    // Results carry compiled code and adapter responses: only what is read is built.
    return key == "unique_id" || key == "status" || key == "timing" || key == "message" || key == "execution_time"
               ? Keep::build
               : Keep::skip;
  }

  bool on_value(std::size_t section, Json&& value) override {
    Result<void> done;
    switch (section) {
      case metadata_section:
        done = read_metadata(value);
        break;
      case args_section:
        done = read_args(value);
        break;
      case elapsed_section:
        if (value.is_number()) {
          out_.elapsed_seconds = value.get<double>();
        } else if (!value.is_null()) {
          done = std::unexpected(Field(&value, file_, "elapsed_time").error("expected a number"));
        }
        break;
      default:
        break;
    }
    return keep_going(std::move(done));
  }

  bool on_entry(std::size_t /*section*/, std::string&& index, Json&& entry,
                const internal::RawMembers& /*raw*/) override {
    return keep_going(read_result(entry, index));
  }

  Result<RunResults> finish(Result<std::vector<bool>>&& streamed) {
    if (error_) return std::unexpected(std::move(*error_));
    if (!streamed) return std::unexpected(std::move(streamed.error()));
    if (!(*streamed)[metadata_section]) return fail("invalid_artifact", file_ + ": metadata: missing");
    if (deferred_) return std::unexpected(std::move(*deferred_));
    if (!(*streamed)[results_section]) return fail("invalid_artifact", file_ + ": results: missing");
    ODS_TRY_VOID(derive_started_at());
    return std::move(out_);
  }

 private:
  // Errors before the metadata are held back: another schema version is refused as such.
  bool keep_going(Result<void>&& done) {
    if (done) return true;
    if (metadata_ok_ || done.error().code == "unsupported_schema") {
      error_ = std::move(done.error());
      return false;
    }
    if (!deferred_) deferred_ = std::move(done.error());
    return true;
  }

  Result<void> read_metadata(const Json& metadata) {
    const Field meta(&metadata, file_, "metadata");
    ODS_TRY(const Json* object, meta.object());
    if (object == nullptr) return std::unexpected(meta.error("expected an object"));
    ODS_TRY(const Field version_field, meta.member("dbt_schema_version"));
    ODS_TRY(const std::optional<std::string> version, version_field.string());
    if (!version || *version != kRunResultsSchemaV6) {
      return fail("unsupported_schema",
                  file_ + ": dbt_schema_version " + (version ? "\"" + *version + "\"" : std::string("(none)")) +
                      " is not supported; ODS reads run_results.json v6 (" + std::string(kRunResultsSchemaV6) + ")");
    }
    const std::pair<const char*, std::string*> fields[] = {{"invocation_id", &out_.invocation_id},
                                                           {"generated_at", &out_.generated_at},
                                                           {"invocation_started_at", &invocation_started_at_}};
    for (const auto& [key, target] : fields) {
      ODS_TRY(const Field field, meta.member(key));
      ODS_TRY(const std::optional<std::string> value, field.string());
      if (value) *target = *value;
    }
    metadata_ok_ = true;
    if (deferred_) {
      Error e = std::move(*deferred_);
      deferred_.reset();
      return std::unexpected(std::move(e));
    }
    return {};
  }

  Result<void> read_args(const Json& args_json) {
    const Field args(&args_json, file_, "args");
    ODS_TRY(const Json* object, args.object());
    if (object == nullptr) return {};
    ODS_TRY(const Field which, args.member("which"));
    ODS_TRY(const std::optional<std::string> command, which.string());
    out_.command = command.value_or("");
    ODS_TRY(const Field empty, args.member("empty"));
    ODS_TRY(const std::optional<bool> is_empty, empty.boolean());
    out_.empty = is_empty.value_or(false);
    // --sample takes a window ("3 days") or a mapping; any value other than null/false/"" is set.
    const auto sample = object->find("sample");
    out_.sample = sample != object->end() && !sample->is_null() && *sample != false && *sample != "" &&
                  !(sample->is_object() && sample->empty());
    return {};
  }

  Result<void> read_result(const Json& entry, const std::string& index) {
    const Field result(&entry, file_, "results[" + index + "]");
    NodeResult item;
    ODS_TRY(const Field id, result.member("unique_id"));
    ODS_TRY(const std::optional<std::string> id_value, id.string());
    if (!id_value) return std::unexpected(id.error("expected a string"));
    item.unique_id = *id_value;
    ODS_TRY(const Field status, result.member("status"));
    ODS_TRY(const std::optional<std::string> status_value, status.string());
    if (!status_value) return std::unexpected(status.error("expected a string"));
    item.status = *status_value;
    ODS_TRY(const Field message, result.member("message"));
    if (message.json() != nullptr && message.json()->is_string()) item.message = message.json()->get<std::string>();
    ODS_TRY(const Field seconds, result.member("execution_time"));
    if (seconds.json() != nullptr && seconds.json()->is_number())
      item.execution_seconds = seconds.json()->get<double>();
    ODS_TRY(const Field timing, result.member("timing"));
    if (!timing.missing()) {
      if (!timing.json()->is_array()) return std::unexpected(timing.error("expected an array"));
      for (std::size_t i = 0; i < timing.json()->size(); ++i) {
        ODS_TRY(const Field step, timing.element(i));
        ODS_TRY(const Field name, step.member("name"));
        ODS_TRY(const std::optional<std::string> name_value, name.string());
        ODS_TRY(const Field started, step.member("started_at"));
        ODS_TRY(const std::optional<std::string> started_value, started.string());
        if (!started_value) continue;
        if (const auto at = parse_iso8601_micros(*started_value); at && (!earliest_ || *at < *earliest_)) {
          earliest_ = *at;
        }
        if (name_value == "execute") item.execute_started_at = *started_value;
      }
    }
    out_.results.push_back(std::move(item));
    return {};
  }

  Result<void> derive_started_at() {
    std::optional<std::string> started;
    if (!invocation_started_at_.empty()) {
      started = normalize_iso8601(invocation_started_at_);
      if (!started) {
        return fail("invalid_artifact", file_ + ": metadata.invocation_started_at: \"" + invocation_started_at_ +
                                            "\" is not an ISO-8601 time");
      }
    } else if (earliest_) {
      started = format_iso8601_micros(*earliest_);
    } else if (const auto generated = parse_iso8601_micros(out_.generated_at)) {
      started = format_iso8601_micros(*generated - static_cast<std::int64_t>(out_.elapsed_seconds * 1e6));
    }
    if (!started) {
      return fail("invalid_artifact", file_ +
                                          ": cannot tell when the run started (no invocation_started_at, "
                                          "no timings and no valid generated_at)");
    }
    out_.started_at = *started;
    return {};
  }

  std::string file_;
  RunResults out_;
  std::string invocation_started_at_;
  std::optional<std::int64_t> earliest_;  // the earliest timing of any result
  bool metadata_ok_ = false;
  std::optional<Error> error_;
  std::optional<Error> deferred_;
};

Result<void> named_project(const ManifestMeta& manifest) {
  if (!manifest.project_name.empty()) return {};
  return fail("no_project_name",
              "the manifest has no project name (metadata.project_name); unrelated projects would share state");
}

Result<void> same_invocation(const RunResults& run, const ManifestMeta& manifest) {
  if (run.invocation_id == manifest.invocation_id) return {};
  auto or_none = [](const std::string& id) { return id.empty() ? std::string("(none)") : id; };
  return fail("invocation_mismatch", "manifest.json was written by dbt invocation " + or_none(manifest.invocation_id) +
                                         " but run_results.json by " + or_none(run.invocation_id) +
                                         "; record the manifest of the same run (target/manifest.json right "
                                         "after the build)");
}

// A check passed unless it failed, errored or did not run; a warning does not fail dbt build.
bool passed(const std::string& status) { return status == "pass" || status == "warn"; }

}  // namespace

Result<RunResults> read_run_results(const std::filesystem::path& path) {
  ODS_TRY(const internal::MappedFile file, internal::MappedFile::open(path));
  const std::string name = path.string();
  RunResultsSink sink(name);
  return sink.finish(internal::stream_sections(file.text(), name, kSections, sink));
}

Result<void> check_recordable(const RunResults& run, const ManifestMeta& manifest) {
  ODS_TRY_VOID(named_project(manifest));
  if (run.command.empty()) {
    return fail("unknown_command",
                "run_results.json does not say which dbt command wrote it (args.which); only the results of "
                "dbt build, run, seed or snapshot can be recorded");
  }
  if (std::find(kBuildingCommands.begin(), kBuildingCommands.end(), run.command) == kBuildingCommands.end()) {
    return fail("not_a_build", "run_results.json comes from `dbt " + run.command +
                                   "`, which builds nothing; only the results of dbt build, run, seed or "
                                   "snapshot can be recorded");
  }
  if (run.empty) {
    return fail("empty_run", "run_results.json comes from `dbt " + run.command +
                                 " --empty`: the relations were built without rows, so nothing can be reused");
  }
  if (run.sample) {
    return fail("sample_run", "run_results.json comes from `dbt " + run.command +
                                  " --sample`: the relations hold a sample of the data, so nothing can be reused");
  }
  return same_invocation(run, manifest);
}

Result<void> check_test_run(const RunResults& run, const ManifestMeta& manifest) {
  ODS_TRY_VOID(named_project(manifest));
  if (run.command.empty()) {
    return fail("unknown_command", "run_results.json does not say which dbt command wrote it (args.which)");
  }
  if (run.command != "test") {
    return fail("not_a_test_run", "run_results.json comes from `dbt " + run.command + "`, not from `dbt test`");
  }
  return same_invocation(run, manifest);
}

Result<planner::RunOutcome> to_run_outcome(const RunResults& run, const DbtProject& project) {
  planner::RunOutcome outcome;
  outcome.run_id = run.invocation_id;
  const auto started = parse_iso8601_micros(run.started_at);
  if (!started) {
    return fail("invalid_artifact", "run_results.json: started_at \"" + run.started_at + "\" is not an ISO-8601 time");
  }
  outcome.started_at = format_iso8601_micros(*started);

  std::set<std::string> planned;
  for (const auto& node : project.inputs.nodes) planned.insert(node.id);
  std::set<std::string> sources;
  for (const auto& source : project.inputs.sources) sources.insert(source.id);

  std::map<std::string, const NodeResult*> by_id;
  for (const auto& result : run.results) {
    by_id[result.unique_id] = &result;
    if (planned.contains(result.unique_id)) outcome.node_status[result.unique_id] = result.status;
  }
  for (const auto& [target, tests] : project.tests_of) {
    std::size_t ran = 0;
    bool failed = false;
    for (const auto& test : tests) {
      const auto it = by_id.find(test);
      // Skipped after a failure upstream of it (the other end of a relationships test, say):
      // it says nothing about what it checks, as if it had not been selected.
      if (it == by_id.end() || it->second->status == "skipped") continue;
      ++ran;
      failed = failed || !passed(it->second->status);
    }
    if (ran == 0) continue;
    if (!failed && ran < tests.size()) continue;  // some checks passed, others didn't run: vouches for nothing
    auto& passed_map = sources.contains(target) ? outcome.source_tests_passed : outcome.node_tests_passed;
    passed_map[target] = !failed;
  }
  for (const auto& source : project.inputs.sources) {
    if (!source.version || source.version->observed_at.empty()) continue;
    const auto observed = parse_iso8601_micros(source.version->observed_at);
    if (!observed) {
      return fail("invalid_artifact",
                  source.id + ": observed_at \"" + source.version->observed_at + "\" is not an ISO-8601 time");
    }
    if (*observed < *started) outcome.source_versions[source.id] = *source.version;
  }
  return outcome;
}

}  // namespace ods::dbt
