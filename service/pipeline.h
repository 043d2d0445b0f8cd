#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "heap/heap_counter.h"
#include "rosetta/codec/format.h"
#include "rosetta/codec/limits.h"
#include "rosetta/codec/options.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/status.h"
#include "service/admission.h"
#include "service/loaded_schemas.h"
#include "service/metrics.h"

namespace rosetta::service {

// One request as every front-end hands it over, whatever its wire format.
struct Request {
  Op op = Op::kTranscode;
  codec::Format input = codec::Format::kJson;  // raw numbers from the wire: checked by the pipeline
  codec::Format output = codec::Format::kJson;
  std::string_view payload;
  size_t padding = 0;  // readable bytes after the payload (64 spare the JSON reader a copy)
  std::string_view message_type;  // protobuf: the message's full name
  std::string_view schema;        // a JSON Schema's name; empty: none
  codec::Limits limits;           // already lowered from the server's (Limits::LowerTo)
  codec::MappingOptions options;
  // Validate: every schema violation (up to the server's max_violations) is collected in
  // Pipeline::Violations(), not only the first (gRPC ValidateResponse.violations, HTTP).
  bool all_violations = false;
};

// Per-request metrics on (default) or off (--request-metrics 0, to measure their cost).
inline bool g_request_metrics = true;

// Started when a request arrives (before its frame or message is parsed); the pipeline
// files its metrics when the response is ready, so the time and the allocations of the
// whole handling are counted.
class RequestScope {
 public:
  RequestScope() {
    if (g_request_metrics) {
      start_ = std::chrono::steady_clock::now();
      allocs_ = heap::ThisThread();
    }
  }
  RequestRecord Finish(Transport t, const Request& r, codec::ErrorCode outcome,
                       uint64_t bytes_out) const {
    if (!g_request_metrics)
      return RequestRecord{t, r.op, r.input, r.output, outcome, 0, 0, 0, 0, 0};
    heap::Counts now = heap::ThisThread();
    return RequestRecord{
        t,
        r.op,
        r.input,
        r.output,
        outcome,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
        r.payload.size(),
        bytes_out,
        now.bytes - allocs_.bytes,
        now.calls - allocs_.calls};
  }

 private:
  std::chrono::steady_clock::time_point start_;
  heap::Counts allocs_;
};

// The one request path. A front-end (gRPC, TCP) translates its wire format into a
// Request, calls Run, and translates the Status or the output back; everything between is
// here, once: the format numbers checked against the registry, the schema looked up, the
// codec called under the request's limits and options, the output handed over, the
// thread's buffers trimmed, and the metrics filed (the refusal counted too).
class Pipeline {
 public:
  Pipeline(Metrics& metrics, uint64_t max_inflight_bytes, uint32_t max_violations = 16);

  // What every request claims before its payload is kept (--max-inflight-bytes).
  Admission& admission() { return admission_; }

  // The protobuf descriptors every request may name (loaded once at start-up; null: none).
  void SetDescriptors(const codec::Schema* schema) { descriptors_ = schema; }

  // The JSON Schemas requests may name (--schema-dir; null: none), replaced whole: a
  // request keeps the set it started with. The request path takes no lock: each thread
  // keeps the set it last used and compares one atomic generation number per request,
  // taking the new set (under schemas_mu_) once per thread after a swap. An old set is
  // freed when no request uses it and every thread that used it has run another request.
  void SetJsonSchemas(std::shared_ptr<const LoadedSchemas> schemas);

  // The schema violations of the validate being answered on this thread when its Request
  // asked for all_violations and the answer is schema_violation (else empty), in input
  // order; valid inside `answer` only.
  static const std::vector<codec::Status>& Violations();

  // Runs a transcode or validate on the calling thread, then `answer(status, output)`
  // translates the outcome into the front-end's reply: output is the transcode's (empty
  // for a validate or a refusal), a view into this thread's buffer to be copied out before
  // answer returns. The metrics are filed after answer, so they count its time and
  // allocations (the error text included). `extra` is allocation done for this request
  // before the scope could see it (TCP's read buffer growth).
  template <class Answer>
  codec::Status Run(Transport t, const RequestScope& scope, const Request& r, Answer&& answer,
                    heap::Counts extra = {}) {
    std::string_view output;
    codec::Status s = Execute(r, &output);
    answer(s, output);
    Finish(t, scope, r, s.code, output.size(), extra);
    return s;
  }

  // Files the metrics of a request a front-end answered itself (TCP ping, set-limits,
  // set-options).
  void Record(Transport t, const RequestScope& scope, const Request& r, codec::ErrorCode outcome,
              uint64_t bytes_out, heap::Counts extra = {}) {
    RequestRecord record = scope.Finish(t, r, outcome, bytes_out);
    record.allocated_bytes += extra.bytes;
    record.allocations += extra.calls;
    metrics_.Record(record);
  }

 private:
  codec::Status Execute(const Request& r, std::string_view* output);
  const LoadedSchemas* ThreadSchemas();
  void Finish(Transport t, const RequestScope& scope, const Request& r, codec::ErrorCode outcome,
              uint64_t bytes_out, heap::Counts extra);

  Metrics& metrics_;
  Admission admission_;
  const codec::Schema* descriptors_ = nullptr;
  const uint32_t max_violations_;
  std::mutex schemas_mu_;  // SetJsonSchemas, and a thread's first request after a swap
  std::shared_ptr<const LoadedSchemas> schemas_;
  std::atomic<uint64_t> schemas_generation_;  // unique in the process: no thread's stale match
};

}  // namespace rosetta::service
