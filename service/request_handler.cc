#include "service/request_handler.h"

#include <optional>
#include <string>

#include "rosetta/codec/transcode.h"

namespace rosetta::service {
namespace {

// Output capacity a thread keeps between requests; more is given back after the request.
constexpr size_t kKeptOutputBytes = 1 << 20;

const codec::Schema* g_schema = nullptr;

// The thread's output buffer, kept between requests. Made anew after an
// output_too_large: OutputBuffer::Begin does not clear the over-limit flag that Grow sets,
// so the thread's next refusal (a budget) would be reported as output_too_large.
std::optional<codec::OutputBuffer>& ThreadOutputSlot() {
  thread_local std::optional<codec::OutputBuffer> out(std::in_place);
  return out;
}
codec::OutputBuffer& ThreadOutput() { return *ThreadOutputSlot(); }

bool KnownFormat(codec::Format f) {
  int i = static_cast<int>(f);
  return i >= 1 && i <= 4;
}

codec::Status BadFormat(const char* which, codec::Format f) {
  codec::Status s;
  s.code = codec::ErrorCode::kUnsupported;
  s.message = std::string(which) + " format " + std::to_string(static_cast<int>(f)) +
              " is not one of json (1), cbor (2), msgpack (3), protobuf (4)";
  return s;
}

}  // namespace

void SetRequestSchema(const codec::Schema* schema) { g_schema = schema; }

codec::Status RunRequest(const Request& r, std::string_view* output) {
  *output = {};
  if (!KnownFormat(r.input)) return BadFormat("input", r.input);
  codec::TranscodeRequest t;
  t.from = r.input;
  t.input = r.payload;
  t.input_padding = r.padding;
  t.limits = r.limits;
  t.message_type = r.message_type;
  t.schema = g_schema;
  if (r.op == Op::kValidate) return codec::Validate(t);
  if (!KnownFormat(r.output)) return BadFormat("output", r.output);
  t.to = r.output;
  codec::OutputBuffer& out = ThreadOutput();
  codec::Status s = codec::Transcode(t, out);
  // OutputBuffer checks max_output_bytes only when it grows, so a thread's warm buffer let
  // a request's output pass its limit unnoticed: checked here for every request.
  if (s.ok() && out.size() > r.limits.max_output_bytes) {
    s.code = codec::ErrorCode::kOutputTooLarge;
    s.offset = r.payload.size();
    s.message = "output of " + std::to_string(out.size()) + " bytes passes max_output_bytes " +
                std::to_string(r.limits.max_output_bytes);
  }
  if (s.code == codec::ErrorCode::kOutputTooLarge) ThreadOutputSlot().emplace();
  if (s.ok()) *output = out.view();
  return s;
}

void TrimThreadBuffers() { ThreadOutput().ShrinkTo(kKeptOutputBytes); }

}  // namespace rosetta::service
