#pragma once
// DbtProject and DbtRun objects for the reconciler tests, shaped as the CRDs (crds/) define them.
#include <string>

#include "fake_client.h"
#include "ods/kube/client.h"

namespace ods::control::testing {

inline Json shop_project(const std::string& schedule = "0 6 * * *") {
  Json project = {{"apiVersion", "ods.dev/v1alpha1"},
                  {"kind", "DbtProject"},
                  {"metadata", {{"name", "shop"}, {"namespace", "ns"}, {"creationTimestamp", "2026-03-01T12:00:00Z"}}},
                  {"spec",
                   {{"source", {{"image", {{"path", "/project"}}}}},
                    {"image", "ghcr.io/ods-dev/ods-runner:0.1"},
                    {"profileSecretRef", {{"name", "shop-dbt-profile"}}},
                    {"target", "prod"},
                    {"selection", {{"select", {"tag:daily", "orders+"}}, {"exclude", {"tag:slow"}}}},
                    {"policies", {{"runTimeout", "45m"}}},
                    {"historyLimit", 3}}}};
  if (!schedule.empty()) project["spec"]["schedule"] = schedule;
  return project;
}

inline Json manual_run(const std::string& name, const std::string& project = "shop") {
  return {{"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtRun"},
          {"metadata", {{"name", name}, {"namespace", "ns"}}},
          {"spec", {{"projectRef", {{"name", project}}}, {"trigger", "Manual"}}}};
}

// Stores `object` and then writes its status (the fake, like the API server, drops status on create).
inline Json store(FakeClient& client, const kube::Resource& resource, Json object) {
  const Json status = object.value("status", Json());
  auto created = client.create(resource, object["metadata"]["namespace"], object);
  if (!created) throw std::runtime_error(created.error().message);
  if (status.is_null()) return *created;
  auto written = client.merge_patch(resource, {object["metadata"]["namespace"], object["metadata"]["name"]},
                                    {{"status", status}}, kube::Subresource::status);
  if (!written) throw std::runtime_error(written.error().message);
  return *written;
}

}  // namespace ods::control::testing
