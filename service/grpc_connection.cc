#include "service/grpc_connection.h"

#include <algorithm>
#include <cstring>

#include "rosetta/v1/transcoder.pb.h"
#include "service/grpc_server.h"

namespace rosetta::service {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Bytes read from the socket at a time, and the spare bytes after them: a message handled
// where it lies in the read buffer keeps the JSON reader's padding readable after it.
constexpr size_t kReadSize = 64 << 10;
constexpr size_t kReadSpare = 64;
// Flow-control windows. A stream may have 64 KiB unconsumed (gRPC's own initial window),
// the connection 1 MiB: the connection's credit is always given back as bytes arrive, so
// one stalled stream never blocks the others; a stream's credit is held back (buffered_).
constexpr int32_t kStreamWindow = 64 << 10;
constexpr int32_t kConnectionWindow = 1 << 20;
// Client resets of calls not yet complete tolerated beyond the calls completed.
constexpr uint64_t kResetAllowance = 128;

nghttp2_nv Header(std::string_view name, std::string_view value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

struct Callbacks {
  nghttp2_session_callbacks* cbs = nullptr;
  nghttp2_option* options = nullptr;
};

}  // namespace

GrpcMethod FindGrpcMethod(std::string_view path) {
  if (path == "/rosetta.v1.Transcoder/Transcode") return GrpcMethod::kTranscode;
  if (path == "/rosetta.v1.Transcoder/Validate") return GrpcMethod::kValidate;
  if (path == "/rosetta.v1.Transcoder/TranscodeStream") return GrpcMethod::kTranscodeStream;
  if (path == "/grpc.health.v1.Health/Check") return GrpcMethod::kHealthCheck;
  if (path == "/grpc.health.v1.Health/Watch") return GrpcMethod::kHealthWatch;
  if (path == "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo" ||
      path == "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")
    return GrpcMethod::kReflection;
  return GrpcMethod::kUnknown;
}

GrpcConnection::GrpcConnection(tcp::socket socket, GrpcServer& server, size_t worker)
    : stream_(std::move(socket)),
      timer_(stream_.socket().get_executor()),
      server_(server),
      worker_(worker),
      read_buf_(new char[kReadSize + kReadSpare]) {}

GrpcConnection::~GrpcConnection() {
  if (session_) nghttp2_session_del(session_);
}

void GrpcConnection::Start() {
  const ServiceConfig& config = server_.config_;
  server_.connections_.Opened(this, worker_);
  opened_ = idle_since_ = Clock::now();

  nghttp2_session_callbacks* cbs;
  nghttp2_session_callbacks_new(&cbs);
  nghttp2_session_callbacks_set_send_callback(cbs, &OnSend);
  nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, &OnBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(cbs, &OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &OnFrameRecv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, &OnDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(cbs, &OnStreamClose);
  nghttp2_session_callbacks_set_on_frame_send_callback(cbs, &OnFrameSend);
  nghttp2_option* options;
  nghttp2_option_new(&options);
  // Window credit is given back by Consume, as the bytes are handled or may be kept.
  nghttp2_option_set_no_auto_window_update(options, 1);
  // A client may not open more streams than SETTINGS allow (refused, not queued).
  nghttp2_option_set_max_reserved_remote_streams(options, 0);
  const int rc = nghttp2_session_server_new2(&session_, cbs, this, options);
  nghttp2_option_del(options);
  nghttp2_session_callbacks_del(cbs);
  if (rc != 0) {
    Close();
    return;
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, config.grpc_max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(kStreamWindow)},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, config.grpc_max_header_list_bytes},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kConnectionWindow);

  boost::system::error_code ec;
  stream_.socket().set_option(tcp::no_delay(true), ec);
  if (server_.tls_ != nullptr) {
    // TLS first (ALPN h2), within the handshake timeout; the preface and SETTINGS after it.
    stream_.socket().non_blocking(true, ec);  // DoRead takes the records already here
    stream_.UseTls(server_.tls_->context(), Alpn::kH2);
    handshaking_ = true;
    ArmTimer();
    stream_.Handshake([self = shared_from_this()](boost::system::error_code e) {
      if (self->closed_) return;
      self->handshaking_ = false;
      if (e) {
        self->server_.metrics_.Rejected(Transport::kGrpc, Rejection::kTlsHandshake);
        self->Close();
        return;
      }
      self->Flush();
      self->DoRead();
    });
    return;
  }
  ArmTimer();
  Flush();
  DoRead();
}

