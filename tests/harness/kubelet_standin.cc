#include "harness/kubelet_standin.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "ods/control/time_text.h"

namespace ods::testing {
namespace {

namespace res = ods::kube::resources;

std::string now_text() { return ods::control::format_time(std::chrono::system_clock::now()); }

std::string base64_decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, buffer = 0;
  for (const char c : text) {
    const int v = value(c);
    if (v < 0) continue;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

// key → content of a Secret (data is base64; stringData, as the fake keeps it, is plain).
std::map<std::string, std::string> secret_files(const Json& secret) {
  std::map<std::string, std::string> files;
  const Json data = secret.value("data", Json::object());
  const Json string_data = secret.value("stringData", Json::object());
  for (const auto& [key, value] : data.items()) files[key] = base64_decode(value);
  for (const auto& [key, value] : string_data.items()) files[key] = value;
  return files;
}

}  // namespace

std::expected<std::map<std::string, std::string>, std::string> KubeletStandin::secret_environment(
    const Json& job, const std::string& namespace_name) {
  std::map<std::string, std::string> values;
  for (const Json& item : job["spec"]["template"]["spec"]["containers"][0].value("env", Json::array())) {
    const Json::json_pointer ref_at("/valueFrom/secretKeyRef");
    if (!item.contains(ref_at)) continue;
    const Json& ref = item.at(ref_at);
    const std::string name = ref.value("name", ""), key = ref.value("key", "");
    auto secret = client_.find(res::kSecrets, {namespace_name, name});
    // The kubelet's messages (pkg/kubelet/kubelet_pods.go), which name the Secret and key only.
    if (!secret || !secret->has_value()) return std::unexpected("secret \"" + name + "\" not found");
    const auto files = secret_files(**secret);
    const auto found = files.find(key);
    if (found == files.end()) {
      return std::unexpected("couldn't find key " + key + " in Secret " + namespace_name + "/" + name);
    }
    values[item.value("name", "")] = found->second;
  }
  return values;
}

KubeletStandin::KubeletStandin(ods::kube::Client& client, Options options)
    : client_(client), options_(std::move(options)) {
  std::filesystem::create_directories(options_.root);
}

KubeletStandin::~KubeletStandin() { stop(); }

void KubeletStandin::note(const std::string& problem) {
  std::lock_guard lock(mutex_);
  problems_.push_back(problem);
}

std::vector<std::string> KubeletStandin::problems() const {
  std::lock_guard lock(mutex_);
  return problems_;
}

void KubeletStandin::start() {
  watcher_ = std::thread([this] { watch_loop(); });
}

void KubeletStandin::stop() {
  stopping_ = true;
  {
    std::lock_guard lock(mutex_);
    if (watch_) watch_->cancel();
    for (const auto& [pid, uid] : running_) ::kill(-pid, SIGKILL);
  }
  if (watcher_.joinable()) watcher_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(job_threads_);
  }
  for (auto& thread : threads) thread.join();
}

void KubeletStandin::watch_loop() {
  while (!stopping_) {
    auto listed = client_.list(res::kJobs, options_.namespace_name, {});
    if (!listed) {
      note("listing Jobs: " + listed.error().message);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    for (const Json& job : (*listed)["items"]) launch(job);
    ods::kube::WatchOptions watch_options;
    watch_options.resource_version = (*listed)["metadata"].value("resourceVersion", "");
    watch_options.timeout = std::chrono::seconds(60);
    auto stream = client_.watch(res::kJobs, options_.namespace_name, watch_options);
    if (!stream) {
      note("watching Jobs: " + stream.error().message);
      continue;
    }
    ods::kube::WatchStream* watch = nullptr;
    {
      std::lock_guard lock(mutex_);
      watch_ = std::move(*stream);
      watch = watch_.get();
      if (stopping_) watch_->cancel();
    }
    while (!stopping_) {
      auto event = watch->next();
      if (!event || !event->has_value()) break;  // ended or broke: relist
      if ((*event)->type == ods::kube::WatchEvent::Type::added) launch((*event)->object);
      if ((*event)->type == ods::kube::WatchEvent::Type::deleted) forget((*event)->object);
      if ((*event)->type == ods::kube::WatchEvent::Type::error) break;
    }
  }
}

int KubeletStandin::processes_running() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(running_.size());
}

void KubeletStandin::forget(const Json& job) {
  const std::string uid = job["metadata"].value("uid", "");
  std::lock_guard lock(mutex_);
  deleted_uids_.insert(uid);
  for (const auto& [pid, job_uid] : running_) {
    if (job_uid == uid) ::kill(-pid, SIGKILL);
  }
}

void KubeletStandin::launch(const Json& job) {
  const std::string uid = job["metadata"].value("uid", "");
  const Json::json_pointer conditions("/status/conditions");
  std::lock_guard lock(mutex_);
  if (stopping_ || !seen_uids_.insert(uid).second) return;
  if (job.contains(conditions) && !job.at(conditions).empty()) return;  // finished before we saw it
  job_threads_.emplace_back([this, job] {
    auto result = run_job(job);
    if (!result) note(result.error());
  });
}

std::expected<PodResult, std::string> KubeletStandin::run_job(const Json& job) {
  ++jobs_started_;
  const std::string namespace_name = job["metadata"]["namespace"];
  const std::string job_name = job["metadata"]["name"];
  const std::string started = now_text();
  auto pod = client_.create(res::kPods, namespace_name, standin::pod_for_job(job, job_name + "-standin"));
  if (!pod) return std::unexpected("creating the Pod of Job " + job_name + ": " + pod.error().message);
  const ods::kube::ObjectKey pod_key{namespace_name, (*pod)["metadata"]["name"]};
  const ods::kube::ObjectKey job_key{namespace_name, job_name};
  const std::filesystem::path pod_dir = options_.root / pod_key.name;
  std::filesystem::create_directories(pod_dir / "volumes");

  // Volumes: Secrets as files, emptyDirs as folders.
  std::map<std::string, std::string> volume_dirs;
  std::string missing;
  for (const Json& volume : job["spec"]["template"]["spec"].value("volumes", Json::array())) {
    const std::string name = volume.value("name", "");
    const std::filesystem::path dir = pod_dir / "volumes" / name;
    std::filesystem::create_directories(dir);
    volume_dirs[name] = dir.string();
    if (!volume.contains("secret")) continue;
    const std::string secret_name = volume["secret"].value("secretName", "");
    auto secret = client_.find(res::kSecrets, {namespace_name, secret_name});
    if (!secret || !secret->has_value()) {
      missing = "Secret " + secret_name + " not found";
      continue;
    }
    const auto files = secret_files(**secret);
    const Json items = volume["secret"].value("items", Json::array());
    for (const auto& [key, content] : files) {
      std::string path = key;
      bool listed = items.empty();
      for (const Json& item : items) {
        if (item.value("key", "") == key) path = item.value("path", key), listed = true;
      }
      if (listed) std::ofstream(dir / path, std::ios::binary) << content;
    }
  }
  auto write_status = [&](const std::optional<PodResult>& result) -> std::expected<void, std::string> {
    const std::string now = now_text();
    auto pod_written =
        client_.merge_patch(res::kPods, pod_key, {{"status", standin::pod_status(job, result, started, now)}},
                            ods::kube::Subresource::status);
    if (!pod_written)
      return std::unexpected("writing the status of Pod " + pod_key.str() + ": " + pod_written.error().message);
    auto job_written = client_.merge_patch(res::kJobs, job_key, {{"status", standin::job_status(result, started, now)}},
                                           ods::kube::Subresource::status);
    if (!job_written)
      return std::unexpected("writing the status of Job " + job_key.str() + ": " + job_written.error().message);
    return {};
  };
  // An env secretKeyRef that can't be resolved keeps the container waiting
  // (CreateContainerConfigError) and the Job active, as the kubelet does, until it can be, the
  // Job is deleted or its activeDeadlineSeconds passes. The Pod's waiting message follows what is
  // missing (the Secret, then its key), as the kubelet's does: one write each time it changes.
  std::optional<PodResult> result;
  auto secret_env = secret_environment(job, namespace_name);
  const Json::json_pointer deadline_at("/spec/activeDeadlineSeconds");
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(job.contains(deadline_at) ? job.at(deadline_at).get<long long>() : 3600);
  std::string shown;  // the message the Pod's waiting status has ("" before the first)
  while (!secret_env) {
    if (secret_env.error() != shown) {
      auto pod_written = client_.merge_patch(
          res::kPods, pod_key,
          {{"status", standin::pod_waiting_status(job, "CreateContainerConfigError", secret_env.error())}},
          ods::kube::Subresource::status);
      if (!pod_written)
        return std::unexpected("writing the status of Pod " + pod_key.str() + ": " + pod_written.error().message);
      if (shown.empty()) {
        auto job_written = client_.merge_patch(res::kJobs, job_key,
                                               {{"status", {{"startTime", started}, {"active", 1}, {"ready", 0}}}},
                                               ods::kube::Subresource::status);
        if (!job_written)
          return std::unexpected("writing the status of Job " + job_key.str() + ": " + job_written.error().message);
      }
      shown = secret_env.error();
    }
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || deleted_uids_.contains(job["metadata"].value("uid", ""))) break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      result = PodResult{PodResult::Ending::deadline_exceeded, 137, "killed at activeDeadlineSeconds"};
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    secret_env = secret_environment(job, namespace_name);
  }
  if (!secret_env && !result) result = PodResult{PodResult::Ending::not_started, 1, secret_env.error()};
  if (!result) {
    if (auto running = write_status(std::nullopt); !running) return std::unexpected(running.error());
    if (!missing.empty()) {
      result = {PodResult::Ending::not_started, 1, missing};
    } else {
      result = execute(job, pod_dir, standin::environment(job, volume_dirs, *secret_env));
    }
  }
  {
    std::unique_lock lock(mutex_);
    if (stopping_) return *result;
    if (deleted_uids_.contains(job["metadata"].value("uid", ""))) {
      // As the kubelet (1.27+) does: the killed Pod gets a terminal phase, then the garbage
      // collector's deletion goes through (without a kubelet it would stay Terminating).
      lock.unlock();
      auto ended =
          client_.merge_patch(res::kPods, pod_key, {{"status", standin::pod_status(job, *result, started, now_text())}},
                              ods::kube::Subresource::status);
      if (!ended) return std::unexpected("writing the status of Pod " + pod_key.str() + ": " + ended.error().message);
      if (auto removed = client_.remove(res::kPods, pod_key); !removed) {
        return std::unexpected("deleting the Pod " + pod_key.str() + " of a deleted Job: " + removed.error().message);
      }
      return *result;
    }
  }
  if (auto ended = write_status(*result); !ended) return std::unexpected(ended.error());
  return *result;
}

