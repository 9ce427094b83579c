#include "ods/dbt/cli/dbt_driver.h"

#include <condition_variable>
#include <csignal>
#include <deque>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "dbt_driver_source.h"

namespace ods::dbt {
namespace {

using namespace std::chrono_literals;

// How long a driver that was asked to exit (stdin closed) may take before it is killed.
constexpr auto kExitGrace = 10s;
constexpr std::string_view kEndMarker = R"({"ods_driver":)";

struct Line {
  process::Stream stream;
  std::string text;
};

// What the thread waiting for the driver hands to the command running on it.
struct DriverOutput {
  std::mutex mu;
  std::condition_variable changed;
  std::optional<nlohmann::json> hello;               // guarded by mu; the driver's first line (what dbt offers)
  std::deque<Line> lines;                            // guarded by mu
  std::optional<Result<process::ExitStatus>> ended;  // guarded by mu; how the driver exited
  bool command_running = false;                      // guarded by mu
  bool interrupted = false;                          // guarded by mu; a command was: run no more
};

// {"ods_driver": {...}} -> the object; nullopt for any other line.
std::optional<nlohmann::json> driver_message(std::string_view line) {
  if (!line.starts_with(kEndMarker)) return std::nullopt;
  auto doc = nlohmann::json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc["ods_driver"].is_object()) return std::nullopt;
  return doc["ods_driver"];
}

// {"ods_driver": {"exit_code": N}} -> N; nullopt for any other line.
std::optional<int> end_of_command(std::string_view line) {
  if (!line.starts_with(kEndMarker)) return std::nullopt;
  auto doc = nlohmann::json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc["ods_driver"].is_object() || !doc["ods_driver"]["exit_code"].is_number_integer())
    return std::nullopt;
  return doc["ods_driver"]["exit_code"].get<int>();
}

class DriverCommand final : public process::RunningProcess {
 public:
  DriverCommand(DriverOutput& output, process::RunningProcess& driver,
                std::function<void(process::Stream, std::string_view)> on_line)
      : output_(output), driver_(driver), on_line_(std::move(on_line)) {}

  // Left before its end (a callback threw): the driver is still in the command; kill it.
  ~DriverCommand() override {
    if (done_) return;
    for (int i = 0; i < 3; ++i) driver_.interrupt();
    finish();
  }

  pid_t pid() const override { return driver_.pid(); }

  Result<process::ExitStatus> wait() override {
    for (;;) {
      std::unique_lock lock(output_.mu);
      output_.changed.wait(lock, [&] { return !output_.lines.empty() || output_.ended; });
      if (!output_.lines.empty()) {
        Line line = std::move(output_.lines.front());
        output_.lines.pop_front();
        lock.unlock();
        if (line.stream == process::Stream::standard_output) {
          if (auto code = end_of_command(line.text)) {
            finish();
            process::ExitStatus status;
            status.exit_code = *code;
            status.interrupted = interrupted();
            status.last_signal_sent = status.interrupted ? SIGINT : 0;
            return status;
          }
        }
        if (on_line_) on_line_(line.stream, line.text);
        continue;
      }
      Result<process::ExitStatus> ended = *output_.ended;
      lock.unlock();
      finish();
      if (ended && interrupted()) ended->interrupted = true;
      return ended;
    }
  }

  void interrupt() override {
    {
      std::lock_guard lock(mu_);
      if (done_) return;
      interrupted_ = true;
    }
    driver_.interrupt();
  }

 private:
  bool interrupted() {
    std::lock_guard lock(mu_);
    return interrupted_;
  }
  void finish() {
    bool interrupted = false;
    {
      std::lock_guard lock(mu_);
      done_ = true;
      interrupted = interrupted_;
    }
    std::lock_guard lock(output_.mu);
    output_.command_running = false;
    output_.interrupted |= interrupted;
  }

  DriverOutput& output_;
  process::RunningProcess& driver_;
  std::function<void(process::Stream, std::string_view)> on_line_;
  std::mutex mu_;
  bool done_ = false;         // guarded by mu_
  bool interrupted_ = false;  // guarded by mu_
};

class DriverLauncher final : public DbtDriverLauncher {
 public:
  DriverLauncher(process::ProcessLauncher& real, std::filesystem::path python, DriverNotice notice)
      : real_(real), python_(std::move(python)), notice_(std::move(notice)) {}

  ~DriverLauncher() override {
    if (!driver_) return;
    driver_->close_input();
    std::unique_lock lock(output_.mu);
    if (!output_.changed.wait_for(lock, kExitGrace, [&] { return output_.ended.has_value(); })) {
      lock.unlock();
      for (int i = 0; i < 3; ++i) driver_->interrupt();  // SIGINT, SIGTERM, SIGKILL
    } else {
      lock.unlock();
    }
    waiter_.join();
  }

  bool keeps_manifest() const override {
    std::lock_guard start_lock(start_mu_);
    return driver_ != nullptr && !per_process_ && !refused_;
  }

