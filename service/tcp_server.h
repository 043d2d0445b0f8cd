#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <unordered_set>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without it
#include <vector>

#include <boost/asio.hpp>

#include "service/config.h"
#include "service/io_pool.h"
#include "service/listener.h"
#include "service/metrics.h"
#include "service/pipeline.h"
#include "service/tls.h"

namespace rosetta::service {

class TcpSession;

// The plain TCP front-end (DESIGN.md "TCP protocol", docs/tcp-protocol.md) on Boost.Asio,
// on the shared I/O threads (io_pool.h): each connection is owned by one of them, so a
// session's handlers never run concurrently and need no locks.
class TcpServer {
 public:
  TcpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline, IoPool& pool);
  ~TcpServer();

  // Binds config.tcp_listen; returns the bound port, or -1.
  // TLS on this listener's connections (null: plaintext). Before Start.
  void SetTls(Tls* tls) { tls_ = tls; }
  int Start();
  // Stops accepting; each connection answers the frames it has received (buffered, and
  // what its socket holds now), then sends the going-away answer and closes its sending
  // side (docs/tcp-protocol.md "Drain").
  void BeginDrain();
  // Waits up to `timeout` for connections to finish, then closes the rest.
  void Stop(std::chrono::milliseconds timeout);

  uint64_t active_connections() const { return sessions_.active(); }

 private:
  friend class TcpSession;

  const ServiceConfig& config_;
  Metrics& metrics_;
  Pipeline& pipeline_;
  Tls* tls_ = nullptr;
  IoPool& pool_;
  std::unique_ptr<Listener> listener_;
  SessionSet<TcpSession> sessions_;
  std::atomic<bool> draining_{false};
  bool stopped_ = false;
};

}  // namespace rosetta::service
