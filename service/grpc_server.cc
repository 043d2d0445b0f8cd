#include "service/grpc_server.h"

#include <thread>

#include "service/grpc_connection.h"

namespace rosetta::service {

namespace asio = boost::asio;

GrpcServer::GrpcServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline,
                       IoPool& pool)
    : config_(config),
      metrics_(metrics),
      pipeline_(pipeline),
      pool_(pool),
      connections_(pool.size()) {}

GrpcServer::~GrpcServer() { Shutdown(std::chrono::milliseconds(0)); }

int GrpcServer::Start() {
  listener_ = std::make_unique<Listener>(
      pool_, metrics_, Transport::kGrpc, [this](asio::ip::tcp::socket socket, size_t worker) {
        if (active_.load() >= config_.grpc_max_connections) {
          metrics_.Rejected(Transport::kGrpc, Rejection::kConnectionCap);
          boost::system::error_code ignored;
          socket.close(ignored);
          return;
        }
        active_.fetch_add(1);
        asio::post(pool_.io(worker),
                   [this, worker,
                    s = std::make_shared<asio::ip::tcp::socket>(std::move(socket))]() mutable {
                     std::make_shared<GrpcConnection>(std::move(*s), *this, worker)->Start();
                   });
      });
  return listener_->Start(config_.grpc_listen);
}

void GrpcServer::ForEachConnection(void (GrpcConnection::*fn)()) {
  for (size_t w = 0; w < pool_.size(); ++w) {
    asio::post(pool_.io(w), [this, w, fn] {
      // Copied first: a call may close its connection, which leaves the set.
      std::vector<std::shared_ptr<GrpcConnection>> all;
      for (GrpcConnection* c : connections_[w]) all.push_back(c->shared_from_this());
      for (auto& c : all) ((*c).*fn)();
    });
  }
}

void GrpcServer::SetNotServing() {
  if (!serving_.exchange(false)) return;
  if (listener_) listener_->Close();
  ForEachConnection(&GrpcConnection::HealthChanged);
  ForEachConnection(&GrpcConnection::BeginDrain);
}

void GrpcServer::Shutdown(std::chrono::milliseconds drain) {
  if (stopped_ || !listener_) return;
  stopped_ = true;
  SetNotServing();
  const auto until = std::chrono::steady_clock::now() + drain;
  while (active_.load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ForEachConnection(&GrpcConnection::Close);
}

}  // namespace rosetta::service
