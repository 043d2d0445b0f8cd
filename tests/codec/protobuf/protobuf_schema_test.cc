// Schema::Load (FileDescriptorSet files and directories), the per-field tables the reader
// and writer use, and how Transcode picks the message type.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include "protobuf/protobuf_schema.h"
#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;
namespace pb = google::protobuf;

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/rosetta_schema_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& bytes) const {
    std::string full = path_ + "/" + name;
    std::ofstream(full, std::ios::binary) << bytes;
    return full;
  }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The protobuf format runs through the request's schema: with none it is
// unknown_message_type, with one it works; nothing process-wide to enable.
TEST(ProtobufFormatTest, RunsThroughTheRequestsSchema) {
  std::string error;
  std::unique_ptr<Schema> schema = Schema::Load({DescriptorSetPath()}, &error);
  ASSERT_NE(schema, nullptr) << error;
  TranscodeRequest r;
  r.from = Format::kJson;
  r.to = Format::kProtobuf;
  r.input = "{}";
  r.message_type = kTest;
  OutputBuffer out;
  Status s = Transcode(r, out);
  EXPECT_EQ(CodeName(s.code), "unknown_message_type") << s.message;
  EXPECT_EQ(s.message, "the protobuf format needs a descriptor set (--descriptor-set)");
  r.from = Format::kProtobuf;
  r.to = Format::kJson;
  EXPECT_EQ(CodeName(Validate(r).code), "unknown_message_type");
  r.schema = schema.get();
  r.input = "";  // the empty message
  EXPECT_TRUE(Validate(r).ok());
  EXPECT_TRUE(Transcode(r, out).ok());
  EXPECT_EQ(out.view(), "{}");
}

