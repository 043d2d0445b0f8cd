#pragma once

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "load/generator/latency_histogram.h"
#include "rosetta/codec/format.h"

namespace rosetta::load {

using Clock = std::chrono::steady_clock;

enum class Transport { kGrpc, kTcp, kHttp };
enum class Mode { kClosed, kOpen };
enum class Operation { kTranscode, kValidate };

// --tls*: the client side of TLS, for every transport.
struct TlsConfig {
  bool enabled = false;
  std::string ca_file;      // verify the server against these CAs; empty: no verification
  std::string cert_file;    // client certificate (chain), for mutual TLS
  std::string key_file;     // its private key
  std::string server_name;  // SNI and the name verified; empty: the address's host
};

struct LoadConfig {
  Transport transport = Transport::kGrpc;
  std::string host = "127.0.0.1";  // the first address: its name is TLS's server name
  std::string port = "50051";
  // Every --address (HOST, PORT): connections spread over all they resolve to.
  std::vector<std::pair<std::string, std::string>> addresses;
  int connections = 1;
  int inflight = 1;  // requests in flight per connection
  Mode mode = Mode::kClosed;
  double rate = 0;  // open loop: requests per second, all connections together
  double duration_s = 10;
  double warmup_s = 1;
  double drain_s = 5;  // after the end: how long answers to requests already sent are awaited
  int io_threads = 1;  // TCP and HTTP: Asio threads
  int grpc_max_attempts = 5;  // gRPC: attempts of a call that fails UNAVAILABLE (1: no retry)
  TlsConfig tls;
  Operation op = Operation::kTranscode;
  codec::Format from = codec::Format::kJson;
  codec::Format to = codec::Format::kCbor;
  std::string message_type;
  std::string payload;
};

// The phases of a run: warm-up from start, measurement from measure_from to stop. A
// request is measured when its intended send time falls in [measure_from, stop); what it
// waited before being sent (open loop, all slots busy) is part of its latency.
struct RunWindow {
  Clock::time_point start, measure_from, stop;
  bool Measured(Clock::time_point intended) const {
    return intended >= measure_from && intended < stop;
  }
};

// Open loop: request j (over all connections, j % N is the connection) is due at
// start + j / rate. A fixed schedule, so a slow answer never delays the next send.
inline Clock::time_point IntendedTime(const RunWindow& w, double rate, uint64_t j) {
  return w.start + std::chrono::nanoseconds(
                       static_cast<int64_t>(std::llround(static_cast<double>(j) * 1e9 / rate)));
}

// What one connection saw. Recorded from whatever thread completes a request (gRPC
// callbacks run on the library's threads), so it is locked; one lock per connection is
// uncontended in practice.
class ConnectionStats {
 public:
  void Record(const RunWindow& w, Clock::time_point intended, Clock::time_point sent,
              Clock::time_point done, std::string_view error_code) {
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(done - intended).count());
    const bool measured = w.Measured(intended);
    std::lock_guard<std::mutex> lock(mu_);
    ++completed_;
    interval_.Record(ns);
    if (error_code.empty()) {
      ++interval_ok_;
    } else {
      ++interval_errors_;
    }
    if (!measured) return;
    if (error_code.empty()) {
      ++ok_;
      latency_.Record(ns);
    } else {
      ++errors_[std::string(error_code)];
    }
    if (sent > intended) {
      send_lag_.Record(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(sent - intended).count()));
    } else {
      send_lag_.Record(0);
    }
  }

  // A measured request that never got an answer (drain timeout, connection lost).
  void RecordUnanswered(const RunWindow& w, Clock::time_point intended, std::string_view code) {
    if (!w.Measured(intended)) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++errors_[std::string(code)];
  }

  struct Interval {
    uint64_t ok = 0, errors = 0;
    LatencyHistogram latency;
  };
  // Adds what happened since the last call to *out, and starts a new interval.
  void TakeInterval(Interval* out) {
    std::lock_guard<std::mutex> lock(mu_);
    out->ok += interval_ok_;
    out->errors += interval_errors_;
    out->latency.Merge(interval_);
    interval_ok_ = interval_errors_ = 0;
    interval_.Reset();
  }

  struct Totals {
    uint64_t ok = 0;
    uint64_t completed = 0;  // every answer, warm-up and drain included
    std::map<std::string, uint64_t> errors;
    LatencyHistogram latency;   // of successful measured requests
    LatencyHistogram send_lag;  // sent - intended, every measured request
  };
  void AddTotals(Totals* out) {
    std::lock_guard<std::mutex> lock(mu_);
    out->ok += ok_;
    out->completed += completed_;
    for (const auto& [code, n] : errors_) out->errors[code] += n;
    out->latency.Merge(latency_);
    out->send_lag.Merge(send_lag_);
  }

 private:
  std::mutex mu_;
  LatencyHistogram latency_, interval_, send_lag_;
  uint64_t ok_ = 0, completed_ = 0, interval_ok_ = 0, interval_errors_ = 0;
  std::map<std::string, uint64_t> errors_;
};

