#include "dbt_session.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "child_environment.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"
#include "ods/dbt/cli/dbt_binary.h"
#include "ods/dbt/cli/dbt_command_adapter.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/process/child_process.h"

namespace ods::cli {

namespace {

class ProcessDbtSession final : public DbtSession {
 public:
  ProcessDbtSession(const CommandContext& ctx, dbt::DbtInvocationOptions options)
      : ctx_(ctx), options_(std::move(options)), launcher_(make_child_launcher()) {}

  ods::Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override { return execute(args, ""); }

  ods::Result<dbt::DbtCommandResult> run_with_progress(const std::vector<std::string>& args,
                                                       const std::string& what) override {
    return execute(args, what);
  }

  std::unique_ptr<DbtSession> sibling() const override {
    dbt::DbtInvocationOptions options = options_;
    options.forward_interrupts = false;
    return std::make_unique<ProcessDbtSession>(ctx_, std::move(options));
  }

  bool one_parse() const override { return driver_ && driver_->keeps_manifest(); }

  bool may_hold_warehouse() const override { return one_parse() && connected_; }

  bool runs_in_driver() override {
    auto binary = dbt::resolve_dbt_binary(options_.dbt.string(), ctx_.env.getenv);
    if (!binary) return false;
    launcher_for(*binary);
    return driver_ != nullptr;
  }

  ods::Result<void> write_kept_manifest(const std::filesystem::path& dir) override {
    if (!one_parse())
      return fail("unsupported", "Cannot write the parsed manifest into " + dir.string() +
                                     ": dbt runs as a process per command here, which keeps no parse.");
    auto written = execute({dbt::kDriverWriteManifest, dir.string()}, "");
    if (!written) return std::unexpected(written.error());
    if (written->exit_code != 0)
      return fail("dbt_failed", "The ods dbt driver could not write the parsed manifest into " + dir.string() + ": " +
                                    written->error_text);
    return {};
  }

  ods::Result<void> write_compiled_nodes(const std::filesystem::path& file) override {
    if (!one_parse())
      return fail("unsupported", "Cannot hand over the compiled nodes in " + file.string() +
                                     ": dbt runs as a process per command here, which keeps no parse.");
    auto written = execute({dbt::kDriverWriteCompiled, file.string()}, "");
    if (!written) return std::unexpected(written.error());
    if (written->exit_code != 0)
      return fail("dbt_failed", "The ods dbt driver could not write the compiled nodes into " + file.string() + ": " +
                                    written->error_text);
    return {};
  }

  std::vector<std::string> shared_flags() const override {
    std::vector<std::string> flags{kFlagProjectDir, ctx_.project_dir.string()};
    if (!ctx_.target.empty()) {
      flags.push_back(kFlagTarget);
      flags.push_back(ctx_.target);
    }
    return flags;
  }

 private:
  ods::Result<dbt::DbtCommandResult> execute(const std::vector<std::string>& args, const std::string& what) {
    auto binary = dbt::resolve_dbt_binary(options_.dbt.string(), ctx_.env.getenv);
    if (!binary) return std::unexpected(binary.error());
    process::ProcessLauncher& launcher = launcher_for(*binary);
    const std::string& command = args.empty() ? std::string() : args.front();
    if (command != "parse" && command != dbt::kDriverWriteManifest && command != dbt::kDriverWriteCompiled)
      connected_ = true;
    dbt::DbtInvocationOptions options = options_;
    options.dbt = *binary;
    options.project_dir = ctx_.project_dir;
    options.args = args;
    for (const auto& f : shared_flags()) options.args.push_back(f);
    if (what.empty()) return dbt::run_dbt_command(launcher, std::move(options));

    const auto started = std::chrono::steady_clock::now();
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    int last_finished = -1;
    auto result = dbt::run_dbt_command(launcher, std::move(options), [&](const dbt::DbtProgress& p) {
      if (p.finished() == last_finished) return;
      last_finished = p.finished();
      const double elapsed = seconds_since(started);
      char line[160];
      std::snprintf(line, sizeof line, "ods: %s: node %d of %d done, %d failed, %.0f s", what.c_str(), p.finished(),
                    p.total(), p.count(dbt::NodeState::failed) + p.count(dbt::NodeState::errored), elapsed);
      if (tty) {
        *ctx_.err << "\r" << line << "\x1b[K" << std::flush;
      } else if (p.finished() == p.total() || p.finished() % 25 == 0) {
        *ctx_.err << line << "\n";
      }
    });
    if (tty) *ctx_.err << "\n";
    return result;
  }

  // The persistent ods dbt driver when dbt is a Python console script and $ODS_DBT_DRIVER is
  // not "off"; else a dbt process per command. Decided on the first command. The driver
  // itself refuses an unsupported dbt, and falls back to a process per command (saying so
  // on the error stream, once) when it cannot keep dbt's parsed manifest safely.
  process::ProcessLauncher& launcher_for(const std::filesystem::path& binary) {
    if (!chosen_) {
      chosen_ = true;
      const std::string mode = ctx_.env.getenv("ODS_DBT_DRIVER");
      if (mode != "off" && mode != "0") {
        if (auto python = dbt::console_script_python(binary)) {
          driver_ = dbt::make_dbt_driver_launcher(
              *launcher_, *python, [this](const std::string& why) { *ctx_.err << "ods: " << why << "\n"; });
        }
      }
    }
    return driver_ ? *driver_ : *launcher_;
  }

  const CommandContext& ctx_;
  dbt::DbtInvocationOptions options_;  // dbt as given, not yet resolved; no project_dir or args
  std::unique_ptr<process::ProcessLauncher> launcher_;
  bool chosen_ = false;
  bool connected_ = false;  // a command that may connect to the warehouse ran (may_hold_warehouse)
  std::unique_ptr<dbt::DbtDriverLauncher> driver_;  // declared after launcher_: destroyed first
};

}  // namespace

std::unique_ptr<DbtSession> make_dbt_session(const CommandContext& ctx, dbt::DbtInvocationOptions options) {
  return std::make_unique<ProcessDbtSession>(ctx, std::move(options));
}

}  // namespace ods::cli
