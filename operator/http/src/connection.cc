#include "connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace ods::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr std::size_t kLingerBytes = 16u << 20;         // read and dropped after an answer that closes, at most
constexpr auto kLingerQuiet = std::chrono::seconds(1);  // … until the client is this long silent
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

bool is_parse_error(const error_code& error) {
  return error.category() == bhttp::make_error_code(bhttp::error::bad_method).category();
}

// What was wrong with a request the parser refused, for the person reading the answer.
std::string describe(const error_code& error) {
  switch (static_cast<bhttp::error>(error.value())) {
    case bhttp::error::partial_message:
      return "The connection ended before the whole request had arrived.";
    case bhttp::error::bad_chunk:
    case bhttp::error::bad_chunk_extension:
      return "A chunk of the body does not start with a size in hexadecimal digits (RFC 9112, section 7.1).";
    case bhttp::error::bad_content_length:
    case bhttp::error::bad_transfer_encoding:
      return "The body's length is not given as HTTP/1.1 says: Content-Length must be one decimal number and "
             "Transfer-Encoding must end with chunked.";
    case bhttp::error::bad_method:
    case bhttp::error::bad_target:
    case bhttp::error::bad_version:
      return "The request line is not an HTTP/1.1 request line (method, target, HTTP version).";
    case bhttp::error::bad_field:
    case bhttp::error::bad_value:
    case bhttp::error::bad_line_ending:
      return "A header of the request is not a name, a colon and a value on a line ending in CRLF.";
    default:
      return "The request is not HTTP/1.1 the server can read (" + error.message() + ").";
  }
}

// The target's path: the query left out.
std::string path_of(boost::beast::string_view target) {
  const std::string whole(target.data(), target.size());
  return whole.substr(0, whole.find('?'));
}

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, const Settings& settings,
                       std::function<void(const Connection*)> on_closed)
    : socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      settings_(settings),
      on_closed_(std::move(on_closed)) {}

Connection::~Connection() {
  error_code ignored;
  socket_.close(ignored);
  if (on_closed_) on_closed_(this);
}

void Connection::start() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->read_request(); });
}

void Connection::stop() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->stopping_ = true;
    if (!self->busy_) self->close();  // a handler's answer is sent first (on_written closes)
  });
}

void Connection::read_request() {
  if (stopping_ || closed_) return close();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(settings_.options.max_header_bytes));
  parser_->body_limit(settings_.options.max_body_bytes);
  late_ = false;
  timer_.expires_after(settings_.options.request_deadline);
  timer_.async_wait([self = shared_from_this()](error_code error) { self->on_deadline(error); });
  bhttp::async_read_header(socket_, buffer_, *parser_,
                           [self = shared_from_this()](error_code error, std::size_t) { self->on_header(error); });
}

void Connection::on_deadline(error_code error) {
  if (error == asio::error::operation_aborted || closed_) return;
  if (timer_.expiry() > std::chrono::steady_clock::now()) return;  // re-armed since it fired
  if (lingering_ || busy_) return close();  // the client went quiet, or stopped reading the answer
  late_ = true;
  error_code ignored;
  socket_.cancel(ignored);  // the read ends with operation_aborted: on_header / on_body answer
}

void Connection::on_header(error_code error) {
  if (closed_) return;
  if (error == bhttp::error::end_of_stream) return close();  // closed between requests
  if (error == asio::error::operation_aborted) {
    if (!late_ || stopping_) return close();
    if (!parser_->got_some() && buffer_.size() == 0) return close();  // idle: nothing to answer
    return answer(refused(Refusal::late, "The request's headers did not arrive within " +
                                             std::to_string(settings_.options.request_deadline.count()) + " ms."));
  }
  if (error == bhttp::error::body_limit)
    return answer(refused(Refusal::body_too_large, "The body announced is larger than the limit of " +
                                                       std::to_string(settings_.options.max_body_bytes) + " bytes."));
  if (error == bhttp::error::header_limit)
    return answer(refused(Refusal::headers_too_large, "The request's headers are larger than the limit of " +
                                                          std::to_string(settings_.options.max_header_bytes) +
                                                          " bytes."));
  if (error) return is_parse_error(error) ? answer(refused(Refusal::malformed, describe(error))) : close();
  const auto& message = parser_->get();
  if (message.version() != 10 && message.version() != 11)
    return answer(refused(Refusal::malformed, "HTTP/" + std::to_string(message.version() / 10) + "." +
                                                  std::to_string(message.version() % 10) +
                                                  " is not served: HTTP/1.1 and HTTP/1.0 are."));
  const auto expect = message[bhttp::field::expect];
  if (!parser_->is_done() && beast::iequals(expect, "100-continue")) {
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](error_code written, std::size_t) {
                        if (written) return self->close();
                        self->read_body();
                      });
    return;
  }
  read_body();
}

