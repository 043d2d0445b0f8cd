// rosetta-load over the TCP protocol (DESIGN.md "TCP protocol"): N connections, each with
// K pipelined requests; responses come in request order.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>

#include <cstring>
#include <deque>
#include <thread>

#include "load/generator/load_run.h"
#include "rosetta/codec/status.h"

namespace rosetta::load {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

uint32_t Be32(const char* p) {
  auto* u = reinterpret_cast<const uint8_t*>(p);
  return uint32_t{u[0]} << 24 | uint32_t{u[1]} << 16 | uint32_t{u[2]} << 8 | u[3];
}
void SetBe32(char* p, uint32_t v) {
  p[0] = static_cast<char>(v >> 24);
  p[1] = static_cast<char>(v >> 16);
  p[2] = static_cast<char>(v >> 8);
  p[3] = static_cast<char>(v);
}

// The request frame once; only its request_id (bytes 6..9) changes per request.
std::string FrameTemplate(const LoadConfig& c) {
  const size_t body = 10 + c.message_type.size() + c.payload.size();
  std::string f(4 + 10, '\0');
  SetBe32(f.data(), static_cast<uint32_t>(body));
  f[4] = 1;                                      // version
  f[5] = c.op == Operation::kTranscode ? 1 : 2;  // op
  f[10] = static_cast<char>(c.from);
  f[11] = static_cast<char>(c.op == Operation::kTranscode ? c.to : c.from);
  f[12] = static_cast<char>(c.message_type.size() >> 8);
  f[13] = static_cast<char>(c.message_type.size());
  f += c.message_type;
  f += c.payload;
  return f;
}

std::string StatusName(uint8_t status) {
  if (status < codec::kErrorCodeCount)
    return std::string(codec::CodeName(static_cast<codec::ErrorCode>(status)));
  return "status_" + std::to_string(status);
}

class TcpConnection : public std::enable_shared_from_this<TcpConnection> {
 public:
  TcpConnection(asio::io_context& io, LoadState& state, ConnectionStats& stats, int index,
                const std::string& frame)
      : socket_(io),
        timer_(io),
        state_(state),
        config_(state.config),
        stats_(stats),
        index_(index),
        frame_(frame) {}

  tcp::socket& socket() { return socket_; }

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
    for (const Pending& p : pending_) stats_.RecordUnanswered(state_.window, p.intended, "timeout");
    for (Clock::time_point t : backlog_) stats_.RecordUnanswered(state_.window, t, "not_sent");
    Finish();
  }

 private:
  struct Pending {
    uint32_t id;
    Clock::time_point intended, sent;
  };

