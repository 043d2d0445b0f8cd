#pragma once

#include <memory>
#include <thread>
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without it
#include <vector>

#include <boost/asio.hpp>

namespace rosetta::service {

// The I/O threads every front-end (gRPC, TCP) runs its connections on: one io_context per
// thread, each connection owned by one of them, so a connection's handlers never run
// concurrently and need no locks. Each io_context's reactor (its epoll descriptor and
// interrupter) is made in Start, not on first use: made later, while the process is out of
// descriptors, its failure would throw out of the I/O thread and end the process.
class IoPool {
 public:
  explicit IoPool(unsigned threads);
  ~IoPool();

  // Makes every reactor and starts the threads; false if a reactor cannot be made.
  bool Start();
  // Stops every io_context (handlers not yet run are dropped) and joins the threads.
  void Stop();

  size_t size() const { return workers_.size(); }
  boost::asio::io_context& io(size_t i) { return workers_[i]->io; }
  // Round robin over the threads, for a new connection.
  size_t Next() { return next_++ % workers_.size(); }

 private:
  struct Worker {
    boost::asio::io_context io{1};
    std::thread thread;
  };
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guards_;
  size_t next_ = 0;
  bool started_ = false;
};

}  // namespace rosetta::service
