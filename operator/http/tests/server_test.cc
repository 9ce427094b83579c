// The HTTP server over loopback, as raw bytes: requests read whole (Content-Length, chunked,
// pipelined, 100-continue, HEAD), requests it refuses (malformed, negative or huge chunk sizes,
// bodies and headers over their limits, requests that arrive late) each handed to the handler with
// why and answered with Connection: close, idle connections closed, a handler's exception
// answered 500, a taken port refused, and a server stopped while handling a request still
// sending its answer.
#include "ods/http/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <regex>
#include <thread>

#include "harness/loopback_port.h"

namespace ods::http {
namespace {

using namespace std::chrono_literals;
using ods::testing::loopback_exchange;

// What the handler was asked, and an answer naming it.
class Recorder {
 public:
  Handler handler() {
    return [this](const Request& request) {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      return Response{200, "application/json",
                      "{\"path\":\"" + request.path + "\",\"bytes\":" + std::to_string(request.body.size()) + "}"};
    };
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  std::mutex mutex_;
  std::vector<Request> requests_;
};

struct Answer {
  int status = 0;  // 0: no status line
  std::string head;
  std::string body;
};
// Every answer in `raw`, in order (pipelined answers come one after another); from the
// `bodiless_from`th on, answers to HEAD (a Content-Length but no body).
std::vector<Answer> answers(const std::string& raw, std::size_t bodiless_from = std::string::npos) {
  std::vector<Answer> out;
  std::size_t at = 0;
  static const std::regex status_line(R"(^HTTP/1\.1 (\d{3}) )");
  while (at < raw.size()) {
    const auto end = raw.find("\r\n\r\n", at);
    if (end == std::string::npos) break;
    Answer a;
    a.head = raw.substr(at, end - at);
    std::smatch m;
    if (std::regex_search(a.head, m, status_line)) a.status = std::stoi(m[1]);
    std::smatch length;
    std::size_t size = 0;
    if (std::regex_search(a.head, length, std::regex(R"(Content-Length: (\d+))"))) size = std::stoul(length[1]);
    if (out.size() >= bodiless_from) size = 0;
    a.body = raw.substr(end + 4, size);
    at = end + 4 + size;
    out.push_back(a);
  }
  return out;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}, Handler handler = nullptr) {
    options.host = "127.0.0.1";
    options.port = 0;
    auto started = start_server(options, handler ? handler : recorder.handler());
    ASSERT_TRUE(started) << started.error().message;
    server = std::move(*started);
  }
  std::vector<Answer> exchange(const std::string& request, int timeout_seconds = 10) {
    auto raw = loopback_exchange(server->port(), request, timeout_seconds);
    EXPECT_TRUE(raw) << raw.error();
    return raw ? answers(*raw) : std::vector<Answer>{};
  }
  // A request the server must still answer: it is up.
  void expect_still_up() {
    const auto a = exchange("GET /up HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].status, 200) << a[0].head;
  }
  Recorder recorder;
  std::unique_ptr<Server> server;
};

TEST_F(HttpServerTest, ReadsARequestWholeAndAnswersIt) {
  start();
  const auto a = exchange(
      "POST /v1/runs/team/run-1/inputs?x=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Authorization: Bearer t\r\nConnection: close\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].status, 200);
  EXPECT_NE(a[0].head.find("Content-Type: application/json"), std::string::npos) << a[0].head;
  EXPECT_EQ(a[0].body, "{\"path\":\"/v1/runs/team/run-1/inputs\",\"bytes\":7}");
  const auto seen = recorder.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].refusal, Refusal::none);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].body, "{\"a\":1}");
  EXPECT_EQ(seen[0].header("authorization").value_or(""), "Bearer t");
  EXPECT_EQ(seen[0].header("content-TYPE").value_or(""), "application/json");
  EXPECT_FALSE(seen[0].header("X-Absent"));
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrderOnOneConnection) {
  start();
  const auto a = exchange(
      "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
      "POST /two HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
      "GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].body, "{\"path\":\"/one\",\"bytes\":2}");
  EXPECT_EQ(a[1].body, "{\"path\":\"/two\",\"bytes\":5}");
  EXPECT_EQ(a[2].body, "{\"path\":\"/three\",\"bytes\":0}");
  EXPECT_EQ(a[0].head.find("Connection: close"), std::string::npos) << "kept alive: " << a[0].head;
  EXPECT_NE(a[2].head.find("Connection: close"), std::string::npos) << a[2].head;
  EXPECT_EQ(recorder.requests().at(1).body, "abcde");
}

// What libFuzzer found in cpprestsdk's listener (docs/adr/0033-http-server-on-beast.md): a
// chunk size of -1 made it allocate SIZE_MAX bytes, and the exception ended the process.
TEST_F(HttpServerTest, RefusesChunkSizesThatAreNegativeHugeOrNotHexAndStaysUp) {
  start();
  for (const std::string size : {"-1", "-2", "ffffffffffffffff", "fffffffffffffffffffff", "zz", "1;\x01", ""}) {
    SCOPED_TRACE("chunk size " + size);
    const auto a =
        exchange("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + size + "\r\nabc\r\n0\r\n\r\n");
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].status, 200) << a[0].head;  // the recorder answers refusals 200 too
    EXPECT_NE(a[0].head.find("Connection: close"), std::string::npos) << a[0].head;
    expect_still_up();
  }
  for (const auto& r : recorder.requests()) {
    if (r.path == "/c") {
      EXPECT_NE(r.refusal, Refusal::none) << "a bad chunk size was read as a body";
    }
  }
}

