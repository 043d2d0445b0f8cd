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

class HttpSession;

// The HTTP/1.1 front-end (Boost.Beast) on the shared I/O threads: POST /v1/transcode and
// /v1/validate with the payload's media type in Content-Type and the output's in Accept,
// errors as application/problem+json (RFC 9457), GET /healthz and /readyz; keep-alive and
// pipelining (requests answered in order). A declared Content-Length is checked against
// max_input_bytes before one byte of the body is read; a chunked body is counted as it
// arrives. docs/http.md has the whole protocol and its bounds.
class HttpServer {
 public:
  // On `listen`; health_only: GET /healthz and /readyz only, 404 for the rest (the
  // plaintext probe listener, --health-listen).
  HttpServer(const ServiceConfig& config, Metrics& metrics, Pipeline& pipeline, IoPool& pool,
             std::string listen, bool health_only = false);
  ~HttpServer();

  // Binds its listen address; returns the bound port, or -1.
  // TLS on this listener's connections (null: plaintext). Before Start.
  void SetTls(Tls* tls) { tls_ = tls; }
  int Start();
  // /readyz answers 503 from now on; each connection closes after the request it is in
  // (idle ones at once). The listener stays open until Stop: a client still routed here is
  // served, one request per connection.
  void BeginDrain();
  // Waits up to `timeout` for connections to finish, then closes the listener and the rest.
  void Stop(std::chrono::milliseconds timeout);

  bool draining() const { return draining_.load(); }

 private:
  friend class HttpSession;

  const std::string listen_;
  const bool health_only_;

  const ServiceConfig& config_;
  Metrics& metrics_;
  Pipeline& pipeline_;
  Tls* tls_ = nullptr;
  IoPool& pool_;
  std::unique_ptr<Listener> listener_;
  SessionSet<HttpSession> sessions_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> closing_{false};  // the listener is closing: new connections are not served
};

}  // namespace rosetta::service