void Connection::read_body() {
  if (closed_) return;
  if (parser_->is_done()) return on_body({});
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self = shared_from_this()](error_code error, std::size_t) { self->on_body(error); });
}

void Connection::on_body(error_code error) {
  if (closed_) return;
  if (error == asio::error::operation_aborted) {
    if (!late_ || stopping_) return close();
    return answer(refused(Refusal::late, "The body announced did not arrive within " +
                                             std::to_string(settings_.options.request_deadline.count()) + " ms."));
  }
  if (error == bhttp::error::body_limit)
    return answer(refused(Refusal::body_too_large, "The body is larger than the limit of " +
                                                       std::to_string(settings_.options.max_body_bytes) + " bytes."));
  if (error) return is_parse_error(error) ? answer(refused(Refusal::malformed, describe(error))) : close();
  Request request = refused(Refusal::none, "");
  request.body = std::move(parser_->get().body());
  answer(std::move(request));
}

Request Connection::refused(Refusal why, std::string problem) const {
  Request request;
  request.refusal = why;
  request.problem = std::move(problem);
  if (!parser_) return request;
  const auto& message = parser_->get();
  request.method = std::string(message.method_string());
  request.path = path_of(message.target());
  for (const auto& field : message)
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  return request;
}

void Connection::answer(Request request) {
  busy_ = true;
  const bool head = request.method == "HEAD";
  const bool refused = request.refusal != Refusal::none;
  Response response;
  try {
    response = settings_.handler(std::move(request));
  } catch (const std::exception& e) {
    response = {500, "text/plain; charset=utf-8", std::string("The server failed to answer the request: ") + e.what()};
  } catch (...) {
    response = {500, "text/plain; charset=utf-8", "The server failed to answer the request."};
  }
  // A refused request may still be arriving: its client is let finish sending (linger) so it
  // reads the answer rather than a reset. A whole one with Connection: close was read to its end.
  const After after = refused                                                             ? After::linger
                      : (stopping_ || settings_.stopping || !parser_->get().keep_alive()) ? After::close
                                                                                          : After::keep_alive;
  const bool close = after != After::keep_alive;
  response_ = std::make_shared<bhttp::response<bhttp::string_body>>();
  response_->version(11);
  response_->result(static_cast<unsigned>(response.status));
  response_->set(bhttp::field::content_type, response.content_type);
  if (close) response_->set(bhttp::field::connection, "close");
  if (head) {
    response_->content_length(response.body.size());  // what a GET would send; no body
  } else {
    response_->body() = std::move(response.body);
    response_->prepare_payload();
  }
  timer_.expires_after(settings_.options.request_deadline);  // for the client to take the answer
  timer_.async_wait([self = shared_from_this()](error_code error) { self->on_deadline(error); });
  bhttp::async_write(socket_, *response_, [self = shared_from_this(), after](error_code error, std::size_t) {
    self->on_written(error, after);
  });
}

void Connection::on_written(error_code error, After after) {
  busy_ = false;
  response_.reset();
  if (closed_) return;
  if (error || stopping_ || after == After::close) return close();
  if (after == After::linger) return linger();
  read_request();
}

void Connection::linger() {
  lingering_ = true;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  on_lingered({}, 0);
}

void Connection::on_lingered(error_code error, std::size_t bytes) {
  if (closed_) return;
  lingered_ += bytes;
  if (error || lingered_ >= kLingerBytes) return close();
  timer_.expires_after(kLingerQuiet);
  timer_.async_wait([self = shared_from_this()](error_code e) { self->on_deadline(e); });
  socket_.async_read_some(asio::buffer(scratch_),
                          [self = shared_from_this()](error_code e, std::size_t n) { self->on_lingered(e, n); });
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  timer_.cancel();
}

}  // namespace ods::http::detail