  Result<std::unique_ptr<process::RunningProcess>> start(process::ProcessSpec spec) override {
    if (spec.argv.empty()) return fail("invalid_argument", "no dbt command to run: the argument list is empty.");
    std::lock_guard start_lock(start_mu_);
    if (refused_) return std::unexpected(*refused_);
    if (!driver_) {
      if (auto started = start_driver(spec); !started) return std::unexpected(started.error());
      if (auto offered = await_hello(); !offered) {
        refused_ = offered.error();
        return std::unexpected(offered.error());
      }
    }
    if (per_process_) return real_.start(std::move(spec));
    {
      std::lock_guard lock(output_.mu);
      if (output_.ended || output_.interrupted)
        return fail("spawn_failed",
                    "the ods dbt driver has ended (after an interruption or a failure); "
                    "it runs no further dbt command.");
      if (output_.command_running)
        return fail("spawn_failed", "the ods dbt driver is still running another dbt command.");
      output_.command_running = true;
    }
    nlohmann::json request{{"args", std::vector<std::string>(spec.argv.begin() + 1, spec.argv.end())},
                           {"cwd", spec.cwd.string()},
                           {"env", nlohmann::json::object()}};
    for (const auto& [name, value] : spec.env) request["env"][name] = value;
    if (auto written = driver_->write_input(request.dump() + "\n"); !written) {
      std::lock_guard lock(output_.mu);
      output_.command_running = false;
      return fail("spawn_failed", "cannot send the dbt command to the ods dbt driver: " + written.error().message);
    }
    return std::make_unique<DriverCommand>(output_, *driver_, std::move(spec.on_line));
  }

 private:
  // The driver's first line says what the running dbt offers: refused (an unsupported dbt:
  // the error), the manifest cannot be kept (one dbt process per command from now on, said
  // once through notice_), or ready. A driver that ends before saying anything (dbt cannot
  // be imported) is an error with what it printed.
  Result<void> await_hello() {
    std::unique_lock lock(output_.mu);
    output_.changed.wait(lock, [&] { return output_.hello.has_value() || output_.ended.has_value(); });
    if (!output_.hello) {
      std::string said;
      for (const Line& line : output_.lines) said += "\n" + line.text;
      const std::string how = !*output_.ended ? output_.ended->error().message
                                              : "exit code " + std::to_string(output_.ended->value().exit_code);
      return fail("dbt_failed", "the ods dbt driver ended before it could start dbt (" + how + ")" +
                                    (said.empty() ? std::string(".") : ":" + said));
    }
    const nlohmann::json hello = *output_.hello;
    lock.unlock();
    const std::string version = hello.value("dbt_version", std::string("(unknown version)"));
    if (hello.contains("refused")) {
      return fail("unsupported_dbt", hello["refused"].is_string() ? hello["refused"].get<std::string>()
                                                                  : "dbt " + version + " is not supported");
    }
    if (!hello.value("keep_manifest", false)) {
      per_process_ = true;
      if (notice_)
        notice_("dbt " + version + ": " +
                hello.value("why", std::string("the ods dbt driver cannot keep its manifest")) +
                "; running one dbt process per command");
    }
    return {};
  }

  Result<void> start_driver(const process::ProcessSpec& command) {
    process::ProcessSpec spec;
    spec.argv = {python_.string(), "-c", std::string(dbt_driver_source())};
    spec.cwd = command.cwd;
    spec.env = command.env;
    spec.interrupt_grace = command.interrupt_grace;
    spec.terminate_grace = command.terminate_grace;
    spec.drain_timeout = command.drain_timeout;
    spec.max_line_bytes = command.max_line_bytes;
    spec.input_pipe = true;
    spec.on_line = [this](process::Stream stream, std::string_view line) {
      std::lock_guard lock(output_.mu);
      if (!output_.hello && stream == process::Stream::standard_output) {
        if (auto message = driver_message(line); message && !message->contains("exit_code")) {
          output_.hello = std::move(*message);
          output_.changed.notify_all();
          return;
        }
      }
      output_.lines.push_back(Line{stream, std::string(line)});
      output_.changed.notify_all();
    };
    auto started = real_.start(std::move(spec));
    if (!started) return std::unexpected(started.error());
    driver_ = std::move(*started);
    waiter_ = std::thread([this] {
      Result<process::ExitStatus> ended = driver_->wait();
      std::lock_guard lock(output_.mu);
      output_.ended = std::move(ended);
      output_.changed.notify_all();
    });
    return {};
  }

  process::ProcessLauncher& real_;
  const std::filesystem::path python_;
  const DriverNotice notice_;
  mutable std::mutex start_mu_;
  bool per_process_ = false;      // guarded by start_mu_; the driver declined: one process per command
  std::optional<Error> refused_;  // guarded by start_mu_; the driver refused this dbt
  DriverOutput output_;
  std::unique_ptr<process::RunningProcess> driver_;
  std::thread waiter_;
};

}  // namespace

std::optional<std::filesystem::path> console_script_python(const std::filesystem::path& dbt) {
  std::ifstream in(dbt, std::ios::binary);
  std::string first;
  if (!in || !std::getline(in, first) || !first.starts_with("#!/")) return std::nullopt;
  first.erase(0, 2);
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
  if (first.find(' ') != std::string::npos) return std::nullopt;  // `#!/usr/bin/env python3` and the like
  const std::filesystem::path python(first);
  if (!python.filename().string().starts_with("python")) return std::nullopt;
  // pip's script for dbt-core; anything else (a wrapper that sets up more) runs as it is.
  std::string rest(4096, '\0');
  in.read(rest.data(), static_cast<std::streamsize>(rest.size()));
  rest.resize(static_cast<std::size_t>(in.gcount()));
  if (rest.find("from dbt.cli.main import cli") == std::string::npos) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(python, ec)) return std::nullopt;
  return python;
}

std::string_view dbt_driver_source() { return kDbtDriverSource; }

std::unique_ptr<DbtDriverLauncher> make_dbt_driver_launcher(process::ProcessLauncher& real,
                                                            std::filesystem::path python, DriverNotice notice) {
  return std::make_unique<DriverLauncher>(real, std::move(python), std::move(notice));
}

}  // namespace ods::dbt
