#pragma once
// callback::RunLookup from the DbtRun and DbtProject resources: which run a pod reports for,
// its uid (part of its token), the dbt project and target it must build, and the state scope it
// records into. Answers from the informers' caches, falling back to a GET for a run created a
// moment ago.
#include "ods/callback/run_lookup.h"
#include "ods/kube/client.h"
#include "ods/kube/informer.h"

namespace ods::operator_app {

// The state scope of a DbtProject: namespaced by the resource, so two projects in different
// namespaces never share (and never wrongly reuse) each other's builds, then the planner's
// "<dbt project>/<target>".
std::string operator_scope(const std::string& ns, const std::string& dbt_project_name, const std::string& project,
                           const std::string& target);

// The dbt project name a DbtProject builds: spec.dbtProjectName, else the resource's name.
std::string dbt_project_name(const kube::Json& project);

class ApiRunLookup final : public callback::RunLookup {
 public:
  // All three must outlive this object.
  ApiRunLookup(kube::Client& client, const kube::Informer& runs, const kube::Informer& projects)
      : client_(client), runs_(runs), projects_(projects) {}
  [[nodiscard]] Result<std::optional<callback::RunInfo>> find(const std::string& ns, const std::string& name) override;

 private:
  Result<std::optional<kube::Json>> object(const kube::Informer& cache, const kube::Resource& resource,
                                           const kube::ObjectKey& key);
  kube::Client& client_;
  const kube::Informer& runs_;
  const kube::Informer& projects_;
};

}  // namespace ods::operator_app