PodResult KubeletStandin::execute(const Json& job, const std::filesystem::path& pod_dir,
                                  const std::map<std::string, std::string>& environment) {
  const Json& container = job["spec"]["template"]["spec"]["containers"][0];
  std::vector<std::string> argv;
  for (const Json& part : container.value("command", Json::array())) argv.push_back(part);
  for (const Json& part : container.value("args", Json::array())) argv.push_back(part);
  if (argv.empty()) return {PodResult::Ending::not_started, 1, "the container has no command"};
  if (const auto mapped = options_.executables.find(argv[0]); mapped != options_.executables.end()) {
    argv[0] = mapped->second;
  }
  std::vector<std::string> env_lines;
  for (const auto& [name, value] : environment) env_lines.push_back(name + "=" + value);
  if (!environment.contains("PATH"))
    env_lines.push_back(std::string("PATH=") + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"));
  std::vector<char*> args, envp;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  for (auto& e : env_lines) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string log = (pod_dir / "log").string();
  const std::string cwd = pod_dir.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return {PodResult::Ending::not_started, 1, "fork failed"};
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(126);
    ::setpgid(0, 0);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || ::chdir(cwd.c_str()) != 0) _exit(127);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execvpe(args[0], args.data(), envp.data());
    _exit(127);
  }
  ::setpgid(pid, pid);
  {
    std::lock_guard lock(mutex_);
    running_.emplace(pid, job["metadata"].value("uid", ""));
    if (stopping_ || deleted_uids_.contains(job["metadata"].value("uid", ""))) ::kill(-pid, SIGKILL);
  }
  const Json::json_pointer deadline_at("/spec/activeDeadlineSeconds");
  const bool has_deadline = job.contains(deadline_at);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(has_deadline ? job.at(deadline_at).get<long long>() : 0);
  int status = 0;
  bool deadline_hit = false;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (!deadline_hit && has_deadline && std::chrono::steady_clock::now() >= deadline) {
      deadline_hit = true;
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  {
    std::lock_guard lock(mutex_);
    running_.erase(pid);
  }
  if (deadline_hit) return {PodResult::Ending::deadline_exceeded, 137, "killed at activeDeadlineSeconds"};
  if (WIFEXITED(status)) return {PodResult::Ending::exited, WEXITSTATUS(status), ""};
  return {PodResult::Ending::exited, 128 + WTERMSIG(status), "killed by a signal"};
}

}  // namespace ods::testing
