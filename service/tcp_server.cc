#include "service/tcp_server.h"

#include <cassert>

#include <cstring>
#include <string>

#include <simdjson.h>

#include "service/frame_reader.h"
#include "service/pipeline.h"

namespace rosetta::service {
namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kKeptOutputBytes = 64 << 10;

// The going-away response of a drain (docs/tcp-protocol.md "Drain"): a status of its own,
// after every codec error code, so that no error code can ever take its number.
constexpr uint8_t kGoingAwayStatus = 20;
static_assert(codec::kErrorCodeCount <= kGoingAwayStatus,
              "a new codec::ErrorCode takes the going-away status: move kGoingAwayStatus past it");

// Memory for the asynchronous operations of the sessions (a socket wait, a write, a timer
// wait), recycled per thread. Asio's own per-thread cache keeps one block, and a session
// has two or three operations outstanding at once (the write of an answer and the wait
// for the next frame), so each answered frame cost a malloc. A thread keeps up to
// kSlots blocks of kBlockBytes: in steady state no operation allocates. The pool is the
// thread's, not a session's, so a block can outlive the session that used it (an
// operation destroyed at shutdown frees its memory after its handler, and with it the
// session, is gone).
class HandlerPool {
 public:
  static constexpr size_t kBlockBytes = 256, kSlots = 8;
  ~HandlerPool() {
    while (n_ > 0) ::operator delete(free_[--n_]);
  }
  void* Allocate(size_t size) {
    if (size > kBlockBytes) return ::operator new(size);
    return n_ > 0 ? free_[--n_] : ::operator new(kBlockBytes);
  }
  void Deallocate(void* p, size_t size) {
    if (size <= kBlockBytes && n_ < kSlots) {
      free_[n_++] = p;
      return;
    }
    ::operator delete(p);
  }
  static HandlerPool& ForThisThread() {
    thread_local HandlerPool pool;
    return pool;
  }

 private:
  void* free_[kSlots];
  size_t n_ = 0;
};

template <class T>
struct PooledAllocator {
  using value_type = T;
  PooledAllocator() noexcept = default;
  template <class U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    return static_cast<T*>(HandlerPool::ForThisThread().Allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) { HandlerPool::ForThisThread().Deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PooledAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const PooledAllocator<U>&) const noexcept {
    return false;
  }
};

// A completion handler whose operation's memory comes from the HandlerPool (Asio finds
// the allocator through allocator_type / get_allocator()).
template <class F>
struct Pooled {
  using allocator_type = PooledAllocator<void>;
  allocator_type get_allocator() const noexcept { return {}; }
  template <class... Args>
  void operator()(Args&&... args) {
    f(std::forward<Args>(args)...);
  }
  F f;
};
template <class F>
Pooled<F> Pool(F f) {
  return Pooled<F>{std::move(f)};
}

void PutBe32(std::string& s, uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  s.append(b, 4);
}

// Op 4's payload: a JSON object with Limits field names (codec::kLimitTable).
bool ParseLimits(std::string_view payload, codec::Limits* out, std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(simdjson::padded_string(payload)).get(object)) {
    *error = "set-limits payload must be a JSON object";
    return false;
  }
  codec::Limits l = codec::KeepLimits();
  for (auto [key, value] : object) {
    const codec::LimitInfo* limit = codec::FindLimit(key);
    if (limit == nullptr) {
      *error = "set-limits: unknown limit \"" + std::string(key) + "\"";
      return false;
    }
    uint64_t v;
    if (value.get(v)) {
      *error = "set-limits: \"" + std::string(key) + "\" must be a non-negative integer";
      return false;
    }
    limit->set(l, v < limit->hard_cap ? v : limit->hard_cap);  // above the cap: lowers nothing
  }
  *out = l;
  return true;
}

