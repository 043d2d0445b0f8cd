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
    {"application/x-rosetta-fixed", codec::Format::kFixed},
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

// The media type rosetta speaks that `type` names (parameters ignored), or nullptr.
const MediaType* FindMediaType(std::string_view type) {
  type = Trim(type.substr(0, type.find(';')));
  for (const MediaType& m : kMediaTypes) {
    if (EqualNoCase(type, m.name)) return &m;
  }
  return nullptr;
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
    const MediaType* m = FindMediaType(type);
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
// overloaded, 422 any other refusal. unknown_schema is 422 too, not 404: the endpoint
// exists and the request names a schema this server has not loaded, as unknown_message_type
// (docs/http.md).
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

// One request's parse (Beast's basic_parser): the request line and the three fields
// rosettad reads are kept in the session's strings (reused, so a request allocates
// nothing), the others only counted; the body goes straight into the session's buffer, or
// is dropped when the request was refused at its header. The session decides at the
// header (HeaderDone) and as a chunked body grows (BodyGrows).
template <class Session>
class RequestParser final : public http::basic_parser<true> {
 public:
  explicit RequestParser(Session& session) : session_(session) {}

 private:
  void on_request_impl(http::verb method, boost::beast::string_view,
                       boost::beast::string_view target, int, boost::system::error_code&) override {
    session_.method_ = method;
    session_.target_.assign(target.data(), target.size());
    session_.content_type_.clear();
    session_.accept_.clear();
    session_.fields_ = 0;
  }
  void on_response_impl(int, boost::beast::string_view, int, boost::system::error_code&) override {}
  void on_field_impl(http::field name, boost::beast::string_view, boost::beast::string_view value,
                     boost::system::error_code& ec) override {
    if (++session_.fields_ > session_.config().http_max_header_count) {
      session_.too_many_fields_ = true;
      ec = http::error::header_limit;
      return;
    }
    if (name == http::field::content_type) {
      if (session_.content_type_.empty()) session_.content_type_.assign(value.data(), value.size());
    } else if (name == http::field::accept) {  // several Accept fields are one list
      if (!session_.accept_.empty()) session_.accept_ += ',';
      session_.accept_.append(value.data(), value.size());
    }
  }
  void on_header_impl(boost::system::error_code&) override {
    discard_ = !session_.HeaderDone(*this);
  }
  void on_body_init_impl(const boost::optional<std::uint64_t>&,
                         boost::system::error_code&) override {}
  size_t on_body_impl(boost::beast::string_view body, boost::system::error_code&) override {
    if (!discard_) session_.body_.append(body.data(), body.size());
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t, boost::beast::string_view,
                            boost::system::error_code&) override {}
  size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                            boost::system::error_code&) override {
    if (!discard_) {
      session_.body_.append(body.data(), body.size());
      discard_ = !session_.BodyGrows();
    }
    return body.size();
  }
  void on_finish_impl(boost::system::error_code&) override {}

  Session& session_;
  bool discard_ = false;

 public:
  bool refused() const { return discard_; }
};

