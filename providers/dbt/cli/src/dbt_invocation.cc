#include "ods/dbt/cli/dbt_invocation.h"

#include <algorithm>
#include <csignal>

namespace ods::dbt {
namespace {

std::string trim_trailing_space(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r' || text.back() == '\t'))
    text.pop_back();
  return text;
}

bool is_log_format_flag(const std::string& arg) { return arg == "--log-format" || arg.starts_with("--log-format="); }

DbtOutcome outcome_of(const process::ExitStatus& exit, const DbtProgress& progress) {
  if (exit.interrupted || progress.summary().keyboard_interrupt || exit.term_signal == SIGINT)
    return DbtOutcome::interrupted;
  return exit.exit_code == 0 && exit.term_signal == 0 ? DbtOutcome::succeeded : DbtOutcome::failed;
}

}  // namespace

std::string_view to_string(DbtOutcome outcome) {
  switch (outcome) {
    case DbtOutcome::succeeded:
      return "succeeded";
    case DbtOutcome::failed:
      return "failed";
    case DbtOutcome::interrupted:
      return "interrupted";
  }
  return "unknown";
}

std::string DbtRunResult::error_text() const {
  if (outcome == DbtOutcome::succeeded) return {};
  std::string text;
  if (outcome == DbtOutcome::interrupted) {
    text = "dbt was interrupted";
    if (exit.term_signal != 0) text += " (stopped by signal " + std::to_string(exit.term_signal) + ")";
    text += "; nothing of this run is recorded.";
    return text;  // what dbt printed while stopping (cancelled queries, a traceback) is noise here
  } else if (exit.term_signal != 0) {
    text = "dbt was killed by signal " + std::to_string(exit.term_signal) + ".";
  } else {
    text = "dbt failed with exit code " + std::to_string(exit.exit_code) + ".";
  }
  if (!error_messages.empty()) {
    text += "\ndbt reported:";
    for (const std::string& message : error_messages) text += "\n" + message;
  }
  if (!output_tail.empty()) {
    text += "\ndbt's other output (last " + std::to_string(output_tail.size()) + " lines):";
    for (const std::string& line : output_tail) text += "\n" + line;
  }
  return text;
}

DbtInvocation::DbtInvocation(process::ProcessLauncher& launcher, DbtInvocationOptions options)
    : launcher_(launcher), options_(std::move(options)) {}

std::vector<std::string> DbtInvocation::command_line() const {
  std::vector<std::string> argv{options_.dbt.string(), "--log-format", "json"};
  argv.insert(argv.end(), options_.args.begin(), options_.args.end());
  if (!options_.profiles_dir.empty()) {
    argv.emplace_back("--profiles-dir");
    argv.push_back(options_.profiles_dir.string());
  }
  return argv;
}

void DbtInvocation::set_event_callback(std::function<void(const DbtEvent&)> callback) {
  on_event_ = std::move(callback);
}

void DbtInvocation::set_progress_callback(std::function<void(const DbtProgress&)> callback) {
  on_progress_ = std::move(callback);
}

void DbtInvocation::handle_line(DbtRunResult& result, process::Stream stream, std::string_view line) {
  DbtEvent event = parse_dbt_line(stream, line);
  if (event.is_plain()) {
    if (!line.empty() && options_.tail_lines > 0) {
      if (result.output_tail.size() == options_.tail_lines) result.output_tail.erase(result.output_tail.begin());
      result.output_tail.push_back(strip_ansi(line));
    }
  } else {
    if (result.invocation_id.empty()) result.invocation_id = event.invocation_id;
    if (event.level == "error") {
      std::string message = trim_trailing_space(strip_ansi(event.msg));
      if (!message.empty()) result.error_messages.push_back(std::move(message));
    }
  }
  const bool progressed = result.progress.apply(event);
  if (on_event_) on_event_(event);
  if (progressed && on_progress_) on_progress_(result.progress);
}

Result<DbtRunResult> DbtInvocation::run() {
  for (const std::string& arg : options_.args)
    if (is_log_format_flag(arg))
      return fail("usage",
                  "dbt arguments must not set " + arg + ": ODS runs dbt with --log-format json to read its events.");

  DbtRunResult result;
  process::ProcessSpec spec;
  spec.argv = command_line();
  spec.cwd = options_.project_dir;
  spec.env = options_.env;
  // dbt's logger flushes every event; this makes anything else Python prints as timely.
  const bool unbuffered_set = std::any_of(spec.env.begin(), spec.env.end(),
                                          [](const auto& entry) { return entry.first == "PYTHONUNBUFFERED"; });
  if (!unbuffered_set) spec.env.emplace_back("PYTHONUNBUFFERED", "1");
  spec.interrupt_grace = options_.interrupt_grace;
  spec.terminate_grace = options_.terminate_grace;
  spec.on_line = [this, &result](process::Stream stream, std::string_view line) { handle_line(result, stream, line); };

  std::unique_ptr<process::RunningProcess> process;
  {
    std::lock_guard lock(mu_);
    if (interrupt_requested_) {
      result.outcome = DbtOutcome::interrupted;
      result.exit.interrupted = true;
      return result;
    }
    auto started = launcher_.start(std::move(spec));
    if (!started) {
      const Error& error = started.error();
      if (error.code == "unsupported_dbt") return std::unexpected(error);  // says which dbt and why itself
      return fail(error.code, "dbt could not be started: " + error.message);
    }
    process = std::move(*started);
    running_ = process.get();
  }
  // Forget the process (under the lock) before it is destroyed, whichever way run() leaves.
  struct Forget {
    DbtInvocation& self;
    ~Forget() {
      std::lock_guard lock(self.mu_);
      self.running_ = nullptr;
    }
  } forget{*this};

  auto status = process->wait();
  if (!status) return std::unexpected(status.error());
  result.exit = *status;
  result.outcome = outcome_of(result.exit, result.progress);
  return result;
}

void DbtInvocation::interrupt() {
  std::lock_guard lock(mu_);
  interrupt_requested_ = true;
  if (running_ != nullptr) running_->interrupt();
}

}  // namespace ods::dbt
