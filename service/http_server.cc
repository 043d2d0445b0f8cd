#include "service/http_server.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <thread>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace rosetta::service {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// The media types of the formats (DESIGN.md "HTTP front-end").
struct MediaType {
  std::string_view name;
  codec::Format format;
};
constexpr MediaType kMediaTypes[] = {
    {"application/json", codec::Format::kJson},
    {"application/cbor", codec::Format::kCbor},
    {"application/msgpack", codec::Format::kMsgpack},
    {"application/vnd.msgpack", codec::Format::kMsgpack},
    {"application/x-protobuf", codec::Format::kProtobuf},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// The format of a media type (parameters ignored), or nullopt.
std::optional<codec::Format> FormatOf(std::string_view type) {
  type = Trim(type.substr(0, type.find(';')));
  for (const MediaType& m : kMediaTypes) {
    if (EqualNoCase(type, m.name)) return m.format;
  }
  return std::nullopt;
}

// The output type an Accept header asks for: of the types rosetta writes, the one with
// the highest q (the first of equals; q=0 never); no header, or */* or application/*, means
// JSON. nullptr: nothing acceptable.
const MediaType* FromAccept(std::string_view accept) {
  if (Trim(accept).empty()) return &kMediaTypes[0];
  double best_q = 0;
  const MediaType* best = nullptr;
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    double q = 1;
    const size_t qpos = item.find("q=");
    if (qpos != std::string_view::npos && item.find(';') < qpos) {
      q = std::strtod(std::string(Trim(item.substr(qpos + 2))).c_str(), nullptr);
    }
    const std::string_view type = Trim(item.substr(0, item.find(';')));
    const MediaType* m = nullptr;
    for (const MediaType& t : kMediaTypes) {
      if (EqualNoCase(type, t.name)) m = &t;
    }
    if (!m && (type == "*/*" || EqualNoCase(type, "application/*"))) m = &kMediaTypes[0];
    if (m && q > best_q) {
      best_q = q;
      best = m;
    }
  }
  return best;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded decoding of one query name or value.
bool Unescape(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      *out += ' ';
    } else if (in[i] == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      *out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      *out += in[i];
    }
  }
  return true;
}

// The status of a refusal (DESIGN.md): 400 malformed input, 413 input_too_large, 503
// overloaded, 422 any other refusal.
http::status StatusOf(codec::ErrorCode code) {
  using codec::ErrorCode;
  switch (code) {
    case ErrorCode::kTruncated:
    case ErrorCode::kSyntax:
    case ErrorCode::kInvalidUtf8:
    case ErrorCode::kTrailingData:
    case ErrorCode::kDuplicateKey:
      return http::status::bad_request;
    case ErrorCode::kInputTooLarge:
      return http::status::payload_too_large;
    case ErrorCode::kOverloaded:
      return http::status::service_unavailable;
    default:
      return http::status::unprocessable_entity;
  }
}

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  *out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else if (c < 0x20) {
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 15];
    } else {
      *out += static_cast<char>(c);
    }
  }
  *out += '"';
}

}  // namespace