// Op 5's payload: a JSON object with Options field names (codec::kOptionTable) and
// boolean values, applied to `options` (the connection's, from then on). An option this
// build does not have is refused here (`unsupported`), not on every later request.
codec::ErrorCode ParseOptions(std::string_view payload, codec::MappingOptions* options,
                              std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(simdjson::padded_string(payload)).get(object)) {
    *error = "set-options payload must be a JSON object";
    return codec::ErrorCode::kSchemaMismatch;
  }
  codec::MappingOptions o = *options;
  for (auto [key, value] : object) {
    const codec::OptionInfo* option = codec::FindOption(key);
    if (option == nullptr) {
      *error = "set-options: unknown option \"" + std::string(key) + "\"";
      return codec::ErrorCode::kSchemaMismatch;
    }
    bool v;
    if (value.get(v)) {
      *error = "set-options: \"" + std::string(key) + "\" must be true or false";
      return codec::ErrorCode::kSchemaMismatch;
    }
    if (v && !option->available) {
      *error = "set-options: option " + std::string(key) + " is not available in this build";
      return codec::ErrorCode::kUnsupported;
    }
    o.*option->field = v;
  }
  *options = o;
  return codec::ErrorCode::kOk;
}

}  // namespace

// One connection: read frames, answer each in order, write. do_read -> on_read ->
// process -> do_write -> on_write, with the frame deadline, idle timeout and
// backpressure decided in one place (UpdateDeadline / ProcessFrames).
class TcpSession : public std::enable_shared_from_this<TcpSession> {
 public:
  TcpSession(tcp::socket socket, TcpServer& server, size_t worker)
      : stream_(std::move(socket)),
        timer_(stream_.socket().get_executor()),
        server_(server),
        worker_(worker),
        limits_(server.config_.limits) {}

  void Start() {
    server_.sessions_.Opened(this, worker_);
    boost::system::error_code ec;
    stream_.socket().non_blocking(true, ec);
    stream_.socket().set_option(tcp::no_delay(true), ec);
    if (server_.tls_ == nullptr) {
      handshaken_ = true;
      SetDeadline(Clock::now() + std::chrono::milliseconds(server_.config_.tcp_idle_timeout_ms));
      return DoRead();
    }
    // TLS: the handshake first, within the frame timeout (a started frame's bound).
    stream_.UseTls(server_.tls_->context(), Alpn::kNone);
    deadline_kind_ = Deadline::kFrame;
    SetDeadline(Clock::now() + std::chrono::milliseconds(server_.config_.tcp_frame_timeout_ms));
    stream_.Handshake(Pool([self = shared_from_this()](boost::system::error_code e) {
      if (self->state_ == State::kClosed) return;
      if (e) {
        self->server_.metrics_.Rejected(Transport::kTcp, Rejection::kTlsHandshake);
        return self->Close();
      }
      self->handshaken_ = true;
      self->UpdateDeadline();
      self->DoRead();
    }));
  }

  // SIGTERM: the frames already received (buffered, and what the socket holds now) are
  // answered, then one going-away response names the last request answered, and the
  // sending side shuts down (ProcessFrames, GoAway). A client that half-closed is answered
  // in full. Neither the frame nor the idle timeout applies from now on, only the drain's.
  void BeginDrain() {
    if (state_ != State::kServing) return;
    if (!handshaken_) return Close();  // TLS handshake under way: no frame has come
    Enter(State::kDraining);
    deadline_kind_ = Deadline::kDrain;
    SetDeadline(Clock::now() + std::chrono::milliseconds(server_.config_.drain_timeout_ms));
    boost::system::error_code ec;
    drain_budget_ = stream_.socket().available(ec);
    if (ec) drain_budget_ = 0;
    drain_input_done_ = drain_budget_ == 0;
    // Over TLS a read may be out; it completes at once when the socket holds bytes, and its
    // handler goes on with the drain. Otherwise the drain goes on now.
    if (!reading_ || !stream_.tls() || drain_input_done_) ProcessFrames();
  }
  void Close() {
    if (state_ == State::kClosed) return;
    Enter(State::kClosed);
    boost::system::error_code ec;
    timer_.cancel();
    stream_.socket().close(ec);
    server_.sessions_.Closed(this, worker_);
  }