void GrpcConnection::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  timer_.cancel();
  stream_.socket().close(ec);
  server_.connections_.Closed(this, worker_);
}

void GrpcConnection::BeginDrain() {
  if (closed_ || draining_) return;
  draining_ = true;
  if (!goaway_sent_) {
    goaway_sent_ = true;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                          nullptr, 0);
  }
  // Streams between requests end now; a call in the middle of a request ends after it.
  for (auto& [id, s] : streams_) {
    if (s->finished || !s->headers_done) continue;
    const bool between_requests = s->message.empty() && s->prefix_have == 0;
    if (s->method == GrpcMethod::kHealthWatch ||
        ((s->method == GrpcMethod::kTranscodeStream || s->method == GrpcMethod::kReflection) &&
         between_requests)) {
      Finish(*s, grpc::Code::kOk);
    }
  }
  close_by_ = std::min(close_by_,
                       Clock::now() + std::chrono::milliseconds(server_.config_.drain_timeout_ms));
  Flush();
  ArmTimer();
}

void GrpcConnection::HealthChanged() {
  if (closed_) return;
  for (auto& [id, s] : streams_) {
    if (s->method == GrpcMethod::kHealthWatch && s->messages > 0 && !s->finished) SendHealth(*s);
  }
  Flush();
}

void GrpcConnection::CloseWithGoaway(uint32_t error_code, Rejection reason) {
  server_.metrics_.Rejected(Transport::kGrpc, reason);
  if (!goaway_sent_) {
    goaway_sent_ = true;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(session_), error_code, nullptr,
                          0);
  }
  // Nothing more is read; the GOAWAY is written by the next Flush (never called from
  // inside nghttp2's callbacks, where this may run), then the connection closes.
  nghttp2_session_terminate_session(session_, error_code);
  close_by_ = Clock::now() + std::chrono::seconds(1);
}

// ---- I/O

void GrpcConnection::DoRead() {
  if (closed_ || reading_ || handshaking_) return;
  if (out_.size() >= server_.config_.tcp_max_pending_bytes) {
    read_paused_ = true;  // the client is not reading its answers: stop reading its requests
    return;
  }
  read_paused_ = false;
  reading_ = true;
  stream_.ReadSome(
      asio::buffer(read_buf_.get(), kReadSize),
      [self = shared_from_this()](boost::system::error_code ec, size_t n) {
        self->reading_ = false;
        if (self->closed_) return;
        if (ec) {
          self->Close();
          return;
        }
        // Over TLS a read returns one record: the records already received are taken too,
        // so that a batch of calls is answered in one write (an error is found again by
        // the next read).
        // (Not while a write is out: a read that must answer, such as a TLS 1.3 key
        // update, would write beside it.)
        while (!ec && self->stream_.tls() && !self->writing_now_ && n < kReadSize)
          n += self->stream_.ReadNow(asio::buffer(self->read_buf_.get() + n, kReadSize - n), ec);
        const ssize_t rc = nghttp2_session_mem_recv(
            self->session_, reinterpret_cast<const uint8_t*>(self->read_buf_.get()), n);
        if (self->closed_) return;
        if (rc < 0) {
          // A connection error: nghttp2 has queued its GOAWAY.
          self->server_.metrics_.Rejected(Transport::kGrpc, Rejection::kProtocolError);
          self->Flush();
          self->close_by_ = Clock::now() + std::chrono::seconds(1);
          self->ArmTimer();
          return;
        }
        self->Flush();
        self->ArmTimer();
        self->DoRead();
      });
}

void GrpcConnection::Flush() {
  if (closed_) return;
  if (nghttp2_session_send(session_) != 0) {
    Close();
    return;
  }
  if (!goaway_sent_ && !peer_goaway_ && !nghttp2_session_want_read(session_)) {
    // Neither side asked to end it: nghttp2 ended the connection (its GOAWAY is out) over a
    // protocol error, such as a COMPRESSION_ERROR for a header field over 64 KiB, a
    // flow-control violation or a CONTINUATION flood.
    goaway_sent_ = true;
    server_.metrics_.Rejected(Transport::kGrpc, Rejection::kProtocolError);
  }
  DoWrite();
  if (writing_now_ || !out_.empty() || nghttp2_session_want_write(session_)) return;
  // Nothing left to write: after a connection error, or a drain with every call answered
  // (the GOAWAY is out), the connection ends.
  if (!nghttp2_session_want_read(session_) || (draining_ && streams_.empty())) Close();
}

