// The CBOR and MessagePack -> JSON fast paths (codec/src/fast_path/binary_to_json.h) against the
// general path, under rosettad's default limits: where a fast path finishes, the general
// path must succeed with the same bytes. The first byte picks the format (bit 0) and
// whether duplicate keys are allowed (bit 1).
#include "cbor/cbor_reader.h"
#include "fast_path/binary_to_json.h"
#include "fuzz_common.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  if (size < 1) return 0;
  const bool cbor = data[0] & 1;
  codec::MappingOptions options;
  options.allow_duplicate_keys = data[0] & 2;
  const codec::Limits limits = fuzz::ProductionLimits();
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  codec::Context fast_ctx(limits, options);
  codec::OutputBuffer fast_out;
  fast_out.Begin(limits.max_output_bytes, &fast_ctx.budget);
  const bool fast = cbor ? codec::FastCborToJson(fast_ctx, input, fast_out)
                         : codec::FastMsgpackToJson(fast_ctx, input, fast_out);
  if (!fast) return 0;

  codec::Context ctx(limits, options);
  codec::OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  ctx.json_member_names = true;
  codec::JsonWriter writer(ctx, out);
  const bool ok = cbor ? codec::CborReader<codec::JsonWriter>(ctx, writer).Read(input)
                       : codec::MsgpackReader<codec::JsonWriter>(ctx, writer).Read(input);
  if (!ok) {
    // The fast path needs less memory than the general one: the budget may differ.
    if (ctx.status.code == codec::ErrorCode::kBudgetExceeded) return 0;
    fuzz::Fail("the fast path finished where the general path refuses");
  }
  if (fast_out.view() != out.view())
    fuzz::Fail("the fast path's JSON differs from the general path's");
  return 0;
}
