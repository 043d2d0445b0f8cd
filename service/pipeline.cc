#include "service/pipeline.h"

#include <string>
#include <utility>

#include "rosetta/codec/transcode.h"

namespace rosetta::service {
namespace {

// Output capacity a thread keeps between requests; more is given back after the request.
constexpr size_t kKeptOutputBytes = 1 << 20;

codec::OutputBuffer& ThreadOutput() {
  thread_local codec::OutputBuffer out;
  return out;
}

// Reused by every validate of the thread that collects all violations (at most
// max_violations each).
std::vector<codec::Status>& ThreadViolations() {
  thread_local std::vector<codec::Status> violations;
  return violations;
}

// Generation numbers of schema sets, unique across the pipelines of a process (tests run
// several): a thread's cached set never matches another pipeline's, and 0 is never used.
uint64_t NextSchemaGeneration() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

codec::Status Refusal(codec::ErrorCode code, std::string message) {
  codec::Status s;
  s.code = code;
  s.message = std::move(message);
  return s;
}

codec::Status BadFormat(const char* which, codec::Format f) {
  return Refusal(codec::ErrorCode::kUnsupported, std::string(which) + " format " +
                                                     std::to_string(static_cast<int>(f)) +
                                                     " is not one of " + codec::FormatList());
}

}  // namespace

Pipeline::Pipeline(Metrics& metrics, uint64_t max_inflight_bytes, uint32_t max_violations)
    : metrics_(metrics),
      admission_(max_inflight_bytes),
      max_violations_(max_violations),
      schemas_generation_(NextSchemaGeneration()) {}

void Pipeline::SetJsonSchemas(std::shared_ptr<const LoadedSchemas> schemas) {
  std::shared_ptr<const LoadedSchemas> old;
  {
    std::lock_guard<std::mutex> lock(schemas_mu_);
    old = std::exchange(schemas_, std::move(schemas));
    schemas_generation_.store(NextSchemaGeneration(), std::memory_order_release);
  }
  // `old` is released here, outside the lock (freed now if no thread holds it).
}

const LoadedSchemas* Pipeline::ThreadSchemas() {
  struct Seen {
    uint64_t generation = 0;
    std::shared_ptr<const LoadedSchemas> schemas;
  };
  thread_local Seen seen;
  const uint64_t now = schemas_generation_.load(std::memory_order_acquire);
  if (seen.generation != now) [[unlikely]] {
    std::shared_ptr<const LoadedSchemas> old;
    std::lock_guard<std::mutex> lock(schemas_mu_);
    old = std::exchange(seen.schemas, schemas_);
    seen.generation = schemas_generation_.load(std::memory_order_relaxed);
  }
  return seen.schemas.get();
}

const std::vector<codec::Status>& Pipeline::Violations() { return ThreadViolations(); }

codec::Status Pipeline::Execute(const Request& r, std::string_view* output) {
  *output = {};
  std::vector<codec::Status>& violations = ThreadViolations();
  violations.clear();
  if (!codec::FindFormat(static_cast<int>(r.input))) return BadFormat("input", r.input);
  if (r.op == Op::kTranscode && !codec::FindFormat(static_cast<int>(r.output)))
    return BadFormat("output", r.output);
  // The set of this request, kept by the thread until its next request: a reload meanwhile
  // changes nothing for this one.
  const LoadedSchemas* schemas = ThreadSchemas();
  const LoadedSchemas::Entry* schema = nullptr;
  if (!r.schema.empty()) {
    schema = schemas != nullptr ? schemas->Find(r.schema) : nullptr;
    if (schema == nullptr) {
      return Refusal(codec::ErrorCode::kUnknownSchema,
                     "no schema named \"" + std::string(r.schema) + "\" is loaded");
    }
  }
  codec::TranscodeRequest t;
  t.from = r.input;
  t.input = r.payload;
  t.input_padding = r.padding;
  t.limits = r.limits;
  t.options = r.options;
  t.message_type = r.message_type;
  t.schema = descriptors_;
  codec::Status s;
  if (r.op == Op::kValidate) {
    if (schema != nullptr) {
      t.json_schema = schema->schema;
      t.max_violations = max_violations_;
      if (r.all_violations) t.violations = &violations;
    }
    s = codec::Validate(t);
    if (s.code != codec::ErrorCode::kSchemaViolation) {
      violations.clear();  // what came before a malformed part is no verdict
    } else if (r.all_violations && violations.empty()) {
      violations.push_back(s);
    }
  } else {
    if (schema != nullptr) t.json_schema = schema->schema;
    t.to = r.output;
    codec::OutputBuffer& out = ThreadOutput();
    s = codec::Transcode(t, out);
    if (s.ok()) *output = out.view();
  }
  if (s.code == codec::ErrorCode::kSchemaViolation && schema != nullptr)
    schema->violations->Increment();
  return s;
}

void Pipeline::Finish(Transport t, const RequestScope& scope, const Request& r,
                      codec::ErrorCode outcome, uint64_t bytes_out, heap::Counts extra) {
  if (r.op == Op::kTranscode) ThreadOutput().ShrinkTo(kKeptOutputBytes);
  // The violations' text is freed now, not at the thread's next request, and a long list
  // (a high max_violations) gives its room back.
  std::vector<codec::Status>& violations = ThreadViolations();
  violations.clear();
  if (violations.capacity() > 64) std::vector<codec::Status>().swap(violations);
  if (outcome == codec::ErrorCode::kInputTooLarge) metrics_.Rejected(t, Rejection::kInputTooLarge);
  Record(t, scope, r, outcome, bytes_out, extra);
}

}  // namespace rosetta::service
