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
      connections_(pool, metrics, Transport::kGrpc) {}

GrpcServer::~GrpcServer() { Shutdown(std::chrono::milliseconds(0)); }

int GrpcServer::Start() {
  listener_ = std::make_unique<Listener>(
      pool_, metrics_, Transport::kGrpc, [this](asio::ip::tcp::socket socket, size_t worker) {
        connections_.Accept(
            std::move(socket), worker, config_.grpc_max_connections,
            [this](asio::ip::tcp::socket s, size_t thread) {
              std::make_shared<GrpcConnection>(std::move(s), *this, thread)->Start();
            });
      });
  return listener_->Start(config_.grpc_listen);
}

void GrpcServer::SetNotServing() {
  if (!serving_.exchange(false)) return;
  if (listener_) listener_->Close();
  connections_.ForEach(&GrpcConnection::HealthChanged);
  connections_.ForEach(&GrpcConnection::BeginDrain);
}

void GrpcServer::Shutdown(std::chrono::milliseconds drain) {
  if (stopped_ || !listener_) return;
  stopped_ = true;
  SetNotServing();
  const auto until = std::chrono::steady_clock::now() + drain;
  while (connections_.active() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  connections_.ForEach(&GrpcConnection::Close);
}

}  // namespace rosetta::service