// One HTTP/1.1 connection, in the TCP session's shape: read what has arrived, parse every
// whole request in it (Beast's parser, fed from the buffer), answer each into one output
// buffer, write once per batch. One deadline, re-armed lazily: idle between requests, the
// header's from a request's first byte, the body's from the end of its header. A
// connection's handlers run on one I/O thread.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, HttpServer& server, size_t worker)
      : stream_(std::move(socket)),
        timer_(stream_.socket().get_executor()),
        server_(server),
        worker_(worker) {}

  void Start() {
    draining_ = server_.draining();
    server_.sessions_.Opened(this, worker_);
    boost::system::error_code ec;
    stream_.socket().set_option(tcp::no_delay(true), ec);
    if (server_.tls_ == nullptr) {
      SetDeadline();
      return DoRead();
    }
    // TLS first (ALPN http/1.1), within the header timeout.
    stream_.socket().non_blocking(true, ec);  // ReadRecordsHere reads what is there, no more
    stream_.UseTls(server_.tls_->context(), Alpn::kHttp11);
    handshaking_ = true;
    SetDeadline();
    stream_.Handshake([self = shared_from_this()](boost::system::error_code e) {
      if (self->closed_) return;
      self->handshaking_ = false;
      if (e) {
        self->server_.metrics_.Rejected(Transport::kHttp, Rejection::kTlsHandshake);
        return self->Close();
      }
      self->SetDeadline();
      self->DoRead();
    });
  }

  // A kept-alive connection between requests closes now; one just opened (its request may
  // be on the way: a probe's, a client's routed here before the endpoints changed) has its
  // first request answered, with Connection: close.
  void BeginDrain() {
    draining_ = true;
    if (answered_ > 0 && !InRequest() && !writing_ && out_.empty()) Close();
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    admitted_.Release();
    boost::system::error_code ec;
    timer_.cancel();
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
    server_.sessions_.Closed(this, worker_);
  }

 private:
  static constexpr size_t kReadBytes = 64 << 10;  // read at most this much at a time
  using Parser = RequestParser<HttpSession>;
  friend Parser;
  const ServiceConfig& config() const { return server_.config_; }
  bool InRequest() const { return parser_.has_value() || in_.size() > 0; }

  // ---- reading and parsing

  void DoRead() {
    if (closed_ || reading_ || stop_reading_) return;
    if (out_.size() + writing_buf_.size() > config().tcp_max_pending_bytes) return;  // backpressure
    reading_ = true;
    const heap::Counts before = heap::ThisThread();
    auto room = in_.prepare(kReadBytes);
    const heap::Counts after = heap::ThisThread();
    read_allocations_.bytes += after.bytes - before.bytes;
    read_allocations_.calls += after.calls - before.calls;
    stream_.ReadSome(room, [self = shared_from_this()](boost::system::error_code ec, size_t n) {
      self->reading_ = false;
      if (self->closed_) return;
      if (ec) {
        // The client closed (or reset): answers already made are still
        // written.
        self->stop_reading_ = true;
        if (!self->writing_ && self->out_.empty()) self->Close();
        return;
      }
      self->in_.commit(n);
      if (self->stream_.tls()) self->ReadRecordsHere(n);
      self->Process();
    });
  }

  // Over TLS a read returns one record: the records already received are taken too, so
  // that a pipelined batch is parsed and answered in one write, not one per record.
  void ReadRecordsHere(size_t got) {
    const heap::Counts before = heap::ThisThread();
    boost::system::error_code ec;
    while (!ec && !writing_ && got < kReadBytes) {  // not beside a write (a key update)
      const size_t n = stream_.ReadNow(in_.prepare(kReadBytes - got), ec);
      in_.commit(n);
      got += n;
    }
    const heap::Counts after = heap::ThisThread();
    read_allocations_.bytes += after.bytes - before.bytes;
    read_allocations_.calls += after.calls - before.calls;
    // would_block: all taken; an error or the end is found again by the next read.
  }

  void Process() {
    while (!closed_ && !close_after_ && in_.size() > 0 &&
           out_.size() <= config().tcp_max_pending_bytes) {
      if (!parser_) StartRequest();
      boost::system::error_code ec;
      const heap::Counts before = heap::ThisThread();
      const size_t used = parser_->put(in_.data(), ec);
      in_.consume(used);
      const heap::Counts after = heap::ThisThread();
      read_allocations_.bytes += after.bytes - before.bytes;
      read_allocations_.calls += after.calls - before.calls;
      if (ec == http::error::need_more) break;
      if (ec) {
        RequestError(ec);
        break;
      }
      if (parser_->is_done()) {
        // A refused one was answered at its header; one whose body was dropped is answered
        // now.
        if (!parser_->refused() || std::exchange(drop_body_, false)) Handle();
        parser_.reset();
        admitted_.Release();
      } else if (used == 0) {
        break;
      }
    }
    if (in_.size() == 0 && in_.capacity() > (1 << 20)) in_.shrink_to_fit();
    if (body_.capacity() > (1 << 20) && !parser_) std::string().swap(body_);
    Flush();
    SetDeadline();
    if (draining_ && !InRequest() && !writing_ && out_.empty()) return Close();
    DoRead();
  }

  void StartRequest() {
    parser_.emplace(*this);
    parser_->header_limit(config().http_max_header_bytes);
    parser_->body_limit(config().limits.max_input_bytes);
    parser_->eager(true);
    too_many_fields_ = false;
    body_.clear();
    header_started_ = Clock::now();
    scope_.emplace();
  }

  void RequestError(boost::system::error_code ec) {
    admitted_.Release();
    drop_body_ = false;
    if (ec == http::error::body_limit) {  // a declared Content-Length, or a chunked body
      codec::Status s;
      s.code = codec::ErrorCode::kInputTooLarge;
      s.offset = config().limits.max_input_bytes;
      s.message = "body passes max_input_bytes " + std::to_string(config().limits.max_input_bytes);
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kInputTooLarge);
      Problem(s, true);
    } else if (ec == http::error::header_limit) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kHeaderTooLarge);
      Fail(http::status::request_header_fields_too_large, "header_too_large",
           too_many_fields_ ? "the request has more than http_max_header_count header fields"
                            : "the request header passes http_max_header_bytes",
           true);
    } else {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kProtocolError);
      Fail(http::status::bad_request, "bad_request", ec.message(), true);
    }
    parser_.reset();
  }

  // The header is whole (called by the parser, before any of the body): the target split,
  // and the body's claim on the process-wide admission; refused, the request is answered
  // with 503 now and its body dropped as it arrives, and the connection goes on. (The claim
  // rule itself is the parser's: a Content-Length over max_input_bytes never gets here.)
  bool HeaderDone(const Parser& parser) {
    body_started_ = Clock::now();
    const std::string_view target = target_;
    path_ = target.substr(0, target.find('?'));
    query_ = path_.size() < target.size() ? target.substr(path_.size() + 1) : std::string_view();
    keep_alive_ = parser.keep_alive();
    const auto length = parser.content_length();
    // Only a request rosettad will transcode keeps its body; any other (a health check, a
    // path or method it does not serve, anything on the health listener) has its body
    // dropped as it arrives, claims nothing and is answered when it ends.
    if (server_.health_only_ || method_ != http::verb::post ||
        (path_ != "/v1/transcode" && path_ != "/v1/validate")) {
      drop_body_ = true;
      return false;
    }
    Admission& admission = server_.pipeline_.admission();
    if (!admitted_.Acquire(admission, length.value_or(0))) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kOverloaded);
      Problem(admission.Refusal(length.value_or(0)), false);
      return false;
    }
    // Room for the body and the JSON reader's padding, once (a chunked body grows).
    if (length) body_.reserve(*length + 64);
    return true;
  }

  // A chunked body claims its bytes as they arrive. False: refused and answered.
  bool BodyGrows() {
    const size_t size = body_.size();
    if (size <= admitted_.bytes() || admitted_.Grow(size - admitted_.bytes())) return true;
    server_.metrics_.Rejected(Transport::kHttp, Rejection::kOverloaded);
    Problem(server_.pipeline_.admission().Refusal(size), false);
    admitted_.Release();  // the rest of the body is dropped
    return false;
  }

  // ---- answering

  void Handle() {
    if (path_ != "/healthz" && path_ != "/readyz" &&
        (server_.health_only_ || (path_ != "/v1/transcode" && path_ != "/v1/validate"))) {
      return Fail(http::status::not_found, "not_found", "no such endpoint", false);
    }
    if (path_ == "/healthz" || path_ == "/readyz") {
      if (method_ != http::verb::get)
        return Fail(http::status::method_not_allowed, "method_not_allowed", "GET only", false);
      const bool ready = path_ == "/healthz" || !server_.draining();
      return Answer(ready ? http::status::ok : http::status::service_unavailable, "text/plain",
                    ready ? "ok\n" : "draining\n", false);
    }
    if (method_ != http::verb::post)
      return Fail(http::status::method_not_allowed, "method_not_allowed", "POST only", false);
    Request r;
    r.op = path_ == "/v1/transcode" ? Op::kTranscode : Op::kValidate;
    const MediaType* in = FindMediaType(content_type_);
    if (in == nullptr) {
      return Fail(http::status::unsupported_media_type, "unsupported_media_type",
                  "Content-Type is not one of application/json, application/cbor, "
                  "application/msgpack, application/vnd.msgpack, application/x-protobuf",
                  false);
    }
    r.input = in->format;
    r.output = in->format;
    const MediaType* output_type = nullptr;
    if (r.op == Op::kTranscode) {
      output_type = FromAccept(accept_);
      if (output_type == nullptr) {
        return Fail(http::status::not_acceptable, "not_acceptable",
                    "Accept names no format rosetta writes", false);
      }
      r.output = output_type->format;
    }
    std::string bad;
    if (!ReadQuery(&r, &bad)) {
      server_.metrics_.Rejected(Transport::kHttp, Rejection::kBadRequest);
      return Fail(http::status::bad_request, "bad_query", bad, false);
    }
    r.payload = body_;
    r.padding = body_.capacity() - body_.size();
    r.all_violations = r.op == Op::kValidate;  // the problem's "violations" (docs/http.md)
    const heap::Counts extra = std::exchange(read_allocations_, {});
    server_.pipeline_.Run(
        Transport::kHttp, *scope_, r,
        [&](const codec::Status& s, std::string_view output) {
          if (!s.ok()) return Problem(s, false, Pipeline::Violations());
          if (r.op == Op::kValidate) return Answer(http::status::no_content, {}, {}, false);
          Answer(http::status::ok, output_type->name, output, false);
        },
        extra);
  }

  bool ReadQuery(Request* r, std::string* bad) {
    codec::Limits limits = codec::KeepLimits();
    message_type_.clear();  // a kept-alive connection's next request names its own
    schema_.clear();
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

  // A response, appended to the output: status line, the headers rosetta sends, the body.
  void Answer(http::status status, std::string_view content_type, std::string_view body, bool close,
              bool retry_after = false) {
    if (!keep_alive_ || draining_) close = true;
    const auto reason = http::obsolete_reason(status);
    out_ += "HTTP/1.1 ";
    out_ += std::to_string(static_cast<int>(status));
    out_ += ' ';
    out_.append(reason.data(), reason.size());
    out_ += "\r\n";
    if (!content_type.empty()) {
      out_ += "Content-Type: ";
      out_ += content_type;
      out_ += "\r\n";
    }
    if (status != http::status::no_content) {  // RFC 9110 section 8.6: none on a 204
      out_ += "Content-Length: ";
      out_ += std::to_string(body.size());
      out_ += "\r\n";
    }
    if (retry_after) out_ += "Retry-After: 1\r\n";
    if (close) out_ += "Connection: close\r\n";
    out_ += "\r\n";
    out_.append(body.data(), body.size());
    if (close) close_after_ = true;
    keep_alive_ = true;
    ++answered_;
  }

  // The error as problem+json; a validate's schema violations also as the extension member
  // "violations" (RFC 9457 section 3.2): each {title, detail, offset, path}, in input order,
  // the first one the problem itself.
  void Problem(const codec::Status& s, bool close,
               const std::vector<codec::Status>& violations = {}) {
    std::string body = "{\"type\":\"urn:rosetta:error:";
    body += codec::CodeName(s.code);
    body += "\",\"title\":";
    AppendJsonString(&body, codec::CodeName(s.code));
    const http::status status = StatusOf(s.code);
    body += ",\"status\":" + std::to_string(static_cast<int>(status)) + ",\"detail\":";
    AppendJsonString(&body, s.message);
    body += ",\"offset\":" + std::to_string(s.offset) + ",\"path\":";
    AppendJsonString(&body, s.path);
    if (!violations.empty()) {
      body += ",\"violations\":[";
      for (const codec::Status& v : violations) {
        body += body.back() == '[' ? "{\"title\":" : ",{\"title\":";
        AppendJsonString(&body, codec::CodeName(v.code));
        body += ",\"detail\":";
        AppendJsonString(&body, v.message);
        body += ",\"offset\":" + std::to_string(v.offset) + ",\"path\":";
        AppendJsonString(&body, v.path);
        body += '}';
      }
      body += ']';
    }
    body += "}\n";
    Answer(status, "application/problem+json", body, close,
           s.code == codec::ErrorCode::kOverloaded);
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
    Answer(status, "application/problem+json", body, close);
  }

  // ---- writing

  void Flush() {
    if (writing_ || out_.empty() || closed_) return;
    writing_ = true;
    writing_buf_.clear();
    std::swap(writing_buf_, out_);
    stream_.Write(asio::buffer(writing_buf_),
                  [self = shared_from_this()](boost::system::error_code ec, size_t) {
                    self->writing_ = false;
                    if (self->closed_) return;
                    if (ec || (self->close_after_ && self->out_.empty())) return self->Close();
                    if (self->writing_buf_.capacity() > (1 << 20))
                      std::string().swap(self->writing_buf_);
                    if (self->stop_reading_ && self->out_.empty()) return self->Close();
                    // A read in progress writes into in_: Process (which consumes in_)
                    // runs when it completes; answers made meanwhile go out now.
                    if (self->reading_) return self->Flush();
                    self->Process();
                  });
  }

  // ---- the deadline

  void SetDeadline() {
    Clock::time_point at;
    if (handshaking_) {
      at = Clock::now() + std::chrono::milliseconds(config().http_header_timeout_ms);
      deadline_reason_ = Rejection::kHandshakeTimeout;
    } else if (parser_ && parser_->is_header_done()) {
      at = body_started_ + std::chrono::milliseconds(config().http_body_timeout_ms);
      deadline_reason_ = Rejection::kMessageTimeout;
    } else if (InRequest()) {
      at = (parser_ ? header_started_ : Clock::now()) +
           std::chrono::milliseconds(config().http_header_timeout_ms);
      deadline_reason_ = Rejection::kHeaderTimeout;
    } else {
      at = Clock::now() + std::chrono::milliseconds(config().http_idle_timeout_ms);
      deadline_reason_ = Rejection::kIdleTimeout;
    }
    deadline_ = at;
    if (!timer_armed_ || at < timer_at_) Arm(at);  // else it fires first and re-arms then
  }
  void Arm(Clock::time_point at) {
    timer_at_ = at;
    timer_armed_ = true;
    timer_.expires_at(at);
    timer_.async_wait([self = shared_from_this(), at](boost::system::error_code ec) {
      if (ec || self->closed_ || self->timer_at_ != at) return;  // cancelled or re-armed
      self->timer_armed_ = false;
      self->OnTimer();
    });
  }
  void OnTimer() {
    const auto now = Clock::now();
    if (now < deadline_) return Arm(deadline_);
    // Answers still going out are progress for an idle connection, not for a request
    // whose header or body is overdue (it may hold an admission claim).
    if (writing_ && deadline_reason_ == Rejection::kIdleTimeout) {
      return Arm(now + std::chrono::milliseconds(config().http_idle_timeout_ms));
    }
    server_.metrics_.Rejected(Transport::kHttp, deadline_reason_);
    Close();
  }

  ByteStream stream_;  // the socket, or TLS over it
  asio::steady_timer timer_;
  HttpServer& server_;
  size_t worker_;
  boost::beast::flat_buffer in_;
  std::optional<Parser> parser_;
  std::string out_;          // answers made, not yet written
  std::string writing_buf_;  // answers being written
  std::optional<RequestScope> scope_;
  AdmissionTicket admitted_;  // the current request's claim
  heap::Counts read_allocations_;
  // The request being read (RequestParser fills them; their capacity is kept).
  http::verb method_ = http::verb::unknown;
  std::string target_, content_type_, accept_;
  std::string body_;  // with room for the JSON reader's padding after it
  uint32_t fields_ = 0;
  bool too_many_fields_ = false;
  std::string_view path_, query_;  // into target_
  std::string message_type_, schema_;
  Clock::time_point header_started_{}, body_started_{};
  Clock::time_point deadline_{}, timer_at_{};
  Rejection deadline_reason_ = Rejection::kIdleTimeout;
  bool keep_alive_ = true;
  bool reading_ = false;
  bool writing_ = false;
  bool stop_reading_ = false;
  bool close_after_ = false;
  bool timer_armed_ = false;
  bool draining_ = false;
  bool closed_ = false;
  bool handshaking_ = false;  // TLS handshake under way
  uint64_t answered_ = 0;     // requests answered on this connection
  bool drop_body_ = false;    // the request is not one that keeps its body (HeaderDone)
};

