// The `fixed` format (codec/src/fixed, docs/formats.md "Fixed records"): layouts and the
// types refused for each reason, the worked example byte for byte, the reader's and the
// writer's refusals, random records through every format and back, fixed -> protobuf
// against libprotobuf's serialization of the same values (a DynamicMessage), and fixed
// records as a sequence. Records are packed here by hand (little-endian, field-number
// order), never by the code under test.
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <gtest/gtest.h>

#include "cbor/cbor_writer.h"
#include "core/context.h"
#include "fixed/fixed_encoder.h"
#include "fixed/fixed_reader.h"
#include "hex.h"
#include "json/json_writer.h"
#include "msgpack/msgpack_writer.h"
#include "protobuf/protobuf_schema.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/sequence.h"
#include "rosetta/codec/transcode.h"

namespace rosetta::codec {
namespace {

namespace pb = google::protobuf;
using ::rosetta::testing::Hex;
using ::rosetta::testing::ToHex;

const Schema& TheSchema() {
  static const Schema* schema = [] {
    std::string error;
    std::unique_ptr<Schema> s = Schema::Load({ROSETTA_FIXED_DESCRIPTOR_SET}, &error);
    if (!s) throw std::runtime_error(error);
    return s.release();
  }();
  return *schema;
}

struct Out {
  Status status;
  std::string out;
};

Out Go(Format from, Format to, std::string_view type, std::string_view input,
       const MappingOptions& options = {}, const Limits& limits = {}) {
  std::string padded(input);
  padded.append(kInputPadding, '\0');
  TranscodeRequest r;
  r.from = from;
  r.to = to;
  r.input = std::string_view(padded.data(), input.size());
  r.input_padding = kInputPadding;
  r.options = options;
  r.limits = limits;
  r.schema = &TheSchema();
  r.message_type = type;
  OutputBuffer out;
  Out o;
  o.status = Transcode(r, out);
  o.out = std::string(out.view());
  return o;
}

Status Check(std::string_view type, std::string_view input) {
  TranscodeRequest r;
  r.from = Format::kFixed;
  r.input = input;
  r.schema = &TheSchema();
  r.message_type = type;
  return Validate(r);
}

// Little-endian packing, by hand.
struct Packer {
  std::string bytes;
  template <class T>
  Packer& Put(T v) {
    static_assert(std::endian::native == std::endian::little);
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
};

constexpr std::string_view kSample = "rosetta.fixedtest.Sample";
constexpr std::string_view kTriangle = "rosetta.fixedtest.Triangle";
constexpr std::string_view kLog = "rosetta.fixedtest.LogRecord";
constexpr std::string_view kSprite = "rosetta.fixedtest.Sprite";
constexpr std::string_view kVec3 = "rosetta.fixedtest.Vec3";

TEST(FixedLayout, RecordSizes) {
  EXPECT_EQ(TheSchema().FixedRecordSize(kSample), 4u + 4 + 1 + 8);
  EXPECT_EQ(TheSchema().FixedRecordSize(kTriangle), 48u);
  EXPECT_EQ(TheSchema().FixedRecordSize(kLog),
            8u + 4 + 4 + 8 + 8 + 1 + 8 + 8 + 4 + 4 + 4 + 4 + 4 + 4 + 8);
  EXPECT_EQ(TheSchema().FixedRecordSize(kSprite), 12u + 4);
  EXPECT_EQ(TheSchema().FixedRecordSize("rosetta.fixedtest.Labeled"), 0u);
  EXPECT_EQ(TheSchema().FixedRecordSize("no.such.Type"), 0u);
}

// docs/formats.md's worked example: Sample {id: 7, temp: 21.5, ok: true, at: -2}.
TEST(FixedLayout, WorkedExampleByteForByte) {
  const std::string record = Hex("07000000 0000ac41 01 feffffffffffffff");
  Out in = Go(Format::kJson, Format::kFixed, kSample, R"({"id":7,"temp":21.5,"ok":true,"at":-2})");
  ASSERT_TRUE(in.status.ok()) << in.status.ToString(true);
  EXPECT_EQ(ToHex(in.out), ToHex(record));
  Out back = Go(Format::kFixed, Format::kJson, kSample, record);
  ASSERT_TRUE(back.status.ok()) << back.status.ToString(true);
  EXPECT_EQ(back.out, R"({"id":7,"temp":21.5,"ok":true,"at":-2})");
  // Members in any order, absent ones zero.
  Out shuffled = Go(Format::kJson, Format::kFixed, kSample, R"({"at":-2,"id":7})");
  EXPECT_EQ(ToHex(shuffled.out), ToHex(Hex("07000000 00000000 00 feffffffffffffff")));
}

TEST(FixedLayout, FieldNumberOrderNotDeclarationOrder) {
  // LogRecord declares latency_ms (5) first; it lies after user_id (4).
  Out r = Go(Format::kJson, Format::kFixed, kLog, R"({"latencyMs":1.5,"ts":1})");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString(true);
  Packer p;
  p.Put<uint64_t>(1).Put<int32_t>(0).Put<uint32_t>(0).Put<uint64_t>(0).Put<double>(1.5);
  EXPECT_EQ(ToHex(r.out.substr(0, p.bytes.size())), ToHex(p.bytes));
}

struct Refusal {
  std::string_view type;
  std::string_view path;
  std::string_view reason;
};

TEST(FixedLayout, TypesWithoutAFixedSizeAreRefusedWithTheFieldsPath) {
  const Refusal cases[] = {
      {"rosetta.fixedtest.Labeled", "/position/label", "string field has no fixed size"},
      {"rosetta.fixedtest.WithBytes", "/b", "bytes field has no fixed size"},
      {"rosetta.fixedtest.WithRepeated", "/v", "repeated field has no fixed size"},
      {"rosetta.fixedtest.WithMap", "/m", "map field has no fixed size"},
      {"rosetta.fixedtest.WithOneof", "/a", "oneof member has no fixed size"},
      {"rosetta.fixedtest.WithOptional", "/a", "optional field has no fixed size"},
      {"rosetta.fixedtest.Loose", "/a", "optional field has no fixed size"},
      {"rosetta.fixedtest.Recursive", "/next", "contains itself"},
      {"rosetta.fixedtest.WithTimestamp", "/at", "JSON form of its own"},
      {"rosetta.fixedtest.Empty", "", "has no fields"},
  };
  for (const Refusal& c : cases) {
    for (Format from : {Format::kJson, Format::kFixed}) {
      const Format to = from == Format::kJson ? Format::kFixed : Format::kJson;
      Out r = Go(from, to, c.type, from == Format::kJson ? "{}" : "\x01");
      EXPECT_EQ(r.status.code, ErrorCode::kUnrepresentable) << c.type;
      EXPECT_EQ(r.status.offset, 0u) << c.type;
      EXPECT_EQ(r.status.path, c.path) << c.type;
      EXPECT_NE(r.status.message.find(c.reason), std::string::npos) << r.status.message;
    }
  }
}

TEST(FixedReader, RefusesBytesTheTypeCannotHold) {
  // ok = 2 at byte 8.
  Status s = Check(kSample, Hex("07000000 0000ac41 02 0000000000000000"));
  EXPECT_EQ(s.code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(s.offset, 8u);
  EXPECT_EQ(s.path, "/ok");
  Out j = Go(Format::kFixed, Format::kJson, kSample, Hex("07000000 0000ac41 ff 0000000000000000"));
  EXPECT_EQ(j.status.code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(j.status.path, "/ok");
  // A closed (proto2) enum: 7 is not a Color; 5 is BLUE.
  Out closed =
      Go(Format::kFixed, Format::kJson, kSprite, Hex("07000000 03000000 04000000 00000000"));
  EXPECT_EQ(closed.status.code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(closed.status.offset, 0u);
  EXPECT_EQ(closed.status.path, "/at/color");
  Out blue = Go(Format::kFixed, Format::kJson, kSprite, Hex("05000000 03000000 04000000 0000803f"));
  EXPECT_EQ(blue.out, R"({"at":{"color":"BLUE","x":3,"y":4},"scale":1.0})");
  EXPECT_EQ(Check(kSprite, Hex("07000000 03000000 04000000 00000000")).code,
            ErrorCode::kSchemaMismatch);
  // An open (proto3) enum: a number it does not name stays a number.
  std::string log(TheSchema().FixedRecordSize(kLog), '\0');
  log[8] = 99;  // level
  Out open = Go(Format::kFixed, Format::kJson, kLog, log);
  ASSERT_TRUE(open.status.ok()) << open.status.ToString(true);
  EXPECT_NE(open.out.find(R"("level":99)"), std::string::npos) << open.out;
  log[8] = 3;
  EXPECT_NE(Go(Format::kFixed, Format::kJson, kLog, log).out.find(R"("level":"WARN")"),
            std::string::npos);
  // The wrong length.
  Out shortr = Go(Format::kFixed, Format::kJson, kSample, Hex("07000000"));
  EXPECT_EQ(shortr.status.code, ErrorCode::kTruncated);
  EXPECT_EQ(shortr.status.offset, 4u);
  Out longr =
      Go(Format::kFixed, Format::kJson, kSample, Hex("07000000 0000ac41 01 feffffffffffffff 00"));
  EXPECT_EQ(longr.status.code, ErrorCode::kTrailingData);
  EXPECT_EQ(longr.status.offset, 17u);
}

TEST(FixedReader, NonFiniteFloatsAsForAnyFloat) {
  Packer p;
  p.Put<uint32_t>(1)
      .Put<float>(std::numeric_limits<float>::quiet_NaN())
      .Put<uint8_t>(0)
      .Put<int64_t>(0);
  Out strict = Go(Format::kFixed, Format::kJson, kSample, p.bytes);
  EXPECT_EQ(strict.status.code, ErrorCode::kUnrepresentable);
  EXPECT_EQ(strict.status.offset, 4u);
  EXPECT_EQ(strict.status.path, "/temp");
  MappingOptions o;
  o.nonfinite_as_null = true;
  EXPECT_EQ(Go(Format::kFixed, Format::kJson, kSample, p.bytes, o).out,
            R"({"id":1,"temp":null,"ok":false,"at":0})");
  Out cbor = Go(Format::kFixed, Format::kCbor, kSample, p.bytes);
  ASSERT_TRUE(cbor.status.ok());
  EXPECT_NE(ToHex(cbor.out).find("f97e00"), std::string::npos);  // the one quiet NaN
}

struct WriterCase {
  std::string_view type;
  std::string_view json;
  ErrorCode code;
  std::string_view path;
};

TEST(FixedWriter, RangesTypesAndUnknownMembers) {
  const WriterCase cases[] = {
      {kLog, R"({"region":1099511627776})", ErrorCode::kUnrepresentable, "/region"},
      {kSample, R"({"id":-1})", ErrorCode::kUnrepresentable, "/id"},
      {kSample, R"({"id":4294967296})", ErrorCode::kUnrepresentable, "/id"},
      {kLog, R"({"shard":-2147483649})", ErrorCode::kUnrepresentable, "/shard"},
      {kLog, R"({"userId":-1})", ErrorCode::kUnrepresentable, "/userId"},
      {kLog, R"({"cpu":1e39})", ErrorCode::kUnrepresentable, "/cpu"},
      {kSample, R"({"id":1.5})", ErrorCode::kSchemaMismatch, "/id"},
      {kSample, R"({"id":"x"})", ErrorCode::kSchemaMismatch, "/id"},
      {kSample, R"({"ok":1})", ErrorCode::kSchemaMismatch, "/ok"},
      {kSample, R"({"id":[1]})", ErrorCode::kSchemaMismatch, "/id"},
      {kSample, R"({"nope":1})", ErrorCode::kSchemaMismatch, "/nope"},
      {kSample, R"([1])", ErrorCode::kSchemaMismatch, "/0"},
      {kSample, R"([{"id":1},[2]])", ErrorCode::kSchemaMismatch, "/1"},
      {kSample, R"(3)", ErrorCode::kSchemaMismatch, ""},
      {kTriangle, R"({"a":1})", ErrorCode::kSchemaMismatch, "/a"},
      {kLog, R"({"level":"LOUD"})", ErrorCode::kSchemaMismatch, "/level"},
      {kLog, R"({"userId":1,"user_id":2})", ErrorCode::kDuplicateKey, "/user_id"},
      {kSample, R"({"id":1,"id":2})", ErrorCode::kDuplicateKey, "/id"},
      {kTriangle, R"({"a":{"x":1,"x":2}})", ErrorCode::kDuplicateKey, "/a/x"},
      {kSprite, R"({"at":{"color":3}})", ErrorCode::kSchemaMismatch, "/at/color"},
  };
  for (const WriterCase& c : cases) {
    Out r = Go(Format::kJson, Format::kFixed, c.type, c.json);
    EXPECT_EQ(r.status.code, c.code) << c.json << ": " << r.status.ToString(true);
    EXPECT_EQ(r.status.path, c.path) << c.json;
  }
  // Accepted: integers as strings and integral doubles, enums by name and number, "NaN",
  // the declared name beside the json_name, null (zero), an unknown member skipped whole
  // with ignore_unknown_fields.
  Out ok = Go(Format::kJson, Format::kFixed, kLog,
              R"({"ts":"18446744073709551615","level":3,"user_id":2.0,"cpu":"NaN","ok":null})");
  ASSERT_TRUE(ok.status.ok()) << ok.status.ToString(true);
  EXPECT_EQ(ToHex(ok.out.substr(0, 16)),
            "ffffffffffffffff"
            "03000000"
            "00000000");
  EXPECT_EQ(ToHex(ok.out.substr(16, 8)), "0200000000000000");
  MappingOptions ignore;
  ignore.ignore_unknown_fields = true;
  Out skipped = Go(Format::kJson, Format::kFixed, kSample,
                   R"({"x":{"y":[1,{"z":2}]},"id":3,"w":"q"})", ignore);
  ASSERT_TRUE(skipped.status.ok()) << skipped.status.ToString(true);
  EXPECT_EQ(ToHex(skipped.out), ToHex(Hex("03000000 00000000 00 0000000000000000")));
  // An absent member is its field's default: a proto2 closed enum's is its first value
  // (0 names no Color), so the record reads back.
  Out sprite = Go(Format::kJson, Format::kFixed, kSprite, "{}");
  ASSERT_TRUE(sprite.status.ok()) << sprite.status.ToString(true);
  EXPECT_EQ(ToHex(sprite.out), ToHex(Hex("01000000 00000000 00000000 00000000")));
  EXPECT_TRUE(Check(kSprite, sprite.out).ok());
  // A root array of objects is that many records.
  Out many = Go(Format::kJson, Format::kFixed, kSample, R"([{"id":1},{"id":2,"ok":true}])");
  ASSERT_TRUE(many.status.ok()) << many.status.ToString(true);
  EXPECT_EQ(ToHex(many.out), ToHex(Hex("01000000 00000000 00 0000000000000000"
                                       "02000000 00000000 01 0000000000000000")));
  // Depth: a Triangle nests two messages.
  Limits shallow;
  shallow.max_depth = 1;
  EXPECT_EQ(
      Go(Format::kFixed, Format::kJson, kTriangle, std::string(48, '\0'), {}, shallow).status.code,
      ErrorCode::kDepthExceeded);
}

// ---- random records through every format and back

struct LogValues {
  uint64_t ts;
  int32_t level;
  uint32_t service;
  uint64_t user_id;
  double latency_ms;
  bool ok;
  int64_t delta, bytes_out;
  uint32_t status;
  float cpu;
  int32_t shard, region, skew;
  uint32_t flags;
  int64_t balance;

  std::string Pack() const {
    Packer p;
    p.Put(ts).Put(level).Put(service).Put(user_id).Put(latency_ms).Put<uint8_t>(ok).Put(delta);
    p.Put(bytes_out).Put(status).Put(cpu).Put(shard).Put(region).Put(skew).Put(flags).Put(balance);
    return p.bytes;
  }
  // libprotobuf's serialization of the same values (proto3: zeros omitted).
  std::string Wire(const pb::Descriptor* d, pb::MessageFactory& factory) const {
    std::unique_ptr<pb::Message> m(factory.GetPrototype(d)->New());
    const pb::Reflection* r = m->GetReflection();
    auto f = [&](const char* name) { return d->FindFieldByName(name); };
    r->SetUInt64(m.get(), f("ts"), ts);
    r->SetEnumValue(m.get(), f("level"), level);
    r->SetUInt32(m.get(), f("service"), service);
    r->SetUInt64(m.get(), f("user_id"), user_id);
    r->SetDouble(m.get(), f("latency_ms"), latency_ms);
    r->SetBool(m.get(), f("ok"), ok);
    r->SetInt64(m.get(), f("delta"), delta);
    r->SetInt64(m.get(), f("bytes_out"), bytes_out);
    r->SetUInt32(m.get(), f("status"), status);
    r->SetFloat(m.get(), f("cpu"), cpu);
    r->SetInt32(m.get(), f("shard"), shard);
    r->SetInt32(m.get(), f("region"), region);
    r->SetInt32(m.get(), f("skew"), skew);
    r->SetUInt32(m.get(), f("flags"), flags);
    r->SetInt64(m.get(), f("balance"), balance);
    return m->SerializeAsString();
  }
};

LogValues RandomLog(std::mt19937_64& rng) {
  auto pick = [&](int bits) -> uint64_t {
    const uint64_t v = rng();
    switch (rng() % 4) {
      case 0:
        return 0;
      case 1:
        return v & 0xff;
      default:
        return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
    }
  };
  auto real = [&]() {
    double d = std::ldexp(static_cast<double>(rng() % 2000001) - 1000000.0,
                          static_cast<int>(rng() % 40) - 20);
    return d == 0 ? 0.0
                  : d;  // never -0.0 (libprotobuf writes it, rosetta's proto3 writer does not)
  };
  LogValues v;
  v.ts = pick(64);
  v.level = static_cast<int32_t>(rng() % 5);
  v.service = static_cast<uint32_t>(pick(32));
  v.user_id = pick(64);
  v.latency_ms = real();
  v.ok = rng() & 1;
  v.delta = static_cast<int64_t>(pick(64));
  v.bytes_out = static_cast<int64_t>(pick(64));
  v.status = static_cast<uint32_t>(pick(32));
  v.cpu = static_cast<float>(real());
  v.shard = static_cast<int32_t>(pick(32));
  v.region = static_cast<int32_t>(pick(32));
  v.skew = static_cast<int32_t>(pick(32));
  v.flags = static_cast<uint32_t>(pick(32));
  v.balance = static_cast<int64_t>(pick(64));
  return v;
}

struct Libprotobuf {
  pb::DescriptorPool pool;
  pb::DynamicMessageFactory factory{&pool};
  Libprotobuf() {
    std::ifstream in(ROSETTA_FIXED_DESCRIPTOR_SET, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    pb::FileDescriptorSet set;
    if (!set.ParseFromString(bytes)) throw std::runtime_error("descriptor set");
    for (const pb::FileDescriptorProto& file : set.file()) {
      if (pool.FindFileByName(file.name()) == nullptr && pool.BuildFile(file) == nullptr)
        throw std::runtime_error("cannot build " + file.name());
    }
  }
};

TEST(FixedRoundTrip, RandomRecordsThroughEveryFormatAndLibprotobuf) {
  Libprotobuf lib;
  const pb::Descriptor* d = lib.pool.FindMessageTypeByName(std::string(kLog));
  ASSERT_NE(d, nullptr);
  std::mt19937_64 rng(20261202);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const LogValues v = RandomLog(rng);
    const std::string record = v.Pack();
    ASSERT_EQ(record.size(), TheSchema().FixedRecordSize(kLog));
    ASSERT_TRUE(Check(kLog, record).ok());
    for (Format via :
         {Format::kJson, Format::kCbor, Format::kMsgpack, Format::kProtobuf, Format::kFixed}) {
      Out there = Go(Format::kFixed, via, kLog, record);
      ASSERT_TRUE(there.status.ok()) << FormatName(via) << ": " << there.status.ToString(true);
      Out back = Go(via, Format::kFixed, kLog, there.out);
      ASSERT_TRUE(back.status.ok()) << FormatName(via) << ": " << back.status.ToString(true);
      ASSERT_EQ(ToHex(back.out), ToHex(record)) << FormatName(via) << " record " << i;
      if (via == Format::kProtobuf) {
        ASSERT_EQ(ToHex(there.out), ToHex(v.Wire(d, lib.factory)));
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

// ---- the compiled encodings against the general path (FixedReader driving the writer)

template <class W>
std::string General(const FixedLayout& layout, const std::string& record, bool* ok) {
  Limits limits;
  MappingOptions options;
  Context ctx(limits, options);
  OutputBuffer out;
  out.Begin(limits.max_output_bytes, &ctx.budget);
  W writer(ctx, out);
  *ok = FixedReader<W>(ctx, writer, layout)
            .Record(reinterpret_cast<const uint8_t*>(record.data()), 0);
  return std::string(out.view());
}

// The general path into format f (1 JSON, 2 CBOR, 3 MessagePack: EncodeFixed's numbers).
std::string GeneralIn(uint8_t f, const FixedLayout& layout, const std::string& record, bool* ok) {
  return f == 1   ? General<JsonWriter>(layout, record, ok)
         : f == 2 ? General<CborWriter>(layout, record, ok)
                  : General<MsgpackWriter>(layout, record, ok);
}

TEST(FixedEncoder, SameBytesAsTheGeneralPath) {
  std::mt19937_64 rng(99);
  int compared = 0, left_to_general = 0;
  int batches = 0;
  for (std::string_view type : {kLog, kTriangle, kSprite, kSample, kVec3}) {
    const FixedLayout& layout = *TheSchema().Find(type)->fixed;
    std::string all, all_want[4];  // every record, and CBOR's and MessagePack's bytes for them
    for (int i = 0; i < 4000; ++i) {
      // Random bytes (every float bit pattern: NaN, infinities, subnormals), with the
      // checked steps made valid.
      std::string record(layout.size, '\0');
      for (char& c : record) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
      for (const FixedStep* s : layout.checks) {
        if (s->kind == FixedKind::kBool) {
          record[s->offset] = static_cast<char>(rng() & 1);
        } else {
          const auto* d = s->enum_info->descriptor;
          const int32_t v = d->value(static_cast<int>(rng() % d->value_count()))->number();
          std::memcpy(&record[s->offset], &v, 4);
        }
      }
      const auto* p = reinterpret_cast<const uint8_t*>(record.data());
      all += record;
      for (uint8_t f : {uint8_t{1}, uint8_t{2}, uint8_t{3}}) {
        bool general_ok = false;
        const std::string want = GeneralIn(f, layout, record, &general_ok);
        OutputBuffer out;
        out.Begin(~uint64_t{0}, nullptr);
        const bool compiled = EncodeFixed(layout, f, p, 1, false, out);
        if (!compiled) {
          // Only for what the general path refuses or treats otherwise (non-finite into JSON).
          ASSERT_EQ(f, 1) << type;
          ASSERT_FALSE(general_ok) << type;
          ++left_to_general;
          continue;
        }
        ASSERT_TRUE(general_ok) << type << " format " << int{f};
        ASSERT_EQ(ToHex(std::string(out.view())), ToHex(want)) << type << " format " << int{f};
        all_want[f] += want;
        ++compared;
      }
    }
    // All 4000 at once (Triangle's and Vec3's records of floats only take
    // FixedEncoding::image, and the records with a float it leaves to the steps go there
    // in the middle of a batch).
    for (uint8_t f : {uint8_t{2}, uint8_t{3}}) {
      OutputBuffer out;
      out.Begin(~uint64_t{0}, nullptr);
      ASSERT_TRUE(
          EncodeFixed(layout, f, reinterpret_cast<const uint8_t*>(all.data()), 4000, false, out));
      EXPECT_TRUE(std::string(out.view()) == all_want[f]) << type << " format " << int{f};
      ++batches;
    }
  }
  EXPECT_EQ(batches, 10);
  EXPECT_GT(compared, 5 * 4000 * 2);
  EXPECT_GT(left_to_general, 0);  // random floats include NaN and infinities
}

// Records of floats only (Triangle) as the mesh benchmark has them, into CBOR and
// MessagePack in batches: first with no float that the image leaves to the steps (every
// batch goes by FixedEncoding::shuffle where the CPU has SSSE3), then with such floats
// (one that fits a half, zeros, infinities, NaN, the largest half) in some records, whose
// batches go record by record. The bytes are the general path's.
TEST(FixedEncoder, FloatRecordsAsTheGeneralPath) {
  const FixedLayout& layout = *TheSchema().Find(kTriangle)->fixed;
  ASSERT_EQ(layout.size, 48u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-1000.0f, 1000.0f);
  const float odd[] = {1.0f, 0.5f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 65504.0f};
  int odd_records = 0;
  for (int round = 0; round < 2; ++round) {
    std::string all, want[4];
    for (int i = 0; i < 3000; ++i) {
      float v[12];
      for (float& x : v) {
        // The lowest mantissa bit set: no half holds it.
        x = std::bit_cast<float>(std::bit_cast<uint32_t>(coord(rng)) | 1u);
      }
      if (round == 1 && i % 37 == 5) {
        v[i % 12] = odd[i % std::size(odd)];
        ++odd_records;
      }
      std::string record(48, '\0');
      std::memcpy(record.data(), v, 48);
      all += record;
      for (uint8_t f : {uint8_t{2}, uint8_t{3}}) {
        bool ok = false;
        want[f] += GeneralIn(f, layout, record, &ok);
        ASSERT_TRUE(ok);
      }
    }
    for (uint8_t f : {uint8_t{2}, uint8_t{3}}) {
      OutputBuffer out;
      out.Begin(~uint64_t{0}, nullptr);
      ASSERT_TRUE(
          EncodeFixed(layout, f, reinterpret_cast<const uint8_t*>(all.data()), 3000, false, out));
      EXPECT_TRUE(std::string(out.view()) == want[f]) << "round " << round << " format " << int{f};
    }
  }
  EXPECT_EQ(odd_records, 81);
}

// Every integer width's edges (and one past them), in every integer field of LogRecord
// at once, one record per edge and all of them in one batch: the compiled steps write each
// as the general path's writers do (their heads are chosen without branches).
TEST(FixedEncoder, IntegerEdgesAsTheGeneralPath) {
  const FixedLayout& layout = *TheSchema().Find(kLog)->fixed;
  const int64_t edges[] = {0,
                           1,
                           23,
                           24,
                           31,
                           32,
                           127,
                           128,
                           255,
                           256,
                           32767,
                           32768,
                           65535,
                           65536,
                           -1,
                           -24,
                           -25,
                           -32,
                           -33,
                           -128,
                           -129,
                           -256,
                           -257,
                           -32768,
                           -32769,
                           -65536,
                           -65537,
                           INT32_MAX,
                           int64_t{INT32_MAX} + 1,
                           INT32_MIN,
                           int64_t{INT32_MIN} - 1,
                           int64_t{UINT32_MAX},
                           int64_t{UINT32_MAX} + 1,
                           INT64_MAX,
                           INT64_MIN,
                           -int64_t{UINT32_MAX},
                           -int64_t{UINT32_MAX} - 2};
  std::string all, want[4];
  int ints = 0;
  for (int64_t edge : edges) {
    std::string record(layout.size, '\0');
    for (const FixedStep& s : layout.steps) {
      if (s.kind == FixedKind::kEnum) record[s.offset] = 1;  // a defined level
      if (s.kind < FixedKind::kInt32 || s.kind > FixedKind::kUint64) continue;
      const bool wide = s.kind == FixedKind::kInt64 || s.kind == FixedKind::kUint64;
      std::memcpy(&record[s.offset], &edge, wide ? 8 : 4);  // little-endian: the low bytes
      ++ints;
    }
    all += record;
    for (uint8_t f : {uint8_t{1}, uint8_t{2}, uint8_t{3}}) {
      bool general_ok = false;
      const std::string expect = GeneralIn(f, layout, record, &general_ok);
      ASSERT_TRUE(general_ok) << edge;
      OutputBuffer out;
      out.Begin(~uint64_t{0}, nullptr);
      ASSERT_TRUE(
          EncodeFixed(layout, f, reinterpret_cast<const uint8_t*>(record.data()), 1, false, out));
      ASSERT_EQ(ToHex(std::string(out.view())), ToHex(expect)) << edge << " format " << int{f};
      want[f] += expect;
    }
  }
  EXPECT_EQ(ints, 11 * static_cast<int>(std::size(edges)));  // LogRecord's integer fields
  for (uint8_t f : {uint8_t{1}, uint8_t{2}, uint8_t{3}}) {
    OutputBuffer out;
    out.Begin(~uint64_t{0}, nullptr);
    ASSERT_TRUE(EncodeFixed(layout, f, reinterpret_cast<const uint8_t*>(all.data()),
                            std::size(edges), false, out));
    EXPECT_TRUE(std::string(out.view()) == want[f]) << "format " << int{f};
  }
}

// ---- fixed records as a sequence

struct Piecewise {
  std::string data;
  size_t piece;
  size_t at = 0;
  static ptrdiff_t Read(void* arg, char* p, size_t n) {
    auto* r = static_cast<Piecewise*>(arg);
    const size_t k = std::min({n, r->piece, r->data.size() - r->at});
    std::memcpy(p, r->data.data() + r->at, k);
    r->at += k;
    return static_cast<ptrdiff_t>(k);
  }
};

struct SeqOut {
  std::string out;
  std::vector<Status> errors;
  SequenceProgress progress;
};

SeqOut Seq(Format from, Format to, std::string_view type, std::string data, size_t piece,
           bool keep_going = false, size_t read_bytes = 64) {
  SeqOut o;
  Piecewise in{std::move(data), piece};
  SequenceRequest r;
  r.record.from = from;
  r.record.to = to;
  r.record.schema = &TheSchema();
  r.record.message_type = type;
  r.keep_going = keep_going;
  r.read = &Piecewise::Read;
  r.read_arg = &in;
  r.read_bytes = read_bytes;
  r.on_error = [](void* arg, const Status& s) { static_cast<SeqOut*>(arg)->errors.push_back(s); };
  r.error_arg = &o;
  OutputBuffer out;
  RunSequence(r, out, &o.progress);
  o.out = std::string(out.view());
  return o;
}

// Fixed into fixed checks every record's bool bytes (all OR-ed together first,
// fixed_transcode.cc): 1,000 records read at once, each record's bool 0 or 1, then one bad
// byte (and a later one) in a different record each time, reported at the first.
TEST(FixedSequence, ABadBoolInAnyOfManyRecordsIsFoundAtItsOffset) {
  constexpr size_t kSize = 17, kRecords = 1000;
  std::string records;
  for (size_t k = 0; k < kRecords; ++k) {
    records += Hex("07000000 0000ac41 00 0000000000000000");
    records[k * kSize + 8] = static_cast<char>(k % 2);
  }
  auto run = [](const std::string& data) {
    return Seq(Format::kFixed, Format::kFixed, kSample, data, data.size(), false, size_t{1} << 20);
  };
  const SeqOut same = run(records);
  EXPECT_TRUE(same.errors.empty());
  EXPECT_EQ(same.out, records);
  int found = 0;
  for (const size_t bad : {size_t{0}, size_t{1}, size_t{499}, kRecords - 1}) {
    for (const int byte : {2, 0x80, 0xff}) {
      std::string broken = records;
      broken[bad * kSize + 8] = static_cast<char>(byte);
      broken[(kRecords - 1 - bad) * kSize + 8] = static_cast<char>(byte == 2 ? 3 : 2);
      const size_t first = std::min(bad, kRecords - 1 - bad);
      const SeqOut o = run(broken);
      ASSERT_EQ(o.errors.size(), 1u) << bad << " " << byte;
      EXPECT_EQ(o.errors[0].code, ErrorCode::kSchemaMismatch);
      EXPECT_EQ(o.errors[0].offset, first * kSize + 8) << bad << " " << byte;
      std::string path = "/";
      path += std::to_string(first);
      path += "/ok";
      EXPECT_EQ(o.errors[0].path, path);
      found += o.errors[0].code == ErrorCode::kSchemaMismatch;
    }
  }
  EXPECT_EQ(found, 12);
}

TEST(FixedSequence, RecordsBackToBackSplitAnywhere) {
  std::mt19937_64 rng(7);
  std::string records, lines;
  for (int i = 0; i < 40; ++i) {
    const std::string rec = RandomLog(rng).Pack();
    records += rec;
    Out j = Go(Format::kFixed, Format::kJson, kLog, rec);
    ASSERT_TRUE(j.status.ok());
    lines += j.out + "\n";
  }
  for (size_t piece : {size_t{1}, size_t{7}, size_t{81}, size_t{100}, size_t{4096}}) {
    SeqOut o = Seq(Format::kFixed, Format::kJson, kLog, records, piece);
    EXPECT_TRUE(o.errors.empty()) << piece;
    EXPECT_EQ(o.out, lines) << piece;
    EXPECT_EQ(o.progress.records, 40u);
    SeqOut back = Seq(Format::kJson, Format::kFixed, kLog, lines, piece);
    EXPECT_EQ(ToHex(back.out), ToHex(records)) << piece;
    SeqOut copy = Seq(Format::kFixed, Format::kFixed, kLog, records, piece);
    EXPECT_EQ(copy.out, records) << piece;
    SeqOut pb = Seq(Format::kFixed, Format::kProtobuf, kLog, records, piece);
    SeqOut pb_back = Seq(Format::kProtobuf, Format::kFixed, kLog, pb.out, piece);
    EXPECT_EQ(pb_back.out, records) << piece;
  }
}

TEST(FixedSequence, BadRecordInTheMiddleAndAShortLastOne) {
  const std::string good = Hex("07000000 0000ac41 01 feffffffffffffff");
  const std::string bad = Hex("08000000 0000ac41 05 feffffffffffffff");
  const std::string in = good + bad + good + good.substr(0, 5);
  SeqOut stop = Seq(Format::kFixed, Format::kJson, kSample, in, 9);
  EXPECT_EQ(stop.out, std::string(R"({"id":7,"temp":21.5,"ok":true,"at":-2})") + "\n");
  ASSERT_EQ(stop.errors.size(), 1u);
  EXPECT_EQ(stop.errors[0].code, ErrorCode::kSchemaMismatch);
  EXPECT_EQ(stop.errors[0].offset, 17u + 8);
  EXPECT_EQ(stop.errors[0].path, "/1/ok");
  SeqOut on = Seq(Format::kFixed, Format::kJson, kSample, in, 9, true);
  EXPECT_EQ(on.out, std::string(R"({"id":7,"temp":21.5,"ok":true,"at":-2})") + "\n" +
                        R"({"id":7,"temp":21.5,"ok":true,"at":-2})" + "\n");
  ASSERT_EQ(on.errors.size(), 2u);
  EXPECT_EQ(on.errors[1].code, ErrorCode::kTruncated);
  EXPECT_EQ(on.errors[1].path, "/3");
  EXPECT_EQ(on.progress.records, 4u);
}

}  // namespace
}  // namespace rosetta::codec
