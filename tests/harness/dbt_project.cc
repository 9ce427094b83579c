#include "harness/dbt_project.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

fs::path venv_bin() { return source_dir() / ".venv" / "bin"; }
fs::path ods_binary() { return bin_dir() / "ods"; }

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

bool skipped_when_copying_example(const fs::path& rel) {
  const std::string first = rel.begin()->string();
  const std::string ext = rel.extension().string();
  return first == "target" || first == "logs" || first == ".ods" || first == "dbt_packages" || ext == ".duckdb" ||
         rel.string().ends_with(".duckdb.wal") || first == ".user.yml";
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& cwd,
                          const std::vector<std::string>& env) {
  fs::path out_file =
      fs::temp_directory_path() / ("ods-test-out-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  fs::path err_file = out_file.string() + ".err";
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) _exit(127);
    FILE* o = std::freopen(out_file.c_str(), "w", stdout);
    FILE* e = std::freopen(err_file.c_str(), "w", stderr);
    if (!o || !e) _exit(127);
    for (const auto& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::perror("exec");
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = read_text_file(out_file);
  r.errors = read_text_file(err_file);
  fs::remove(out_file);
  fs::remove(err_file);
  return r;
}

DbtProject::DbtProject(const std::string& example) : dir_(ods::testing::fresh_test_dir("p") / example) {
  fs::path from = source_dir() / "examples" / example;
  fs::create_directories(dir_);
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
    fs::path rel = fs::relative(it->path(), from);
    if (skipped_when_copying_example(rel)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(dir_ / rel);
    } else {
      fs::copy_file(it->path(), dir_ / rel);
    }
  }
}

DbtProject DbtProject::copy_of_directory(const fs::path& dir) {
  DbtProject p;
  p.dir_ = ods::testing::fresh_test_dir("p") / dir.filename();
  fs::copy(dir, p.dir_, fs::copy_options::recursive);
  return p;
}

DbtProject DbtProject::copy_of(const DbtProject& other) {
  DbtProject p = copy_of_directory(other.dir_);
  p.env_ = other.env_;
  p.bin_ = other.bin_;
  p.duckdb_file_ = other.duckdb_file_;
  return p;
}

DbtProject DbtProject::empty(const std::string& name) {
  DbtProject p;
  p.dir_ = ods::testing::fresh_test_dir("p") / name;
  fs::create_directories(p.dir_);
  return p;
}

DbtProject::DbtProject(DbtProject&& other) noexcept
    : dir_(std::move(other.dir_)),
      env_(std::move(other.env_)),
      bin_(std::move(other.bin_)),
      duckdb_file_(std::move(other.duckdb_file_)) {
  other.dir_.clear();
}

fs::path DbtProject::venv() const { return bin_.empty() ? venv_bin() : bin_; }

void DbtProject::add_env(const std::vector<std::string>& entries) {
  env_.insert(env_.end(), entries.begin(), entries.end());
}

std::vector<std::string> DbtProject::env_with(std::vector<std::string> entries) const {
  entries.insert(entries.end(), env_.begin(), env_.end());
  return entries;
}

DbtProject::~DbtProject() {
  if (dir_.empty() || std::getenv("ODS_KEEP_TEST_DIRS")) return;
  std::error_code ec;
  fs::remove_all(dir_.parent_path(), ec);
}

ProcessResult DbtProject::dbt(std::vector<std::string> args) const {
  std::vector<std::string> argv{(venv() / "dbt").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--profiles-dir");
  argv.push_back(dir_.string());
  return run_process(argv, dir_, env_with({"DBT_SEND_ANONYMOUS_USAGE_STATS=false", "DO_NOT_TRACK=1"}));
}

ProcessResult DbtProject::ods(std::vector<std::string> args) const {
  std::vector<std::string> argv{ods_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--project-dir");
  argv.push_back(dir_.string());
  return run_process(argv, dir_, env_with({"ODS_DBT=" + (venv() / "dbt").string()}));
}

ProcessResult DbtProject::generate_data(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{(venv() / "python").string(), "scripts/generate_data.py"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_, env_);
}

ProcessResult DbtProject::sql(const std::string& statement) const {
  std::string script = "import duckdb,sys\ncon=duckdb.connect(sys.argv[2])\ncon.execute(sys.argv[1])\ncon.close()\n";
  return run_process({(venv() / "python").string(), "-c", script, statement, duckdb_file_}, dir_, env_);
}

nlohmann::json DbtProject::plan_json(std::vector<std::string> extra) const {
  std::vector<std::string> args{"state", "plan", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = ods(args);
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.output;
  return doc;
}

std::string DbtProject::read(const std::string& relative) const { return read_text_file(dir_ / relative); }

void DbtProject::write(const std::string& relative, const std::string& content) const {
  std::ofstream out(dir_ / relative, std::ios::binary | std::ios::trunc);
  out << content;
}

void DbtProject::replace_in(const std::string& relative, const std::string& from, const std::string& to) const {
  std::string text = read(relative);
  auto pos = text.find(from);
  ASSERT_NE(pos, std::string::npos) << "'" << from << "' not in " << relative;
  text.replace(pos, from.size(), to);
  write(relative, text);
}

nlohmann::json output_json(const ProcessResult& r) {
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return doc.is_discarded() ? nlohmann::json::object() : doc;
}

const nlohmann::json& entry(const nlohmann::json& plan, const std::string& name) {
  for (const auto& e : plan.at("entries"))
    if (e.at("name") == name) return e;
  ADD_FAILURE() << "no plan entry named " << name;
  static const nlohmann::json kEmpty = {{"action", "missing"}, {"reasons", nlohmann::json::array()}};
  return kEmpty;
}

std::vector<std::string> reason_codes(const nlohmann::json& e) {
  std::vector<std::string> codes;
  for (const auto& r : e.at("reasons")) codes.push_back(r.at("code"));
  return codes;
}

std::string decision(const nlohmann::json& e) {
  return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
}

std::string first_reason_message(const nlohmann::json& e) {
  return e.at("reasons").at(0).at("message").get<std::string>();
}

const nlohmann::json* evidence_about(const nlohmann::json& e, const std::string& kind, const std::string& subject) {
  for (const auto& ev : e.at("evidence"))
    if (ev.at("kind") == kind && ev.at("subject") == subject) return &ev;
  return nullptr;
}

std::string all_evidence_of(const nlohmann::json& e, const std::string& kind) {
  std::string out;
  for (const auto& ev : e.at("evidence"))
    if (ev.at("kind") == kind) out += ev.at("value").get<std::string>() + "\n";
  return out;
}

}  // namespace ods::testing
