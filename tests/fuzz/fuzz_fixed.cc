// The fixed format (codec/src/fixed), on the types of tests/codec/fixed/testdata/fixed.proto.
// Byte 0 picks the type (bits 0-1) and the direction (bit 2); bits 3-4 the other format.
//   reader: the rest is fixed records (a sequence: whole records) into JSON, CBOR or
//           MessagePack. The compiled encoding (EncodeFixed) must write what the general
//           path (FixedReader driving the writer) writes, or leave the record to it, one
//           record at a time and all the records in one call (the batched paths: byte
//           shuffles by groups of 16, many records per call of the threaded steps); a
//           record read into CBOR and back must be the same bytes (a NaN's payload aside).
//   writer: the rest is JSON, CBOR or MessagePack into fixed records: whatever is accepted
//           is whole records that validate, and read back and written again the same.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "cbor/cbor_writer.h"
#include "fixed/fixed_encoder.h"
#include "fixed/fixed_reader.h"
#include "fuzz_common.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "protobuf/protobuf_schema.h"
#include "rosetta/codec/schema.h"

namespace {

using namespace rosetta;

const codec::Schema& TheSchema() {
  static const codec::Schema* schema = [] {
    std::string error;
    auto s = codec::Schema::Load({ROSETTA_FUZZ_FIXED_SCHEMA}, &error);
    if (!s) fuzz::Fail("cannot load the fixed schema");
    return s.release();
  }();
  return *schema;
}

constexpr const char* kTypes[] = {"rosetta.fixedtest.LogRecord", "rosetta.fixedtest.Triangle",
                                  "rosetta.fixedtest.Sprite", "rosetta.fixedtest.Sample"};

codec::Status Run(codec::Format from, codec::Format to, const char* type, std::string_view in,
                  codec::OutputBuffer& out, bool records) {
  fuzz::Padded padded(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  codec::TranscodeRequest r;
  r.from = from;
  r.to = to;
  r.input = padded.view(in.size());
  r.input_padding = codec::kInputPadding;
  r.schema = &TheSchema();
  r.message_type = type;
  r.limits = fuzz::ProductionLimits();
  uint64_t end = 0;
  if (records) r.item_end = &end;
  return codec::Transcode(r, out);
}

template <class W>
bool General(const codec::FixedLayout& layout, const uint8_t* p, codec::OutputBuffer& out) {
  codec::Limits limits;
  codec::MappingOptions options;
  codec::Context ctx(limits, options);
  out.Begin(limits.max_output_bytes, &ctx.budget);
  W writer(ctx, out);
  return codec::FixedReader<W>(ctx, writer, layout).Record(p, 0);
}

bool GeneralIn(codec::Format f, const codec::FixedLayout& layout, const uint8_t* p,
               codec::OutputBuffer& out) {
  switch (f) {
    case codec::Format::kJson:
      return General<codec::JsonWriter>(layout, p, out);
    case codec::Format::kCbor:
      return General<codec::CborWriter>(layout, p, out);
    default:
      return General<codec::MsgpackWriter>(layout, p, out);
  }
}

// Equal records, but a float or double that is NaN in both counts as equal.
bool SameRecord(const codec::FixedLayout& layout, const uint8_t* a, const uint8_t* b) {
  if (std::memcmp(a, b, layout.size) == 0) return true;
  for (const codec::FixedStep& s : layout.steps) {
    const size_t w = s.kind == codec::FixedKind::kBool ? 1
                     : s.kind == codec::FixedKind::kInt64 || s.kind == codec::FixedKind::kUint64 ||
                             s.kind == codec::FixedKind::kDouble
                         ? 8
                         : 4;
    if (s.kind == codec::FixedKind::kBegin || s.kind == codec::FixedKind::kEnd) continue;
    if (std::memcmp(a + s.offset, b + s.offset, w) == 0) continue;
    if (s.kind == codec::FixedKind::kFloat) {
      float x, y;
      std::memcpy(&x, a + s.offset, 4);
      std::memcpy(&y, b + s.offset, 4);
      if (std::isnan(x) && std::isnan(y)) continue;
    } else if (s.kind == codec::FixedKind::kDouble) {
      double x, y;
      std::memcpy(&x, a + s.offset, 8);
      std::memcpy(&y, b + s.offset, 8);
      if (std::isnan(x) && std::isnan(y)) continue;
    }
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* type = kTypes[data[0] & 3];
  const bool reader = (data[0] & 4) == 0;
  const auto other = static_cast<codec::Format>(1 + (data[0] >> 3) % 3);
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  const codec::MessageInfo* m = TheSchema().Find(type);
  const codec::FixedLayout& layout = *m->fixed;
  codec::OutputBuffer out, back, general, compiled;
  if (reader) {
    const codec::Status s = Run(codec::Format::kFixed, other, type, in, out, true);
    const size_t records = in.size() / layout.size;
    const auto* p = reinterpret_cast<const uint8_t*>(in.data());
    for (size_t k = 0; k < records && k < 8; ++k) {
      const uint8_t* rec = p + k * layout.size;
      const bool general_ok = GeneralIn(other, layout, rec, general);
      compiled.Begin(~uint64_t{0}, nullptr);
      if (codec::EncodeFixed(layout, static_cast<uint8_t>(other), rec, 1, false, compiled)) {
        if (!general_ok)
          fuzz::Fail("the compiled encoding wrote a record the general path refuses");
        if (compiled.view() != general.view())
          fuzz::Fail("compiled encoding differs from the general path");
      }
      if (general_ok) {
        codec::OutputBuffer cbor, again;
        if (!General<codec::CborWriter>(layout, rec, cbor))
          fuzz::Fail("CBOR refuses what JSON takes");
        const std::string c(cbor.view());
        if (!Run(codec::Format::kCbor, codec::Format::kFixed, type, c, again, false).ok())
          fuzz::Fail("fixed -> CBOR -> fixed refused");
        if (again.size() != layout.size ||
            !SameRecord(layout, rec, reinterpret_cast<const uint8_t*>(again.data())))
          fuzz::Fail("fixed -> CBOR -> fixed changed the record");
      }
    }
    if (records > 1) {
      // Every record in one call: the general path's records back to back.
      std::string expected;
      bool all_ok = true;
      for (size_t k = 0; k < records && all_ok; ++k) {
        all_ok = GeneralIn(other, layout, p + k * layout.size, general);
        expected.append(general.view());
      }
      compiled.Begin(~uint64_t{0}, nullptr);
      if (codec::EncodeFixed(layout, static_cast<uint8_t>(other), p, records, false, compiled)) {
        if (!all_ok) fuzz::Fail("the compiled encoding wrote a batch the general path refuses");
        if (compiled.view() != expected)
          fuzz::Fail("compiled encoding of a batch differs from the general path's records");
      }
    }
    if (s.ok() && records == 0) fuzz::Fail("no whole record, yet no refusal");
  } else {
    const codec::Status s = Run(other, codec::Format::kFixed, type, in, out, false);
    if (!s.ok()) return 0;
    if (out.size() % layout.size != 0) fuzz::Fail("output is not whole records");
    const std::string records(out.view());
    for (size_t at = 0; at < records.size(); at += layout.size) {
      const std::string one = records.substr(at, layout.size);
      if (!Run(codec::Format::kFixed, codec::Format::kCbor, type, one, back, false).ok())
        fuzz::Fail("a record the writer made does not read");
      const std::string c(back.view());
      codec::OutputBuffer again;
      if (!Run(codec::Format::kCbor, codec::Format::kFixed, type, c, again, false).ok() ||
          !SameRecord(layout, reinterpret_cast<const uint8_t*>(one.data()),
                      reinterpret_cast<const uint8_t*>(again.data())))
        fuzz::Fail("a record the writer made changes through CBOR");
    }
  }
  return 0;
}
