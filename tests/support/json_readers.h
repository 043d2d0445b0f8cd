#pragma once
// The two JSON readers side by side, for differential tests: json_reader.h (a walk over
// simdjson's stage-1 structural index) and json_scalar_reader.h (byte by byte, written
// separately), each driving one writer as Transcode sets it up.
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cbor/cbor_writer.h"
#include "core/context.h"
#include "json/json_reader.h"
#include "json/json_scalar_reader.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::testing {

struct ReaderOutcome {
  bool ok;
  std::string output;  // empty when refused
  codec::Status status;
  size_t buffer_capacity = 0;  // what the output buffer grew to
};

// `input` must be followed by codec::kInputPadding readable bytes. `streaming`: the
// output buffer hands what it may over as it fills (as the CLI's does), and the output is
// what was handed over.
template <class Writer>
ReaderOutcome ReadJsonInto(bool indexed, std::string_view input, const codec::Limits& limits,
                           const codec::MappingOptions& options, bool streaming = false) {
  using namespace codec;
  Context ctx(limits, options);
  ctx.tags_kept = std::is_same_v<Writer, CborWriter>;
  ctx.json_member_names = std::is_same_v<Writer, JsonWriter>;
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  std::string handed;
  if (streaming) {
    out.SetFlush(
        [](void* arg, const char* data, size_t n) {
          static_cast<std::string*>(arg)->append(data, n);
          return true;
        },
        &handed);
  }
  Writer writer(ctx, out);
  const bool ok = (indexed ? JsonReader<Writer>(ctx, writer).Read(input, kInputPadding)
                           : JsonScalarReader<Writer>(ctx, writer).Read(input)) &&
                  out.Flush();
  std::string output = ok ? handed + std::string(out.view()) : std::string();
  return {ok, std::move(output), ctx.status, out.capacity()};
}

// The same output, or the same error code, offset and path.
inline bool SameOutcome(const ReaderOutcome& a, const ReaderOutcome& b) {
  return a.ok == b.ok && a.output == b.output && a.status.code == b.status.code &&
         a.status.offset == b.status.offset && a.status.path == b.status.path;
}

}  // namespace rosetta::testing
