#include "watch_stream.h"

#include <cpprest/containerstream.h>

#include <atomic>
#include <mutex>

namespace ods::kube::detail {

namespace {

class HttpWatchStream final : public WatchStream {
 public:
  HttpWatchStream(std::string path, std::unique_ptr<web::http::client::http_client> client,
                  web::http::http_response response, pplx::cancellation_token_source cancel_source)
      : path_(std::move(path)),
        client_(std::move(client)),
        response_(std::move(response)),
        body_(response_.body()),
        cancel_source_(std::move(cancel_source)) {}

  ~HttpWatchStream() override { cancel(); }

  ApiResult<std::optional<WatchEvent>> next() override {
    std::lock_guard lock(read_mutex_);
    while (!cancelled_) {
      std::string line;
      try {
        concurrency::streams::container_buffer<std::string> buffer;
        const std::size_t length = body_.read_line(buffer).get();
        if (length == 0 && body_.is_eof()) return std::nullopt;
        line = std::move(buffer.collection());
      } catch (const std::exception& e) {
        if (cancelled_) break;
        return std::unexpected(ApiError{0, "Unreachable", "GET " + path_ + ": the watch broke: " + e.what()});
      }
      if (line.empty() || line == "\r") continue;
      auto event = parse_watch_event(line, path_);
      if (!event) return std::unexpected(event.error());
      return std::optional<WatchEvent>(std::move(*event));
    }
    return std::nullopt;
  }

  void cancel() override {
    if (cancelled_.exchange(true)) return;
    cancel_source_.cancel();
  }

 private:
  std::string path_;
  std::unique_ptr<web::http::client::http_client> client_;
  web::http::http_response response_;
  concurrency::streams::istream body_;
  pplx::cancellation_token_source cancel_source_;
  std::atomic<bool> cancelled_{false};
  std::mutex read_mutex_;
};

}  // namespace

ApiResult<WatchEvent> parse_watch_event(const std::string& line, const std::string& path) {
  const Json event = Json::parse(line, nullptr, false);
  auto bad = [&](const std::string& what) {
    return std::unexpected(ApiError{0, "BadEvent", "GET " + path + ": " + what + ": " + line.substr(0, 200)});
  };
  if (!event.is_object() || !event.contains("type") || !event["type"].is_string() || !event.contains("object"))
    return bad("a watch line is not an event");
  const std::string type = event["type"];
  WatchEvent out{WatchEvent::Type::error, event["object"]};
  if (type == "ADDED") {
    out.type = WatchEvent::Type::added;
  } else if (type == "MODIFIED") {
    out.type = WatchEvent::Type::modified;
  } else if (type == "DELETED") {
    out.type = WatchEvent::Type::deleted;
  } else if (type == "BOOKMARK") {
    out.type = WatchEvent::Type::bookmark;
  } else if (type != "ERROR") {
    return bad("unknown event type " + type);
  }
  return out;
}

ApiResult<std::unique_ptr<WatchStream>> open_watch(HttpTransport& transport, const std::string& path_and_query,
                                                   std::chrono::seconds timeout) {
  pplx::cancellation_token_source cancel_source;
  std::unique_ptr<web::http::client::http_client> client;
  auto response = transport.open_stream(path_and_query, timeout, cancel_source.get_token(), client);
  if (!response) return std::unexpected(response.error());
  return std::make_unique<HttpWatchStream>(path_and_query, std::move(client), std::move(*response),
                                           std::move(cancel_source));
}

}  // namespace ods::kube::detail
