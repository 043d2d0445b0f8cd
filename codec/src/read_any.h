#pragma once

#include <string_view>

#include "cbor/cbor_reader.h"
#include "common/context.h"
#include "json/json_reader.h"
#include "msgpack/msgpack_reader.h"
#include "rosetta/codec/format.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

// The JSON reader needs simdjson's padding after the input: `input` itself when
// `padding` is enough, else one copy into a per-thread buffer charged to the budget.
bool ReadPadded(Context& ctx, std::string_view input, size_t padding, std::string_view* padded);

// Reads `input` in format `from` (JSON, CBOR or MessagePack) into sink.
template <class S>
bool ReadAny(Format from, Context& ctx, S& sink, std::string_view input, size_t padding) {
  switch (from) {
    case Format::kJson: {
      std::string_view padded;
      if (!ReadPadded(ctx, input, padding, &padded)) return false;
      return JsonReader<S>(ctx, sink).Read(padded, padded.data() == input.data() ? padding : simdjson::SIMDJSON_PADDING);
    }
    case Format::kCbor:
      return CborReader<S>(ctx, sink).Read(input);
    case Format::kMsgpack:
      return MsgpackReader<S>(ctx, sink).Read(input);
    default:
      return false;
  }
}

// The protobuf format lives in its own target (rosetta_codec_protobuf, which links
// libprotobuf); it plugs in here when the program calls EnableProtobufFormat().
// out is null for Validate.
using ProtobufRunner = Status (*)(const TranscodeRequest& request, OutputBuffer* out, TranscodeStats* stats);
ProtobufRunner& ProtobufHook();

}  // namespace rosetta::codec
