// The HTTP server: one io_context run by options.threads threads, an acceptor on its own strand,
// a Connection (on a strand of its own) per accepted socket, and the set of live connections so
// the destructor can stop them.
#include "ods/http/server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/string.hpp>
#include <map>
#include <mutex>
#include <thread>

#include "connection.h"

namespace ods::http {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

std::optional<std::string> Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (boost::beast::iequals(key, boost::beast::string_view(name.data(), name.size()))) return value;
  return std::nullopt;
}

namespace {

constexpr auto kAcceptRetry = std::chrono::milliseconds(100);  // after a failed accept (EMFILE, …)

class BeastServer final : public Server {
 public:
  BeastServer(ServerOptions options, Handler handler)
      : settings_{std::move(options), std::move(handler)},
        io_(settings_.options.threads),
        acceptor_(asio::make_strand(io_)),
        retry_(acceptor_.get_executor()) {}

  ~BeastServer() override {
    std::vector<std::shared_ptr<detail::Connection>> live;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      settings_.stopping = true;
      for (auto& [raw, connection] : connections_)
        if (auto held = connection.lock()) live.push_back(std::move(held));
    }
    for (auto& connection : live) connection->stop();  // outside the lock: a last reference's
    live.clear();                                      // destructor forgets itself under it
    asio::post(acceptor_.get_executor(), [this] {
      error_code ignored;
      acceptor_.close(ignored);
      retry_.cancel();
    });
    for (auto& thread : threads_) thread.join();  // run() returns once every connection is gone
  }

  Result<void> listen() {
    const std::string host = settings_.options.host.empty() ? "0.0.0.0" : settings_.options.host;
    const std::string where = host + ":" + std::to_string(settings_.options.port);
    error_code error;
    tcp::resolver resolver(io_);
    auto found = resolver.resolve(host, std::to_string(settings_.options.port), tcp::resolver::passive, error);
    if (error || found.empty())
      return fail("unavailable",
                  "Cannot listen on " + where + ": the host does not resolve (" + error.message() + ").");
    const tcp::endpoint endpoint = found.begin()->endpoint();
    if (acceptor_.open(endpoint.protocol(), error) || acceptor_.set_option(tcp::acceptor::reuse_address(true), error) ||
        acceptor_.bind(endpoint, error) || acceptor_.listen(asio::socket_base::max_listen_connections, error))
      return fail("unavailable", "Cannot listen on " + where + ": " + error.message() + ".");
    port_ = acceptor_.local_endpoint(error).port();
    url_ = "http://" + host + ":" + std::to_string(port_);
    accept();
    for (int i = 0; i < settings_.options.threads; ++i) threads_.emplace_back([this] { io_.run(); });
    return {};
  }

  std::string url() const override { return url_; }
  int port() const override { return port_; }

 private:
  void accept() {
    acceptor_.async_accept(asio::make_strand(io_),
                           [this](error_code error, tcp::socket socket) { on_accept(error, std::move(socket)); });
  }

  void on_accept(error_code error, tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (error) {  // out of descriptors or the like: try again shortly instead of spinning
      retry_.expires_after(kAcceptRetry);
      retry_.async_wait([this](error_code waited) {
        if (!waited && acceptor_.is_open()) accept();
      });
      return;
    }
    std::shared_ptr<detail::Connection> connection;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;  // `socket` closes as it goes
      connection = std::make_shared<detail::Connection>(std::move(socket), settings_,
                                                        [this](const detail::Connection* gone) { forget(gone); });
      connections_.emplace(connection.get(), connection);
    }
    connection->start();
    accept();
  }

  void forget(const detail::Connection* connection) {
    std::lock_guard lock(mutex_);
    connections_.erase(connection);
  }

  detail::Settings settings_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_;
  std::mutex mutex_;
  bool stopping_ = false;  // guarded by mutex_
  std::map<const detail::Connection*, std::weak_ptr<detail::Connection>> connections_;
  std::vector<std::thread> threads_;
  int port_ = 0;
  std::string url_;
};

}  // namespace

Result<std::unique_ptr<Server>> start_server(const ServerOptions& options, Handler handler) {
  if (!handler) return fail("invalid_argument", "The HTTP server needs a handler for its requests.");
  if (options.port < 0 || options.port > 65535)
    return fail("invalid_argument", "The port " + std::to_string(options.port) + " is not one of 0-65535.");
  ServerOptions settled = options;
  if (settled.threads < 1) settled.threads = 1;
  auto server = std::make_unique<BeastServer>(std::move(settled), std::move(handler));
  ODS_TRY_VOID(server->listen());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace ods::http