// Shared between a transport's driver (which sets the window once connected) and the
// progress printer.
struct LoadState {
  explicit LoadState(const LoadConfig& c) : config(c) {
    for (int i = 0; i < c.connections; ++i)
      connections.push_back(std::make_unique<ConnectionStats>());
  }
  void Begin() {
    const Clock::time_point now = Clock::now();
    window.start = now;
    window.measure_from =
        now + std::chrono::nanoseconds(static_cast<int64_t>(config.warmup_s * 1e9));
    window.stop = window.measure_from +
                  std::chrono::nanoseconds(static_cast<int64_t>(config.duration_s * 1e9));
    started.store(true, std::memory_order_release);
  }
  // SIGTERM or SIGINT (rosetta_load.cc): sending ends now, as at the end of --duration.
  void RequestStop() {
    int64_t expected = 0;
    const int64_t now = Clock::now().time_since_epoch().count();
    stopped_at.compare_exchange_strong(expected, now);
  }
  bool Stopped() const { return stopped_at.load(std::memory_order_relaxed) != 0; }
  // When sending ended or ends: the end of the window, or the moment a stop was asked.
  Clock::time_point End() const {
    const int64_t at = stopped_at.load();
    if (at == 0) return window.stop;
    return std::min(window.stop, Clock::time_point(Clock::duration(at)));
  }
  // Sleeps until End().
  void WaitForEnd() const {
    while (!Stopped() && Clock::now() < window.stop)
      std::this_thread::sleep_for(
          std::min<Clock::duration>(std::chrono::milliseconds(20), window.stop - Clock::now()));
  }
  Clock::time_point DrainDeadline() const {
    return End() + std::chrono::nanoseconds(static_cast<int64_t>(config.drain_s * 1e9));
  }

  // A connection that broke or was closed by the server (TCP, HTTP): counted, the first
  // reason kept.
  void ConnectionLost(const std::string& why) {
    std::lock_guard<std::mutex> lock(lost_mu);
    if (connections_lost++ == 0) lost_reason = why;
  }

  const LoadConfig config;
  RunWindow window;
  std::mutex lost_mu;
  int connections_lost = 0;
  std::string lost_reason;
  std::atomic<bool> started{false};
  std::atomic<int64_t> in_flight{0};
  std::atomic<int64_t> backlog{0};     // open loop: due but not yet sent (all slots busy)
  std::atomic<int64_t> stopped_at{0};  // Clock ticks of RequestStop; 0: not asked
  // TCP: connections moved after a going-away answer, and requests sent again there.
  std::atomic<uint64_t> reconnects{0}, resent{0};
  std::vector<std::unique_ptr<ConnectionStats>> connections;
};

// Each connects config.connections connections, runs the window (Begin() once connected),
// waits for answers until the drain deadline, and returns. False with *error when the
// connections cannot be made.
bool RunGrpcLoad(LoadState& state, std::string* error);
bool RunTcpLoad(LoadState& state, std::string* error);
bool RunHttpLoad(LoadState& state, std::string* error);

}  // namespace rosetta::load
