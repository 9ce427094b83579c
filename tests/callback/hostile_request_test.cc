// Hostile callback requests (docs/hardening-crash.md, "Hostile callback requests"), as raw bytes
// over loopback to the real callback server, the state in a real PostgreSQL: bodies too large,
// malformed JSON and HTTP, wrong content types and methods, replays, requests for another run or
// project, wrong or stale tokens, requests after the run ended. Each gets the documented status
// and error code (docs/kubernetes.md, "Errors"); each refusal is told to the server's log hook
// once, without the key or any token; and nothing changes: the run ledger, the snapshots and the
// phases told (what the operator writes into the DbtRun status) are as before.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "callback_fixture.h"
#include "harness/loopback_port.h"
#include "ods/callback/protocol.h"
#include "test_inputs.h"

namespace ods::testing {
namespace {

using callback::testing::kFct;
using callback::testing::kStg;
using nlohmann::json;

constexpr std::size_t kLimit = 1u << 20;  // the server's body limit in this suite

planner::ProjectInputs shop_inputs(const std::string& source_version = "v1") {
  auto inputs = callback::testing::test_inputs(source_version);
  inputs.target = "";  // TestRuns' runs build target "" (scope shop/default)
  return inputs;
}
std::string inputs_body(const planner::ProjectInputs& inputs = shop_inputs()) {
  callback::InputsRequest r;
  r.inputs = inputs;
  r.relations_exist = std::map<std::string, bool>{{kStg, true}, {kFct, true}};
  return callback::to_json(r);
}
std::string results_body(const planner::ProjectInputs& inputs = shop_inputs()) {
  callback::ResultsRequest r;
  r.inputs = inputs;
  callback::BuildReport b;
  b.results = callback::BuildResults{
      "inv", "2026-11-30T02:00:01Z", "2026-11-30T02:00:09Z", {{kStg, "success"}, {kFct, "success"}}, {}, {}, {}, ""};
  r.build = b;
  return callback::to_json(r);
}

// A request as bytes: `head` is the request line; Host, Connection: close and Content-Length
// are added unless `extra` starts with "raw:" (then `extra` past it is the whole head's rest).
std::string http(const std::string& head, const std::string& token, const std::string& body,
                 const std::string& extra = "Content-Type: application/json\r\n") {
  std::string out = head + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!token.empty()) out += "Authorization: Bearer " + token + "\r\n";
  if (extra.rfind("raw:", 0) == 0) return out + extra.substr(4) + body;
  return out + extra + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Answer {
  int status = 0;  // 0: the connection closed without an answer
  std::string body;
};
Answer parse_answer(const std::string& raw) {
  std::smatch m;
  if (!std::regex_search(raw, m, std::regex(R"(^HTTP/1\.[01] (\d{3}) )"))) return {0, raw};
  const auto end = raw.find("\r\n\r\n");
  return {std::stoi(m[1]), end == std::string::npos ? "" : raw.substr(end + 4)};
}

struct Case {
  std::string what;
  std::string request;  // bytes
  int status;           // the documented status
  std::string code;     // error.code ("" for a 200)
  std::string field;    // error.field when the refusal is about one
};

class HostileCallbackRequests : public ::testing::Test {
 protected:
  void SetUp() override {
    store = fresh_postgres_store();
    ASSERT_NE(store, nullptr);
    server = start_test_server(runs, phases, *store, 0, kLimit, [this](const callback::RefusedRequest& r) {
      std::lock_guard lock(refusals_mutex);
      refusals.push_back(r.method + " " + r.path + " " + std::to_string(r.status) + " " + r.body);
    });
    ASSERT_NE(server, nullptr);
    for (const char* name : {"done", "open", "fresh", "theirs"}) runs.add("team", name, std::string("uid-") + name);
  }

