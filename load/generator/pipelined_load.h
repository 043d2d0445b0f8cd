// The stream transports of rosetta-load: N connections, plain TCP or TLS, each keeping K
// requests pipelined; answers come in request order. A Protocol makes the request bytes and
// parses the answers: TcpFrames (tcp_load.cc) and HttpExchange (http_load.cc).
//
// A Protocol has
//   static constexpr bool kNumbered;              answers carry the request's id (checked)
//   static constexpr const char* kName;           "TCP", for messages
//   static constexpr std::string_view kAlpn;      offered over TLS ("": no ALPN)
//   explicit Protocol(const LoadConfig&);         the request bytes, made once per connection
//   void AppendRequest(std::string* out, uint32_t id) const;
//   ParseResult Parse(const char* data, size_t size, Response* r, std::string* bad) const;
//   std::string ErrorCode(const Response& r) const;   of an answer that is not ok
//   static bool GoingAway(const Response& r);      the server drains: r.id was the last request
//                                                  it answered, the rest go to a new connection
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "load/generator/load_run.h"
#include "load/generator/tls_client.h"

namespace rosetta::load {

// One answer at the front of what was read.
struct Response {
  size_t size = 0;  // its bytes; when more are needed, how many (0: not known yet)
  uint32_t id = 0;  // the request it answers (kNumbered protocols)
  int status = 0;   // the protocol's status (TCP: the error code number; HTTP: the status code)
  bool ok = false;
  bool close = false;     // the server closes the connection after it
  std::string_view body;  // TCP: the output or the error message; HTTP: the body
};

enum class ParseResult { kNeedMore, kWhole, kBad };

// The requests in flight on one connection, oldest first. Never more than K, so a ring of K
// slots: nothing is allocated per request.
struct Pending {
  uint32_t id;
  Clock::time_point intended, sent;
};
class PendingRing {
 public:
  explicit PendingRing(size_t capacity) : slots_(capacity) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const Pending& front() const { return slots_[head_]; }
  void push_back(const Pending& p) {
    size_t at = head_ + size_;
    if (at >= slots_.size()) at -= slots_.size();
    slots_[at] = p;
    ++size_;
  }
  void pop_front() {
    if (++head_ == slots_.size()) head_ = 0;
    --size_;
  }
  void clear() { head_ = size_ = 0; }
  template <class F>
  void ForEach(F f) const {
    for (size_t i = 0, at = head_; i < size_; ++i, at = at + 1 == slots_.size() ? 0 : at + 1)
      f(slots_[at]);
  }

 private:
  std::vector<Pending> slots_;
  size_t head_ = 0, size_ = 0;
};

// Memory for the handler of one operation in flight (Asio's custom allocation example). A
// connection keeps a read and a write in flight, and a timer wait in the open loop; Asio's
// per-thread cache keeps fewer blocks than a thread running two connections needs, so
// without these most reads and writes cost a malloc (measured: 0.2 per request).
class HandlerMemory {
 public:
  void* Allocate(size_t size) {
    if (!in_use_ && size <= sizeof(storage_)) {
      in_use_ = true;
      return storage_;
    }
    return ::operator new(size);
  }
  void Deallocate(void* p) {
    if (p == storage_) {
      in_use_ = false;
    } else {
      ::operator delete(p);
    }
  }

 private:
  alignas(std::max_align_t) unsigned char storage_[1024];
  bool in_use_ = false;
};

template <class T>
struct HandlerAllocator {
  using value_type = T;
  explicit HandlerAllocator(HandlerMemory* m) : memory(m) {}
  template <class U>
  HandlerAllocator(const HandlerAllocator<U>& other) : memory(other.memory) {}
  T* allocate(size_t n) { return static_cast<T*>(memory->Allocate(sizeof(T) * n)); }
  void deallocate(T* p, size_t) { memory->Deallocate(p); }
  template <class U>
  bool operator==(const HandlerAllocator<U>& other) const {
    return memory == other.memory;
  }
  HandlerMemory* memory;
};

// A handler whose operation is allocated in `memory` (Asio finds allocator_type).
template <class Handler>
struct WithMemory {
  using allocator_type = HandlerAllocator<Handler>;
  allocator_type get_allocator() const { return allocator_type(memory); }
  template <class... Args>
  void operator()(Args&&... args) {
    handler(std::forward<Args>(args)...);
  }
  HandlerMemory* memory;
  Handler handler;
};
template <class Handler>
WithMemory<std::decay_t<Handler>> InMemory(HandlerMemory& memory, Handler&& handler) {
  return {&memory, std::forward<Handler>(handler)};
}

// Every address of config.addresses (HOST:PORT each; a name may stand for several, as a
// headless Service's does), resolved now. Empty with *error when none resolves.
inline std::vector<boost::asio::ip::tcp::endpoint> ResolveAddresses(const LoadConfig& config,
                                                                    std::string* error) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  std::vector<asio::ip::tcp::endpoint> out;
  for (const auto& [host, port] : config.addresses) {
    boost::system::error_code ec;
    auto results = resolver.resolve(host, port, ec);
    if (ec) {
      *error = "cannot resolve " + host + ": " + ec.message();
      continue;
    }
    for (const auto& r : results) out.push_back(r.endpoint());
  }
  return out;
}

