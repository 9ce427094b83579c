#include "corpus/reuse_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <set>
#include <tuple>

#include "corpus/parse_inputs_seen.h"
#include "harness/relation_contents.h"
#include "harness/warehouse.h"

namespace ods::testing {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// One step's line of the report.
std::string step_line(const StepOutcome& o) {
  char line[200];
  std::snprintf(line, sizeof line, "  %-62s %3d / %-3d wrong %zu  exit ods %d dbt %d%s", o.step.c_str(), o.reused,
                o.unchanged, o.wrong.size(), o.ods_exit, o.dbt_exit, o.exit_mismatch() ? " MISMATCH" : "");
  std::string out = line;
  if (!o.lost.empty()) out += "  lost: " + joined(o.lost);
  if (!o.wrong.empty()) out += "  WRONG: " + joined(o.wrong);
  if (!o.diverged.empty()) out += "  diverged builds: " + joined(o.diverged);
  out += "  keyed sql " + std::to_string(o.keyed_taken);
  if (!o.keyed_mismatch.empty()) out += "  COMPILE KEY MISMATCH: " + joined(o.keyed_mismatch);
  if (o.parse_reused) out += o.parse_fast ? "  parse reused (fast path)" : "  parse reused";
  if (!o.parse_mismatch.empty()) out += "  REUSED PARSE MISMATCH: " + joined(o.parse_mismatch);
  if (!o.parse_inputs_changed.empty()) out += "  parse inputs changed: " + joined(o.parse_inputs_changed);
  if (!o.first_parse.empty())
    out += o.first_parse == "taken" ? "  first parse: fast path" : "  first parse: declined (" + o.first_parse + ")";
  return out + "\n";
}

// The relations `dbt build` skipped or failed to build in `p` (target/run_results.json), by
// relation name: the oracle neither built nor reused them.
std::set<std::string> not_built_by_dbt(const DbtProject& p) {
  std::set<std::string> out;
  auto doc = nlohmann::json::parse(p.read("target/run_results.json"), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "the dbt build control wrote no target/run_results.json";
  if (doc.is_discarded()) return out;
  for (const auto& r : doc.value("results", nlohmann::json::array()))
    if (r.value("status", "") == "skipped" || r.value("status", "") == "error")
      out.insert(relation_of_unique_id(r.value("unique_id", "")));
  return out;
}

// Reads "rows/hash/columns" of each relation in {relation: columns or ""} from a DuckDB file
// (columns: the row's type, names and types in order: a relation whose rows are the control's
// but whose column types or names are not is wrong too); a relation that can't be read (not
// built yet) is left out. Floating-point columns are hashed rounded to 9 decimals: a sum of
// doubles depends on the order it adds them in, which a rebuild of an unchanged input may change
// (a `select distinct` view over the same rows), and dbt build itself gives either value.
const char* const kContentsScript = R"py(import duckdb, json, sys
judged = json.loads(sys.argv[1])
con = duckdb.connect(sys.argv[2], read_only=True)
out = {}
for rel, columns in judged.items():
    source = f"(select {columns} from main.{rel})" if columns else f"main.{rel}"
    try:
        described = con.execute(f"describe select * from {source}").fetchall()
        listed = ", ".join(
            f'round("{name}", 9) as "{name}"' if kind in ("DOUBLE", "FLOAT", "REAL") else f'"{name}"'
            for name, kind, *_ in described)
        (content,) = con.execute(
            f"select count(*)::varchar || '/' || coalesce(sum(hash(ods_row__)), 0)::varchar || '/' || "
            f"typeof((select ods_columns__ from {source} as ods_columns__ limit 1)) "
            f"from (select {listed} from {source}) as ods_row__").fetchone()
    except duckdb.CatalogException:
        continue
    out[rel] = content
print(json.dumps(out))
)py";

}  // namespace

std::string relation_of_unique_id(const std::string& unique_id) {
  const auto last_dot = unique_id.rfind('.');
  std::string last = unique_id.substr(last_dot + 1);
  const bool version = last.size() > 1 && last[0] == 'v' &&
                       std::all_of(last.begin() + 1, last.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!version || last_dot == std::string::npos || last_dot == 0) return last;
  const auto name_dot = unique_id.rfind('.', last_dot - 1);
  return unique_id.substr(name_dot + 1, last_dot - name_dot - 1) + "_" + last;
}

ReuseCorpus::ReuseCorpus(DbtProject& project, std::vector<std::string> relations, std::vector<std::string> run_args)
    : project_(project), relations_(std::move(relations)), run_args_(std::move(run_args)) {}