// One HTTP/1.1 connection: read a request's header, check it, read its body, answer, and
// again while the connection is kept alive. A connection's handlers run on one I/O thread.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, HttpServer& server, size_t worker)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        server_(server),
        worker_(worker) {}

  void Start() {
    draining_ = server_.draining();
    server_.sessions_[worker_].insert(this);
    server_.metrics_.ConnectionOpened(Transport::kHttp);
    boost::system::error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    // Beast reads as much as the buffer has room for: with room for 64 KiB, one read takes
    // in every pipelined request that has arrived (from an empty buffer it reads 512 bytes).
    buffer_.reserve(64 << 10);
    ReadHeader();
  }

  void BeginDrain() {
    draining_ = true;
    if (!busy_) Close();
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    server_.sessions_[worker_].erase(this);
    server_.metrics_.ConnectionClosed(Transport::kHttp);
    server_.active_.fetch_sub(1);
  }

 private:
  const ServiceConfig& config() const { return server_.config_; }

  void Deadline(uint32_t ms, Rejection reason) {
    timer_.expires_after(std::chrono::milliseconds(ms));
    timer_.async_wait([self = shared_from_this(), reason](boost::system::error_code ec) {
      if (ec || self->closed_) return;
      self->server_.metrics_.Rejected(Transport::kHttp, reason);
      self->Close();
    });
  }

  void ReadHeader() {
    if (closed_) return;
    if (draining_ && served_ > 0) return Close();  // one request per connection while draining
    busy_ = false;
    parser_.emplace();
    parser_->header_limit(config().http_max_header_bytes);
    parser_->body_limit(config().limits.max_input_bytes);
    if (buffer_.size() > 0) {  // a pipelined request is already here
      Deadline(config().http_header_timeout_ms, Rejection::kHeaderTimeout);
      return ReadHeaderNow();
    }
    // Idle until the first byte of the next request; from it, the whole header must arrive
    // within http_header_timeout_ms.
    Deadline(config().http_idle_timeout_ms, Rejection::kIdleTimeout);
    socket_.async_wait(
        tcp::socket::wait_read, [self = shared_from_this()](boost::system::error_code ec) {
          if (self->closed_) return;
          if (ec) return self->Close();
          self->Deadline(self->config().http_header_timeout_ms, Rejection::kHeaderTimeout);
          self->ReadHeaderNow();
        });
  }

  void ReadHeaderNow() {
    http::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](boost::system::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(boost::system::error_code ec) {
    if (closed_) return;
    busy_ = true;
    scope_.emplace();
    if (ec == http::error::end_of_stream || ec == asio::error::eof) return Close();
    if (ec == http::error::body_limit) {  // the declared Content-Length, checked by the parser
      codec::Status s;
      s.code = codec::ErrorCode::kInputTooLarge;
      s.offset = config().limits.max_input_bytes;
      s.message = "Content-Length passes max_input_bytes " +
                  std::to_string(config().limits.max_input_bytes);
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kInputTooLarge);
      return Problem(s, true);
    }
    if (ec == http::error::header_limit) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kHeaderTooLarge);
      return Fail(http::status::request_header_fields_too_large, "header_too_large",
                  "the request header passes http_max_header_bytes", true);
    }
    if (ec) {
      if (ec == asio::error::operation_aborted) return Close();
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kProtocolError);
      return Fail(http::status::bad_request, "bad_request", ec.message(), true);
    }
    auto& req = parser_->get();
    size_t fields = 0;
    for (auto it = req.begin(); it != req.end(); ++it) ++fields;
    if (fields > config().http_max_header_count) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kHeaderTooLarge);
      return Fail(http::status::request_header_fields_too_large, "header_too_large",
                  "the request has more than http_max_header_count header fields", true);
    }
    const std::string_view target(req.target().data(), req.target().size());
    path_ = target.substr(0, target.find('?'));
    query_ = path_.size() < target.size() ? target.substr(path_.size() + 1) : std::string_view();
    if (path_ == "/healthz" || path_ == "/readyz") {
      if (req.method() != http::verb::get)
        return Fail(http::status::method_not_allowed, "method_not_allowed", "GET only", false);
      const bool ready = path_ == "/healthz" || !server_.draining();
      return Text(ready ? http::status::ok : http::status::service_unavailable,
                  ready ? "ok\n" : "draining\n");
    }
    op_ = path_ == "/v1/transcode" ? Op::kTranscode : Op::kValidate;
    if (path_ != "/v1/transcode" && path_ != "/v1/validate")
      return Fail(http::status::not_found, "not_found", "no such endpoint", false);
    if (req.method() != http::verb::post)
      return Fail(http::status::method_not_allowed, "method_not_allowed", "POST only", false);
    // The claim rule: a declared length over the server's max_input_bytes is refused before
    // one byte of the body is read (the connection then closes: the body is not read).
    const auto length = parser_->content_length();
    if (length && *length > config().limits.max_input_bytes) {
      codec::Status s;
      s.code = codec::ErrorCode::kInputTooLarge;
      s.offset = config().limits.max_input_bytes;
      s.message = "Content-Length " + std::to_string(*length) + " passes max_input_bytes " +
                  std::to_string(config().limits.max_input_bytes);
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kInputTooLarge);
      return Problem(s, true);
    }
    if (length) req.body().reserve(*length + 64);  // the JSON reader's padding, no copy
    const heap::Counts before = heap::ThisThread();
    // What of the body has already arrived (all of it, for most requests, pipelined or
    // not) is parsed from the buffer at once: no read operation, no timer for it.
    boost::system::error_code pec;
    parser_->eager(true);
    while (!parser_->is_done() && buffer_.size() > 0) {
      const size_t used = parser_->put(buffer_.data(), pec);
      buffer_.consume(used);
      if (pec == http::error::need_more) {
        pec = {};
        break;
      }
      if (pec || used == 0) break;
    }
    if (pec || parser_->is_done()) {
      const heap::Counts after = heap::ThisThread();
      read_allocations_ = {after.bytes - before.bytes, after.calls - before.calls};
      return OnBody(pec);
    }
    Deadline(config().http_body_timeout_ms, Rejection::kMessageTimeout);
    http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this(), before](boost::system::error_code ec, size_t) {
          const heap::Counts after = heap::ThisThread();
          self->read_allocations_ = {after.bytes - before.bytes, after.calls - before.calls};
          self->OnBody(ec);
        });
  }

  void OnBody(boost::system::error_code ec) {
    if (closed_) return;
    timer_.cancel();
    if (ec == http::error::body_limit) {
      codec::Status s;
      s.code = codec::ErrorCode::kInputTooLarge;
      s.offset = config().limits.max_input_bytes;
      s.message = "body passes max_input_bytes " + std::to_string(config().limits.max_input_bytes);
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kInputTooLarge);
      return Problem(s, true);
    }
    if (ec) {
      if (ec == asio::error::operation_aborted || ec == http::error::end_of_stream ||
          ec == asio::error::eof || ec == http::error::partial_message)
        return Close();
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kProtocolError);
      return Fail(http::status::bad_request, "bad_request", ec.message(), true);
    }
    Handle();
  }

  void Handle() {
    auto& req = parser_->get();
    Request r;
    r.op = op_;
    const auto content_type = req[http::field::content_type];
    const std::optional<codec::Format> in =
        FormatOf(std::string_view(content_type.data(), content_type.size()));
    if (!in) {
      return Fail(http::status::unsupported_media_type, "unsupported_media_type",
                  "Content-Type is not one of application/json, application/cbor, "
                  "application/msgpack, application/vnd.msgpack, application/x-protobuf",
                  false);
    }
    r.input = *in;
    r.output = *in;
    if (op_ == Op::kTranscode) {
      const auto accept = req[http::field::accept];
      output_type_ = FromAccept(std::string_view(accept.data(), accept.size()));
      if (output_type_ == nullptr) {
        return Fail(http::status::not_acceptable, "not_acceptable",
                    "Accept names no format rosetta writes", false);
      }
      r.output = output_type_->format;
    }
    std::string bad;
    if (!ReadQuery(&r, &bad)) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kBadRequest);
      return Fail(http::status::bad_request, "bad_query", bad, false);
    }
    const std::string& body = req.body();
    r.payload = body;
    r.padding = body.capacity() - body.size();
    server_.pipeline_.Run(
        Transport::kHttp, *scope_, r,
        [&](const codec::Status& s, std::string_view output) {
          if (!s.ok()) return Problem(s, false);
          if (op_ == Op::kValidate) {
            response_ = {http::status::no_content, 11};
          } else {
            response_ = {http::status::ok, 11};
            const std::string_view type = output_type_->name;
            response_.set(http::field::content_type,
                          boost::beast::string_view(type.data(), type.size()));
            response_.body().assign(output.data(), output.size());
          }
          Write(false);
        },
        read_allocations_);
  }

  // Query parameters: message_type, schema, every limit (lowered from the server's, never
  // raised) and every option of the codec's tables, by name.
  bool ReadQuery(Request* r, std::string* bad) {
    codec::Limits limits = codec::KeepLimits();
    std::string_view q = query_;
    while (!q.empty()) {
      const size_t amp = q.find('&');
      std::string_view pair = q.substr(0, amp);
      q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
      if (pair.empty()) continue;
      const size_t eq = pair.find('=');
      std::string name, value;
      if (!Unescape(pair.substr(0, eq), &name) ||
          !Unescape(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                    &value)) {
        *bad = "bad percent-encoding in the query";
        return false;
      }
      if (name == "message_type") {
        message_type_ = value;
      } else if (name == "schema") {
        schema_ = value;
      } else if (const codec::LimitInfo* l = codec::FindLimit(name)) {
        uint64_t v = 0;
        auto [end, err] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (err != std::errc() || end != value.data() + value.size()) {
          *bad = "query parameter " + name + " is not a whole number";
          return false;
        }
        l->set(limits, v < l->hard_cap ? v : l->hard_cap);
      } else if (const codec::OptionInfo* o = codec::FindOption(name)) {
        if (value == "true" || value == "1" || value.empty()) {
          r->options.*o->field = true;
        } else if (value == "false" || value == "0") {
          r->options.*o->field = false;
        } else {
          *bad = "query parameter " + name + " is not true or false";
          return false;
        }
      } else {
        *bad = "unknown query parameter " + name;
        return false;
      }
    }
    r->limits = config().limits.LowerTo(limits);
    r->message_type = message_type_;
    r->schema = schema_;
    return true;
  }

  void Problem(const codec::Status& s, bool close) {
    std::string body = "{\"type\":\"urn:rosetta:error:";
    body += codec::CodeName(s.code);
    body += "\",\"title\":";
    AppendJsonString(&body, codec::CodeName(s.code));
    const http::status status = StatusOf(s.code);
    body += ",\"status\":" + std::to_string(static_cast<int>(status)) + ",\"detail\":";
    AppendJsonString(&body, s.message);
    body += ",\"offset\":" + std::to_string(s.offset) + ",\"path\":";
    AppendJsonString(&body, s.path);
    body += "}\n";
    response_ = {status, 11};
    response_.set(http::field::content_type, "application/problem+json");
    if (s.code == codec::ErrorCode::kOverloaded) response_.set(http::field::retry_after, "1");
    response_.body() = std::move(body);
    Write(close);
  }

  // A refusal that is not a codec error (routing, media types, HTTP itself): the same
  // problem+json shape, its title naming what was wrong.
  void Fail(http::status status, std::string_view title, std::string_view detail, bool close) {
    if (static_cast<int>(status) != 431 && status != http::status::bad_request)
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kBadRequest);
    std::string body = "{\"type\":\"urn:rosetta:error:";
    body += title;
    body += "\",\"title\":";
    AppendJsonString(&body, title);
    body += ",\"status\":" + std::to_string(static_cast<int>(status)) + ",\"detail\":";
    AppendJsonString(&body, detail);
    body += "}\n";
    response_ = {status, 11};
    response_.set(http::field::content_type, "application/problem+json");
    response_.body() = std::move(body);
    Write(close);
  }

  void Text(http::status status, std::string_view text) {
    response_ = {status, 11};
    response_.set(http::field::content_type, "text/plain");
    response_.body().assign(text.data(), text.size());
    Write(false);
  }

  void Write(bool close) {
    if (!close && parser_ && parser_->is_header_done()) close = !parser_->get().keep_alive();
    if (draining_) close = true;
    response_.keep_alive(!close);
    // No Content-Length on a 204 (RFC 9110 section 8.6).
    if (response_.result() != http::status::no_content) response_.prepare_payload();
    close_after_write_ = close;
    http::async_write(socket_, response_,
                      [self = shared_from_this()](boost::system::error_code ec, size_t) {
                        if (self->closed_) return;
                        self->scope_.reset();
                        ++self->served_;
                        if (ec || self->close_after_write_) return self->Close();
                        if (self->response_.body().capacity() > (1 << 20))
                          std::string().swap(self->response_.body());
                        self->ReadHeader();
                      });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  HttpServer& server_;
  size_t worker_;
  boost::beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::optional<RequestScope> scope_;
  heap::Counts read_allocations_;
  std::string_view path_, query_;
  std::string message_type_, schema_;
  Op op_ = Op::kTranscode;
  const MediaType* output_type_ = nullptr;
  uint64_t served_ = 0;  // responses written on this connection
  bool busy_ = false;
  bool draining_ = false;
  bool closed_ = false;
  bool close_after_write_ = false;
};

