#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "service/config.h"
#include "service/io_pool.h"
#include "service/listener.h"
#include "service/metrics.h"
#include "service/pipeline.h"
#include "service/tls.h"

namespace rosetta::service {

class GrpcConnection;

// The gRPC front-end, served by rosettad itself: HTTP/2 from libnghttp2 on the shared I/O
// threads (grpc_connection.h), rosetta.v1.Transcoder feeding the one request pipeline,
// grpc.health.v1 (Check, Watch) and server reflection (grpc.reflection.v1 and v1alpha).
// The protocol and its bounds: docs/grpc.md.
class GrpcServer {
 public:
  GrpcServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline, IoPool& pool);
  ~GrpcServer();

  // Binds config.grpc_listen; returns the bound port, or -1.
  // TLS on this listener's connections (null: plaintext). Before Start.
  void SetTls(Tls* tls) { tls_ = tls; }
  int Start();
  // Health NOT_SERVING (every Watch is told), the listener closes, every connection is sent
  // GOAWAY with its last stream id: calls in flight finish, new ones go elsewhere.
  void SetNotServing();
  // Waits up to `drain` for the connections to finish, then closes what is left.
  void Shutdown(std::chrono::milliseconds drain);

  bool serving() const { return serving_.load(); }
  uint64_t active_connections() const { return connections_.active(); }

 private:
  friend class GrpcConnection;

  const ServiceConfig& config_;
  Metrics& metrics_;
  Pipeline& pipeline_;
  Tls* tls_ = nullptr;
  IoPool& pool_;
  std::unique_ptr<Listener> listener_;
  SessionSet<GrpcConnection> connections_;
  std::atomic<bool> serving_{true};
  bool stopped_ = false;
};

}  // namespace rosetta::service
