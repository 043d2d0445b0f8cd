// CBOR reader: never crashes, never allocates what the input claims; what it accepts is
// well-formed for an independent decoder (nlohmann::json::from_cbor) too, wherever that
// decoder models the data (it has no simple values, undefined or non-text keys).
#include <nlohmann/json.hpp>

#include "cbor/cbor_reader.h"
#include "core/context.h"
#include "feature_sink.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  const std::string_view cbor(reinterpret_cast<const char*>(data), size);
  const codec::Limits limits = fuzz::ProductionLimits();
  const codec::MappingOptions options;
  codec::Context ctx(limits, options);
  ctx.tags_kept = true;  // as Validate judges CBOR: a tagged key is its own key
  fuzz::FeatureSink features;
  const bool ours = codec::CborReader<fuzz::FeatureSink>(ctx, features).Read(cbor);
  if (ours != fuzz::Validate(codec::Format::kCbor, cbor).ok())
    fuzz::Fail("reader and Validate disagree");
  if (ctx.budget.used() > 64 * size + (64 << 10))
    fuzz::Fail("allocated more than the input can justify");
  if (!ours) return 0;
  // Accepted: every output format must read it back.
  for (codec::Format to : {codec::Format::kCbor, codec::Format::kMsgpack, codec::Format::kJson}) {
    codec::OutputBuffer out;
    if (fuzz::Transcode(codec::Format::kCbor, to, cbor, out).ok() &&
        !fuzz::Validate(to, out.view(), fuzz::OutputCheck()).ok()) {
      fuzz::Fail("a transcode of accepted CBOR is not valid in its output format");
    }
  }
  // nlohmann models neither simple values, undefined nor non-text keys, and its tag
  // handler refuses tags 0..5 (0xc0..0xc5) even when told to ignore tags.
  if (features.simple || features.non_text_key || features.tag) return 0;
  const auto peer =
      nlohmann::json::from_cbor(data, data + size, /*strict=*/true, /*allow_exceptions=*/false,
                                nlohmann::json::cbor_tag_handler_t::ignore);
  if (peer.is_discarded()) fuzz::Fail("rosetta accepts CBOR that nlohmann::from_cbor refuses");
  return 0;
}