template <class Protocol, class Stream>
class PipelinedConnection
    : public std::enable_shared_from_this<PipelinedConnection<Protocol, Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, boost::asio::ip::tcp::socket>;
  using tcp = boost::asio::ip::tcp;

 public:
  // `tls`: the context of every stream of this connection (TLS only).
  PipelinedConnection(LoadState& state, ConnectionStats& stats, int index,
                      boost::asio::io_context& io, boost::asio::ssl::context* tls)
      : io_(io),
        tls_(tls),
        stream_(NewStream()),
        timer_(io),
        retry_timer_(io),
        state_(state),
        config_(state.config),
        stats_(stats),
        index_(index),
        protocol_(state.config),
        pending_(static_cast<size_t>(state.config.inflight)) {}

  // Before the run: the TCP connection, to the endpoints from this connection's share on
  // (connection i starts at endpoint i, so N connections spread over the addresses as a
  // client balancing over a headless Service does), then for TLS the handshake (within
  // 10 s), on `io`, which nothing else runs yet. False with *error.
  bool Connect(boost::asio::io_context& io, const std::vector<tcp::endpoint>& endpoints,
               std::string* error) {
    namespace asio = boost::asio;
    boost::system::error_code ec = asio::error::host_not_found;
    for (size_t i = 0; i < endpoints.size() && ec; ++i) {
      stream_->lowest_layer().close(ec);
      stream_->lowest_layer().connect(endpoints[(index_ + i) % endpoints.size()], ec);
    }
    if (!ec) stream_->lowest_layer().set_option(asio::ip::tcp::no_delay(true), ec);
    if (ec) {
      *error = "cannot connect to " + Where() + " over " + Protocol::kName + ": " + ec.message();
      return false;
    }
    if constexpr (kTls) {
      if (!PrepareTlsClient(stream_->native_handle(), config_.tls, config_.host, error))
        return false;
      boost::system::error_code handshake = asio::error::would_block;
      bool timed_out = false;
      stream_->async_handshake(asio::ssl::stream_base::client, [&](boost::system::error_code e) {
        handshake = e;
        timer_.cancel();
      });
      timer_.expires_after(std::chrono::seconds(10));
      timer_.async_wait([&](boost::system::error_code e) {
        if (e || handshake != asio::error::would_block) return;
        timed_out = true;
        stream_->lowest_layer().close(e);
      });
      io.restart();
      io.run();
      io.restart();
      if (timed_out || handshake) {
        *error = "TLS handshake with " + Where() + " failed: " +
                 (timed_out ? "no answer within 10 s"
                            : TlsHandshakeError(stream_->native_handle(), config_.tls, handshake));
        return false;
      }
    }
    return true;
  }

  void Start() {
    if (config_.mode == Mode::kClosed) {
      for (int i = 0; i < config_.inflight; ++i) Send(Clock::now());
    } else {
      next_j_ = static_cast<uint64_t>(index_);
      OnTimer({});
    }
    DoRead();
  }

  // After the drain deadline: whatever is still waiting counts as unanswered.
  void Abandon() {
    pending_.ForEach(
        [&](const Pending& p) { stats_.RecordUnanswered(state_.window, p.intended, "timeout"); });
    for (Clock::time_point t : backlog_) stats_.RecordUnanswered(state_.window, t, "not_sent");
    Finish();
  }

 private:
  std::string Where() const { return config_.host + ":" + config_.port; }

  std::unique_ptr<Stream> NewStream() {
    if constexpr (kTls) {
      return std::make_unique<Stream>(io_, *tls_);
    } else {
      return std::make_unique<Stream>(io_);
    }
  }

  void Send(Clock::time_point intended) {
    const uint32_t id = next_id_++;
    protocol_.AppendRequest(&out_, id);
    pending_.push_back({id, intended, Clock::now()});
    state_.in_flight.fetch_add(1);
    Flush();
  }

  // Open loop: sends what is due on this connection's share of the schedule (request j
  // of all connections is this one's when j % N == index), then waits for the next.
  void OnTimer(boost::system::error_code ec) {
    if (ec || closed_) return;
    const Clock::time_point now = Clock::now();
    const uint64_t n = static_cast<uint64_t>(config_.connections);
    for (;;) {
      const Clock::time_point t = IntendedTime(state_.window, config_.rate, next_j_);
      if (t >= state_.window.stop || state_.Stopped()) {
        schedule_done_ = true;
        break;
      }
      if (t > now) {
        timer_.expires_at(t);
        timer_.async_wait(InMemory(
            timer_memory_,
            [self = this->shared_from_this()](boost::system::error_code e) { self->OnTimer(e); }));
        break;
      }
      next_j_ += n;
      if (pending_.size() < static_cast<size_t>(config_.inflight)) {
        Send(t);
      } else {
        backlog_.push_back(t);
        state_.backlog.fetch_add(1);
      }
    }
    MaybeFinish();
  }

  // Handlers of a stream that went away (a drain's going-away) find a newer generation
  // and do nothing.
  void Flush() {
    if (writing_ || out_.empty() || closed_ || connecting_) return;
    std::swap(out_, sending_);
    writing_ = true;
    boost::asio::async_write(
        *stream_, boost::asio::buffer(sending_),
        InMemory(write_memory_, [self = this->shared_from_this(), gen = generation_](
                                    boost::system::error_code ec, size_t) {
          if (gen != self->generation_) return;
          self->writing_ = false;
          if (ec) return self->Lost("write: " + ec.message());
          self->sending_.clear();
          self->Flush();
        }));
  }

  void DoRead() {
    if (closed_ || connecting_) return;
    if (in_.size() - in_len_ < 4096) in_.resize(std::max<size_t>(in_.size() * 2, 64 << 10));
    stream_->async_read_some(
        boost::asio::buffer(in_.data() + in_len_, in_.size() - in_len_),
        InMemory(read_memory_, [self = this->shared_from_this(), gen = generation_](
                                   boost::system::error_code ec, size_t n) {
          if (gen != self->generation_) return;
          self->OnRead(ec, n);
        }));
  }

  void OnRead(boost::system::error_code ec, size_t n) {
    if (closed_) return;
    if (ec) {
      // A TLS peer that closes without close_notify ends the stream "truncated".
      const bool closed =
          ec == boost::asio::error::eof || ec == boost::asio::ssl::error::stream_truncated;
      return Lost(closed ? "closed by the server" : "read: " + ec.message());
    }
    in_len_ += n;
    size_t at = 0;
    for (;;) {
      Response r;
      const ParseResult parsed = protocol_.Parse(in_.data() + at, in_len_ - at, &r, &bad_);
      if (parsed == ParseResult::kBad) return Lost("protocol: " + bad_);
      if (parsed == ParseResult::kNeedMore) {
        // Room for the rest of this answer, at most 4x what the buffer holds: a declared
        // length is not trusted with memory that the bytes received do not back.
        if (r.size > in_.size()) in_.resize(std::min(r.size, in_.size() * 4) + (64 << 10));
        break;
      }
      at += r.size;
      if (Protocol::GoingAway(r)) return GoneAway(r);
      if (OnResponse(r)) return;
    }
    std::memmove(in_.data(), in_.data() + at, in_len_ - at);
    in_len_ -= at;
    if (MaybeFinish()) return;
    DoRead();
  }

  // True when the connection ended.
  bool OnResponse(const Response& r) {
    const Clock::time_point done = Clock::now();
    if (pending_.empty() || (Protocol::kNumbered && pending_.front().id != r.id)) {
      // An answer out of order, or the server's refusal before it closes (TCP: request id 0).
      if (!pending_.empty()) {
        stats_.Record(state_.window, pending_.front().intended, pending_.front().sent, done,
                      r.ok ? "protocol" : protocol_.ErrorCode(r));
        pending_.pop_front();
        state_.in_flight.fetch_sub(1);
      }
      Lost(!r.ok ? std::string(r.body)
           : Protocol::kNumbered
               ? "protocol: answer to request " + std::to_string(r.id) + " out of order"
               : std::string("protocol: an answer to no request"));
      return true;
    }
    const Pending p = pending_.front();
    pending_.pop_front();
    last_answered_ = p.id;
    stats_.Record(state_.window, p.intended, p.sent, done,
                  r.ok ? std::string() : protocol_.ErrorCode(r));
    if (r.close) {
      state_.in_flight.fetch_sub(1);
      if (!MaybeFinish())
        Lost("closed by the server after an answer (" + (r.ok ? "ok" : protocol_.ErrorCode(r)) +
             ")");
      return true;
    }
    if (config_.mode == Mode::kClosed) {
      if (done < state_.window.stop && !state_.Stopped()) Send(done);
    } else if (!backlog_.empty()) {
      const Clock::time_point t = backlog_.front();
      backlog_.pop_front();
      state_.backlog.fetch_sub(1);
      Send(t);
    }
    state_.in_flight.fetch_sub(1);
    return false;
  }

  // The server drains (TCP status going_away): it answered up to request r.id and read
  // nothing after it. What is pending goes again, in order, on a new connection (the
  // requests are idempotent); their latency runs on from their first send.
  void GoneAway(const Response& r) {
    if (Protocol::kNumbered && r.id != last_answered_) {
      return Lost("protocol: going-away names request " + std::to_string(r.id) +
                  " as the last answered, but that was " + std::to_string(last_answered_));
    }
    state_.reconnects.fetch_add(1);
    state_.resent.fetch_add(pending_.size());
    Retire();
    if (MaybeFinish()) return;
    Reconnect(0);
  }

  // The stream is closed and kept until its handlers have run (they see a newer generation).
  void Retire() {
    ++generation_;
    boost::system::error_code ignored;
    stream_->lowest_layer().close(ignored);
    retired_.push_back(std::move(stream_));
    stream_ = NewStream();
    writing_ = false;
    connecting_ = true;
    out_.clear();
    sending_.clear();
    in_len_ = 0;
  }

  // A new connection: the addresses resolved again (a restarted replica has a new one),
  // tried from this connection's next share on; a failure waits (50 ms, doubling up to
  // 1 s) and tries again until the drain deadline.
  void Reconnect(int attempt) {
    if (closed_) return;
    if (state_.Stopped() && Clock::now() > state_.DrainDeadline())
      return Lost("reconnect: no server within the drain time");
    std::string error;
    std::vector<tcp::endpoint> endpoints = ResolveAddresses(config_, &error);
    if (endpoints.empty()) return RetryConnect(attempt, error);
    std::rotate(endpoints.begin(),
                endpoints.begin() + (index_ + state_.reconnects.load()) % endpoints.size(),
                endpoints.end());
    boost::asio::async_connect(
        stream_->lowest_layer(), endpoints,
        [self = this->shared_from_this(), gen = generation_, attempt](boost::system::error_code ec,
                                                                      const tcp::endpoint&) {
          if (gen != self->generation_ || self->closed_) return;
          if (ec) return self->RetryConnect(attempt, ec.message());
          self->stream_->lowest_layer().set_option(tcp::no_delay(true), ec);
          if constexpr (kTls) {
            std::string error;
            if (!PrepareTlsClient(self->stream_->native_handle(), self->config_.tls,
                                  self->config_.host, &error))
              return self->Lost(error);
            self->stream_->async_handshake(
                boost::asio::ssl::stream_base::client,
                [self, gen, attempt](boost::system::error_code e) {
                  if (gen != self->generation_ || self->closed_) return;
                  if (e) {
                    return self->RetryConnect(
                        attempt,
                        TlsHandshakeError(self->stream_->native_handle(), self->config_.tls, e));
                  }
                  self->Reconnected();
                });
          } else {
            self->Reconnected();
          }
        });
  }

  void RetryConnect(int attempt, const std::string& why) {
    last_connect_error_ = why;
    if (Clock::now() > state_.DrainDeadline() && state_.Stopped()) return Lost("reconnect: " + why);
    ++generation_;  // the stream may hold a failed attempt: start from a new one
    retired_.push_back(std::move(stream_));
    stream_ = NewStream();
    retry_timer_.expires_after(
        std::chrono::milliseconds(std::min(1000, 50 << std::min(attempt, 5))));
    retry_timer_.async_wait(
        [self = this->shared_from_this(), attempt](boost::system::error_code e) {
          if (!e) self->Reconnect(attempt + 1);
        });
  }

  void Reconnected() {
    connecting_ = false;
    out_.clear();
    pending_.ForEach([&](const Pending& p) { protocol_.AppendRequest(&out_, p.id); });
    Flush();
    DoRead();
  }

  bool MaybeFinish() {
    const bool sending_done = config_.mode == Mode::kClosed
                                  ? Clock::now() >= state_.window.stop || state_.Stopped()
                                  : schedule_done_;
    if (!sending_done || !pending_.empty() || !backlog_.empty()) return false;
    Finish();
    return true;
  }

  // The connection broke: what was sent or due on it is lost.
  void Lost(const std::string& why) {
    if (closed_) return;
    state_.ConnectionLost(why);
    pending_.ForEach([&](const Pending& p) {
      stats_.RecordUnanswered(state_.window, p.intended, "connection_lost");
    });
    for (Clock::time_point t : backlog_)
      stats_.RecordUnanswered(state_.window, t, "connection_lost");
    Finish();
  }

  // No TLS close_notify: the run is over, and the server treats a closed socket the same.
  void Finish() {
    if (closed_) return;
    closed_ = true;
    state_.in_flight.fetch_sub(static_cast<int64_t>(pending_.size()));
    state_.backlog.fetch_sub(static_cast<int64_t>(backlog_.size()));
    pending_.clear();
    backlog_.clear();
    boost::system::error_code ignored;
    timer_.cancel();
    retry_timer_.cancel();
    stream_->lowest_layer().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    stream_->lowest_layer().close(ignored);
  }

  HandlerMemory read_memory_, write_memory_, timer_memory_;  // before the streams: outlive them
  boost::asio::io_context& io_;
  boost::asio::ssl::context* tls_;
  std::vector<std::unique_ptr<Stream>> retired_;  // streams gone away, kept for their handlers
  std::unique_ptr<Stream> stream_;
  boost::asio::steady_timer timer_, retry_timer_;
  LoadState& state_;
  const LoadConfig& config_;
  ConnectionStats& stats_;
  const int index_;
  const Protocol protocol_;
  uint32_t next_id_ = 1;
  uint32_t last_answered_ = 0;
  uint64_t next_j_ = 0;
  uint64_t generation_ = 0;
  PendingRing pending_;
  std::deque<Clock::time_point> backlog_;
  std::string out_, sending_, bad_, last_connect_error_;
  std::vector<char> in_;
  size_t in_len_ = 0;
  bool writing_ = false, closed_ = false, schedule_done_ = false, connecting_ = false;
};