 private:
  // A connection's life, one state at a time, changed only by Enter:
  //   kServing       reading and answering frames
  //   kDraining      SIGTERM: the frames received by then (buffered, and what the socket
  //                  held) are answered; then the going-away answer, as a last answer
  //   kInputEnded    the client half-closed: what came is answered, then it closes
  //   kAnsweringLast an oversized frame's error answer, or the going-away answer of a
  //                  drain, is being written; no more frames are read
  //   kLingering     that answer is sent and our side shut down; what still arrives is
  //                  discarded for tcp_linger_ms, so that no reset destroys the answer
  //   kClosed        the socket is closed
  enum class State : uint8_t {
    kServing,
    kDraining,
    kInputEnded,
    kAnsweringLast,
    kLingering,
    kClosed
  };
  static constexpr bool Allowed(State from, State to) {
    switch (to) {
      case State::kDraining:
        return from == State::kServing;
      case State::kInputEnded:
        return from == State::kServing || from == State::kDraining;
      case State::kAnsweringLast:
        return from <= State::kInputEnded;
      case State::kLingering:
        return from == State::kAnsweringLast;
      case State::kClosed:
        return from != State::kClosed;
      default:
        return false;
    }
  }
  void Enter(State next) {
    assert(Allowed(state_, next));
    state_ = next;
  }
  bool Closing() const { return state_ >= State::kAnsweringLast; }  // no more frames are read

  void DoRead() {
    if (reading_ || state_ == State::kClosed) return;
    if (stream_.tls()) return TlsRead();
    reading_ = true;
    stream_.socket().async_wait(tcp::socket::wait_read,
                                Pool([self = shared_from_this()](boost::system::error_code ec) {
                                  self->reading_ = false;
                                  self->OnRead(ec);
                                }));
  }

  void OnRead(boost::system::error_code ec) {
    if (state_ == State::kClosed) return;
    if (ec) return Close();
    if (state_ == State::kLingering) return Discard();
    if (state_ == State::kDraining) return ProcessFrames();  // reads only what it budgeted
    // Growing the input buffer for a frame is part of handling it: what the reads below
    // allocate is charged to the next frame this connection answers.
    const heap::Counts before_read = g_request_metrics ? heap::ThisThread() : heap::Counts{};
    ReadAvailable(ec);
    if (g_request_metrics) {
      const heap::Counts after_read = heap::ThisThread();
      read_allocations_.bytes += after_read.bytes - before_read.bytes;
      read_allocations_.calls += after_read.calls - before_read.calls;
    }
    if (ec) return Close();
    ProcessFrames();
  }

  // Over TLS, what the socket has is not what can be read: the TLS stream reads into a
  // buffer of its own (a pending read must not hold a pointer into the frame reader, which
  // moves its bytes as frames are answered), and MoveTlsInput hands the bytes on.
  void TlsRead() {
    if (tls_used_ < tls_have_) return;  // the frames must take what was read first
    if (state_ == State::kDraining) {
      // Only what the socket held at the signal: a read that would wait ends the input.
      boost::system::error_code ec;
      if (drain_input_done_ || stream_.socket().available(ec) == 0 || ec) {
        drain_input_done_ = true;
        return;
      }
    }
    if (!tls_in_) tls_in_.reset(new char[kTlsReadBytes]);
    reading_ = true;
    stream_.ReadSome(asio::buffer(tls_in_.get(), kTlsReadBytes),
                     Pool([self = shared_from_this()](boost::system::error_code ec, size_t n) {
                       self->reading_ = false;
                       self->OnTlsRead(ec, n);
                     }));
  }

