// MessagePack reader: never crashes, never allocates what the input claims; what it
// accepts nlohmann::json::from_msgpack accepts too, wherever it models the data (text keys).
#include <nlohmann/json.hpp>

#include "core/context.h"
#include "feature_sink.h"
#include "fuzz_common.h"
#include "msgpack/msgpack_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  const std::string_view mp(reinterpret_cast<const char*>(data), size);
  const codec::Limits limits = fuzz::ProductionLimits();
  const codec::MappingOptions options;
  codec::Context ctx(limits, options);
  fuzz::FeatureSink features;
  const bool ours = codec::MsgpackReader<fuzz::FeatureSink>(ctx, features).Read(mp);
  if (ours != fuzz::Validate(codec::Format::kMsgpack, mp).ok())
    fuzz::Fail("reader and Validate disagree");
  if (ctx.budget.used() > 64 * size + (64 << 10))
    fuzz::Fail("allocated more than the input can justify");
  if (!ours) return 0;
  for (codec::Format to : {codec::Format::kCbor, codec::Format::kMsgpack, codec::Format::kJson}) {
    codec::OutputBuffer out;
    if (fuzz::Transcode(codec::Format::kMsgpack, to, mp, out).ok() &&
        !fuzz::Validate(to, out.view(), fuzz::OutputCheck()).ok()) {
      fuzz::Fail("a transcode of accepted MessagePack is not valid in its output format");
    }
  }
  if (features.non_text_key) return 0;
  const auto peer =
      nlohmann::json::from_msgpack(data, data + size, /*strict=*/true, /*allow_exceptions=*/false);
  if (peer.is_discarded())
    fuzz::Fail("rosetta accepts MessagePack that nlohmann::from_msgpack refuses");
  return 0;
}
