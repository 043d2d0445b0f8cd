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
#include "service/metrics.h"
#include "service/pipeline.h"

namespace rosetta::service {

class TcpSession;

// The plain TCP front-end (DESIGN.md "TCP protocol", docs/tcp-protocol.md) on Boost.Asio:
// one io_context per I/O thread, each connection owned by one of them, so a session's
// handlers never run concurrently and need no locks.
class TcpServer {
 public:
  TcpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline);
  ~TcpServer();

  // Binds config.tcp_listen and starts the I/O threads; returns the bound port, or -1.
  int Start();
  // Stops accepting; idle connections close now, busy ones when their requests are done.
  void BeginDrain();
  // Waits up to `timeout` for connections to finish, closes the rest, joins the threads.
  void Stop(std::chrono::milliseconds timeout);

  uint64_t active_connections() const { return active_.load(); }

 private:
  friend class TcpSession;
  struct Worker {
    boost::asio::io_context io{1};
    std::unordered_set<TcpSession*> sessions;  // touched only on this worker's thread
    std::thread thread;
  };
  void Accept();

  const ServiceConfig& config_;
  Metrics& metrics_;
  Pipeline& pipeline_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  std::unique_ptr<boost::asio::steady_timer> accept_retry_;  // after a failed accept (EMFILE)
  size_t next_worker_ = 0;
  std::atomic<uint64_t> active_{0};
  std::atomic<bool> draining_{false};
  bool stopped_ = false;
};

}  // namespace rosetta::service
