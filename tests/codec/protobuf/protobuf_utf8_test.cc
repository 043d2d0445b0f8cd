// Every string a protobuf payload carries is UTF-8-checked on every path, as libprotobuf
// parses it: a string field read once, given twice (the last wins, the first is still
// parsed), replaced by another member of its oneof, a map key given twice in its entry, and
// the strings of the well-known types (Struct keys, Value.string_value, ListValue members,
// Any.type_url, FieldMask.paths, StringValue). The cases are made by walking the message
// descriptors, so a new string-bearing field is covered without a new test.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/stubs/logging.h>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;
namespace pb = google::protobuf;

// Invalid UTF-8 of four kinds: a lone continuation byte, a truncated sequence, an overlong
// form and an encoded surrogate.
const char* const kInvalid[] = {"\xb4ma\x00", "a\xe2\x82", "\xc0\xaf", "x\xed\xa0\x80"};

struct Case {
  std::string wire;
  uint64_t bad_at;   // where the invalid string's bytes start
  std::string what;  // e.g. "google.protobuf.Value.string_value given twice"
};

// One valid encoding of field f's default value (to set another member of a oneof).
std::string DefaultOf(const pb::FieldDescriptor* f) {
  using T = pb::FieldDescriptor;
  switch (f->type()) {
    case T::TYPE_DOUBLE:
    case T::TYPE_FIXED64:
    case T::TYPE_SFIXED64:
      return Fixed64Field(f->number(), 0);
    case T::TYPE_FLOAT:
    case T::TYPE_FIXED32:
    case T::TYPE_SFIXED32:
      return Fixed32Field(f->number(), 0);
    case T::TYPE_STRING:
    case T::TYPE_BYTES:
    case T::TYPE_MESSAGE:
      return LenField(f->number(), "");
    default:
      return VarintField(f->number(), 0);
  }
}

// Payloads of message d that carry exactly one invalid UTF-8 string, each with that
// string's offset. Message fields are followed `depth` levels down.
void Walk(const pb::Descriptor* d, int depth, std::vector<Case>& out,
          std::set<std::string>& fields) {
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    const uint32_t n = static_cast<uint32_t>(f->number());
    if (f->type() == pb::FieldDescriptor::TYPE_STRING) {
      fields.insert(f->full_name());
      for (const char* bad : kInvalid) {
        const std::string once = LenField(n, bad);
        const uint64_t head = once.size() - std::string_view(bad).size();
        out.push_back({once, head, f->full_name() + " once"});
        if (f->is_repeated()) {
          const std::string ok = LenField(n, "ok");
          out.push_back({ok + once, ok.size() + head, f->full_name() + " after a valid element"});
        } else {
          out.push_back(
              {once + LenField(n, "ok"), head, f->full_name() + " given twice, the last valid"});
        }
        if (const pb::OneofDescriptor* oneof = f->real_containing_oneof()) {
          for (int k = 0; k < oneof->field_count(); ++k) {
            if (oneof->field(k) == f) continue;
            out.push_back({once + DefaultOf(oneof->field(k)), head,
                           f->full_name() + " replaced by " + oneof->field(k)->name()});
          }
        }
      }
    } else if (f->type() == pb::FieldDescriptor::TYPE_MESSAGE && depth > 0) {
      std::vector<Case> inner;
      Walk(f->message_type(), depth - 1, inner, fields);
      for (Case& c : inner) {
        const std::string wrapped = LenField(n, c.wire);
        const uint64_t head = wrapped.size() - c.wire.size();
        out.push_back({wrapped, head + c.bad_at, c.what + " in " + f->full_name()});
        // A message given twice merges: the bad string in its first occurrence still counts.
        if (!f->is_map()) {
          out.push_back({wrapped + LenField(n, ""), head + c.bad_at,
                         c.what + " in " + f->full_name() + " given twice"});
        }
      }
    }
  }
}

void ExpectEveryCaseRefused(std::string_view type, const std::vector<Case>& cases) {
  pb::LogSilencer quiet;  // libprotobuf logs every string it refuses
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what + ": " + ToHex(c.wire));
    auto message = NewMessage(type);
    ASSERT_FALSE(message->ParseFromString(c.wire))
        << "libprotobuf accepts this: the case proves nothing";
    for (Format to : {Format::kJson, Format::kCbor, Format::kMsgpack, Format::kProtobuf}) {
      Result r = Convert(Format::kProtobuf, to, c.wire, type);
      EXPECT_EQ(CodeName(r.status.code), "invalid_utf8")
          << FormatName(to) << ": " << r.status.message;
      EXPECT_EQ(r.status.offset, c.bad_at) << FormatName(to) << ": " << r.status.message;
    }
    Result v = Check(Format::kProtobuf, c.wire, type);
    EXPECT_EQ(CodeName(v.status.code), "invalid_utf8") << v.status.message;
    EXPECT_EQ(v.status.offset, c.bad_at) << v.status.message;
  }
}

