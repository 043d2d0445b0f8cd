#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "rosetta/codec/schema.h"
#include "service/config.h"
#include "service/grpc_server.h"
#include "service/http_server.h"
#include "service/io_pool.h"
#include "service/metrics.h"
#include "service/pipeline.h"
#include "service/tcp_server.h"
#include "service/tls.h"

namespace rosetta::service {

// rosettad in one object: metrics, the gRPC, TCP and HTTP front-ends. Tests run it in-process.
class Server {
 public:
  explicit Server(ServiceConfig config);
  ~Server();

  // Binds every listener. On success the bound addresses are in grpc_address() etc.
  bool Start(std::string* error);
  // "rosettad listening grpc=HOST:PORT tcp=HOST:PORT http=HOST:PORT metrics=HOST:PORT"
  std::string ListeningLine() const;
  // SIGTERM: health NOT_SERVING, listeners close, in-flight requests finish (up to
  // drain_timeout_ms), then everything stops.
  void Drain();
  // SIGHUP: the TLS certificate, key and client CA again from their files (tls.h); false
  // with *error if they do not load (the old ones stay). Counted in
  // rosetta_tls_reloads_total{outcome}.
  bool ReloadTls(std::string* error);
  bool tls() const { return tls_ != nullptr; }
  // SIGHUP: every *.json of --schema-dir again, all or nothing: the new set serves the
  // requests that start from then on; false with *error (the loader's line) if any schema
  // does not load, and the old set stays. Counted in rosetta_schema_reloads_total{outcome}.
  bool ReloadSchemas(std::string* error);
  bool schemas() const { return !config_.schema_dir.empty(); }
  size_t schema_count() const { return schema_count_; }

  const std::string& grpc_address() const { return grpc_address_; }
  const std::string& tcp_address() const { return tcp_address_; }
  const std::string& http_address() const { return http_address_; }
  const std::string& metrics_address() const { return metrics_address_; }
  Metrics& metrics() { return *metrics_; }
  const ServiceConfig& config() const { return config_; }

 private:
  ServiceConfig config_;
  std::unique_ptr<codec::Schema> schema_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<Tls> tls_;      // before the front-ends: their connections use it
  std::unique_ptr<IoPool> pool_;  // before the front-ends: destroyed after them
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<TcpServer> tcp_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<HttpServer> health_;  // --health-listen: plaintext probes
  std::string grpc_address_, tcp_address_, http_address_, metrics_address_, health_address_;
  size_t schema_count_ = 0;  // in the set last loaded
  bool drained_ = false;
};

}  // namespace rosetta::service