  std::string token(const std::string& name, const std::string& uid = "") {
    return tokens.token_for("team", name, uid.empty() ? "uid-" + name : uid);
  }
  Answer send(const std::string& request, int timeout_seconds = 60) {
    auto raw = loopback_exchange(port_of(*server), request, timeout_seconds);
    EXPECT_TRUE(raw) << raw.error();
    return raw ? parse_answer(*raw) : Answer{};
  }
  Answer post(const std::string& run, const std::string& step, const std::string& body) {
    return send(http("POST /v1/runs/team/" + run + "/" + step + " HTTP/1.1", token(run), body));
  }
  // Everything a request could change: the ledger, the snapshots, the phases told.
  std::string world() {
    json out;
    auto ledger = store->runs("shop/default", 0);
    auto history = store->history("shop/default", 0);
    EXPECT_TRUE(ledger && history);
    if (!ledger || !history) return "the store could not be read";
    for (const auto& r : *ledger) out["runs"].push_back({r.run_id, r.outcome, r.inputs_digest, r.plan, r.details});
    for (const auto& s : *history) out["history"].push_back({s.id, s.run_id});
    auto head = store->latest("shop/default");
    if (head && *head) out["head"] = (*head)->document;
    // The phase each run was last told: what the operator's DbtRun status shows (a replayed
    // request may tell a run's phase again, which leaves its status as it was).
    for (const auto& [phase, summary] : phases.phases()) out["phases"][summary.run_uid] = phase;
    return out.dump();
  }

