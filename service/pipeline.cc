#include "service/pipeline.h"

#include <string>

#include "rosetta/codec/transcode.h"

namespace rosetta::service {
namespace {

// Output capacity a thread keeps between requests; more is given back after the request.
constexpr size_t kKeptOutputBytes = 1 << 20;

codec::OutputBuffer& ThreadOutput() {
  thread_local codec::OutputBuffer out;
  return out;
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

codec::Status Pipeline::Execute(const Request& r, std::string_view* output) {
  *output = {};
  if (!codec::FindFormat(static_cast<int>(r.input))) return BadFormat("input", r.input);
  if (r.op == Op::kTranscode && !codec::FindFormat(static_cast<int>(r.output)))
    return BadFormat("output", r.output);
  if (!r.schema.empty()) {  // no JSON Schema is loaded in this build
    return Refusal(codec::ErrorCode::kUnknownSchema,
                   "no schema named \"" + std::string(r.schema) + "\" is loaded");
  }
  codec::TranscodeRequest t;
  t.from = r.input;
  t.input = r.payload;
  t.input_padding = r.padding;
  t.limits = r.limits;
  t.options = r.options;
  t.message_type = r.message_type;
  t.schema = descriptors_;
  if (r.op == Op::kValidate) return codec::Validate(t);
  t.to = r.output;
  codec::OutputBuffer& out = ThreadOutput();
  codec::Status s = codec::Transcode(t, out);
  if (s.ok()) *output = out.view();
  return s;
}

void Pipeline::Finish(Transport t, const RequestScope& scope, const Request& r,
                      codec::ErrorCode outcome, uint64_t bytes_out, heap::Counts extra) {
  if (r.op == Op::kTranscode) ThreadOutput().ShrinkTo(kKeptOutputBytes);
  if (outcome == codec::ErrorCode::kInputTooLarge) metrics_.Rejected(t, Rejection::kInputTooLarge);
  Record(t, scope, r, outcome, bytes_out, extra);
}

}  // namespace rosetta::service
