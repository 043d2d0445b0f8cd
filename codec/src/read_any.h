#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "cbor/cbor_reader.h"
#include "cbor/cbor_writer.h"
#include "core/context.h"
#include "json/json_reader.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_reader.h"
#include "msgpack/msgpack_writer.h"
#include "rosetta/codec/format.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {

// The reader and writer of each format that runs without a schema (FormatInfo in
// rosetta/codec/format.h has the rest of its row). A reader is a template on its sink, so
// every (reader, writer) pair built from these compiles to direct calls.
template <Format F>
struct FormatCodec;

template <>
struct FormatCodec<Format::kJson> {
  using Writer = JsonWriter;
  template <class S>
  static bool Read(Context& ctx, S& sink, std::string_view input, size_t padding) {
    std::string_view padded;
    if (!ReadPadded(ctx, input, padding, &padded)) return false;
    return JsonReader<S>(ctx, sink).Read(
        padded, padded.data() == input.data() ? padding : simdjson::SIMDJSON_PADDING);
  }
};

template <>
struct FormatCodec<Format::kCbor> {
  using Writer = CborWriter;
  template <class S>
  static bool Read(Context& ctx, S& sink, std::string_view input, size_t) {
    return CborReader<S>(ctx, sink).Read(input);
  }
};

template <>
struct FormatCodec<Format::kMsgpack> {
  using Writer = MsgpackWriter;
  template <class S>
  static bool Read(Context& ctx, S& sink, std::string_view input, size_t) {
    return MsgpackReader<S>(ctx, sink).Read(input);
  }
};

// The formats with a FormatCodec, numbered 1..N: the formats that need a schema come after
// them (checked below), so a format number minus one indexes the pair table.
inline constexpr std::array kCodecFormats = {Format::kJson, Format::kCbor, Format::kMsgpack};

constexpr bool CodecFormatsAreTheSchemalessOnes() {
  for (size_t i = 0; i < kFormatTable.size(); ++i) {
    const bool has_codec = i < kCodecFormats.size();
    if (has_codec && (kCodecFormats[i] != kFormatTable[i].format ||
                      static_cast<size_t>(kCodecFormats[i]) != i + 1)) {
      return false;
    }
    if (has_codec == kFormatTable[i].needs_schema) return false;
  }
  return true;
}
static_assert(
    CodecFormatsAreTheSchemalessOnes(),
    "every format without a schema has a FormatCodec, in the registry's order, numbered from 1");

namespace read_any_detail {
template <class S, size_t... I>
bool Read(Format from, Context& ctx, S& sink, std::string_view input, size_t padding,
          std::index_sequence<I...>) {
  bool ok = false;
  static_cast<void>(
      ((from == kCodecFormats[I] &&
        (ok = FormatCodec<kCodecFormats[I]>::template Read<S>(ctx, sink, input, padding), true)) ||
       ...));
  return ok;
}
}  // namespace read_any_detail

// Reads `input` in format `from` (one of kCodecFormats) into sink.
template <class S>
bool ReadAny(Format from, Context& ctx, S& sink, std::string_view input, size_t padding) {
  return read_any_detail::Read(from, ctx, sink, input, padding,
                               std::make_index_sequence<kCodecFormats.size()>());
}

}  // namespace rosetta::codec
