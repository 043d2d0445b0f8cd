#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

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

// The connections of one front-end: how many are open (against its cap) and each I/O
// thread's sessions, touched only on that thread.
template <class Session>
class SessionSet {
 public:
  SessionSet(IoPool& pool, Metrics& metrics, Transport transport)
      : pool_(pool), metrics_(metrics), transport_(transport), per_thread_(pool.size()) {}

  // On the acceptor's thread: past `cap` open connections this one is closed at once
  // (reason="connection_cap"); else `start(socket, thread)` runs on the connection's own
  // I/O thread, where it makes and starts the session.
  template <class Start>
  void Accept(boost::asio::ip::tcp::socket socket, size_t thread, uint64_t cap, Start start) {
    if (active_.load() >= cap) {
      metrics_.Rejected(transport_, Rejection::kConnectionCap);
      boost::system::error_code ignored;
      socket.close(ignored);
      return;
    }
    active_.fetch_add(1);
    boost::asio::post(pool_.io(thread),
                      [start, thread,
                       s = std::make_shared<boost::asio::ip::tcp::socket>(
                           std::move(socket))]() mutable { start(std::move(*s), thread); });
  }
  // By a session on its thread, once when it starts and once when it closes.
  void Opened(Session* session, size_t thread) {
    per_thread_[thread].insert(session);
    metrics_.ConnectionOpened(transport_);
  }
  void Closed(Session* session, size_t thread) {
    per_thread_[thread].erase(session);
    metrics_.ConnectionClosed(transport_);
    active_.fetch_sub(1);
  }
  // `fn` on every open session, each on its own thread (a session fn closes leaves the set:
  // the set is copied first; the session itself lives until its handlers are done).
  void ForEach(void (Session::*fn)()) {
    for (size_t t = 0; t < pool_.size(); ++t) {
      boost::asio::post(pool_.io(t), [this, t, fn] {
        std::vector<Session*> all(per_thread_[t].begin(), per_thread_[t].end());
        for (Session* s : all) (s->*fn)();
      });
    }
  }
  uint64_t active() const { return active_.load(); }

 private:
  IoPool& pool_;
  Metrics& metrics_;
  Transport transport_;
  std::vector<std::unordered_set<Session*>> per_thread_;
  std::atomic<uint64_t> active_{0};
};

// HOST:PORT (HOST may be a name, or [v6]) as an endpoint; false if it does not resolve.
bool ParseListen(const std::string& listen, boost::asio::io_context& io,
                 boost::asio::ip::tcp::endpoint* endpoint);

}  // namespace rosetta::service