  callback::RunTokens tokens = *callback::RunTokens::from_key(kControllerKey);
  TestRuns runs;
  PhaseLog phases;
  std::unique_ptr<contracts::StateStore> store;
  std::unique_ptr<callback::CallbackServer> server;
  std::mutex refusals_mutex;
  std::vector<std::string> refusals;
};

std::vector<Case> hostile_cases(const std::function<std::string(const std::string&, const std::string&)>& token) {
  const std::string open = "POST /v1/runs/team/open/inputs HTTP/1.1";
  const std::string open_results = "POST /v1/runs/team/open/results HTTP/1.1";
  const std::string t = token("open", "");
  const std::string valid = inputs_body();
  std::string padded = valid;
  padded.insert(padded.size() - 1, ",\"padding\":\"" + std::string(kLimit + 1, 'x') + "\"");
  json wrong_type = json::parse(valid);
  wrong_type["inputs"]["project"] = 5;
  json other_project = json::parse(valid);
  other_project["inputs"]["project"] = "billing";
  json other_target = json::parse(valid);
  other_target["inputs"]["target"] = "prod";
  std::string chunked;
  for (int i = 0; i < 8; ++i) chunked += "40000\r\n" + std::string(0x40000, 'y') + "\r\n";
  chunked += "0\r\n\r\n";
  std::string flipped = t;
  flipped[10] = flipped[10] == 'a' ? 'b' : 'a';
  const auto other_key = *callback::RunTokens::from_key("another-controller-key-0123456789");
  return {
      // too large
      {"body over the limit", http(open, t, padded), 413, "too_large", ""},
      {"chunked body over the limit",
       http(open, t, chunked, "raw:Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"), 413,
       "too_large", ""},
      // malformed JSON
      {"body not JSON", http(open, t, "hello"), 400, "bad_request", ""},
      {"empty body", http(open, t, ""), 400, "bad_request", ""},
      {"JSON cut in half", http(open, t, valid.substr(0, valid.size() / 2)), 400, "bad_request", ""},
      {"a JSON array", http(open, t, "[1,2,3]"), 400, "bad_request", ""},
      {"JSON nested 100000 deep", http(open, t, std::string(100000, '[') + std::string(100000, ']')), 400,
       "bad_request", ""},
      {"invalid UTF-8 in a string", http(open, t, "{\"protocol\":1,\"inputs\":{\"project\":\"sh\xC3\x28p\"}}"), 400,
       "bad_request", ""},
      // The field is the inputs document; its message names inputs.project.
      {"a field of the wrong type", http(open, t, wrong_type.dump()), 400, "bad_request", "inputs"},
      {"results not JSON", http(open_results, t, "{\"protocol\":1,"), 400, "bad_request", ""},
      // content type, method, path
      {"text/plain", http(open, t, valid, "Content-Type: text/plain\r\n"), 415, "unsupported_media_type", ""},
      {"a form", http(open, t, valid, "Content-Type: application/x-www-form-urlencoded\r\n"), 415,
       "unsupported_media_type", ""},
      {"GET", http("GET /v1/runs/team/open/inputs HTTP/1.1", t, ""), 405, "method_not_allowed", ""},
      {"PUT", http("PUT /v1/runs/team/open/inputs HTTP/1.1", t, valid), 405, "method_not_allowed", ""},
      {"unknown step", http("POST /v1/runs/team/open/delete HTTP/1.1", t, valid), 404, "not_found", ""},
      {"another version", http("POST /v2/runs/team/open/inputs HTTP/1.1", t, valid), 404, "not_found", ""},
      {"a path with more parts", http("POST /v1/runs/team/open/inputs/x HTTP/1.1", t, valid), 404, "not_found", ""},
      {"empty namespace", http("POST /v1/runs//open/inputs HTTP/1.1", t, valid), 400, "bad_path", ""},
      // tokens
      {"no Authorization", http(open, "", valid), 401, "unauthorized", ""},
      {"Basic credentials",
       http(open, "", valid, "Content-Type: application/json\r\nAuthorization: Basic b2RzOnNlY3JldA==\r\n"), 401,
       "unauthorized", ""},
      {"the token of another run", http(open, token("theirs", ""), valid), 401, "unauthorized", ""},
      {"a token of another key (a rotated key)", http(open, other_key.token_for("team", "open", "uid-open"), valid),
       401, "unauthorized", ""},
      {"the token of an earlier run of that name (expired)", http(open, token("open", "uid-open-before"), valid), 401,
       "unauthorized", ""},
      {"the token with one digit changed", http(open, flipped, valid), 401, "unauthorized", ""},
      {"the token and more", http(open, t + "00", valid), 401, "unauthorized", ""},
      {"the key itself as the token", http(open, kControllerKey, valid), 401, "unauthorized", ""},
      {"a run that does not exist", http("POST /v1/runs/team/nobody/inputs HTTP/1.1", t, valid), 404, "unknown_run",
       ""},
      // another project, another run, order, replays, after the end
      {"inputs of another project", http(open, t, other_project.dump()), 400, "wrong_project", "inputs.project"},
      {"inputs of another target", http(open, t, other_target.dump()), 400, "wrong_target", "inputs.target"},
      {"inputs that differ from the planned ones", http(open, t, inputs_body(shop_inputs("v2"))), 409, "inputs_differ",
       "inputs"},
      {"results for inputs not planned", http(open_results, t, results_body(shop_inputs("v2"))), 409, "inputs_differ",
       "inputs"},
      {"results of a run never planned",
       http("POST /v1/runs/team/fresh/results HTTP/1.1", token("fresh", ""), results_body()), 409, "not_planned", ""},
      {"inputs after the run ended", http("POST /v1/runs/team/done/inputs HTTP/1.1", token("done", ""), valid), 409,
       "already_recorded", ""},
      {"results replayed after the run ended",
       http("POST /v1/runs/team/done/results HTTP/1.1", token("done", ""), results_body()), 200, "", ""},
      {"inputs replayed", http(open, t, valid), 200, "", ""},
  };
}

TEST_F(HostileCallbackRequests, EachGetsItsDocumentedStatusIsLoggedWithoutTheKeyAndChangesNothing) {
  // Run "done" planned and recorded, run "open" planned.
  ASSERT_EQ(post("done", "inputs", inputs_body()).status, 200);
  const Answer recorded = post("done", "results", results_body());
  ASSERT_EQ(recorded.status, 200) << recorded.body;
  ASSERT_EQ(post("open", "inputs", inputs_body()).status, 200);
  const std::string before = world();
  ASSERT_NE(before.find("uid-done"), std::string::npos) << before;

  const auto cases = hostile_cases([this](const std::string& run, const std::string& uid) { return token(run, uid); });
  std::size_t refused = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const Answer a = send(c.request);
    EXPECT_EQ(a.status, c.status) << c.what << ": " << a.body.substr(0, 500);
    json body = json::parse(a.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << c.what << ": the answer is not JSON: " << a.body.substr(0, 500);
    if (c.status >= 400) {
      ++refused;
      EXPECT_EQ(body["error"].value("code", ""), c.code) << c.what << ": " << body.dump();
      if (!c.field.empty()) {
        EXPECT_EQ(body["error"].value("field", ""), c.field) << c.what << ": " << body.dump();
      }
      EXPECT_FALSE(body["error"].value("message", "").empty()) << c.what;
    } else {
      EXPECT_FALSE(body.contains("error")) << c.what << ": " << body.dump();
    }
    for (const std::string& secret : {kControllerKey, token("open", ""), token("done", "")})
      EXPECT_EQ(a.body.find(secret), std::string::npos) << c.what << ": the answer holds a secret";
    EXPECT_EQ(world(), before) << c.what << " changed the ledger, the snapshots or the phases";
  }
  // A replay gets the first answer.
  const Answer replayed = post("done", "results", results_body());
  EXPECT_EQ(json::parse(replayed.body)["already_recorded"], true) << replayed.body;
  EXPECT_EQ(json::parse(replayed.body)["snapshot_id"], json::parse(recorded.body)["snapshot_id"]);

  std::lock_guard lock(refusals_mutex);
  EXPECT_EQ(refusals.size(), refused) << "each refused request is logged once:\n" << json(refusals).dump(1);
  for (const auto& line : refusals)
    for (const std::string& secret : {kControllerKey, token("open", ""), token("done", ""), token("theirs", "")})
      EXPECT_EQ(line.find(secret), std::string::npos) << "a log line holds a secret: " << line.substr(0, 300);
  std::cout << "[ hostile  ] " << cases.size() << " hostile callback requests, " << refused << " refused\n";
}

// Requests that are not HTTP, or lie about their length: the server answers 4xx or gives no
// answer, changes nothing, and stays up for the next request.
TEST_F(HostileCallbackRequests, RequestsThatAreNotHttpChangeNothingAndTheServerStaysUp) {
  const std::string before = world();
  const std::vector<std::string> garbage = {
      "HELLO\r\n\r\n",
      "POST\r\n\r\n",
      "POST /v1/runs/team/open/inputs HTTP/9.9\r\nContent-Length: 2\r\n\r\n{}",
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nthis header has no colon\r\n\r\n",
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nContent-Length: -5\r\n\r\n{}",
      // Claims 2 GiB and sends 2 bytes: 413 at once (over the limit), not a wait for the rest.
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nContent-Length: 2147483648\r\n\r\n{}",
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nContent-Length: twelve\r\n\r\n{}",
      std::string("\0\0\0\0\x16\x03\x01\x02\x00", 9),  // a TLS hello's start
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      // A chunk size of -1: cpprestsdk's listener allocated SIZE_MAX bytes for it and the process
      // ended (libFuzzer's finding, docs/adr/0033-http-server-on-beast.md); and one past 64 bits.
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n{}\r\n0\r\n\r\n",
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "10000000000000002\r\n{}\r\n0\r\n\r\n",
  };
  for (const auto& request : garbage) {
    // Where the server waits for the rest of a request that never comes, the connection is
    // given up after 5 s: what counts is that nothing changes and the server stays up.
    const Answer a = send(request, 5);
    std::cout << "[ hostile  ] " << json(request).dump() << ": " << (a.status ? std::to_string(a.status) : "no answer")
              << "\n";
    EXPECT_TRUE(a.status == 0 || (a.status >= 400 && a.status < 500))
        << json(request).dump() << ": " << a.status << " " << a.body.substr(0, 300);
    EXPECT_EQ(world(), before) << json(request).dump();
  }
  EXPECT_EQ(post("open", "inputs", inputs_body()).status, 200) << "the server no longer answers";
  std::cout << "[ hostile  ] " << garbage.size() << " requests that are not HTTP\n";
}

// Clients announcing more body than they send (a slow or stalled pod, or an attacker holding
// connections): each is answered 408 request_timeout with Connection: close once the body
// deadline passes, and its connection is closed; meanwhile the server answers other requests.
// One announcing more than the limit is answered 413 at once, without waiting for its body.
TEST_F(HostileCallbackRequests, ABodyThatNeverArrivesIsCutOffAtTheDeadlineWhileOthersAreAnswered) {
  // A deadline far beyond what a valid request takes on a loaded machine (the order asserted below
  // needs the valid request answered first), short enough to keep the suite quick.
  constexpr auto kDeadline = std::chrono::seconds(10);
  auto slow_server = start_test_server(runs, phases, *store, 0, kLimit, {}, kDeadline);
  ASSERT_NE(slow_server, nullptr);
  const int port = port_of(*slow_server);
  const std::string valid = inputs_body();
  const std::string whole = http("POST /v1/runs/team/open/inputs HTTP/1.1", token("open"), valid);
  const std::vector<std::string> stalled = {
      // Headers and half the body, then nothing (the connection stays open).
      whole.substr(0, whole.find("\r\n\r\n") + 4 + valid.size() / 2),
      // Headers alone, announcing a body.
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000\r\n\r\n",
  };
  // More than the limit announced, a little of it sent.
  const std::string over_limit =
      "POST /v1/runs/team/open/inputs HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(kLimit * 4) +
      "\r\n\r\n{\"protocol\":";
  const std::string before = world();
  std::vector<std::future<std::expected<std::string, std::string>>> slow;
  // Each exchange reads until the server closes, or 120 s without a byte (far past the deadline).
  // The stalled requests arrive first: each is sent before the others are.
  std::vector<std::promise<void>> sent(stalled.size());
  for (std::size_t i = 0; i < stalled.size(); ++i) {
    slow.push_back(std::async(std::launch::async, [port, request = stalled[i], done = &sent[i]] {
      return loopback_exchange(port, request, 120, [done] { done->set_value(); });
    }));
  }
  for (std::size_t i = 0; i < stalled.size(); ++i)
    ASSERT_EQ(sent[i].get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready)
        << "stalled request " << i << " was never sent";

  const auto refused_at_once = std::chrono::steady_clock::now();
  auto over = loopback_exchange(port, over_limit, 60);
  ASSERT_TRUE(over) << over.error();
  EXPECT_EQ(parse_answer(*over).status, 413) << over->substr(0, 500);
  EXPECT_NE(over->find("Connection: close"), std::string::npos) << over->substr(0, 500);
  EXPECT_LT(std::chrono::steady_clock::now() - refused_at_once, kDeadline) << "the 413 waited for the body";

  auto raw = loopback_exchange(port, http("POST /v1/runs/team/open/inputs HTTP/1.1", token("open"), valid), 60);
  ASSERT_TRUE(raw) << raw.error();
  EXPECT_EQ(parse_answer(*raw).status, 200) << raw->substr(0, 500);
  for (auto& s : slow)
    EXPECT_EQ(s.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
        << "a stalled request was answered before the valid one";
  const std::string after_valid = world();

  for (std::size_t i = 0; i < slow.size(); ++i) {
    auto got = slow[i].get();
    ASSERT_TRUE(got) << got.error();
    const Answer a = parse_answer(*got);
    EXPECT_EQ(a.status, 408) << json(stalled[i]).dump() << ": " << got->substr(0, 500);
    EXPECT_NE(got->find("Connection: close"), std::string::npos) << got->substr(0, 500);
    json body = json::parse(a.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << a.body;
    EXPECT_EQ(body["error"].value("code", ""), "request_timeout") << body.dump();
  }
  EXPECT_EQ(world(), after_valid) << "a stalled request changed the ledger, the snapshots or the phases";
  EXPECT_NE(after_valid, before) << "the valid request planned nothing";
  EXPECT_EQ(post("open", "inputs", valid).status, 200) << "the fixture's server no longer answers";
  std::cout << "[ hostile  ] " << stalled.size() << " stalled bodies cut off at the deadline\n";
}

}  // namespace
}  // namespace ods::testing