TEST(SchemaLoadTest, LoadsEveryMessageOfTheSetAndTheWellKnownTypes) {
  std::vector<std::string> names = TestSchema().MessageNames();
  for (const char* name :
       {"rosetta.test.Test",           "rosetta.test.Scalars",        "rosetta.test.Item",
        "rosetta.test.Repeateds",      "rosetta.test.Maps",           "rosetta.test.WellKnown",
        "rosetta.test.LogRecord",      "rosetta.test.LogBatch",       "google.protobuf.Timestamp",
        "google.protobuf.Duration",    "google.protobuf.DoubleValue", "google.protobuf.FloatValue",
        "google.protobuf.Int64Value",  "google.protobuf.UInt64Value", "google.protobuf.Int32Value",
        "google.protobuf.UInt32Value", "google.protobuf.BoolValue",   "google.protobuf.StringValue",
        "google.protobuf.BytesValue",  "google.protobuf.Struct",      "google.protobuf.Value",
        "google.protobuf.ListValue",   "google.protobuf.FieldMask",   "google.protobuf.Empty",
        "google.protobuf.Any"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(SchemaLoadTest, FindsByFullNameWithOrWithoutLeadingDot) {
  EXPECT_NE(TestSchema().Find("rosetta.test.Test"), nullptr);
  EXPECT_EQ(TestSchema().Find(".rosetta.test.Test"), TestSchema().Find("rosetta.test.Test"));
  EXPECT_EQ(TestSchema().Find("Test"), nullptr);
  EXPECT_EQ(TestSchema().Find("rosetta.test.Nope"), nullptr);
  EXPECT_EQ(TestSchema().Find(""), nullptr);
}

TEST(SchemaLoadTest, FindsNestedTypesAndMapEntries) {
  EXPECT_NE(TestSchema().Find("rosetta.test.Maps.StringStringEntry"), nullptr);
}

TEST(SchemaLoadTest, MissingFileIsAnError) {
  std::string error;
  EXPECT_EQ(Schema::Load({"/nonexistent/set.pb"}, &error), nullptr);
  EXPECT_NE(error.find("cannot read descriptor set /nonexistent/set.pb"), std::string::npos)
      << error;
}

TEST(SchemaLoadTest, FileThatIsNotADescriptorSetIsAnError) {
  TempDir dir;
  std::string path = dir.Write("garbage.pb", "\xff\xff\xff not a descriptor set");
  std::string error;
  EXPECT_EQ(Schema::Load({path}, &error), nullptr);
  EXPECT_NE(error.find("is not a FileDescriptorSet"), std::string::npos) << error;
}

TEST(SchemaLoadTest, SetWithoutItsImportsIsAnErrorThatNamesTheFix) {
  pb::FileDescriptorSet set;
  ASSERT_TRUE(set.ParseFromString(ReadAll(DescriptorSetPath())));
  pb::FileDescriptorSet own;  // test.proto alone, as protoc writes it without --include_imports
  for (const auto& file : set.file()) {
    if (file.name() == "test.proto") *own.add_file() = file;
  }
  ASSERT_EQ(own.file_size(), 1);
  // Its imports are the well-known types, which libprotobuf itself provides: it loads.
  TempDir dir;
  std::string error;
  EXPECT_NE(Schema::Load({dir.Write("own.pb", own.SerializeAsString())}, &error), nullptr) << error;
  // An import nobody provides is an error that says to use --include_imports.
  own.mutable_file(0)->add_dependency("missing/elsewhere.proto");
  EXPECT_EQ(Schema::Load({dir.Write("broken.pb", own.SerializeAsString())}, &error), nullptr);
  EXPECT_NE(error.find("--include_imports"), std::string::npos) << error;
  EXPECT_NE(error.find("missing/elsewhere.proto"), std::string::npos)
      << error;  // libprotobuf's reason
}

TEST(SchemaLoadTest, LoadsADirectoryOfSetsSkippingHiddenFiles) {
  TempDir dir;
  dir.Write("test.pb", ReadAll(DescriptorSetPath()));
  dir.Write(".hidden", "not a descriptor set");
  mkdir((dir.path() + "/subdir").c_str(), 0700);
  std::string error;
  std::unique_ptr<Schema> schema = Schema::Load({dir.path()}, &error);
  ASSERT_NE(schema, nullptr) << error;
  EXPECT_NE(schema->Find("rosetta.test.Test"), nullptr);
}

TEST(SchemaLoadTest, TheSameSetTwiceLoads) {
  std::string error;
  std::unique_ptr<Schema> schema = Schema::Load({DescriptorSetPath(), DescriptorSetPath()}, &error);
  ASSERT_NE(schema, nullptr) << error;
  EXPECT_NE(schema->Find("rosetta.test.Test"), nullptr);
}

TEST(SchemaTablesTest, JsonNamesAndDeclaredNamesBothFindAField) {
  const MessageInfo& test = *TestSchema().Find("rosetta.test.Test");
  const FieldInfo* renamed = test.FieldByName("customName");
  ASSERT_NE(renamed, nullptr);
  EXPECT_EQ(renamed, test.FieldByName("renamed"));
  EXPECT_EQ(renamed->json_name, "customName");
  EXPECT_EQ(test.FieldByName("fieldName5"), test.FieldByName("field_name5"));
  EXPECT_EQ(test.FieldByName("fieldName5")->json_name, "fieldName5");
  EXPECT_EQ(test.FieldByName("FieldName5"), nullptr);
}

TEST(SchemaTablesTest, FieldNumbersSmallAndLarge) {
  const MessageInfo& test = *TestSchema().Find("rosetta.test.Test");
  ASSERT_NE(test.FieldByNumber(536870911), nullptr);
  EXPECT_EQ(test.FieldByNumber(536870911)->name, "large_number");
  ASSERT_NE(test.FieldByNumber(5000), nullptr);
  EXPECT_EQ(test.FieldByNumber(5000)->name, "far_number");
  EXPECT_EQ(test.FieldByNumber(1)->name, "scalars");
  EXPECT_EQ(test.FieldByNumber(8), nullptr);
  EXPECT_EQ(test.FieldByNumber(0), nullptr);
  EXPECT_EQ(test.FieldByNumber(1023), nullptr);
  EXPECT_EQ(test.FieldByNumber(1024), nullptr);
}

TEST(SchemaTablesTest, PresenceFollowsProto3) {
  const MessageInfo& test = *TestSchema().Find("rosetta.test.Test");
  EXPECT_TRUE(test.FieldByName("optInt32")->has_presence);      // proto3 optional
  EXPECT_TRUE(test.FieldByName("choiceString")->has_presence);  // oneof member
  EXPECT_TRUE(test.FieldByName("scalars")->has_presence);       // message
  EXPECT_FALSE(test.FieldByName("renamed")->has_presence);      // plain scalar
  EXPECT_FALSE(test.FieldByName("items")->has_presence);        // repeated
  EXPECT_EQ(test.FieldByName("optInt32")->oneof_index,
            -1);  // its synthetic oneof is not a real one
  EXPECT_GE(test.FieldByName("choiceString")->oneof_index, 0);
  EXPECT_EQ(test.FieldByName("choiceString")->oneof_index,
            test.FieldByName("choiceItem")->oneof_index);
}

TEST(SchemaTablesTest, PackingAndWireTypes) {
  const MessageInfo& rep = *TestSchema().Find("rosetta.test.Repeateds");
  EXPECT_TRUE(rep.FieldByName("pInt32")->packed);
  EXPECT_TRUE(rep.FieldByName("pInt32")->packable);
  EXPECT_FALSE(rep.FieldByName("uInt32")->packed);
  EXPECT_TRUE(rep.FieldByName("uInt32")->packable);
  EXPECT_FALSE(rep.FieldByName("rString")->packable);
  EXPECT_EQ(rep.FieldByName("pDouble")->wire_type, kI64);
  EXPECT_EQ(rep.FieldByName("pFloat")->wire_type, kI32);
  EXPECT_EQ(rep.FieldByName("pSfixed64")->wire_type, kI64);
  EXPECT_EQ(rep.FieldByName("pSint32")->wire_type, kVarint);
  EXPECT_EQ(rep.FieldByName("rItem")->wire_type, kLen);
}

TEST(SchemaTablesTest, MapsAndWellKnownTypesAreClassified) {
  const MessageInfo& maps = *TestSchema().Find("rosetta.test.Maps");
  EXPECT_TRUE(maps.FieldByName("stringItem")->is_map);
  const MessageInfo& wkt = *TestSchema().Find("rosetta.test.WellKnown");
  EXPECT_EQ(wkt.FieldByName("timestamp")->message->well_known, WellKnown::kTimestamp);
  EXPECT_EQ(wkt.FieldByName("any")->message->well_known, WellKnown::kAny);
  EXPECT_EQ(wkt.FieldByName("uint64Value")->message->well_known, WellKnown::kUInt64Value);
  EXPECT_TRUE(wkt.FieldByName("nullValue")->enum_info->is_null_value);
  EXPECT_EQ(TestSchema().Find("rosetta.test.Item")->well_known, WellKnown::kNone);
}

TEST(SchemaTranscodeTest, UnknownMessageTypeIsRefusedBothWays) {
  EXPECT_PB_REFUSED(FromJson("{}", "rosetta.test.Nope"), "unknown_message_type", 0, "");
  EXPECT_PB_REFUSED(ToJson("", "rosetta.test.Nope"), "unknown_message_type", 0, "");
  EXPECT_PB_REFUSED(Check(Format::kProtobuf, "", "rosetta.test.Nope"), "unknown_message_type", 0,
                    "");
  EXPECT_PB_REFUSED(ToJson("", ""), "unknown_message_type", 0, "");
}

TEST(SchemaTranscodeTest, NoSchemaIsUnknownMessageType) {
  TestSchema();  // enables the format
  TranscodeRequest r;
  r.from = Format::kProtobuf;
  r.to = Format::kJson;
  r.message_type = kTest;
  OutputBuffer out;
  Status s = Transcode(r, out);
  EXPECT_EQ(s.code, ErrorCode::kUnknownMessageType) << s.message;
  EXPECT_NE(s.message.find("descriptor set"), std::string::npos) << s.message;
}

TEST(SchemaTranscodeTest, LeadingDotInTheMessageTypeIsAccepted) {
  EXPECT_PB_OUTPUT(ToJson(Wire("renamed: 1"), ".rosetta.test.Test"), R"({"customName":1})");
}

TEST(SchemaTranscodeTest, AWellKnownTypeCanBeTheRoot) {
  EXPECT_PB_OUTPUT(
      ToJson(Wire("seconds: 1", "google.protobuf.Timestamp"), "google.protobuf.Timestamp"),
      R"("1970-01-01T00:00:01Z")");
  Result r = FromJson(R"("1970-01-01T00:00:01Z")", "google.protobuf.Timestamp");
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(ToHex(r.out), "08 01");
}

TEST(SchemaTranscodeTest, InputTooLargeComesFirst) {
  Limits l;
  l.max_input_bytes = 2;
  EXPECT_PB_REFUSED(ToJson(Wire("renamed: 1000"), kTest, {}, l), "input_too_large", 2, "");
}

}  // namespace
}  // namespace rosetta::codec
