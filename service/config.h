#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rosetta/codec/limits.h"

namespace rosetta::service {

// Everything rosettad can be told. Precedence: flags > environment > JSON file > defaults
// (DESIGN.md "Server"); `rosettad --help` lists every field with its flag and variable.
struct ServiceConfig {
  std::string grpc_listen = "127.0.0.1:50051";
  std::string tcp_listen = "127.0.0.1:50052";
  std::string http_listen = "127.0.0.1:8080";
  std::string metrics_listen = "127.0.0.1:9464";
  // A plaintext HTTP/1.1 listener that answers only GET /healthz and /readyz, whatever TLS
  // the others require (for the kubelet's probes); empty: none.
  std::string health_listen;
  // TLS on the gRPC (ALPN h2), TCP and HTTP listeners: PEM files, reloaded on SIGHUP.
  // Empty cert and key: plaintext. A client CA: clients must present a certificate it signed.
  std::string tls_cert, tls_key, tls_client_ca;
  // Server defaults: what one request may use unless a connection or request lowers it.
  codec::Limits limits = DefaultLimits();
  // The largest gRPC message accepted, checked at its 5-byte prefix before any of its body
  // is buffered (docs/grpc.md). 0: max_input_bytes + 64 KiB (a request's other fields).
  uint64_t grpc_max_receive_bytes = 0;
  uint32_t grpc_max_concurrent_streams = 256;   // HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS
  uint32_t grpc_max_connection_age_ms = 0;      // GOAWAY after this (0: never), to rebalance
  uint64_t grpc_max_connections = 10000;        // more are closed at once
  uint32_t grpc_handshake_timeout_ms = 10000;   // preface and first request within this
  uint32_t grpc_idle_timeout_ms = 300000;       // a connection without calls: GOAWAY after this
  uint32_t grpc_message_timeout_ms = 10000;     // a started message must arrive whole within this
  uint32_t grpc_max_header_list_bytes = 16384;  // a request's headers, as HTTP/2 counts them
  uint64_t http_max_connections = 10000;        // more are closed at once
  uint32_t http_header_timeout_ms = 10000;      // a request header, from its first byte
  uint32_t http_body_timeout_ms = 10000;        // a request body, from the end of its header
  uint32_t http_idle_timeout_ms = 60000;        // a keep-alive connection between requests
  uint32_t http_max_header_bytes = 16384;       // a request's header, request line included
  uint32_t http_max_header_count = 100;         // header fields in one request
  uint32_t io_threads = 0;  // I/O threads of the gRPC, TCP and HTTP front-ends; 0: one per core
  uint64_t tcp_max_connections = 10000;
  uint32_t tcp_frame_timeout_ms = 10000;     // a started frame must complete within this
  uint32_t tcp_idle_timeout_ms = 60000;      // a connection without progress is closed after this
  uint64_t tcp_max_pending_bytes = 4 << 20;  // unsent responses above this stop reading
  uint32_t tcp_linger_ms = 1000;             // after an error close: discard input this long
  // Payload bytes of the requests in flight, all transports together (admission.h).
  uint64_t max_inflight_bytes = uint64_t{256} << 20;
  uint32_t drain_timeout_ms = 10000;         // SIGTERM: in-flight requests get this long
  std::vector<std::string> descriptor_sets;  // protobuf FileDescriptorSet files or directories
  // JSON Schemas requests may name: every *.json here, loaded at start (a broken one stops
  // it) and again on SIGHUP, all or nothing (docs/schema.md). Empty: none.
  std::string schema_dir;
  uint32_t max_violations = 16;  // schema violations one validate answer lists at most
  uint32_t request_metrics = 1;  // 0: no per-request metrics (to measure what they cost)

  static codec::Limits DefaultLimits() { return codec::ServerDefaultLimits(); }
  uint64_t EffectiveGrpcMaxReceive() const {
    return grpc_max_receive_bytes ? grpc_max_receive_bytes : limits.max_input_bytes + (64 << 10);
  }
  // The in-flight bound admission applies: max_inflight_bytes, raised to the largest claim
  // one request can make (a gRPC message, or a TCP frame: payload, 10-byte header and up to
  // 64 KiB of message type), so that one largest request alone is always admitted.
  uint64_t EffectiveMaxInflight() const {
    const uint64_t largest_frame = limits.max_input_bytes + 10 + 0xffff;
    return std::max({max_inflight_bytes, EffectiveGrpcMaxReceive(), largest_frame});
  }
};

struct ConfigResult {
  enum Kind { kRun, kHelp, kError } kind = kRun;
  ServiceConfig config;
  std::string error;  // kError: names the bad setting
};

// Reads argv (flags), `environ` (ROSETTA_*) and --config FILE.
ConfigResult LoadConfig(int argc, char** argv, char** environ);
std::string ConfigHelp();

}  // namespace rosetta::service