  void Send(Clock::time_point intended) {
    const uint32_t id = next_id_++;
    const size_t at = out_.size();
    out_ += frame_;
    SetBe32(out_.data() + at + 6, id);
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
      if (t >= state_.window.stop) {
        schedule_done_ = true;
        break;
      }
      if (t > now) {
        timer_.expires_at(t);
        timer_.async_wait(
            [self = shared_from_this()](boost::system::error_code e) { self->OnTimer(e); });
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

  void Flush() {
    if (writing_ || out_.empty() || closed_) return;
    std::swap(out_, sending_);
    writing_ = true;
    asio::async_write(socket_, asio::buffer(sending_),
                      [self = shared_from_this()](boost::system::error_code ec, size_t) {
                        self->writing_ = false;
                        if (ec) return self->Lost("write: " + ec.message());
                        self->sending_.clear();
                        self->Flush();
                      });
  }

  void DoRead() {
    if (closed_) return;
    if (in_.size() - in_len_ < 4096) in_.resize(std::max<size_t>(in_.size() * 2, 64 << 10));
    socket_.async_read_some(asio::buffer(in_.data() + in_len_, in_.size() - in_len_),
                            [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                              self->OnRead(ec, n);
                            });
  }

  void OnRead(boost::system::error_code ec, size_t n) {
    if (closed_) return;
    if (ec) return Lost(ec == asio::error::eof ? "closed by the server" : "read: " + ec.message());
    in_len_ += n;
    size_t at = 0;
    while (in_len_ - at >= 4) {
      const size_t len = Be32(in_.data() + at);
      if (len < 6) return Lost("protocol: response frame of " + std::to_string(len) + " bytes");
      if (in_len_ - at < 4 + len) {
        if (in_.size() < 4 + len)
          in_.resize(4 + len + (64 << 10));  // room for the rest of this frame
        break;
      }
      const char* body = in_.data() + at + 4;
      at += 4 + len;
      if (OnResponse(static_cast<uint8_t>(body[1]), Be32(body + 2),
                     std::string_view(body + 6, len - 6)))
        return;
    }
    std::memmove(in_.data(), in_.data() + at, in_len_ - at);
    in_len_ -= at;
    if (MaybeFinish()) return;
    DoRead();
  }

  // True when the connection ended.
  bool OnResponse(uint8_t status, uint32_t id, std::string_view data) {
    const Clock::time_point done = Clock::now();
    if (pending_.empty() || pending_.front().id != id) {
      // An answer out of order, or the server's request-id-0 refusal before it closes.
      if (!pending_.empty()) {
        stats_.Record(state_.window, pending_.front().intended, pending_.front().sent, done,
                      status ? StatusName(status) : "protocol");
        pending_.pop_front();
        state_.in_flight.fetch_sub(1);
      }
      Lost(status ? std::string(data)
                  : "protocol: answer to request " + std::to_string(id) + " out of order");
      return true;
    }
    const Pending p = pending_.front();
    pending_.pop_front();
    stats_.Record(state_.window, p.intended, p.sent, done,
                  status ? StatusName(status) : std::string());
    if (config_.mode == Mode::kClosed) {
      if (done < state_.window.stop) Send(done);
    } else if (!backlog_.empty()) {
      const Clock::time_point t = backlog_.front();
      backlog_.pop_front();
      state_.backlog.fetch_sub(1);
      Send(t);
    }
    state_.in_flight.fetch_sub(1);
    return false;
  }

  bool MaybeFinish() {
    const bool sending_done =
        config_.mode == Mode::kClosed ? Clock::now() >= state_.window.stop : schedule_done_;
    if (!sending_done || !pending_.empty() || !backlog_.empty()) return false;
    Finish();
    return true;
  }

  // The connection broke: what was sent or due on it is lost.
  void Lost(const std::string& why) {
    if (closed_) return;
    state_.ConnectionLost(why);
    for (const Pending& p : pending_)
      stats_.RecordUnanswered(state_.window, p.intended, "connection_lost");
    for (Clock::time_point t : backlog_)
      stats_.RecordUnanswered(state_.window, t, "connection_lost");
    Finish();
  }

  void Finish() {
    if (closed_) return;
    closed_ = true;
    state_.in_flight.fetch_sub(static_cast<int64_t>(pending_.size()));
    state_.backlog.fetch_sub(static_cast<int64_t>(backlog_.size()));
    pending_.clear();
    backlog_.clear();
    boost::system::error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  LoadState& state_;
  const LoadConfig& config_;
  ConnectionStats& stats_;
  const int index_;
  const std::string& frame_;
  uint32_t next_id_ = 1;
  uint64_t next_j_ = 0;
  std::deque<Pending> pending_;
  std::deque<Clock::time_point> backlog_;
  std::string out_, sending_;
  std::vector<char> in_;
  size_t in_len_ = 0;
  bool writing_ = false, closed_ = false, schedule_done_ = false;
};

}  // namespace

bool RunTcpLoad(LoadState& state, std::string* error) {
  const LoadConfig& config = state.config;
  const std::string frame = FrameTemplate(config);
  const int threads = std::max(1, std::min(config.io_threads, config.connections));
  std::vector<std::unique_ptr<asio::io_context>> ios;
  for (int i = 0; i < threads; ++i) ios.push_back(std::make_unique<asio::io_context>(1));

  boost::system::error_code ec;
  tcp::resolver resolver(*ios[0]);
  auto endpoints = resolver.resolve(config.host, config.port, ec);
  if (ec) {
    *error = "cannot resolve " + config.host + ": " + ec.message();
    return false;
  }
  std::vector<std::shared_ptr<TcpConnection>> connections;
  for (int i = 0; i < config.connections; ++i) {
    auto c =
        std::make_shared<TcpConnection>(*ios[i % threads], state, *state.connections[i], i, frame);
    asio::connect(c->socket(), endpoints, ec);
    if (!ec) c->socket().set_option(tcp::no_delay(true), ec);
    if (ec) {
      *error =
          "cannot connect to " + config.host + ":" + config.port + " over TCP: " + ec.message();
      return false;
    }
    connections.push_back(std::move(c));
  }

  state.Begin();
  for (int i = 0; i < config.connections; ++i) {
    asio::post(*ios[i % threads], [c = connections[i]] { c->Start(); });
  }
  std::vector<std::thread> runners;
  for (auto& io : ios) runners.emplace_back([io = io.get()] { io->run(); });

  std::this_thread::sleep_until(state.window.stop);
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

}  // namespace rosetta::load
