#pragma once
// One accepted connection of the HTTP server: reads requests one after another (keep-alive),
// each under the size limits and the deadline, hands each to the handler and writes its answer.
// Everything a connection does runs on its own strand, so its handlers never race each other.
#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "ods/http/server.h"

namespace ods::http::detail {

// What every connection of one server shares; outlives them all (the server joins its threads
// before it lets go of it).
struct Settings {
  ServerOptions options;
  Handler handler;
  std::atomic<bool> stopping{false};  // the server is being destroyed: answers close
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `socket` is bound to a strand of the server's io_context; `on_closed` is called once, from
  // the destructor, so the server can forget the connection.
  Connection(boost::asio::ip::tcp::socket socket, const Settings& settings,
             std::function<void(const Connection*)> on_closed);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // The server is stopping: a connection waiting for a request closes now, one handling a request
  // sends its answer (with Connection: close) first.
  void stop();

 private:
  void read_request();
  void on_header(boost::system::error_code error);
  void read_body();
  void on_body(boost::system::error_code error);
  void on_deadline(boost::system::error_code error);
  // Hands the request (read whole, or refused) to the handler and writes its answer.
  void answer(Request request);
  // What follows an answer: the next request, a close, or a linger then a close.
  enum class After { keep_alive, close, linger };
  void on_written(boost::system::error_code error, After after);
  // Half-closes, reads and drops what the client still sends (bounded in bytes and time, so it
  // reads the answer instead of a reset), then closes.
  void linger();
  void on_lingered(boost::system::error_code error, std::size_t bytes);
  void close();
  Request refused(Refusal why, std::string problem) const;

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;
  const Settings& settings_;
  std::function<void(const Connection*)> on_closed_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<boost::beast::http::response<boost::beast::http::string_body>> response_;
  std::array<char, 64 * 1024> scratch_{};
  std::size_t lingered_ = 0;
  bool late_ = false;       // the deadline passed while a request was being read
  bool busy_ = false;       // a request is being handled or its answer written
  bool lingering_ = false;  // the answer that closes is sent: dropping what still comes
  bool stopping_ = false;   // stop() came
  bool closed_ = false;
};

}  // namespace ods::http::detail
