#include "service/server.h"

#include <algorithm>
#include <thread>

namespace rosetta::service {
namespace {

std::string WithPort(const std::string& listen, int port) {
  return listen.substr(0, listen.rfind(':')) + ":" + std::to_string(port);
}

}  // namespace

Server::Server(ServiceConfig config)
    : config_(std::move(config)),
      metrics_(std::make_unique<Metrics>()),
      pipeline_(std::make_unique<Pipeline>(*metrics_, config_.EffectiveMaxInflight(),
                                           config_.max_violations)) {
  metrics_->ExposeInflight(
      [p = pipeline_.get()] { return static_cast<double>(p->admission().inflight()); });
}

Server::~Server() {
  Drain();
  // The metrics first: a scrape in progress reads the pipeline's admission (inflight gauge).
  health_.reset();
  http_.reset();
  tcp_.reset();
  grpc_.reset();
  pool_.reset();
  metrics_.reset();
}

bool Server::Start(std::string* error) {
  g_request_metrics = config_.request_metrics != 0;
  if (!config_.descriptor_sets.empty()) {
    schema_ = codec::Schema::Load(config_.descriptor_sets, error);
    if (!schema_) {
      *error = "--descriptor-set: " + *error;
      return false;
    }
  }
  pipeline_->SetDescriptors(schema_.get());
  if (!config_.schema_dir.empty() && !ReloadSchemas(error)) {
    *error = "--schema-dir: " + *error;
    return false;
  }
  int metrics_port = metrics_->Expose(config_.metrics_listen);
  if (metrics_port < 0) {
    *error = "cannot listen on --metrics-listen " + config_.metrics_listen;
    return false;
  }
  metrics_address_ = WithPort(config_.metrics_listen, metrics_port);
  if (config_.tls_cert.empty() != config_.tls_key.empty()) {
    *error = "--tls-cert and --tls-key go together";
    return false;
  }
  if (!config_.tls_client_ca.empty() && config_.tls_cert.empty()) {
    *error = "--tls-client-ca needs --tls-cert and --tls-key";
    return false;
  }
  if (!config_.tls_cert.empty()) {
    tls_ = Tls::Load(config_, error);
    if (!tls_) return false;
  }
  pool_ = std::make_unique<IoPool>(
      config_.io_threads ? config_.io_threads : std::max(1u, std::thread::hardware_concurrency()));
  if (!pool_->Start()) {
    *error = "cannot start the I/O threads";
    return false;
  }
  grpc_ = std::make_unique<GrpcServer>(config_, *metrics_, *pipeline_, *pool_);
  grpc_->SetTls(tls_.get());
  int grpc_port = grpc_->Start();
  if (grpc_port < 0) {
    *error = "cannot listen on --grpc-listen " + config_.grpc_listen;
    return false;
  }
  grpc_address_ = WithPort(config_.grpc_listen, grpc_port);
  tcp_ = std::make_unique<TcpServer>(config_, *metrics_, *pipeline_, *pool_);
  tcp_->SetTls(tls_.get());
  int tcp_port = tcp_->Start();
  if (tcp_port < 0) {
    *error = "cannot listen on --tcp-listen " + config_.tcp_listen;
    return false;
  }
  tcp_address_ = WithPort(config_.tcp_listen, tcp_port);
  http_ = std::make_unique<HttpServer>(config_, *metrics_, *pipeline_, *pool_, config_.http_listen);
  http_->SetTls(tls_.get());
  int http_port = http_->Start();
  if (http_port < 0) {
    *error = "cannot listen on --http-listen " + config_.http_listen;
    return false;
  }
  http_address_ = WithPort(config_.http_listen, http_port);
  if (!config_.health_listen.empty()) {
    health_ = std::make_unique<HttpServer>(config_, *metrics_, *pipeline_, *pool_,
                                           config_.health_listen, true);
    int health_port = health_->Start();
    if (health_port < 0) {
      *error = "cannot listen on --health-listen " + config_.health_listen;
      return false;
    }
    health_address_ = WithPort(config_.health_listen, health_port);
  }
  return true;
}

bool Server::ReloadTls(std::string* error) {
  if (!tls_) {
    *error = "TLS is off (no --tls-cert)";
    return false;
  }
  const bool ok = tls_->Reload(error);
  metrics_->TlsReloaded(ok);
  return ok;
}

bool Server::ReloadSchemas(std::string* error) {
  if (config_.schema_dir.empty()) {
    *error = "no --schema-dir";
    return false;
  }
  std::shared_ptr<const LoadedSchemas> loaded =
      LoadedSchemas::Load(config_.schema_dir, *metrics_, error);
  metrics_->SchemaReloaded(loaded != nullptr);
  if (!loaded) return false;
  schema_count_ = loaded->size();
  pipeline_->SetJsonSchemas(std::move(loaded));
  return true;
}

std::string Server::ListeningLine() const {
  return "rosettad listening grpc=" + grpc_address_ + " tcp=" + tcp_address_ +
         " http=" + http_address_ + " metrics=" + metrics_address_ +
         (health_ ? " health=" + health_address_ : "");
}

void Server::Drain() {
  if (drained_) return;
  drained_ = true;
  // One deadline for both transports: they drain side by side.
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.drain_timeout_ms);
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::max(
        until - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
  };
  if (grpc_) grpc_->SetNotServing();
  if (tcp_) tcp_->BeginDrain();
  if (http_) http_->BeginDrain();
  if (health_) health_->BeginDrain();
  if (grpc_) grpc_->Shutdown(left());  // waits for in-flight calls, then closes the rest
  if (tcp_) tcp_->Stop(left());
  if (http_) http_->Stop(left());
  if (health_) health_->Stop(left());
  if (pool_) pool_->Stop();
}

}  // namespace rosetta::service
