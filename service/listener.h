#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "service/io_pool.h"
#include "service/metrics.h"

namespace rosetta::service {

// One listening socket of a front-end. Accepts on the pool's first thread and hands each
// connection to `on_accept` with the pool thread it belongs to (round robin); the
// front-end starts its session there. Out of descriptors (EMFILE, ENFILE), the listener
// neither spins nor stops: it closes a descriptor kept in reserve, accepts the waiting
// connection and closes it at once (the client sees a clean close, counted as
// reason="out_of_descriptors"), takes the reserve back and tries again 20 ms later.
class Listener {
 public:
  using OnAccept = std::function<void(boost::asio::ip::tcp::socket socket, size_t worker)>;
  Listener(IoPool& pool, Metrics& metrics, Transport transport, OnAccept on_accept);
  ~Listener();

  // Binds HOST:PORT (port 0: any free port) and starts accepting; the bound port, or -1.
  int Start(const std::string& listen);
  // Stops accepting (from any thread).
  void Close();

 private:
  void Accept();
  void Shed();

  IoPool& pool_;
  Metrics& metrics_;
  Transport transport_;
  OnAccept on_accept_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  std::unique_ptr<boost::asio::steady_timer> retry_;
  int reserve_fd_ = -1;
  std::atomic<bool> closed_{false};
};

// HOST:PORT (HOST may be a name, or [v6]) as an endpoint; false if it does not resolve.
bool ParseListen(const std::string& listen, boost::asio::io_context& io,
                 boost::asio::ip::tcp::endpoint* endpoint);

}  // namespace rosetta::service