void GrpcConnection::DoWrite() {
  if (writing_now_ || out_.empty() || closed_ || handshaking_) return;
  writing_now_ = true;
  writing_.clear();
  std::swap(writing_, out_);
  stream_.Write(asio::buffer(writing_),
                [self = shared_from_this()](boost::system::error_code ec, size_t) {
                  self->writing_now_ = false;
                  if (self->closed_) return;
                  if (ec) {
                    self->Close();
                    return;
                  }
                  if (self->writing_.capacity() > (1 << 20)) std::string().swap(self->writing_);
                  self->Flush();
                  if (self->read_paused_) self->DoRead();
                });
}

ssize_t GrpcConnection::OnSend(nghttp2_session*, const uint8_t* data, size_t length, int,
                               void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  if (self->out_.size() >= self->server_.config_.tcp_max_pending_bytes)
    return NGHTTP2_ERR_WOULDBLOCK;
  self->out_.append(reinterpret_cast<const char*>(data), length);
  return static_cast<ssize_t>(length);
}

// ---- timers

void GrpcConnection::ArmTimer() {
  if (closed_) return;
  const ServiceConfig& config = server_.config_;
  Clock::time_point next = close_by_;
  if (!got_request_)
    next = std::min(next, opened_ + std::chrono::milliseconds(config.grpc_handshake_timeout_ms));
  if (streams_.empty() && !draining_)
    next = std::min(next, idle_since_ + std::chrono::milliseconds(config.grpc_idle_timeout_ms));
  if (config.grpc_max_connection_age_ms && !goaway_sent_)
    next = std::min(next, opened_ + std::chrono::milliseconds(config.grpc_max_connection_age_ms));
  for (auto& [id, s] : streams_) {
    if (s->end_sent) continue;
    next = std::min(next, s->deadline);
    if (!s->headers_done) {
      next =
          std::min(next, s->created + std::chrono::milliseconds(config.grpc_handshake_timeout_ms));
    } else if (s->prefix_have > 0) {
      next = std::min(
          next, s->message_started + std::chrono::milliseconds(config.grpc_message_timeout_ms));
    }
  }
  if (next == Clock::time_point::max()) {
    if (timer_armed_) timer_.cancel();
    timer_at_ = next;
    return;
  }
  if (timer_armed_ && next >= timer_at_) return;  // the timer already fires by then
  timer_at_ = next;
  timer_armed_ = true;
  timer_.expires_at(next);
  timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    self->timer_armed_ = false;
    self->timer_at_ = Clock::time_point::max();
    if (!self->closed_) self->OnTimer();
  });
}

void GrpcConnection::OnTimer() {
  const ServiceConfig& config = server_.config_;
  const auto now = Clock::now();
  if (now >= close_by_) {
    Close();
    return;
  }
  if (handshaking_) {  // TLS not yet up: nothing can be written, not even a GOAWAY
    if (now >= opened_ + std::chrono::milliseconds(config.grpc_handshake_timeout_ms)) {
      server_.metrics_.Rejected(Transport::kGrpc, Rejection::kHandshakeTimeout);
      Close();
    } else {
      ArmTimer();
    }
    return;
  }
  if (!got_request_ &&
      now >= opened_ + std::chrono::milliseconds(config.grpc_handshake_timeout_ms)) {
    CloseWithGoaway(NGHTTP2_NO_ERROR, Rejection::kHandshakeTimeout);
    Flush();
    ArmTimer();
    return;
  }
  if (streams_.empty() && !draining_ &&
      now >= idle_since_ + std::chrono::milliseconds(config.grpc_idle_timeout_ms)) {
    server_.metrics_.Rejected(Transport::kGrpc, Rejection::kIdleTimeout);
    BeginDrain();
    return;
  }
  if (config.grpc_max_connection_age_ms && !goaway_sent_ &&
      now >= opened_ + std::chrono::milliseconds(config.grpc_max_connection_age_ms)) {
    BeginDrain();  // not a refusal: the client reconnects, possibly to another replica
    return;
  }
  std::vector<Stream*> expired;
  for (auto& [id, s] : streams_) {
    if (s->end_sent) continue;
    if (!s->headers_done &&
        now >= s->created + std::chrono::milliseconds(config.grpc_handshake_timeout_ms)) {
      // A header block trickled in for longer than a whole handshake may take.
      CloseWithGoaway(NGHTTP2_NO_ERROR, Rejection::kHandshakeTimeout);
      Flush();
      ArmTimer();
      return;
    }
    if (now >= s->deadline ||
        (s->headers_done && s->prefix_have > 0 &&
         now >= s->message_started + std::chrono::milliseconds(config.grpc_message_timeout_ms)))
      expired.push_back(s.get());
  }
  for (Stream* s : expired) {
    if (now >= s->deadline) {
      Finish(*s, grpc::Code::kDeadlineExceeded, "deadline exceeded");
    } else {
      server_.metrics_.Rejected(Transport::kGrpc, Rejection::kMessageTimeout);
      Finish(*s, grpc::Code::kDeadlineExceeded,
             "message not received whole within grpc_message_timeout_ms");
    }
    s->discarding = true;
    s->admitted.Release();  // its bytes are dropped from now on
  }
  Flush();
  ArmTimer();
}

