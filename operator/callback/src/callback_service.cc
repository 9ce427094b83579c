// Routing, authentication and per-run serialisation of the runner pods' requests.
#include "ods/callback/callback_service.h"

#include <map>
#include <mutex>

#include "ods/callback/protocol.h"
#include "run_steps.h"
#include "run_waves.h"

namespace ods::callback {

using namespace detail;

std::string planned_entry_id(const std::string& run_uid) { return run_uid + ".planned"; }

const char* to_string(RunPhase phase) {
  switch (phase) {
    case RunPhase::planning:
      return "Planning";
    case RunPhase::building:
      return "Building";
    case RunPhase::recording:
      return "Recording";
    case RunPhase::succeeded:
      return "Succeeded";
    case RunPhase::failed:
      return "Failed";
  }
  return "Unknown";
}

namespace {

struct Route {
  std::string ns, name, step;  // step: "head" | "inputs" | "wave" | "results"
};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Answer<Route> route_of(const CallbackRequest& request) {
  auto parts = split_path(request.path);
  if (request.path.empty() || request.path[0] != '/' || parts.size() != 5 || parts[0] != "v1" || parts[1] != "runs" ||
      (parts[4] != "head" && parts[4] != "inputs" && parts[4] != "wave" && parts[4] != "results"))
    return refuse_with(404, "not_found", "",
                       request.path +
                           ": no such endpoint; POST /v1/runs/<namespace>/<name>/"
                           "head, .../inputs, .../wave or .../results");
  if (parts[2].empty() || parts[3].empty())
    return refuse_with(400, "bad_path", "", request.path + ": the run's namespace and name must not be empty");
  if (request.method != "POST") return refuse_with(405, "method_not_allowed", "", request.method + ": only POST");
  return Route{parts[2], parts[3], parts[4]};
}

CallbackResponse respond(const Refusal& r) { return {r.status, error_json(r.code, r.field, r.message)}; }

// One step of a run: its `body` refused (400, naming the field) when it does not read, else
// `step`'s answer (200) or refusal.
template <class Body, class Answered>
CallbackResponse respond_to(const Parsed<Body>& body,
                            Answer<Answered> (*step)(const RunCall&, const Body&, CallbackDeps&), const RunCall& call,
                            CallbackDeps& deps) {
  if (!body) return respond({400, "bad_request", body.error().field, body.error().message});
  auto answer = step(call, *body, deps);
  if (!answer) return respond(answer.error());
  return {200, to_json(*answer)};
}

class Service final : public CallbackService {
 public:
  explicit Service(CallbackDeps deps) : deps_(std::move(deps)) {}

  CallbackResponse handle(const CallbackRequest& request) override {
    try {
      return handle_route(request);
    } catch (const std::exception& e) {
      return respond({500, "internal", "", std::string("internal error: ") + e.what()});
    }
  }

 private:
  CallbackResponse handle_route(const CallbackRequest& request) {
    auto route = route_of(request);
    if (!route) return respond(route.error());
    auto call = authenticate(*route, request.authorization);
    if (!call) return respond(call.error());
    std::lock_guard run_lock(*lock_of(route->ns + "/" + route->name));
    if (route->step == "head") return respond_to(parse_head_request(request.body), answer_head, *call, deps_);
    if (route->step == "inputs") return respond_to(parse_inputs_request(request.body), plan_run, *call, deps_);
    if (route->step == "wave") return respond_to(parse_wave_report(request.body), record_wave, *call, deps_);
    return respond_to(parse_results_request(request.body), record_run, *call, deps_);
  }

  // The run, when the token is its own. An unknown run and a wrong token are told apart
  // (404/401): run names are not secret, tokens are.
  Answer<RunCall> authenticate(const Route& route, const std::string& authorization) {
    static const std::string kBearer = "Bearer ";
    if (authorization.rfind(kBearer, 0) != 0)
      return refuse_with(401, "unauthorized", "", "an Authorization: Bearer <run token> header is required");
    auto found = deps_.lookup.find(route.ns, route.name);
    if (!found)
      return refuse_with(503, "unavailable", "",
                         "cannot look up run " + route.ns + "/" + route.name + " now: " + found.error().message);
    if (!*found) return refuse_with(404, "unknown_run", "", "no run " + route.ns + "/" + route.name);
    if (!deps_.tokens.verify(route.ns, route.name, (*found)->uid, authorization.substr(kBearer.size())))
      return refuse_with(401, "unauthorized", "", "the token is not the one of run " + route.ns + "/" + route.name);
    return RunCall{route.ns, route.name, std::move(**found)};
  }

  std::mutex* lock_of(const std::string& run) {
    std::lock_guard guard(locks_mutex_);
    auto& slot = locks_[run];
    if (!slot) slot = std::make_unique<std::mutex>();
    return slot.get();
  }

  CallbackDeps deps_;
  std::mutex locks_mutex_;
  std::map<std::string, std::unique_ptr<std::mutex>> locks_;  // one per run ever seen (small)
};

}  // namespace

std::unique_ptr<CallbackService> make_callback_service(CallbackDeps deps) {
  return std::make_unique<Service>(std::move(deps));
}

}  // namespace ods::callback
