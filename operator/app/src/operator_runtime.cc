#include "operator_runtime.h"

#include <malloc.h>

#include <condition_variable>
#include <mutex>

#include "api_run_lookup.h"
#include "cached_reads.h"
#include "ods/control/controller.h"
#include "ods/control/events.h"
#include "ods/control/objects.h"
#include "ods/control/project_reconciler.h"
#include "ods/control/run_reconciler.h"
#include "ods/control/run_status.h"
#include "ods/control/work_queue.h"
#include "ods/kube/informer.h"
#include "project_metrics.h"
#include "run_phase_writer.h"

namespace ods::operator_app {
namespace {

using kube::Json;

// controller_runtime_reconcile_* from the controllers' reports.
class ReconcileToMetrics final : public control::ReconcileMetrics {
 public:
  explicit ReconcileToMetrics(telemetry::OperatorMetrics& metrics) : metrics_(metrics) {}
  void reconciled(const std::string& controller, const std::string& result,
                  std::chrono::nanoseconds duration) override {
    auto kind = result == "error"           ? telemetry::ReconcileResult::error
                : result == "requeue_after" ? telemetry::ReconcileResult::requeue_after
                                            : telemetry::ReconcileResult::success;
    metrics_.record_reconcile(controller, kind, std::chrono::duration<double>(duration).count());
  }

 private:
  telemetry::OperatorMetrics& metrics_;
};

// Copies the queues' depth and counters and the informers' relists into the metrics once a second;
// and once the queues drained after adds, gives the heap's free pages back to the system
// (malloc_trim, as Go's scavenger does): a relist or a burst of reconciles frees megabytes of
// parsed lists and copies between the long-lived cache entries, which glibc returns only from the
// heap's top (docs/benchmarks.md, "Operator at scale": 18 MB of 89 MB at 1,000 projects).
class QueueMetricsPump {
 public:
  QueueMetricsPump(telemetry::OperatorMetrics& metrics, std::vector<std::pair<std::string, control::WorkQueue*>> queues,
                   std::vector<std::pair<std::string, const kube::Informer*>> informers)
      : metrics_(metrics),
        queues_(std::move(queues)),
        seen_(queues_.size()),
        informers_(std::move(informers)),
        relists_seen_(informers_.size(), 0) {
    thread_ = std::thread([this] { run(); });
  }
  ~QueueMetricsPump() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    bool worked = false;  // adds since the last trim
    while (!stopping_) {
      bool drained = true;
      for (size_t i = 0; i < queues_.size(); ++i) {
        const auto& [name, queue] = queues_[i];
        const auto depth = queue->depth();
        drained = drained && depth == 0;
        metrics_.set_queue_depth(name, static_cast<std::int64_t>(depth));
        for (auto adds = queue->adds_total(); seen_[i].first < adds; ++seen_[i].first) {
          metrics_.count_queue_add(name);
          worked = true;
        }
        for (auto retries = queue->retries_total(); seen_[i].second < retries; ++seen_[i].second) {
          metrics_.count_queue_retry(name);
        }
      }
      for (size_t i = 0; i < informers_.size(); ++i) {
        const auto relists = informers_[i].second->relists();
        if (relists > relists_seen_[i])
          metrics_.count_informer_relists(informers_[i].first, relists - relists_seen_[i]);
        relists_seen_[i] = relists;
      }
      if (worked && drained) {
        malloc_trim(0);
        worked = false;
      }
      wake_.wait_for(lock, std::chrono::seconds(1));
    }
  }
  telemetry::OperatorMetrics& metrics_;
  std::vector<std::pair<std::string, control::WorkQueue*>> queues_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen_;
  std::vector<std::pair<std::string, const kube::Informer*>> informers_;
  std::vector<std::uint64_t> relists_seen_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

kube::InformerOptions informer_options(const kube::Resource& resource, const std::string& ns,
                                       const std::string& label_selector = "") {
  kube::InformerOptions o;
  o.resource = resource;
  o.namespace_name = ns;
  o.label_selector = label_selector;
  return o;
}

// The DbtRuns, indexed by their project: the project reconciler reads its own runs, not the
// namespace's (CachedReads answers the field selector spec.projectRef.name from the index).
kube::InformerOptions runs_informer_options(const std::string& ns) {
  kube::InformerOptions o = informer_options(kube::resources::kDbtRuns, ns);
  o.indexes.emplace(std::string(control::kProjectRefField),
                    kube::index_by_field(std::string(control::kProjectRefPointer)));
  return o;
}

}  // namespace

struct OperatorRuntime::Parts {
  explicit Parts(RuntimeDeps d)
      : deps(std::move(d)),
        events(deps.client, ods::system_clock(), deps.options.identity),
        run_status(deps.client, ods::system_clock(), events),
        reconcile_metrics(deps.metrics),
        cached_reads(deps.client, {{kube::resources::kDbtProjects, &projects}, {kube::resources::kDbtRuns, &runs}}),
        project_reconciler(cached_reads, ods::system_clock(), events),
        run_reconciler(deps.client, ods::system_clock(), events, token_source(), job_options()),
        project_metrics(deps.metrics, ods::system_clock()),
        projects(deps.client, informer_options(kube::resources::kDbtProjects, deps.options.watch_namespace),
                 [this](kube::WatchEvent::Type type, const Json& o) {
                   project_metrics.project_event(type, o);
                   project_queue.add(control::key_of(o).str());
                 }),
        runs(deps.client, runs_informer_options(deps.options.watch_namespace),
             [this](kube::WatchEvent::Type type, const Json& o) {
               project_metrics.run_event(type, o);
               run_queue.add(control::key_of(o).str());
               project_queue.add(control::project_key_of_run(o).str());
             }),
        jobs(deps.client,
             informer_options(kube::resources::kJobs, deps.options.watch_namespace,
                              std::string(control::kManagedByLabel) + "=" + std::string(control::kComponent)),
             [this](kube::WatchEvent::Type, const Json& o) {
               if (auto run = control::controller_of(o, "DbtRun")) run_queue.add(run->str());
             }),
        lookup(deps.client, runs, projects),
        phase_writer(run_status, deps.metrics, deps.log.child("callback"), [this](const kube::ObjectKey& run) {
          auto cached = runs.get(run);
          std::string project = cached ? (*cached)["spec"]["projectRef"].value("name", "") : "";
          return run.namespace_name + "/" + project;
        }) {}

