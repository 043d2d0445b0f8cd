#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "rosetta/codec/format.h"
#include "rosetta/codec/status.h"
#include "service/sharded_metrics.h"

namespace rosetta::service {

enum class Transport : uint8_t { kGrpc, kTcp, kHttp };
enum class Op : uint8_t { kTranscode, kValidate, kPing, kSetLimits, kSetOptions };
inline constexpr int kTransports = 3;
inline constexpr int kOps = 5;
inline constexpr int kFormatLabels = 6;  // none, json, cbor, msgpack, protobuf, fixed

// Why something was refused before (or instead of) running a request. A closed set: the
// label never carries a client's data.
enum class Rejection : uint8_t {
  kFrameTooLarge,     // TCP frame prefix over the connection's limit
  kConnectionCap,     // TCP connection over tcp_max_connections
  kFrameTimeout,      // TCP frame not complete within tcp_frame_timeout_ms
  kIdleTimeout,       // TCP connection without progress for tcp_idle_timeout_ms
  kBadFrame,          // TCP frame too short for its header, or unknown version/op
  kInputTooLarge,     // payload (gRPC: message prefix) over the request's max_input_bytes
  kOutOfDescriptors,  // accepted and closed at once: the process was out of descriptors
  kHandshakeTimeout,  // gRPC: no preface and first request within grpc_handshake_timeout_ms
  kHeaderTooLarge,    // gRPC: a request's headers over grpc_max_header_list_bytes
  kMessageTimeout,    // gRPC: a started message not whole within grpc_message_timeout_ms;
                      // HTTP: a body not whole within http_body_timeout_ms
  kResetFlood,        // gRPC: a connection resetting streams faster than it completes calls
  kProtocolError,     // gRPC: an HTTP/2 protocol error that ended the connection; HTTP: a
                      // request HTTP/1.1 cannot parse
  kHeaderTimeout,     // HTTP: a request header not whole within http_header_timeout_ms
  kBadRequest,        // HTTP: no such endpoint or method, a media type, Accept or query refused
  kOverloaded,        // refused by admission: --max-inflight-bytes would be passed
  kTlsHandshake,      // a TLS handshake that failed (plaintext, no or a bad client certificate)
};
inline constexpr int kRejections = 16;

struct RequestRecord {
  Transport transport;
  Op op;
  codec::Format input;  // as sent (may be out of range: labelled "none")
  codec::Format output;
  codec::ErrorCode outcome;
  double seconds;
  uint64_t bytes_in;
  uint64_t bytes_out;
  uint64_t allocated_bytes;
  uint64_t allocations;
};

// The metrics of DESIGN.md "Metrics", on prometheus-cpp. Every label combination is a
// fixed-size table slot created on first use, so recording is an array index and an
// atomic add, never a map lookup under a lock.
class Metrics {
 public:
  Metrics();
  ~Metrics();

  // Serves /metrics on HOST:PORT (port 0: any free port); returns the bound port, or -1.
  int Expose(const std::string& listen);

  void Record(const RequestRecord& r);
  void Rejected(Transport transport, Rejection reason);
  void ConnectionOpened(Transport transport);
  void ConnectionClosed(Transport transport);
  // A SIGHUP reload of the TLS certificate and key: rosetta_tls_reloads_total{outcome}.
  void TlsReloaded(bool ok);
  // A load of --schema-dir, at start-up or on SIGHUP: rosetta_schema_reloads_total{outcome}.
  void SchemaReloaded(bool ok);
  // rosetta_schema_violations_total{schema}: made when a schema is loaded (so the label
  // only ever holds names of the operator's files), the same counter on every reload.
  prometheus::Counter& SchemaViolations(const std::string& schema);
  // Payload bytes admitted and not yet answered (rosetta_inflight_bytes), read at scrape.
  void ExposeInflight(std::function<double()> read);

  std::shared_ptr<prometheus::Registry> registry() { return registry_; }

 private:
  template <class T>
  using Slot = std::atomic<T*>;

  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string exposer_wake_address_;  // a loopback or bound IP of the listener, for ~Metrics
  int exposer_port_ = -1;
  // Written on every request: sharded, lock-free (sharded_metrics.h).
  std::shared_ptr<ShardedFamily<ShardedCounter>> requests_;
  std::shared_ptr<ShardedFamily<ShardedHistogram>> duration_;
  std::shared_ptr<ShardedFamily<ShardedHistogram>> payload_;
  std::shared_ptr<ShardedFamily<ShardedHistogram>> allocated_;
  std::shared_ptr<ShardedFamily<ShardedHistogram>> allocations_;
  prometheus::Family<prometheus::Counter>& rejected_;
  prometheus::Family<prometheus::Gauge>& connections_active_;
  prometheus::Family<prometheus::Counter>& connections_total_;
  std::shared_ptr<prometheus::Collectable> process_;

  std::array<Slot<ShardedCounter>,
             kTransports * kOps * kFormatLabels * kFormatLabels * codec::kErrorCodeCount>
      request_slots_{};
  std::array<Slot<ShardedHistogram>, kTransports * kOps * kFormatLabels * kFormatLabels>
      duration_slots_{};
  std::array<ShardedHistogram*, kTransports * 2> payload_slots_{};
  std::array<ShardedHistogram*, kTransports * kOps> allocated_slots_{};
  std::array<ShardedHistogram*, kTransports * kOps> allocations_slots_{};
  std::array<prometheus::Counter*, kTransports * kRejections> rejected_slots_{};
  std::array<prometheus::Gauge*, kTransports> active_slots_{};
  std::array<prometheus::Counter*, kTransports> total_slots_{};
  prometheus::Counter* tls_reloads_[2] = {};
  prometheus::Counter* schema_reloads_[2] = {};
  prometheus::Family<prometheus::Counter>* schema_violations_ = nullptr;
  std::shared_ptr<prometheus::Collectable> inflight_;
};

}  // namespace rosetta::service