HttpServer::HttpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline,
                       IoPool& pool)
    : config_(config),
      metrics_(metrics),
      pipeline_(pipeline),
      pool_(pool),
      sessions_(pool.size()) {}

HttpServer::~HttpServer() { Stop(std::chrono::milliseconds(0)); }

int HttpServer::Start() {
  listener_ = std::make_unique<Listener>(
      pool_, metrics_, Transport::kHttp, [this](tcp::socket socket, size_t worker) {
        if (closing_) return;
        if (active_.load() >= config_.http_max_connections) {
          metrics_.Rejected(Transport::kHttp, Rejection::kConnectionCap);
          boost::system::error_code ignored;
          socket.close(ignored);
          return;
        }
        active_.fetch_add(1);
        asio::post(pool_.io(worker),
                   [this, worker, s = std::make_shared<tcp::socket>(std::move(socket))]() mutable {
                     std::make_shared<HttpSession>(std::move(*s), *this, worker)->Start();
                   });
      });
  return listener_->Start(config_.http_listen);
}

void HttpServer::ForEachSession(void (HttpSession::*fn)()) {
  for (size_t w = 0; w < pool_.size(); ++w) {
    asio::post(pool_.io(w), [this, w, fn] {
      std::vector<std::shared_ptr<HttpSession>> all;
      for (HttpSession* s : sessions_[w]) all.push_back(s->shared_from_this());
      for (auto& s : all) ((*s).*fn)();
    });
  }
}

void HttpServer::BeginDrain() {
  if (draining_.exchange(true) || !listener_) return;
  // The listener stays open while the drain lasts: a client routed here before the
  // endpoints changed is still served (with Connection: close), and /readyz says 503.
  ForEachSession(&HttpSession::BeginDrain);
}

void HttpServer::Stop(std::chrono::milliseconds timeout) {
  if (stopped_ || !listener_) return;
  stopped_ = true;
  BeginDrain();
  const auto until = Clock::now() + timeout;
  while (active_.load() > 0 && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  closing_ = true;
  listener_->Close();
  ForEachSession(&HttpSession::Close);
}

}  // namespace rosetta::service
