#pragma once

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "service/config.h"
#include "service/metrics.h"

namespace rosetta::service {

// The gRPC front-end: rosetta.v1.Transcoder (callback API), health checking and
// reflection, and an interceptor that counts messages refused for size before any
// handler runs.
class GrpcServer {
 public:
  GrpcServer(const ServiceConfig& config, Metrics& metrics);
  ~GrpcServer();

  // Binds config.grpc_listen; returns the bound port, or -1.
  int Start();
  // Health NOT_SERVING (load balancers stop sending), then stops accepting.
  void SetNotServing();
  // Lets in-flight RPCs finish until the deadline, then cancels what is left.
  void Shutdown(std::chrono::milliseconds drain);

 private:
  class Service;
  const ServiceConfig& config_;
  Metrics& metrics_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace rosetta::service