template <class Protocol, class Stream>
bool RunPipelinedConnections(LoadState& state, boost::asio::ssl::context* tls, std::string* error) {
  namespace asio = boost::asio;
  using Connection = PipelinedConnection<Protocol, Stream>;
  const LoadConfig& config = state.config;
  const int threads = std::max(1, std::min(config.io_threads, config.connections));
  std::vector<std::unique_ptr<asio::io_context>> ios;
  for (int i = 0; i < threads; ++i) ios.push_back(std::make_unique<asio::io_context>(1));

  const std::vector<asio::ip::tcp::endpoint> endpoints = ResolveAddresses(config, error);
  if (endpoints.empty()) return false;
  std::vector<std::shared_ptr<Connection>> connections;
  for (int i = 0; i < config.connections; ++i) {
    asio::io_context& io = *ios[i % threads];
    auto c = std::make_shared<Connection>(state, *state.connections[i], i, io, tls);
    if (!c->Connect(io, endpoints, error)) return false;
    connections.push_back(std::move(c));
  }

  state.Begin();
  for (int i = 0; i < config.connections; ++i) {
    asio::post(*ios[i % threads], [c = connections[i]] { c->Start(); });
  }
  std::vector<std::thread> runners;
  for (auto& io : ios) runners.emplace_back([io = io.get()] { io->run(); });

  state.WaitForEnd();
  const Clock::time_point drain = state.DrainDeadline();
  while ((state.in_flight.load() > 0 || state.backlog.load() > 0) && Clock::now() < drain) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int i = 0; i < config.connections; ++i) {
    asio::post(*ios[i % threads], [c = connections[i]] { c->Abandon(); });
  }
  for (auto& t : runners) t.join();  // each io_context returns once its connections are closed
  return true;
}

// Connects config.connections connections (with TLS when config.tls.enabled, the handshake
// before the run) and runs them: RunTcpLoad and RunHttpLoad.
template <class Protocol>
bool RunPipelinedLoad(LoadState& state, std::string* error) {
  if (!state.config.tls.enabled)
    return RunPipelinedConnections<Protocol, boost::asio::ip::tcp::socket>(state, nullptr, error);
  const std::unique_ptr<boost::asio::ssl::context> tls =
      MakeTlsContext(state.config.tls, Protocol::kAlpn, error);
  if (!tls) return false;
  return RunPipelinedConnections<Protocol, boost::asio::ssl::stream<boost::asio::ip::tcp::socket>>(
      state, tls.get(), error);
}

}  // namespace rosetta::load