// ---- receiving

GrpcConnection::Stream* GrpcConnection::Find(int32_t id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

int GrpcConnection::OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  auto s = std::make_unique<Stream>();
  s->id = frame->hd.stream_id;
  s->created = Clock::now();
  self->streams_[s->id] = std::move(s);
  self->ArmTimer();
  return 0;
}

int GrpcConnection::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                             size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                             void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  Stream* s = self->Find(frame->hd.stream_id);
  if (s == nullptr) return 0;
  // HTTP/2 counts a header list as its names and values plus 32 bytes per field (RFC 9113
  // section 6.5.2); nghttp2 itself refuses any one field over 64 KiB before it is whole.
  s->header_bytes += static_cast<uint32_t>(namelen + valuelen + 32);
  if (s->header_bytes > self->server_.config_.grpc_max_header_list_bytes) {
    self->server_.metrics_.Rejected(Transport::kGrpc, Rejection::kHeaderTooLarge);
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // the stream is reset, the connection kept
  }
  if (frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers from a client: ignored
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":path") {
    s->path.assign(v);
  } else if (n == "content-type") {
    s->grpc_content_type =
        v.substr(0, 16) == "application/grpc" && (v.size() == 16 || v[16] == '+' || v[16] == ';');
  } else if (n == "grpc-encoding") {
    s->gzip = v == "gzip";
    s->unknown_encoding = !s->gzip && v != "identity";
  } else if (n == "grpc-timeout") {
    std::chrono::nanoseconds t;
    if (grpc::ParseTimeout(v, &t)) {
      s->deadline = t > std::chrono::hours(24 * 365) ? Clock::time_point::max() : s->created + t;
    }
  }
  return 0;
}

int GrpcConnection::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  const bool end_stream = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (frame->hd.type == NGHTTP2_GOAWAY) self->peer_goaway_ = true;
  Stream* s = self->Find(frame->hd.stream_id);
  if (s == nullptr) return 0;
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
    self->HeadersDone(*s);
  }
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) && end_stream) {
    self->RemoteClosed(*s);
  }
  return 0;
}

void GrpcConnection::HeadersDone(Stream& s) {
  s.headers_done = true;
  got_request_ = true;
  s.method = FindGrpcMethod(s.path);
  if (!s.grpc_content_type) {
    Finish(s, grpc::Code::kInternal, "content-type is not application/grpc");
  } else if (s.method == GrpcMethod::kUnknown) {
    Finish(s, grpc::Code::kUnimplemented, "unknown method " + s.path);
  } else if (s.unknown_encoding) {
    Finish(s, grpc::Code::kUnimplemented, "grpc-encoding other than identity and gzip");
  } else if (draining_) {
    Finish(s, grpc::Code::kUnavailable, "the server is draining");
  }
  if (s.finished) s.discarding = true;
}

int GrpcConnection::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data,
                                size_t len, void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  Stream* s = self->Find(stream_id);
  if (s == nullptr) {
    nghttp2_session_consume(self->session_, stream_id, len);
    return 0;
  }
  self->Data(*s, data, len);
  return 0;
}