TEST(ProtobufUtf8Test, EveryStringOfEveryWellKnownTypeIsChecked) {
  std::vector<Case> cases;
  std::set<std::string> fields;
  // WellKnown holds one field of each well-known type; Struct -> Value -> ListValue -> Value
  // -> Struct is five levels.
  Walk(Pool().FindMessageTypeByName("rosetta.test.WellKnown"), 6, cases, fields);
  for (const char* name :
       {"google.protobuf.Value.string_value", "google.protobuf.Struct.FieldsEntry.key",
        "google.protobuf.Any.type_url", "google.protobuf.FieldMask.paths",
        "google.protobuf.StringValue.value"}) {
    EXPECT_TRUE(fields.count(name)) << name << " was not reached by the walk";
  }
  // Value.string_value inside a ListValue inside a Struct inside a Value: present.
  bool nested_list = false;
  for (const Case& c : cases) {
    nested_list |=
        c.what.find("string_value once in google.protobuf.ListValue.values") != std::string::npos &&
        c.what.find("google.protobuf.Struct.FieldsEntry.value") != std::string::npos;
  }
  EXPECT_TRUE(nested_list);
  EXPECT_GT(cases.size(), 1000u);
  RecordProperty("cases", static_cast<int>(cases.size()));
  ExpectEveryCaseRefused("rosetta.test.WellKnown", cases);
}

TEST(ProtobufUtf8Test, EveryStringOfEveryOtherMessageIsChecked) {
  std::vector<Case> cases;
  std::set<std::string> fields;
  // Test's own fields and those of Scalars, Repeateds, Maps (string keys and values), Item
  // and the oneof; WellKnown is covered above.
  const pb::Descriptor* test = Pool().FindMessageTypeByName(std::string(kTest));
  for (int i = 0; i < test->field_count(); ++i) {
    const pb::FieldDescriptor* f = test->field(i);
    if (f->message_type() && f->message_type()->full_name() == "rosetta.test.WellKnown") continue;
    if (f->message_type() && f->message_type()->full_name() == "rosetta.test.Test") continue;
    std::vector<Case> inner;
    if (f->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      Walk(f->message_type(), 3, inner, fields);
      for (Case& c : inner) {
        const std::string wrapped = LenField(static_cast<uint32_t>(f->number()), c.wire);
        cases.push_back(
            {wrapped, wrapped.size() - c.wire.size() + c.bad_at, c.what + " in " + f->full_name()});
      }
    }
  }
  // Test's own string fields (choice_string in the oneof, opt_string, field_name5): only
  // the non-message fields of Test itself.
  std::vector<Case> own;
  Walk(test, 0, own, fields);
  cases.insert(cases.end(), own.begin(), own.end());
  for (const char* name :
       {"rosetta.test.Scalars.f_string", "rosetta.test.Item.name", "rosetta.test.Item.tags",
        "rosetta.test.Repeateds.r_string", "rosetta.test.Maps.StringStringEntry.key",
        "rosetta.test.Maps.StringStringEntry.value", "rosetta.test.Maps.Int32StringEntry.value",
        "rosetta.test.Test.choice_string", "rosetta.test.Test.opt_string",
        "rosetta.test.Test.field_name5"}) {
    EXPECT_TRUE(fields.count(name)) << name << " was not reached by the walk";
  }
  EXPECT_GT(cases.size(), 200u);
  RecordProperty("cases", static_cast<int>(cases.size()));
  ExpectEveryCaseRefused(kTest, cases);
}

// rosetta.fuzz.Root (tests/fuzz/fuzz_schema.proto), loaded by rosetta and by libprotobuf.
struct FuzzSchema {
  FuzzSchema() {
    std::string error;
    schema = Schema::Load({ROSETTA_FUZZ_DESCRIPTOR_SET}, &error);
    EXPECT_TRUE(schema) << error;
    std::ifstream in(ROSETTA_FUZZ_DESCRIPTOR_SET, std::ios::binary);
    pb::FileDescriptorSet set;
    EXPECT_TRUE(set.ParseFromString(std::string(std::istreambuf_iterator<char>(in), {})));
    for (const auto& file : set.file()) {
      if (!pool.FindFileByName(file.name())) pool.BuildFile(file);
    }
  }
  std::unique_ptr<Schema> schema;
  pb::DescriptorPool pool;
  pb::DynamicMessageFactory factory{&pool};
};

TEST(ProtobufUtf8Test, FuzzFindingValueStringGivenTwice) {
  // CI's fuzz_protobuf_reader (tests/fuzz/regressions/fuzz_protobuf_reader/
  // value-string-given-twice-invalid-utf8): Root.value (30) is a Value whose string_value
  // (3) is given twice, first "\xb4ma\0" (a lone continuation byte), then "\0\1". The last
  // wins; the first is still parsed, and libprotobuf refuses it.
  const std::string wire = Hex("f2 01 0a 1a 04 b4 6d 61 00 1a 02 00 01");
  FuzzSchema fuzz;
  ASSERT_TRUE(fuzz.schema);
  pb::LogSilencer quiet;
  std::unique_ptr<pb::Message> message(
      fuzz.factory.GetPrototype(fuzz.pool.FindMessageTypeByName("rosetta.fuzz.Root"))->New());
  ASSERT_FALSE(message->ParseFromString(wire));

  std::string buffer = wire + std::string(kInputPadding, '\0');
  for (int to = -1; to < 4; ++to) {
    TranscodeRequest r;
    r.from = Format::kProtobuf;
    r.to = to < 0
               ? Format::kJson
               : std::array{Format::kJson, Format::kCbor, Format::kMsgpack, Format::kProtobuf}[to];
    r.input = std::string_view(buffer.data(), wire.size());
    r.input_padding = kInputPadding;
    r.schema = fuzz.schema.get();
    r.message_type = "rosetta.fuzz.Root";
    OutputBuffer out;
    const Status s = to < 0 ? Validate(r) : Transcode(r, out);
    EXPECT_EQ(CodeName(s.code), "invalid_utf8") << s.message;
    EXPECT_EQ(s.offset, 5u) << s.message;  // the first string_value's bytes
    EXPECT_EQ(s.path, "/value") << s.message;
  }
}

}  // namespace
}  // namespace rosetta::codec
