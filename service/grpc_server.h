#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "service/config.h"
#include "service/metrics.h"
#include "service/pipeline.h"

namespace rosetta::service {

// The gRPC front-end: rosetta.v1.Transcoder (callback API), health checking and
// reflection. Two size limits: gRPC's receive limit (grpc_max_receive_bytes, a hard cap
// enforced by the library before any application code runs; such calls are counted from
// channelz as rejections with reason before_handler) and, below it, the request's
// max_input_bytes, refused by the handler and counted as reason input_too_large.
class GrpcServer {
 public:
  GrpcServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline);
  ~GrpcServer();

  // Binds config.grpc_listen; returns the bound port, or -1.
  int Start();
  // Health NOT_SERVING (load balancers stop sending), then stops accepting.
  void SetNotServing();
  // Lets in-flight RPCs finish until the deadline, then cancels what is left. After
  // SetNotServing it first gives health Watch streams kHealthGrace (within the deadline)
  // to deliver NOT_SERVING: shutting down cancels them, and a write not yet on the wire
  // is lost with them.
  void Shutdown(std::chrono::milliseconds drain);
  static constexpr std::chrono::milliseconds kHealthGrace{100};

 private:
  class Service;
  const ServiceConfig& config_;
  Metrics& metrics_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::chrono::steady_clock::time_point not_serving_since_{};  // set by SetNotServing
};

}  // namespace rosetta::service