HttpServer::HttpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline,
                       IoPool& pool, std::string listen, bool health_only)
    : listen_(std::move(listen)),
      health_only_(health_only),
      config_(config),
      metrics_(metrics),
      pipeline_(pipeline),
      pool_(pool),
      sessions_(pool, metrics, Transport::kHttp) {}

HttpServer::~HttpServer() { Stop(std::chrono::milliseconds(0)); }

int HttpServer::Start() {
  listener_ = std::make_unique<Listener>(
      pool_, metrics_, Transport::kHttp, [this](tcp::socket socket, size_t worker) {
        if (closing_) return;
        sessions_.Accept(std::move(socket), worker, config_.http_max_connections,
                         [this](tcp::socket s, size_t thread) {
                           std::make_shared<HttpSession>(std::move(s), *this, thread)->Start();
                         });
      });
  return listener_->Start(listen_);
}

void HttpServer::BeginDrain() {
  if (draining_.exchange(true) || !listener_) return;
  // The listener stays open while the drain lasts: a client routed here before the
  // endpoints changed is still served (with Connection: close), and /readyz says 503.
  sessions_.ForEach(&HttpSession::BeginDrain);
}

void HttpServer::Stop(std::chrono::milliseconds timeout) {
  if (stopped_ || !listener_) return;
  stopped_ = true;
  BeginDrain();
  const auto until = Clock::now() + timeout;
  while (sessions_.active() > 0 && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  closing_ = true;
  listener_->Close();
  sessions_.ForEach(&HttpSession::Close);
}

}  // namespace rosetta::service