std::string ReuseCorpus::cutoff() const {
  const auto flag = std::find(run_args_.begin(), run_args_.end(), "--cutoff");
  return flag != run_args_.end() && std::next(flag) != run_args_.end() ? *std::next(flag) : "auto";
}

void ReuseCorpus::judge_columns(const std::string& relation, std::string columns) {
  judged_columns_[relation] = std::move(columns);
}

std::pair<int, nlohmann::json> ReuseCorpus::run(std::string* errors) const {
  std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_.dir().string()};
  args.insert(args.end(), run_args_.begin(), run_args_.end());
  ProcessResult r = project_.ods(args);
  if (errors != nullptr) *errors = r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "exit " << r.exit_code << "\nstdout:\n" << r.output << "\nstderr:\n" << r.errors;
  if (r.exit_code != 0) {
    // Its last line (what failed); flushed before the next child is forked, which would
    // otherwise write a copy of the buffered text too.
    const auto end = r.errors.find_last_not_of('\n');
    const auto from = end == std::string::npos ? std::string::npos : r.errors.rfind('\n', end);
    std::cout << "  (ods state run exited " << r.exit_code << ": "
              << (end == std::string::npos    ? ""
                  : from == std::string::npos ? r.errors.substr(0, end + 1)
                                              : r.errors.substr(from + 1, end - from))
              << ")" << std::endl;
  }
  return {r.exit_code, doc};
}

namespace {

// node id -> the fingerprint digest of `plan` (an `ods state run --format json` document), and
// how many entries say their compiled SQL was the recorded one.
std::map<std::string, std::string> plan_fingerprints(const nlohmann::json& doc, int* taken) {
  std::map<std::string, std::string> out;
  if (!doc.contains("plan")) return out;
  for (const auto& e : doc["plan"]["entries"]) {
    for (const auto& ev : e["evidence"]) {
      if (ev.value("kind", "") == "fingerprint") out[e["id"].get<std::string>()] = ev.value("value", "");
      if (ev.value("kind", "") == "compiled_sql" && taken != nullptr) ++*taken;
    }
  }
  return out;
}

}  // namespace

void ReuseCorpus::compare_compiles(StepOutcome& out) const {
  bool first_command = true;
  auto dry_run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{
        "state", "run", "--dry-run", "--format", "json", "--profiles-dir", project_.dir().string()};
    args.insert(args.end(), run_args_.begin(), run_args_.end());
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = project_.ods(args);
    if (first_command) out.first_parse = fast_path_outcome(r.errors);
    first_command = false;
    auto doc = nlohmann::json::parse(r.output, nullptr, false);
    return std::pair{r.exit_code, doc.is_discarded() ? nlohmann::json::object() : doc};
  };
  const auto [keyed_exit, keyed] = dry_run({"--compile", "changed"});
  const auto [full_exit, full] = dry_run({"--compile", "all"});
  if (keyed_exit != full_exit) {
    out.keyed_mismatch.push_back("exit " + std::to_string(keyed_exit) + " keyed vs " + std::to_string(full_exit));
    return;
  }
  const auto a = plan_fingerprints(keyed, &out.keyed_taken);
  const auto b = plan_fingerprints(full, nullptr);
  // Both dry runs failing alike is no agreement: each must plan, and fingerprint some node.
  for (const auto& [which, fingerprints, exit_code] :
       {std::tuple{"keyed", &a, keyed_exit}, std::tuple{"full", &b, full_exit}}) {
    if (fingerprints->empty())
      out.keyed_mismatch.push_back(std::string("no plan with fingerprints from the ") + which + " dry run (exit " +
                                   std::to_string(exit_code) + ")");
  }
  if (a.empty() || b.empty()) {
    std::cout << "  COMPILE KEY DIFFERENTIAL WITHOUT A PLAN at \"" << out.step << "\"" << std::endl;
    return;
  }
  out.full_fingerprints = b;
  for (const auto& [id, digest] : b) {
    const auto it = a.find(id);
    if (it == a.end() || it->second != digest) out.keyed_mismatch.push_back(id);
  }
  for (const auto& [id, digest] : a)
    if (!b.contains(id)) out.keyed_mismatch.push_back(id + " (only keyed)");
  if (!out.keyed_mismatch.empty())
    std::cout << "  COMPILE KEY MISMATCH at \"" << out.step << "\": " << out.keyed_mismatch.size() << " nodes"
              << std::endl;
}

