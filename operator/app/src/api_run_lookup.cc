#include "api_run_lookup.h"

#include "ods/planner/planner.h"

namespace ods::operator_app {

std::string operator_scope(const std::string& ns, const std::string& resource_name, const std::string& project,
                           const std::string& target) {
  return "k8s:" + ns + "/" + resource_name + ":" + planner::scope_of(project, target);
}

std::string dbt_project_name(const kube::Json& project) {
  const auto& spec = project.value("spec", kube::Json::object());
  std::string name = spec.value("dbtProjectName", "");
  return name.empty() ? project["metadata"].value("name", "") : name;
}

Result<std::optional<kube::Json>> ApiRunLookup::object(const kube::Informer& cache, const kube::Resource& resource,
                                                       const kube::ObjectKey& key) {
  if (auto cached = cache.get(key)) return cached;
  auto found = client_.find(resource, key);
  if (!found) return fail("unavailable", found.error().message);
  return *found;
}

Result<std::optional<callback::RunInfo>> ApiRunLookup::find(const std::string& ns, const std::string& name) {
  auto run = object(runs_, kube::resources::kDbtRuns, {ns, name});
  if (!run) return std::unexpected(run.error());
  if (!*run) return std::optional<callback::RunInfo>{};
  const std::string project_name = (**run)["spec"]["projectRef"].value("name", "");
  auto project = object(projects_, kube::resources::kDbtProjects, {ns, project_name});
  if (!project) return std::unexpected(project.error());
  if (!*project) return std::optional<callback::RunInfo>{};  // a run of no project cannot report
  callback::RunInfo info;
  info.uid = (**run)["metadata"].value("uid", "");
  info.project = dbt_project_name(**project);
  info.target = (**project)["spec"].value("target", "");
  info.scope = operator_scope(ns, project_name, info.project, info.target);
  return std::optional<callback::RunInfo>{info};
}

}  // namespace ods::operator_app
