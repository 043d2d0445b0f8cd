#include "service/request_handler.h"

#include <string>

#include "rosetta/codec/transcode.h"

namespace rosetta::service {
namespace {

// Output capacity a thread keeps between requests; more is given back after the request.
constexpr size_t kKeptOutputBytes = 1 << 20;

const codec::Schema* g_schema = nullptr;

codec::OutputBuffer& ThreadOutput() {
  thread_local codec::OutputBuffer out;
  return out;
}

bool KnownFormat(codec::Format f) { return codec::FindFormat(static_cast<int>(f)) != nullptr; }

codec::Status BadFormat(const char* which, codec::Format f) {
  codec::Status s;
  s.code = codec::ErrorCode::kUnsupported;
  s.message = std::string(which) + " format " + std::to_string(static_cast<int>(f)) + " is not one of";
  for (const codec::FormatInfo& info : codec::kFormatTable) {
    s.message += (&info == &codec::kFormatTable[0] ? " " : ", ") + std::string(info.name) + " (" +
                 std::to_string(static_cast<int>(info.format)) + ")";
  }
  return s;
}

}  // namespace

void SetRequestSchema(const codec::Schema* schema) { g_schema = schema; }

codec::Status RunRequest(const Request& r, std::string_view* output) {
  *output = {};
  if (!KnownFormat(r.input)) return BadFormat("input", r.input);
  if (!r.schema.empty()) {  // no JSON Schema is loaded in this build
    codec::Status s;
    s.code = codec::ErrorCode::kUnknownSchema;
    s.message = "no schema named \"" + std::string(r.schema) + "\" is loaded";
    return s;
  }
  codec::TranscodeRequest t;
  t.from = r.input;
  t.input = r.payload;
  t.input_padding = r.padding;
  t.limits = r.limits;
  t.options = r.options;
  t.message_type = r.message_type;
  t.schema = g_schema;
  if (r.op == Op::kValidate) return codec::Validate(t);
  if (!KnownFormat(r.output)) return BadFormat("output", r.output);
  t.to = r.output;
  codec::OutputBuffer& out = ThreadOutput();
  codec::Status s = codec::Transcode(t, out);
  if (s.ok()) *output = out.view();
  return s;
}

void TrimThreadBuffers() { ThreadOutput().ShrinkTo(kKeptOutputBytes); }

}  // namespace rosetta::service
