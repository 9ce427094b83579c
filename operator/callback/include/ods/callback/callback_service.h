#pragma once
// The controller's side of the runner pod protocol (ods/callback/protocol.h), without the
// HTTP transport: CallbackServer (callback_server.h) feeds it requests; unit tests call it
// directly. It authenticates each request for its run, validates the body, plans against
// the state store, persists the plan in the store's run ledger (so a restarted controller
// with the same key and store can record the results) and records the results exactly once.
//
// Status codes: 200 answered; 400 malformed body or path (the error names the field);
// 401 missing or wrong token; 404 unknown run or path; 405 not POST; 409 out of order
// (results before inputs, inputs that differ from the planned ones, inputs after the run
// was recorded); 413 body too large and 415 not JSON (the server's); 503 the run lookup or the state store
// is unavailable now (the pod retries); 500 anything else. A refused request changes nothing.
#include <memory>
#include <string>

#include "ods/base/clock.h"
#include "ods/callback/run_listener.h"
#include "ods/callback/run_lookup.h"
#include "ods/callback/run_token.h"
#include "ods/contracts/state_store.h"

namespace ods::callback {

struct CallbackRequest {
  std::string method;         // "POST"
  std::string path;           // "/v1/runs/<namespace>/<name>/inputs" (no query)
  std::string authorization;  // the Authorization header ("Bearer <token>"), "" when absent
  std::string body;
};

struct CallbackResponse {
  int status = 200;
  std::string body;  // JSON: the answer, or {"error": {"code", "field", "message"}}
};

// What the service works with. The references must outlive the service.
struct CallbackDeps {
  RunTokens tokens;
  RunLookup& lookup;
  RunListener& listener;
  contracts::StateStore& store;  // the PostgreSQL store in production
  const Clock& clock = system_clock();

  // clock's now as ISO-8601 UTC with microseconds.
  std::string now() const { return format_iso8601(clock.now()); }
};

class CallbackService {
 public:
  virtual ~CallbackService() = default;
  // Handles one request. Thread-safe: requests for different runs run in parallel, requests
  // for the same run one after another. Never throws.
  virtual CallbackResponse handle(const CallbackRequest& request) = 0;
};

[[nodiscard]] std::unique_ptr<CallbackService> make_callback_service(CallbackDeps deps);

// Run ids in the state store's ledger: the results are recorded as `run_uid` (ledger entry
// and snapshot), the plan kept until then as planned_entry_id(run_uid), outcome "planned".
std::string planned_entry_id(const std::string& run_uid);

}  // namespace ods::callback
