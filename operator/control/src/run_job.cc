#include "ods/control/run_job.h"

#include <charconv>
#include <set>

#include "ods/callback/pod_environment.h"
#include "ods/control/objects.h"

namespace ods::control {
namespace {

namespace pod_env = callback::pod_env;

Json env_var(std::string_view name, std::string value) { return {{"name", name}, {"value", std::move(value)}}; }

std::string joined(const Json& list) {
  std::string out;
  if (!list.is_array()) return out;
  for (const Json& item : list) {
    if (!item.is_string()) continue;
    if (!out.empty()) out += ' ';
    out += item.get<std::string>();
  }
  return out;
}

Json labels_for(const Json& run) {
  return {{kProjectLabel, string_at(run, "/spec/projectRef/name")},
          {kRunLabel, string_at(run, "/metadata/name")},
          {kManagedByLabel, kComponent}};
}

Json environment(const Json& run, const Json& project, const RunJobOptions& options) {
  const kube::ObjectKey run_key = key_of(run);
  Json env = Json::array({env_var(pod_env::kCallbackUrl, options.callback_url), env_var(pod_env::kRun, run_key.str()),
                          env_var(pod_env::kRunTokenFile, std::string(kRunTokenFile)),
                          env_var(pod_env::kProfilesDir, std::string(kProfileDir))});
  if (const std::string path = string_at(project, "/spec/source/image/path"); !path.empty()) {
    env.push_back(env_var(pod_env::kProjectDir, path));
  } else {
    const std::string git_path = string_at(project, "/spec/source/git/path");
    env.push_back(env_var(pod_env::kGitUrl, string_at(project, "/spec/source/git/url")));
    env.push_back(env_var(pod_env::kGitRevision, string_at(project, "/spec/source/git/revision", "main")));
    env.push_back(env_var(pod_env::kGitPath, git_path));
    if (!string_at(project, "/spec/source/git/secretRef/name").empty()) {
      env.push_back(env_var(pod_env::kGitCredentialsDir, std::string(kGitCredentialsDir)));
    }
    env.push_back(
        env_var(pod_env::kProjectDir, std::string(kWorkDir) + "/source" + (git_path.empty() ? "" : "/" + git_path)));
  }
  env.push_back(env_var(pod_env::kTarget, string_at(project, "/spec/target")));
  const Json::json_pointer run_selection("/spec/selection");
  const Json& selection = run.contains(run_selection)
                              ? run.at(run_selection)
                              : project.value("spec", Json::object()).value("selection", Json());
  env.push_back(env_var(pod_env::kSelect, joined(selection.is_object() ? selection.value("select", Json()) : Json())));
  env.push_back(
      env_var(pod_env::kExclude, joined(selection.is_object() ? selection.value("exclude", Json()) : Json())));
  const Json::json_pointer run_tests_at("/spec/policies/runTests");
  const bool run_tests = !project.contains(run_tests_at) || project.at(run_tests_at) != false;
  env.push_back(env_var(pod_env::kRunTests, run_tests ? "true" : "false"));
  env.push_back(env_var(pod_env::kTargetPath, std::string(kWorkDir) + "/target"));
  env.push_back(env_var(pod_env::kLogPath, std::string(kWorkDir) + "/logs"));
  env.push_back(env_var(pod_env::kHome, "/tmp"));
  // The digest key of env-reading hooks (docs/hook-digest.md): a reference the kubelet resolves
  // into this pod's environment only; the controller never reads the Secret.
  if (const std::string key_secret = string_at(project, "/spec/digestKeySecretRef/name"); !key_secret.empty()) {
    env.push_back(
        {{"name", std::string(pod_env::kDigestKey)},
         {"valueFrom",
          {{"secretKeyRef",
            {{"name", key_secret},
             {"key", string_at(project, "/spec/digestKeySecretRef/key", std::string(kDigestKeyDefaultKey))}}}}}});
  }
  const PackagesCacheVolume& cache = options.packages_cache;
  if (!cache.host_path.empty() || !cache.claim_name.empty())
    env.push_back(env_var(pod_env::kPackagesCache, std::string(kPackagesCacheDir)));
  std::set<std::string> ours{std::string(pod_env::kDigestKey)};  // never a value in the DbtProject
  for (const Json& item : env) ours.insert(item["name"].get<std::string>());
  const Json::json_pointer extra_at("/spec/runnerPodTemplate/env");
  if (project.contains(extra_at) && project.at(extra_at).is_array()) {
    for (const Json& item : project.at(extra_at)) {
      const std::string name = item.value("name", "");
      if (name.empty() || ours.contains(name)) continue;
      env.push_back(env_var(name, item.value("value", "")));
    }
  }
  return env;
}

}  // namespace

std::string runner_job_name(std::string_view run_name) { return bounded_name(run_name, "", 63); }

std::string run_token_secret_name(std::string_view run_name) { return bounded_name(run_name, "-run-token", 253); }

std::optional<std::chrono::seconds> parse_run_timeout(std::string_view text) {
  long long total = 0;
  std::size_t at = 0;
  if (text.empty()) return std::nullopt;
  while (at < text.size()) {
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
    if (error != std::errc{} || end == text.data() + text.size()) return std::nullopt;
    const char unit = *end;
    const long long scale = unit == 'h' ? 3600 : unit == 'm' ? 60 : unit == 's' ? 1 : 0;
    if (scale == 0) return std::nullopt;
    total += value * scale;
    at = static_cast<std::size_t>(end - text.data()) + 1;
  }
  if (total <= 0) return std::nullopt;
  return std::chrono::seconds(total);
}

Json run_token_secret(const Json& run, const std::string& token) {
  const kube::ObjectKey key = key_of(run);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "Opaque"},
          {"metadata",
           {{"name", run_token_secret_name(key.name)},
            {"namespace", key.namespace_name},
            {"labels", labels_for(run)},
            {"ownerReferences", Json::array({controller_reference(run)})}}},
          {"stringData", {{"token", token}}}};
}