  void OnTlsRead(boost::system::error_code ec, size_t n) {
    if (state_ == State::kClosed) return;
    if (state_ == State::kLingering) return ec ? Close() : DoRead();  // dropped
    tls_have_ = n;
    tls_used_ = 0;
    // One wake-up takes every record that is already here (a client that writes each frame
    // as its own record must not cost one wake-up and one answer write per frame).
    // (Not while a write is out: a read that must answer, such as a TLS 1.3 key update,
    // would write beside it.) Draining, at most the bytes the socket held at the signal.
    const bool draining = state_ == State::kDraining;
    while (!ec && !writing_ && tls_have_ < kTlsReadBytes &&
           (!draining || tls_have_ < drain_budget_)) {
      const size_t more =
          stream_.ReadNow(asio::buffer(tls_in_.get() + tls_have_, kTlsReadBytes - tls_have_), ec);
      tls_have_ += more;
    }
    if (draining) {
      drain_budget_ -= std::min<uint64_t>(drain_budget_, tls_have_);
      if (drain_budget_ == 0 || ec == asio::error::would_block || ec == asio::error::try_again)
        drain_input_done_ = true;
    }
    if (ec == asio::error::would_block || ec == asio::error::try_again) ec = {};
    MoveTlsInput();
    if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
      if (state_ == State::kServing || state_ == State::kDraining) Enter(State::kInputEnded);
    } else if (ec) {
      return Close();
    }
    ProcessFrames();
  }

  // Bytes read over TLS into the frame reader, as far as it takes them; true if any moved.
  bool MoveTlsInput() {
    const size_t from = tls_used_;
    while (tls_used_ < tls_have_) {
      const heap::Counts before = g_request_metrics ? heap::ThisThread() : heap::Counts{};
      auto [room, want] = frames_.Prepare(tls_have_ - tls_used_);
      if (g_request_metrics) {
        const heap::Counts after = heap::ThisThread();
        read_allocations_.bytes += after.bytes - before.bytes;
        read_allocations_.calls += after.calls - before.calls;
      }
      if (want == 0) break;
      const size_t n = std::min(want, tls_have_ - tls_used_);
      std::memcpy(room, tls_in_.get() + tls_used_, n);
      frames_.Commit(n);
      tls_used_ += n;
    }
    return tls_used_ > from;
  }

  // Reads what the socket has, up to the frame reader's read-ahead; `ec` is set only for
  // an error that ends the connection (end of input enters kInputEnded).
  void ReadAvailable(boost::system::error_code& ec) {
    for (;;) {
      const size_t available = stream_.socket().available(ec);
      if (ec) return;
      auto [room, want] = frames_.Prepare(available);
      if (want == 0) return;  // a whole frame and the read-ahead are in: answer them first
      const size_t n = stream_.socket().read_some(asio::buffer(room, want), ec);
      frames_.Commit(n);
      if (ec == asio::error::would_block || ec == asio::error::try_again ||
          ec == asio::error::eof) {
        if (ec == asio::error::eof && (state_ == State::kServing || state_ == State::kDraining)) {
          Enter(State::kInputEnded);
        }
        ec = {};
        return;
      }
      if (ec) return;
      if (n < want) return;
    }
  }

  void ProcessFrames() {
    const uint64_t max_pending = server_.config_.tcp_max_pending_bytes;
    const uint64_t max_frame = kRequestHeaderBytes + 0xffff + limits_.max_input_bytes;
    bool need_more = false;  // every whole frame received is answered
    while (!Closing() && out_.size() + sending_.size() <= max_pending) {
      std::string_view body;
      size_t padding;
      const FrameReader::Next next = frames_.Peek(max_frame, &body, &padding);
      if (next == FrameReader::Next::kOversized) return Oversized(frames_.claimed(), max_frame);
      if (next == FrameReader::Next::kNeedMore) {
        if (tls_used_ < tls_have_ && MoveTlsInput()) continue;
        // A frame's claim is admitted as soon as its request id is in, before its body is
        // kept; refused, it is answered now and its body dropped as it arrives.
        if (!admitted_.held() && frames_.HeaderIn() && !Admit()) continue;
        if (state_ == State::kDraining && ReadDrainInput()) continue;
        if (state_ == State::kClosed) return;
        need_more = true;
        break;
      }
      if (!admitted_.held() && !Admit()) continue;
      HandleFrame(body, padding);  // body stays valid: the reader only moves on Consume
      frames_.Consume();
      admitted_.Release();
      if (deadline_kind_ != Deadline::kDrain) deadline_kind_ = Deadline::kIdle;
    }
    frames_.Settle();
    if (state_ == State::kDraining && need_more) {
      if (!drain_input_done_) {
        if (stream_.tls()) DoRead();  // what the socket held at the signal, over TLS
        if (!drain_input_done_) return Flush();
      }
      return GoAway();
    }
    Flush();
    UpdateDeadline();
    if (Closing()) return;
    if (state_ == State::kInputEnded) {
      if (!writing_ && out_.empty()) Close();
      return;
    }
    if (state_ == State::kDraining) return;  // backpressure: OnWrite goes on with the drain
    if (out_.size() + sending_.size() <= max_pending) DoRead();  // else: backpressure until OnWrite
  }

  // Draining, plaintext: reads what the socket held at the signal (drain_budget_), as far
  // as the frame reader takes it before its frames are answered; true if bytes came in.
  bool ReadDrainInput() {
    if (drain_input_done_ || stream_.tls()) return false;
    boost::system::error_code ec;
    const uint64_t available = stream_.socket().available(ec);
    const uint64_t can = std::min(available, drain_budget_);
    if (ec || can == 0) {
      drain_input_done_ = true;
      return false;
    }
    const heap::Counts before = g_request_metrics ? heap::ThisThread() : heap::Counts{};
    auto [room, want] = frames_.Prepare(static_cast<size_t>(can));
    size_t n = 0;
    if (want > 0) {
      n = stream_.socket().read_some(asio::buffer(room, std::min<uint64_t>(want, can)), ec);
      frames_.Commit(n);
      drain_budget_ -= n;
    }
    if (g_request_metrics) {
      const heap::Counts after = heap::ThisThread();
      read_allocations_.bytes += after.bytes - before.bytes;
      read_allocations_.calls += after.calls - before.calls;
    }
    if (ec == asio::error::eof) {
      Enter(State::kInputEnded);  // the client half-closed: everything it sent is answered
      drain_input_done_ = true;
    } else if (ec && ec != asio::error::would_block && ec != asio::error::try_again) {
      Close();
      return false;
    }
    if (drain_budget_ == 0 || ec) drain_input_done_ = true;
    return n > 0;
  }

  // The drain's last answer: status kGoingAwayStatus under the id of the last request
  // answered (0 if none), then the sending side shuts down as after an oversized frame, so
  // that no reset destroys the answers. What the client sent after that request was not
  // read; it resends it on another connection.
  void GoAway() {
    Enter(State::kAnsweringLast);
    const uint32_t last = last_answered_;
    Respond(kGoingAwayStatus, last,
            "going_away at byte 0: draining; request " + std::to_string(last) +
                " was the last answered on this connection, send later requests on another "
                "connection");
    admitted_.Release();
    frames_.Release();
    Flush();
  }

  // Claims the current frame's body from the process-wide admission; refused: answered
  // with `overloaded` under its request id, and the frame dropped.
  bool Admit() {
    Admission& admission = server_.pipeline_.admission();
    const uint32_t claimed = frames_.claimed();
    if (admitted_.Acquire(admission, claimed)) return true;
    server_.metrics_.Rejected(Transport::kTcp, Rejection::kOverloaded);
    RespondError(admission.Refusal(claimed), frames_.HeaderIn() ? frames_.RequestId() : 0);
    frames_.SkipFrame();
    return false;
  }

  void HandleFrame(std::string_view body, size_t padding) {
    RequestScope scope;
    RequestFrame frame;
    switch (ParseRequestFrame(body, &frame)) {
      case FrameError::kNone:
        break;
      case FrameError::kShort:
        server_.metrics_.Rejected(Transport::kTcp, Rejection::kBadFrame);
        return RespondError(codec::ErrorCode::kSyntax, frame.request_id, 0,
                            "frame of " + std::to_string(body.size()) +
                                " bytes is shorter than the 10-byte header");
      case FrameError::kVersion:
        server_.metrics_.Rejected(Transport::kTcp, Rejection::kBadFrame);
        return RespondError(codec::ErrorCode::kUnsupported, frame.request_id, 0,
                            "protocol version " + std::to_string(frame.version));
      case FrameError::kOp:
        server_.metrics_.Rejected(Transport::kTcp, Rejection::kBadFrame);
        return RespondError(codec::ErrorCode::kUnsupported, frame.request_id, 1,
                            "unknown op " + std::to_string(frame.op));
      case FrameError::kTypeLength:
        server_.metrics_.Rejected(Transport::kTcp, Rejection::kBadFrame);
        return RespondError(codec::ErrorCode::kSyntax, frame.request_id, 8,
                            "message type runs past the frame");
    }
    const uint32_t id = frame.request_id;
    const uint8_t op = frame.op;
    Request r;
    static constexpr Op kOpOfNumber[] = {Op::kTranscode, Op::kTranscode, Op::kValidate,
                                         Op::kPing,      Op::kSetLimits, Op::kSetOptions};
    r.op = kOpOfNumber[op];  // 1..5: checked by ParseRequestFrame
    r.input = static_cast<codec::Format>(frame.input_format);
    r.output = static_cast<codec::Format>(frame.output_format);
    // The type field names the payload's schema: the protobuf message type when either
    // side is protobuf or fixed (read and written through descriptors), else a JSON Schema.
    // A schema violation is answered like any error, the first one only: the answer's data
    // is one line (docs/tcp-protocol.md).
    auto descriptors = [](uint8_t f) {
      const codec::FormatInfo* info = codec::FindFormat(f);
      return info != nullptr && info->needs_schema;
    };
    const bool protobuf =
        descriptors(frame.input_format) || (op == 1 && descriptors(frame.output_format));
    (protobuf ? r.message_type : r.schema) = frame.message_type;
    r.payload = frame.payload;
    r.padding = padding;
    r.limits = limits_;
    r.options = options_;
    const heap::Counts read_allocations = std::exchange(read_allocations_, {});
    if (r.op == Op::kTranscode || r.op == Op::kValidate) {
      server_.pipeline_.Run(
          Transport::kTcp, scope, r,
          [&](const codec::Status& s, std::string_view output) {
            s.ok() ? Respond(0, id, output) : RespondError(s, id);
          },
          read_allocations);
      return;
    }
    // The connection's own operations, answered here.
    codec::ErrorCode outcome = codec::ErrorCode::kOk;
    size_t bytes_out = 0;
    std::string error;
    if (r.op == Op::kPing) {
      Respond(0, id, r.payload);
      bytes_out = r.payload.size();
    } else if (r.op == Op::kSetLimits) {
      codec::Limits lowered;
      if (ParseLimits(r.payload, &lowered, &error)) {
        limits_ = limits_.LowerTo(lowered);  // a connection can only lower its limits
      } else {
        outcome = codec::ErrorCode::kSchemaMismatch;
      }
    } else {
      outcome = ParseOptions(r.payload, &options_, &error);
    }
    if (r.op != Op::kPing) {
      if (outcome == codec::ErrorCode::kOk) {
        Respond(0, id, {});
      } else {
        RespondError(outcome, id, 0, error);
      }
    }
    server_.pipeline_.Record(Transport::kTcp, scope, r, outcome, bytes_out, read_allocations);
  }

  void Respond(uint8_t status, uint32_t id, std::string_view data) {
    last_answered_ = id;
    PutBe32(out_, static_cast<uint32_t>(6 + data.size()));
    out_.push_back(1);
    out_.push_back(static_cast<char>(status));
    PutBe32(out_, id);
    out_.append(data);
  }

  void RespondError(const codec::Status& s, uint32_t id) {
    Respond(static_cast<uint8_t>(s.code), id, s.ToString());
  }
  void RespondError(codec::ErrorCode code, uint32_t id, uint64_t offset, std::string message) {
    codec::Status s;
    s.code = code;
    s.offset = offset;
    s.message = std::move(message);
    RespondError(s, id);
  }

  void Flush() {
    if (writing_ || out_.empty() || state_ == State::kClosed) return;
    std::swap(out_, sending_);
    writing_ = true;
    stream_.Write(asio::buffer(sending_),
                  Pool([self = shared_from_this()](boost::system::error_code ec, size_t) {
                    self->OnWrite(ec);
                  }));
  }

  void OnWrite(boost::system::error_code ec) {
    writing_ = false;
    if (state_ == State::kClosed) return;
    if (ec) return Close();
    sending_.clear();
    if (sending_.capacity() > kKeptOutputBytes) std::string().swap(sending_);
    if (state_ == State::kAnsweringLast) {
      if (!out_.empty()) return Flush();
      return Linger();
    }
    ProcessFrames();  // resumes frames held back by backpressure, reading, or a drain
  }

  // The prefix claims more than this connection accepts: one error response (request id
  // 0), then close so that the client still receives it: shut down our sending side and
  // discard what still arrives for a bounded time, never reading the claimed bytes.
  void Oversized(uint64_t len, uint64_t max_frame) {
    server_.metrics_.Rejected(Transport::kTcp, Rejection::kFrameTooLarge);
    Enter(State::kAnsweringLast);
    RespondError(codec::ErrorCode::kInputTooLarge, 0, 0,
                 "frame of " + std::to_string(len) + " bytes passes this connection's maximum of " +
                     std::to_string(max_frame));
    frames_.Release();
    Flush();
  }

  void Linger() {
    boost::system::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    tls_have_ = tls_used_ = 0;  // TLS: what is read from now on is dropped
    Enter(State::kLingering);
    deadline_kind_ = Deadline::kLinger;
    deadline_ = Clock::now() + std::chrono::milliseconds(server_.config_.tcp_linger_ms);
    timer_.expires_at(deadline_);
    timer_armed_ = true;
    timer_.async_wait(
        Pool([self = shared_from_this()](boost::system::error_code e) { self->OnTimer(e); }));
    DoRead();
  }

  void Discard() {
    char sink[4096];
    boost::system::error_code ec;
    for (;;) {
      stream_.socket().read_some(asio::buffer(sink), ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) return DoRead();
      if (ec) return Close();  // eof: the client has our answer and closed
    }
  }

  // A started frame must complete within tcp_frame_timeout_ms (slow senders); otherwise
  // a connection must make progress within tcp_idle_timeout_ms.
  void UpdateDeadline() {
    if (state_ == State::kClosed || state_ == State::kLingering) return;
    if (deadline_kind_ == Deadline::kDrain) return;
    const auto now = Clock::now();
    if (frames_.HasPartial()) {
      if (deadline_kind_ != Deadline::kFrame) {
        deadline_kind_ = Deadline::kFrame;
        SetDeadline(now + std::chrono::milliseconds(server_.config_.tcp_frame_timeout_ms));
      }
    } else {
      deadline_kind_ = Deadline::kIdle;
      SetDeadline(now + std::chrono::milliseconds(server_.config_.tcp_idle_timeout_ms));
    }
  }

  // One timer per connection: moving a deadline later costs nothing (the wait is
  // re-armed when it fires); only an earlier deadline re-arms it now.
  void SetDeadline(Clock::time_point deadline) {
    const bool earlier = deadline < deadline_;
    deadline_ = deadline;
    if (timer_armed_ && !earlier) return;
    timer_.expires_at(deadline);
    timer_armed_ = true;
    timer_.async_wait(
        Pool([self = shared_from_this()](boost::system::error_code e) { self->OnTimer(e); }));
  }

  void OnTimer(boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted || state_ == State::kClosed)
      return;  // superseded by a newer wait
    timer_armed_ = false;
    if (Clock::now() < deadline_) {
      timer_.expires_at(deadline_);
      timer_armed_ = true;
      timer_.async_wait(
          Pool([self = shared_from_this()](boost::system::error_code e) { self->OnTimer(e); }));
      return;
    }
    if (deadline_kind_ == Deadline::kFrame || deadline_kind_ == Deadline::kIdle) {
      server_.metrics_.Rejected(Transport::kTcp, deadline_kind_ == Deadline::kFrame
                                                     ? Rejection::kFrameTimeout
                                                     : Rejection::kIdleTimeout);
    }
    Close();
  }

  static constexpr size_t kTlsReadBytes = 64 << 10;  // as the plaintext read-ahead
  ByteStream stream_;                                // the socket, or TLS over it
  asio::steady_timer timer_;
  TcpServer& server_;
  size_t worker_;
  codec::Limits limits_;
  codec::MappingOptions options_;  // op 5 sets them for the rest of the connection
  FrameReader frames_;
  std::string out_, sending_;  // responses waiting, responses being written
  Clock::time_point deadline_ = Clock::time_point::max();
  State state_ = State::kServing;
  // What the deadline is for: no progress (tcp_idle_timeout_ms), a started frame
  // (tcp_frame_timeout_ms), a drain (drain_timeout_ms), or the linger after a last answer
  // (tcp_linger_ms).
  enum class Deadline : uint8_t { kIdle, kFrame, kDrain, kLinger } deadline_kind_ = Deadline::kIdle;
  // Asynchronous operations outstanding (one of each at most).
  bool reading_ = false, writing_ = false, timer_armed_ = false;
  bool handshaken_ = false;  // plaintext, or the TLS handshake is done
  // Drain: bytes the socket held at the signal still to read, and whether reading is over.
  uint64_t drain_budget_ = 0;
  bool drain_input_done_ = false;
  uint32_t last_answered_ = 0;      // the request id of the last answer written
  heap::Counts read_allocations_;   // by reads since the last answered request
  AdmissionTicket admitted_;        // the current frame's claim
  std::unique_ptr<char[]> tls_in_;  // TLS: decrypted bytes not yet in the frame reader
  size_t tls_have_ = 0, tls_used_ = 0;
};