  control::RunTokenSource token_source() {
    return [this](const Json& run) {
      const auto key = control::key_of(run);
      return deps.tokens.token_for(key.namespace_name, key.name, run["metadata"].value("uid", ""));
    };
  }
  control::RunJobOptions job_options() const {
    control::RunJobOptions o;
    o.callback_url = deps.options.callback_url;
    o.policy = {.image_patterns = deps.options.allowed_images,
                .service_accounts = deps.options.allowed_service_accounts};
    o.packages_cache = {.host_path = deps.options.packages_cache_host_path,
                        .claim_name = deps.options.packages_cache_claim};
    return o;
  }
  control::Controller::Options controller_options(const std::string& name) {
    control::Controller::Options o;
    o.name = name;
    o.workers = deps.options.workers;
    o.on_error = [this, name](const std::string& key, const Error& error) {
      deps.log.child("controller." + name).warn("reconcile failed", {{"key", key}, {"error", error.message}});
    };
    return o;
  }

  RuntimeDeps deps;
  control::EventRecorder events;
  control::RunStatus run_status;
  ReconcileToMetrics reconcile_metrics;
  control::WorkQueue project_queue;
  control::WorkQueue run_queue;
  CachedReads cached_reads;  // the project reconciler's reads: from the informers (constructed below)
  control::DbtProjectReconciler project_reconciler;
  control::DbtRunReconciler run_reconciler;
  ProjectMetrics project_metrics;
  kube::Informer projects;
  kube::Informer runs;
  kube::Informer jobs;
  ApiRunLookup lookup;
  RunPhaseWriter phase_writer;
  bool gate_opened = false;
  std::unique_ptr<control::Controller> project_controller;
  std::unique_ptr<control::Controller> run_controller;
  std::unique_ptr<QueueMetricsPump> pump;
};

Result<std::unique_ptr<OperatorRuntime>> OperatorRuntime::start(RuntimeDeps deps,
                                                                std::chrono::milliseconds sync_timeout) {
  auto parts = std::make_unique<Parts>(std::move(deps));
  Parts& p = *parts;
  for (const char* controller : {"dbtproject", "dbtrun"}) p.deps.metrics.add_controller(controller);
  for (kube::Informer* informer : {&p.projects, &p.runs, &p.jobs}) informer->start();
  for (const auto& [name, informer] :
       {std::pair<const char*, kube::Informer*>{"dbtprojects", &p.projects}, {"dbtruns", &p.runs}, {"jobs", &p.jobs}}) {
    if (!informer->wait_for_sync(sync_timeout)) {
      return fail("unavailable", std::string("the ") + name + " informer did not sync: " + informer->last_error());
    }
  }
  p.deps.gate.open(
      callback::make_callback_service(callback::CallbackDeps{p.deps.tokens, p.lookup, p.phase_writer, p.deps.store}));
  p.gate_opened = true;
  p.project_controller = std::make_unique<control::Controller>(p.controller_options("dbtproject"), p.project_queue,
                                                               p.project_reconciler, &p.reconcile_metrics);
  p.run_controller = std::make_unique<control::Controller>(p.controller_options("dbtrun"), p.run_queue,
                                                           p.run_reconciler, &p.reconcile_metrics);
  p.project_controller->start();
  p.run_controller->start();
  p.pump =
      std::make_unique<QueueMetricsPump>(p.deps.metrics,
                                         std::vector<std::pair<std::string, control::WorkQueue*>>{
                                             {"dbtproject", &p.project_queue}, {"dbtrun", &p.run_queue}},
                                         std::vector<std::pair<std::string, const kube::Informer*>>{
                                             {"dbtprojects", &p.projects}, {"dbtruns", &p.runs}, {"jobs", &p.jobs}});
  p.deps.log.info(
      "controllers started",
      {{"callback", p.deps.options.callback_url},
       {"namespace", p.deps.options.watch_namespace.empty() ? std::string("(all)") : p.deps.options.watch_namespace}});
  return std::unique_ptr<OperatorRuntime>(new OperatorRuntime(std::move(parts)));
}

OperatorRuntime::OperatorRuntime(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

OperatorRuntime::~OperatorRuntime() {
  if (!parts_) return;
  parts_->pump.reset();
  if (parts_->project_controller) parts_->project_controller->stop();
  if (parts_->run_controller) parts_->run_controller->stop();
  if (parts_->gate_opened) parts_->deps.gate.close();
  parts_->jobs.stop();
  parts_->runs.stop();
  parts_->projects.stop();
}

}  // namespace ods::operator_app