// The message assembler: the 5-byte prefix, checked before the body is kept; a body that
// lies whole in this chunk is handled in place, one that spans chunks is gathered.
void GrpcConnection::Data(Stream& s, const uint8_t* data, size_t len) {
  if (s.discarding || s.finished) {
    nghttp2_session_consume(session_, s.id, len);  // dropped: nothing kept
    return;
  }
  const uint64_t limit = server_.config_.EffectiveGrpcMaxReceive();
  while (len > 0 && !s.discarding) {
    if (s.prefix_have < 5) {
      if (s.prefix_have == 0) s.message_started = Clock::now();
      const size_t n = std::min<size_t>(5 - s.prefix_have, len);
      std::memcpy(s.prefix + s.prefix_have, data, n);
      s.prefix_have = static_cast<uint8_t>(s.prefix_have + n);
      data += n;
      len -= n;
      nghttp2_session_consume(session_, s.id, n);
      if (s.prefix_have < 5) break;
      s.message_compressed = s.prefix[0] != 0;
      s.message_length = (uint32_t{s.prefix[1]} << 24) | (uint32_t{s.prefix[2]} << 16) |
                         (uint32_t{s.prefix[3]} << 8) | s.prefix[4];
      if (s.prefix[0] > 1 || (s.message_compressed && !s.gzip)) {
        Finish(s, grpc::Code::kInternal,
               "compressed message without grpc-encoding gzip, or an unknown flag");
        s.discarding = true;
        break;
      }
      if (s.message_length > limit) {
        // The claim rule: refused on the prefix, before one byte of the body is kept.
        server_.metrics_.Rejected(Transport::kGrpc, Rejection::kInputTooLarge);
        codec::Status status;
        status.code = codec::ErrorCode::kInputTooLarge;
        status.offset = limit;
        status.message = "message of " + std::to_string(s.message_length) +
                         " bytes passes grpc_max_receive_bytes " + std::to_string(limit);
        FinishError(s, grpc::Code::kResourceExhausted, status);
        s.discarding = true;
        break;
      }
      Admission& admission = server_.pipeline_.admission();
      if (!s.admitted.Acquire(admission, s.message_length)) {
        server_.metrics_.Rejected(Transport::kGrpc, Rejection::kOverloaded);
        FinishError(s, grpc::Code::kResourceExhausted, admission.Refusal(s.message_length));
        s.discarding = true;
        break;
      }
      if (s.message_length == 0) {
        s.prefix_have = 0;
        MessageDone(s, std::string_view(), 0);
        continue;
      }
    }
    const size_t need = s.message_length - s.message.size();
    if (s.message.empty() && len >= need) {
      // Whole in this chunk: handled where it lies (the read buffer keeps kReadSpare
      // readable bytes after whatever it holds).
      const auto* p = reinterpret_cast<const char*>(data);
      const auto* buf_end = read_buf_.get() + kReadSize + kReadSpare;
      const bool in_read_buf = p >= read_buf_.get() && p + need <= buf_end;
      s.prefix_have = 0;
      nghttp2_session_consume(session_, s.id, need);  // handled now, nothing kept
      MessageDone(s, std::string_view(p, need),
                  in_read_buf ? static_cast<size_t>(buf_end - (p + need)) : 0);
      data += need;
      len -= need;
      continue;
    }
    const size_t n = std::min(need, len);
    const heap::Counts before = heap::ThisThread();
    if (s.message.empty()) {
      // Grown with the bytes as they come, never sized from the prefix alone.
      s.message.reserve(std::min<size_t>(s.message_length + 64, std::max<size_t>(n * 2, 4096)));
    } else if (s.message.capacity() < s.message.size() + n) {
      s.message.reserve(std::min<size_t>(s.message_length + 64,
                                         std::max(s.message.capacity() * 2, s.message.size() + n)));
    }
    s.message.append(reinterpret_cast<const char*>(data), n);
    const heap::Counts after = heap::ThisThread();
    s.read_allocations.bytes += after.bytes - before.bytes;
    s.read_allocations.calls += after.calls - before.calls;
    buffered_ += n;
    data += n;
    len -= n;
    Consume(s, n);
    if (s.message.size() == s.message_length) {
      std::string message;
      message.swap(s.message);
      s.prefix_have = 0;
      ReleaseBuffered(message.size());
      const size_t padding = message.capacity() - message.size();
      MessageDone(s, message, padding);
    }
  }
  if (len > 0) nghttp2_session_consume(session_, s.id, len);  // after a refusal: dropped
}