Result<Json> runner_job(const Json& run, const Json& project, const RunJobOptions& options) {
  const kube::ObjectKey key = key_of(run);
  if (auto refusal = runner_policy_refusal(options.policy, project)) {
    return fail("not_allowed", "DbtProject " + string_at(project, "/metadata/name") + ": " + *refusal);
  }
  const std::string timeout_text = string_at(project, "/spec/policies/runTimeout", "1h");
  const auto timeout = parse_run_timeout(timeout_text);
  if (!timeout) {
    return fail("invalid_project", "DbtProject " + string_at(project, "/metadata/name") +
                                       ": spec.policies.runTimeout \"" + timeout_text +
                                       "\" is not a duration such as 90s, 45m or 1h30m");
  }
  const Json::json_pointer template_at("/spec/runnerPodTemplate");
  const Json pod_template = project.contains(template_at) ? project.at(template_at) : Json::object();
  Json container = {{"name", "runner"},
                    {"image", string_at(project, "/spec/image")},
                    {"command", {"ods", "pod"}},
                    {"env", environment(run, project, options)},
                    {"resources", pod_template.value("resources", options.default_resources)},
                    {"volumeMounts",
                     {{{"name", "profile"}, {"mountPath", kProfileDir}, {"readOnly", true}},
                      {{"name", "run-token"}, {"mountPath", kRunTokenDir}, {"readOnly", true}},
                      {{"name", "work"}, {"mountPath", kWorkDir}},
                      {{"name", "tmp"}, {"mountPath", "/tmp"}}}},
                    {"securityContext",
                     {{"allowPrivilegeEscalation", false},
                      {"readOnlyRootFilesystem", true},
                      {"runAsNonRoot", true},
                      {"runAsUser", options.run_as_user},
                      {"capabilities", {{"drop", {"ALL"}}}}}}};
  Json pod_spec = {
      {"restartPolicy", "Never"},
      {"automountServiceAccountToken", false},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", options.run_as_user},
        {"runAsGroup", options.run_as_user},
        {"fsGroup", options.run_as_user},
        {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", Json::array({container})},
      {"volumes",
       {{{"name", "profile"},
         {"secret",
          {{"secretName", string_at(project, "/spec/profileSecretRef/name")},
           {"items",
            {{{"key", string_at(project, "/spec/profileSecretRef/key", "profiles.yml")}, {"path", "profiles.yml"}}}},
           {"defaultMode", 0440}}}},
        {{"name", "run-token"}, {"secret", {{"secretName", run_token_secret_name(key.name)}, {"defaultMode", 0440}}}},
        {{"name", "work"}, {"emptyDir", Json::object()}},
        {{"name", "tmp"}, {"emptyDir", Json::object()}}}}};
  // A private git source: its Secret, mounted into this pod only (the operator never reads it).
  if (const std::string git_secret = string_at(project, "/spec/source/git/secretRef/name"); !git_secret.empty()) {
    pod_spec["volumes"].push_back(
        {{"name", "git-credentials"}, {"secret", {{"secretName", git_secret}, {"defaultMode", 0440}}}});
    pod_spec["containers"][0]["volumeMounts"].push_back(
        {{"name", "git-credentials"}, {"mountPath", kGitCredentialsDir}, {"readOnly", true}});
  }
  // The packages cache: a namespace's own folder of a node's hostPath, or the namespace's claim.
  const PackagesCacheVolume& cache = options.packages_cache;
  if (!cache.host_path.empty()) {
    pod_spec["volumes"].push_back(
        {{"name", "packages-cache"}, {"hostPath", {{"path", cache.host_path}, {"type", "DirectoryOrCreate"}}}});
    pod_spec["containers"][0]["volumeMounts"].push_back(
        {{"name", "packages-cache"}, {"mountPath", kPackagesCacheDir}, {"subPath", key.namespace_name}});
  } else if (!cache.claim_name.empty()) {
    pod_spec["volumes"].push_back(
        {{"name", "packages-cache"}, {"persistentVolumeClaim", {{"claimName", cache.claim_name}}}});
    pod_spec["containers"][0]["volumeMounts"].push_back({{"name", "packages-cache"}, {"mountPath", kPackagesCacheDir}});
  }
  if (pod_template.contains("serviceAccountName")) pod_spec["serviceAccountName"] = pod_template["serviceAccountName"];
  if (pod_template.contains("nodeSelector")) pod_spec["nodeSelector"] = pod_template["nodeSelector"];
  return Json{{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", runner_job_name(key.name)},
                {"namespace", key.namespace_name},
                {"labels", labels_for(run)},
                {"ownerReferences", Json::array({controller_reference(run)})}}},
              {"spec",
               {{"backoffLimit", 0},
                {"activeDeadlineSeconds", timeout->count()},
                {"template", {{"metadata", {{"labels", labels_for(run)}}}, {"spec", pod_spec}}}}}};
}

}  // namespace ods::control