std::map<std::string, std::string> ReuseCorpus::contents(const DbtProject& p) const {
  nlohmann::json judged = nlohmann::json::object();
  for (const auto& rel : relations_) judged[rel] = judged_columns_.count(rel) ? judged_columns_.at(rel) : "";
  ProcessResult r = run_process({(p.venv() / "python").string(), "-c", kContentsScript, judged.dump(), p.duckdb_file()},
                                p.dir(), p.env());
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  if (doc.is_discarded()) return {};
  return doc.get<std::map<std::string, std::string>>();
}

bool ReuseCorpus::start() {
  const auto [exit_code, doc] = run();
  EXPECT_EQ(exit_code, 0) << "start: the first run";
  return !doc.is_discarded() && !::testing::Test::HasFailure();
}

StepOutcome ReuseCorpus::step(const CorpusStep& s) {
  StepOutcome out;
  out.step = s.name;
  const auto before = contents(project_);  // before the change: a view shows a source's change at once
  const auto inputs_before = parse_input_files(project_.dir());
  const auto environment_before = project_.env();
  s.change(project_);
  out.parse_inputs_changed = changed_parse_inputs(inputs_before, parse_input_files(project_.dir()));
  if (project_.env() != environment_before) out.parse_inputs_changed.push_back("the run's environment");

  // The dbt build control: the same change on an identical copy, built as dbt builds it.
  DbtProject built_copy = DbtProject::copy_of(project_);
  ProcessResult dbt_build = built_copy.dbt({"build"});
  out.dbt_exit = dbt_build.exit_code;
  const auto built = contents(built_copy);
  const auto gated = not_built_by_dbt(built_copy);

  compare_compiles(out);
  if (!out.parse_inputs_changed.empty() && out.first_parse == "taken")
    ADD_FAILURE() << s.name << ": the parse's fast path stood although the step changed what dbt's parse reads: "
                  << joined(out.parse_inputs_changed);
  std::string errors;
  const auto [ods_exit, doc] = run(&errors);
  out.ods_exit = ods_exit;
  // The parse's fast path stands on the kept parse too: its plans face the same full compile.
  out.parse_fast = errors.find("the kept parse stands, dbt not started") != std::string::npos;
  out.parse_reused = out.parse_fast || errors.find("its manifest stands, none written") != std::string::npos;
  if (out.parse_reused) {
    for (const auto& [id, digest] : plan_fingerprints(doc, nullptr)) {
      const auto it = out.full_fingerprints.find(id);
      if (it == out.full_fingerprints.end() || it->second != digest) out.parse_mismatch.push_back(id);
    }
    if (!out.parse_mismatch.empty())
      std::cout << "  REUSED PARSE MISMATCH at \"" << out.step << "\": " << out.parse_mismatch.size() << " nodes"
                << std::endl;
  }
  if (out.exit_mismatch())
    std::cout << "  exit mismatch at \"" << s.name << "\": ods " << ods_exit << ", dbt build " << out.dbt_exit
              << "; dbt build said:\n"
              << dbt_build.output << std::endl;
  if (doc.is_discarded() || !doc.contains("plan")) {
    ADD_FAILURE() << s.name << ": no plan from ods state run";
    outcomes_.push_back(out);
    return out;
  }
  const auto after = contents(project_);

  // The full-build control, when dbt build gated nothing.
  std::map<std::string, std::string> from_scratch;
  if (out.dbt_exit == 0 && full_build_control_) {
    DbtProject scratch = DbtProject::copy_of(project_);
    if (full_build(scratch, duckdb_warehouse(), /*with_tests=*/false)) from_scratch = contents(scratch);
  }

  std::map<std::string, const nlohmann::json*> entries;
  for (const auto& e : doc.at("plan").at("entries")) entries[relation_of_unique_id(e.value("id", ""))] = &e;
  for (const auto& rel : relations_) {
    auto it = entries.find(rel);
    EXPECT_NE(it, entries.end()) << s.name << ": no plan entry for " << rel;
    if (it == entries.end()) continue;
    const bool reused = it->second->at("action") == "reuse";
    const bool unchanged =
        !gated.count(rel) && before.count(rel) && built.count(rel) && before.at(rel) == built.at(rel);
    const bool same_as_dbt_build = after.count(rel) && built.count(rel) && after.at(rel) == built.at(rel);
    const bool same_as_scratch = from_scratch.empty() || judged_columns_.count(rel) ||
                                 (after.count(rel) && from_scratch.count(rel) && after.at(rel) == from_scratch.at(rel));
    if (unchanged) ++out.unchanged;
    if (unchanged && reused) ++out.reused;
    if (unchanged && !reused) {
      const auto& reasons = it->second->at("reasons");
      out.lost.push_back(rel + " (" + (reasons.empty() ? "?" : reasons.at(0).at("code").get<std::string>()) + ")");
    }
    if (!same_as_dbt_build || !same_as_scratch) {
      const std::string which = !same_as_dbt_build ? " (vs dbt build)" : " (vs full build)";
      (reused ? out.wrong : out.diverged).push_back(rel + which);
    }
  }
  std::cout << step_line(out) << std::flush;  // as it happens, for a long run's log
  outcomes_.push_back(out);
  return out;
}