// Window credit for n bytes of stream s. The connection's is given at once; the stream's
// while the connection's unfinished messages fit in one largest message, or when s holds
// the oldest unfinished message (so that one always completes: uploads at once never wait
// on each other), else when they shrink. A connection so keeps at most two largest
// messages, plus 64 KiB a stream not yet credited.
void GrpcConnection::Consume(Stream& s, size_t n) {
  nghttp2_session_consume_connection(session_, n);
  if (buffered_ <= server_.config_.EffectiveGrpcMaxReceive() || Oldest() == &s) {
    nghttp2_session_consume_stream(session_, s.id, n);
  } else {
    s.unconsumed += n;
  }
}

GrpcConnection::Stream* GrpcConnection::Oldest() {
  Stream* oldest = nullptr;
  for (auto& [id, s] : streams_) {
    if (s->prefix_have == 0 || s->discarding || s->finished) continue;
    if (oldest == nullptr || s->message_started < oldest->message_started) oldest = s.get();
  }
  return oldest;
}

void GrpcConnection::ReleaseBuffered(size_t n) {
  buffered_ -= std::min<uint64_t>(buffered_, n);
  if (buffered_ > server_.config_.EffectiveGrpcMaxReceive()) {
    Stream* oldest = Oldest();
    if (oldest != nullptr && oldest->unconsumed > 0) {
      nghttp2_session_consume_stream(session_, oldest->id, oldest->unconsumed);
      oldest->unconsumed = 0;
    }
    return;
  }
  for (auto& [id, s] : streams_) {
    if (s->unconsumed == 0) continue;
    nghttp2_session_consume_stream(session_, id, s->unconsumed);
    s->unconsumed = 0;
  }
}

void GrpcConnection::MessageDone(Stream& s, std::string_view message, size_t padding) {
  ++s.messages;
  // The message's claim ends with it, however it ends: its payload is not kept.
  struct ReleaseClaim {
    AdmissionTicket& ticket;
    ~ReleaseClaim() { ticket.Release(); }
  } release{s.admitted};
  std::string inflated;
  if (s.message_compressed) {
    bool too_large = false;
    if (!grpc::Gunzip(message, server_.config_.EffectiveGrpcMaxReceive(), &inflated, &too_large)) {
      if (too_large) server_.metrics_.Rejected(Transport::kGrpc, Rejection::kInputTooLarge);
      Finish(s, too_large ? grpc::Code::kResourceExhausted : grpc::Code::kInternal,
             too_large ? "inflated message passes grpc_max_receive_bytes"
                       : "message is not valid gzip");
      s.discarding = true;
      return;
    }
    // What it inflated to is claimed too (the prefix claimed the compressed size).
    if (inflated.size() > message.size() && !s.admitted.Grow(inflated.size() - message.size())) {
      Admission& admission = server_.pipeline_.admission();
      server_.metrics_.Rejected(Transport::kGrpc, Rejection::kOverloaded);
      FinishError(s, grpc::Code::kResourceExhausted, admission.Refusal(inflated.size()));
      s.discarding = true;
      return;
    }
    inflated.reserve(inflated.size() + 64);
    message = inflated;
    padding = inflated.capacity() - inflated.size();
  }
  const bool unary = s.method == GrpcMethod::kTranscode || s.method == GrpcMethod::kValidate ||
                     s.method == GrpcMethod::kHealthCheck;
  if (unary && s.messages > 1) {
    Finish(s, grpc::Code::kUnimplemented, "a unary call with more than one request message");
    s.discarding = true;
    return;
  }
  Handle(s, message, padding);
  s.read_allocations = {};
}

void GrpcConnection::RemoteClosed(Stream& s) {
  s.remote_closed = true;
  if (s.finished) return;
  if (s.prefix_have > 0) {
    Finish(s, grpc::Code::kInternal, "the request ended inside a message");
    return;
  }
  switch (s.method) {
    case GrpcMethod::kTranscode:
    case GrpcMethod::kValidate:
    case GrpcMethod::kHealthCheck:
      if (s.messages == 0) Finish(s, grpc::Code::kInternal, "no request message");
      break;
    case GrpcMethod::kHealthWatch:
      if (s.messages == 0) Finish(s, grpc::Code::kInternal, "no request message");
      break;  // the watch goes on after the client's half-close
    default:
      Finish(s, grpc::Code::kOk);  // a bidirectional stream ends when the client's does
  }
}

