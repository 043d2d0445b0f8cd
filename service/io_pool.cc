#include "service/io_pool.h"

#include <boost/asio/detail/reactor.hpp>

namespace rosetta::service {

IoPool::IoPool(unsigned threads) {
  for (unsigned i = 0; i < (threads ? threads : 1); ++i) {
    workers_.push_back(std::make_unique<Worker>());
    guards_.push_back(boost::asio::make_work_guard(workers_.back()->io));
  }
}

IoPool::~IoPool() { Stop(); }

bool IoPool::Start() {
  try {
    for (auto& w : workers_) boost::asio::use_service<boost::asio::detail::reactor>(w->io);
  } catch (const boost::system::system_error&) {
    return false;
  }
  for (auto& w : workers_) w->thread = std::thread([worker = w.get()] { worker->io.run(); });
  started_ = true;
  return true;
}

void IoPool::Stop() {
  guards_.clear();
  for (auto& w : workers_) {
    // Let the handlers already posted (the front-ends' closes) run, then stop.
    boost::asio::post(w->io, [worker = w.get()] { worker->io.stop(); });
  }
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

}  // namespace rosetta::service