int ReuseCorpus::reused_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0, [](int n, const auto& o) { return n + o.reused; });
}
int ReuseCorpus::unchanged_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0, [](int n, const auto& o) { return n + o.unchanged; });
}
int ReuseCorpus::wrong_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.wrong.size()); });
}
int ReuseCorpus::diverged_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.diverged.size()); });
}
int ReuseCorpus::exit_mismatch_total() const {
  return static_cast<int>(
      std::count_if(outcomes_.begin(), outcomes_.end(), [](const auto& o) { return o.exit_mismatch(); }));
}

int ReuseCorpus::keyed_mismatch_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.keyed_mismatch.size()); });
}
int ReuseCorpus::keyed_taken_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0, [](int n, const auto& o) { return n + o.keyed_taken; });
}

int ReuseCorpus::parse_mismatch_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.parse_mismatch.size()); });
}
int ReuseCorpus::parse_reused_total() const {
  return static_cast<int>(
      std::count_if(outcomes_.begin(), outcomes_.end(), [](const auto& o) { return o.parse_reused; }));
}

int ReuseCorpus::parse_inputs_changed_total() const {
  return static_cast<int>(
      std::count_if(outcomes_.begin(), outcomes_.end(), [](const auto& o) { return !o.parse_inputs_changed.empty(); }));
}
int ReuseCorpus::fast_path_on_changed_inputs_total() const {
  return static_cast<int>(std::count_if(outcomes_.begin(), outcomes_.end(), [](const auto& o) {
    return !o.parse_inputs_changed.empty() && o.first_parse == "taken";
  }));
}

namespace {

// "taken N, declined M (<reason> xK; ...)" of the first command after each step.
std::string fast_path_summary(const std::vector<StepOutcome>& outcomes) {
  std::map<std::string, int> declined;
  int taken = 0;
  int declines = 0;
  for (const auto& o : outcomes) {
    if (o.first_parse == "taken") ++taken;
    if (o.first_parse.empty() || o.first_parse == "taken") continue;
    ++declined[o.first_parse];
    ++declines;
  }
  std::string out = "taken " + std::to_string(taken) + ", declined " + std::to_string(declines);
  std::string reasons;
  for (const auto& [why, n] : declined) reasons += (reasons.empty() ? "" : "; ") + why + " x" + std::to_string(n);
  return reasons.empty() ? out : out + " (" + reasons + ")";
}

}  // namespace

void ReuseCorpus::report(std::ostream& out, const std::string& title) const {
  out << "reuse corpus: " << title << " (" << relations_.size()
      << " relations judged; reused / unchanged by dbt build, exit status of ods and of dbt build)\n";
  for (const auto& o : outcomes_) out << step_line(o);
  char line[240];
  const int u = unchanged_total();
  const double share = u ? 100.0 * reused_total() / u : 0.0;
  std::snprintf(line, sizeof line,
                "  overall %d / %d = %.1f%%, %d wrong reuses, %d diverged builds, %d exit mismatches\n", reused_total(),
                u, share, wrong_total(), diverged_total(), exit_mismatch_total());
  out << line;
  out << "  compile key: " << keyed_taken_total() << " nodes kept their recorded compiled SQL, "
      << keyed_mismatch_total() << " fingerprints differed from a full compile's\n";
  out << "  reused parse: " << parse_reused_total() << " of " << outcomes_.size()
      << " runs stood on an earlier parse's manifest, " << parse_mismatch_total()
      << " fingerprints differed from a full compile's\n";
  out << "  parse's fast path at each step's first command: " << fast_path_summary(outcomes_) << "; "
      << parse_inputs_changed_total() << " steps changed a parse input, " << fast_path_on_changed_inputs_total()
      << " of them on the fast path\n";
  std::snprintf(line, sizeof line, "corpus table | %s | %zu | %d | %d | %d / %d = %.1f%% |\n", title.c_str(),
                outcomes_.size(), wrong_total(), exit_mismatch_total(), reused_total(), u, share);
  out << line;
}

}  // namespace ods::testing