int GrpcConnection::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code,
                                  void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  auto it = self->streams_.find(stream_id);
  if (it == self->streams_.end()) return 0;
  Stream& s = *it->second;
  const bool reset_by_client = !s.end_sent && error_code != NGHTTP2_NO_ERROR;
  const size_t kept = s.message.size();
  self->streams_.erase(it);
  self->ReleaseBuffered(kept);
  if (reset_by_client && ++self->resets_ > self->completed_ + kResetAllowance) {
    // Resetting calls faster than completing them (the rapid-reset shape): this
    // connection is costing work for nothing.
    self->CloseWithGoaway(NGHTTP2_ENHANCE_YOUR_CALM, Rejection::kResetFlood);
    return 0;
  }
  if (self->streams_.empty()) self->idle_since_ = Clock::now();
  return 0;
}

// ---- sending

int GrpcConnection::OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  if (frame->hd.type != NGHTTP2_HEADERS || !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
  Stream* s = self->Find(frame->hd.stream_id);
  if (s == nullptr) return 0;
  s->end_sent = true;
  ++self->completed_;
  // The status is out; a client still sending is told to stop (RST_STREAM NO_ERROR after
  // the trailers, as gRPC servers do), so its flow-control credit is not held.
  if (!s->remote_closed)
    nghttp2_submit_rst_stream(self->session_, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_NO_ERROR);
  return 0;
}

void GrpcConnection::SubmitResponseHeaders(Stream& s) {
  const nghttp2_nv headers[] = {
      Header(":status", "200"),
      Header("content-type", "application/grpc"),
      Header("grpc-accept-encoding", "identity,gzip"),
  };
  nghttp2_data_provider provider;
  provider.source.ptr = &s;
  provider.read_callback = &ReadOutput;
  nghttp2_submit_response(session_, s.id, headers, std::size(headers), &provider);
  s.response_started = true;
}

void GrpcConnection::SendMessage(Stream& s, std::string framed) {
  if (s.finished) return;
  if (s.out.empty() && s.out_sent == 0) {
    s.out = std::move(framed);
  } else {
    s.out.append(framed);
  }
  if (!s.response_started) {
    SubmitResponseHeaders(s);
  } else if (s.deferred) {
    s.deferred = false;
    nghttp2_session_resume_data(session_, s.id);
  }
}

void GrpcConnection::Finish(Stream& s, grpc::Code code, std::string message,
                            std::string error_bin) {
  if (s.finished) return;
  s.finished = true;
  s.code = code;
  s.status_message = std::move(message);
  s.error_bin = std::move(error_bin);
  if (!s.response_started) {
    SubmitTrailers(s, true);
  } else if (s.deferred) {
    s.deferred = false;
    nghttp2_session_resume_data(session_, s.id);
  }
}

void GrpcConnection::SubmitTrailers(Stream& s, bool trailers_only) {
  const std::string code = std::to_string(static_cast<int>(s.code));
  const std::string message = grpc::PercentEncode(s.status_message);
  const std::string error = grpc::Base64(s.error_bin);
  nghttp2_nv nv[6];
  size_t n = 0;
  if (trailers_only) {
    nv[n++] = Header(":status", "200");
    nv[n++] = Header("content-type", "application/grpc");
  }
  nv[n++] = Header("grpc-status", code);
  if (!message.empty()) nv[n++] = Header("grpc-message", message);
  if (!s.error_bin.empty()) nv[n++] = Header("rosetta-error-bin", error);
  if (trailers_only) {
    nghttp2_submit_response(session_, s.id, nv, n, nullptr);
  } else {
    nghttp2_submit_trailer(session_, s.id, nv, n);
  }
}

ssize_t GrpcConnection::ReadOutput(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                                   uint32_t* flags, nghttp2_data_source* source, void* self_ptr) {
  auto* self = static_cast<GrpcConnection*>(self_ptr);
  auto* s = static_cast<Stream*>(source->ptr);
  const size_t left = s->out.size() - s->out_sent;
  const size_t n = std::min(left, length);
  std::memcpy(buf, s->out.data() + s->out_sent, n);
  s->out_sent += n;
  if (s->out_sent == s->out.size()) {
    s->out_sent = 0;
    if (s->out.capacity() > (1 << 20)) {
      std::string().swap(s->out);
    } else {
      s->out.clear();
    }
    if (s->finished) {
      *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
      self->SubmitTrailers(*s, false);
    } else if (n == 0) {
      s->deferred = true;
      return NGHTTP2_ERR_DEFERRED;
    }
  }
  return static_cast<ssize_t>(n);
}

}  // namespace rosetta::service