TEST_F(HttpServerTest, HandsRefusedRequestsToTheHandlerWithWhy) {
  ServerOptions options;
  options.max_body_bytes = 1000;
  options.max_header_bytes = 2000;
  start(options);
  struct Case {
    std::string what, request;
    Refusal refusal;
  };
  std::string chunked_over;
  for (int i = 0; i < 20; ++i) chunked_over += "64\r\n" + std::string(100, 'y') + "\r\n";
  const std::vector<Case> cases = {
      {"Content-Length over the limit",
       "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n" + std::string(1001, 'x'),
       Refusal::body_too_large},
      {"chunked body over the limit",
       "POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_over + "0\r\n\r\n",
       Refusal::body_too_large},
      {"headers over the limit", "GET /h HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(3000, 'p') + "\r\n\r\n",
       Refusal::headers_too_large},
      {"Content-Length negative", "POST /n HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}", Refusal::malformed},
      {"Content-Length twice, differing",
       "POST /n HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", Refusal::malformed},
      {"a header without a colon", "GET /n HTTP/1.1\r\nthis has no colon\r\n\r\n", Refusal::malformed},
      {"not HTTP", "HELLO\r\n\r\n", Refusal::malformed},
      {"HTTP/2.0", "GET /n HTTP/2.0\r\nHost: x\r\n\r\n", Refusal::malformed},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto before = recorder.requests().size();
    const auto a = exchange(c.request);
    ASSERT_EQ(a.size(), 1u) << c.what;
    EXPECT_NE(a[0].head.find("Connection: close"), std::string::npos) << a[0].head;
    const auto seen = recorder.requests();
    ASSERT_EQ(seen.size(), before + 1);
    EXPECT_EQ(seen.back().refusal, c.refusal) << c.what << ": " << seen.back().problem;
    EXPECT_FALSE(seen.back().problem.empty());
    EXPECT_TRUE(seen.back().body.empty());
  }
  expect_still_up();
}

TEST_F(HttpServerTest, AnswersABodyThatStallsAsLateAtTheDeadlineAndClosesAnIdleConnection) {
  ServerOptions options;
  options.request_deadline = 500ms;
  start(options);
  const auto started = std::chrono::steady_clock::now();
  const auto a = exchange("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"half", 20);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_NE(a[0].head.find("Connection: close"), std::string::npos) << a[0].head;
  EXPECT_EQ(recorder.requests().at(0).refusal, Refusal::late);
  EXPECT_EQ(recorder.requests().at(0).path, "/slow");
  // Nothing sent at all: closed at the deadline, no answer, the handler not asked.
  auto idle = loopback_exchange(server->port(), "", 20);
  ASSERT_TRUE(idle) << idle.error();
  EXPECT_EQ(*idle, "");
  EXPECT_EQ(recorder.requests().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s) << "the deadline did not cut the connections";
}

TEST_F(HttpServerTest, SendsContinueWhenAskedAndAnswersHeadWithoutABody) {
  start();
  auto raw = loopback_exchange(server->port(),
                               "POST /c HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"
                               "HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                               10);
  ASSERT_TRUE(raw) << raw.error();
  const auto a = answers(*raw, 2);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].status, 100);
  EXPECT_EQ(a[1].status, 200);
  EXPECT_EQ(a[2].status, 200);
  EXPECT_NE(a[2].head.find("Content-Length: 23"), std::string::npos) << a[2].head;  // {"path":"/h","bytes":0}
  EXPECT_EQ(raw->substr(raw->size() - 4), "\r\n\r\n") << "HEAD answered with a body: " << *raw;
}

TEST_F(HttpServerTest, AnswersAHandlersExceptionWith500) {
  start({}, [](const Request&) -> Response { throw std::runtime_error("the store is gone"); });
  const auto a = exchange("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].status, 500);
  EXPECT_NE(a[0].body.find("the store is gone"), std::string::npos) << a[0].body;
}

TEST_F(HttpServerTest, RefusesATakenPortNamingIt) {
  start();
  ServerOptions again;
  again.host = "127.0.0.1";
  again.port = server->port();
  auto second = start_server(again, recorder.handler());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, "unavailable");
  EXPECT_NE(second.error().message.find("127.0.0.1:" + std::to_string(server->port())), std::string::npos)
      << second.error().message;
  EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()));
  auto bad = start_server(ServerOptions{.port = 70000}, recorder.handler());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "invalid_argument");
}

TEST_F(HttpServerTest, StoppingLetsAHandlerInFlightSendItsAnswer) {
  std::promise<void> entered;
  std::promise<void> release;
  auto released = release.get_future().share();
  start({}, [&entered, released](const Request&) {
    entered.set_value();
    released.wait();
    return Response{200, "text/plain", "finished"};
  });
  const int port = server->port();
  auto reply = std::async(std::launch::async,
                          [port] { return loopback_exchange(port, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n", 20); });
  ASSERT_EQ(entered.get_future().wait_for(20s), std::future_status::ready);
  auto stopping = std::async(std::launch::async, [this] { server.reset(); });
  release.set_value();
  ASSERT_EQ(stopping.wait_for(20s), std::future_status::ready) << "the server did not stop";
  auto raw = reply.get();
  ASSERT_TRUE(raw) << raw.error();
  const auto a = answers(*raw);
  ASSERT_EQ(a.size(), 1u) << *raw;
  EXPECT_EQ(a[0].body, "finished");  // then the connection closed: the server is gone
}

}  // namespace
}  // namespace ods::http