TcpServer::TcpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline,
                     IoPool& pool)
    : config_(config),
      metrics_(metrics),
      pipeline_(pipeline),
      pool_(pool),
      sessions_(pool, metrics, Transport::kTcp) {}

TcpServer::~TcpServer() { Stop(std::chrono::milliseconds(0)); }

int TcpServer::Start() {
  listener_ = std::make_unique<Listener>(
      pool_, metrics_, Transport::kTcp, [this](tcp::socket socket, size_t worker) {
        if (draining_) return;
        sessions_.Accept(std::move(socket), worker, config_.tcp_max_connections,
                         [this](tcp::socket s, size_t thread) {
                           std::make_shared<TcpSession>(std::move(s), *this, thread)->Start();
                         });
      });
  return listener_->Start(config_.tcp_listen);
}

void TcpServer::BeginDrain() {
  if (draining_.exchange(true) || !listener_) return;
  listener_->Close();
  sessions_.ForEach(&TcpSession::BeginDrain);
}

void TcpServer::Stop(std::chrono::milliseconds timeout) {
  if (stopped_ || !listener_) return;
  stopped_ = true;
  BeginDrain();
  const auto until = Clock::now() + timeout;
  while (sessions_.active() > 0 && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  sessions_.ForEach(&TcpSession::Close);
}

}  // namespace rosetta::service
