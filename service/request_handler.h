#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "rosetta/codec/format.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/status.h"
#include "service/alloc_counter.h"
#include "service/metrics.h"

namespace rosetta::service {

struct Request {
  Op op = Op::kTranscode;
  codec::Format input = codec::Format::kJson;   // raw enum values from the wire: checked in Run
  codec::Format output = codec::Format::kJson;
  std::string_view payload;
  size_t padding = 0;  // readable bytes after the payload (64 spare the JSON reader a copy)
  std::string_view message_type;  // protobuf: the message's full name
  std::string_view schema;        // a JSON Schema's name; empty: none
  codec::Limits limits;  // already lowered from the server's
  codec::MappingOptions options;
};

// Per-request metrics on (default) or off (--request-metrics 0, to measure their cost).
inline bool g_request_metrics = true;

// Started when a request arrives; Record() files its metrics when its response is ready,
// so the time and the allocations of the whole handling are counted.
class RequestScope {
 public:
  RequestScope() {
    if (g_request_metrics) {
      start_ = std::chrono::steady_clock::now();
      allocs_ = ThreadAllocations();
    }
  }
  RequestRecord Finish(Transport t, const Request& r, codec::ErrorCode outcome, uint64_t bytes_out) const {
    if (!g_request_metrics) return RequestRecord{t, r.op, r.input, r.output, outcome, 0, 0, 0, 0, 0};
    AllocationCount now = ThreadAllocations();
    return RequestRecord{t,
                         r.op,
                         r.input,
                         r.output,
                         outcome,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                         r.payload.size(),
                         bytes_out,
                         now.bytes - allocs_.bytes,
                         now.count - allocs_.count};
  }

 private:
  std::chrono::steady_clock::time_point start_;
  AllocationCount allocs_;
};

// The protobuf schemas every request may name (loaded once at startup; null: none).
void SetRequestSchema(const codec::Schema* schema);

// Runs one transcode or validate on the calling thread. The output is a view into a
// buffer owned by this thread, valid until the thread's next Run: the request path
// allocates nothing of its own once the thread's buffers have grown.
codec::Status RunRequest(const Request& request, std::string_view* output);

// Lets the thread's buffers go after a large request (bounded per-thread memory).
void TrimThreadBuffers();

}  // namespace rosetta::service
