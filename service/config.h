#pragma once

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
  std::string metrics_listen = "127.0.0.1:9464";
  // Server defaults: what one request may use unless a connection or request lowers it.
  codec::Limits limits = DefaultLimits();
  // gRPC's hard receive limit. Messages above it are refused by the library before any of
  // our code runs (and cannot be counted); those between max_input_bytes and it reach
  // the handler, which refuses and counts them. 0: 4 x max_input_bytes + 64 KiB.
  uint64_t grpc_max_receive_bytes = 0;
  uint32_t io_threads = 0;  // TCP I/O threads; 0: one per core
  uint64_t tcp_max_connections = 10000;
  uint32_t tcp_frame_timeout_ms = 10000;     // a started frame must complete within this
  uint32_t tcp_idle_timeout_ms = 60000;      // a connection without progress is closed after this
  uint64_t tcp_max_pending_bytes = 4 << 20;  // unsent responses above this stop reading
  uint32_t tcp_linger_ms = 1000;             // after an error close: discard input this long
  uint32_t drain_timeout_ms = 10000;         // SIGTERM: in-flight requests get this long
  std::vector<std::string> descriptor_sets;  // protobuf FileDescriptorSet files or directories
  uint32_t request_metrics = 1;  // 0: no per-request metrics (to measure what they cost)

  static codec::Limits DefaultLimits() { return codec::ServerDefaultLimits(); }
  uint64_t EffectiveGrpcMaxReceive() const {
    return grpc_max_receive_bytes ? grpc_max_receive_bytes
                                  : 4 * limits.max_input_bytes + (64 << 10);
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
