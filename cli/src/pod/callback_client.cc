#include "callback_client.h"

#include <cpprest/http_client.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kFirstWait{1}, kLongestWait{15};
constexpr std::chrono::seconds kAnswerTimeout{600};  // planning a large project takes a while

// One attempt: the answer, or why none came.
Result<CallbackAnswer> post_once(const CallbackEndpoint& endpoint, const std::string& path, const std::string& body) {
  try {
    web::http::client::http_client_config config;
    config.set_timeout(kAnswerTimeout);
    web::http::client::http_client client(endpoint.base_url, config);
    web::http::http_request request(web::http::methods::POST);
    request.set_request_uri(path);
    request.headers().add("Authorization", "Bearer " + endpoint.token);
    request.set_body(body, "application/json");
    auto response = client.request(request).get();
    return CallbackAnswer{response.status_code(), response.extract_string(true).get()};
  } catch (const std::exception& e) {
    return fail("unavailable", e.what());
  }
}

}  // namespace

Result<CallbackAnswer> post_to_controller(const CallbackEndpoint& endpoint, const std::string& step,
                                          const std::string& body, std::ostream& err,
                                          const std::function<void(std::chrono::seconds)>& sleep) {
  const std::string path = "/v1/runs/" + endpoint.run + "/" + step;
  const auto deadline = Clock::now() + endpoint.retry_for;
  auto wait = kFirstWait;
  for (int attempt = 1;; ++attempt) {
    auto answer = post_once(endpoint, path, body);
    std::string failure;
    if (answer && answer->status < 500) return answer;
    failure = answer ? "answered " + std::to_string(answer->status) + ": " + callback_error_text(*answer)
                     : "unreachable: " + answer.error().message;
    if (Clock::now() + wait > deadline)
      return fail("unavailable", "the controller at " + endpoint.base_url + " gave no answer to " + step + " within " +
                                     std::to_string(endpoint.retry_for.count()) + " s; last: " + failure);
    err << "ods: the controller at " << endpoint.base_url << " " << failure << "; retrying " << step << " in "
        << wait.count() << " s (attempt " << attempt + 1 << ")\n"
        << std::flush;
    if (sleep)
      sleep(wait);
    else
      std::this_thread::sleep_for(wait);
    // A follower's 503 not_leader: the next connection may reach the leader, so no backoff.
    wait = answer && answer->status == 503 && callback_error_code(*answer) == "not_leader"
               ? kFirstWait
               : std::min(wait * 2, kLongestWait);
  }
}

std::string callback_error_code(const CallbackAnswer& answer) {
  auto doc = nlohmann::json::parse(answer.body, nullptr, false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_object() && doc["error"].contains("code") &&
      doc["error"]["code"].is_string())
    return doc["error"]["code"].get<std::string>();
  return "";
}

std::string callback_error_text(const CallbackAnswer& answer) {
  auto doc = nlohmann::json::parse(answer.body, nullptr, false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_object()) {
    const auto& e = doc["error"];
    std::string field = e.value("field", "");
    return (field.empty() ? "" : field + ": ") + e.value("message", std::string("(no message)"));
  }
  return answer.body.substr(0, 500);
}

}  // namespace ods::cli
