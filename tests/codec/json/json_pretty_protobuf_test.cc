// codec/src/protobuf/protobuf_transcode.cc: protobuf into JSON with option `pretty` is
// written by the pretty JSON writer: the layout by hand, and for messages of every kind
// of field (well-known types, maps, Any, Struct) the pretty output reads back as exactly
// the compact one.
#include <string>

#include <gtest/gtest.h>

#include "protobuf_test_support.h"

namespace rosetta::codec::prototest {
namespace {

MappingOptions Pretty() {
  MappingOptions o;
  o.pretty = true;
  return o;
}

// JSON read back and written compact.
std::string Compact(const std::string& json) {
  const Result r = Convert(Format::kJson, Format::kJson, json);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  return r.out;
}

TEST(JsonPrettyProtobuf, LayoutOfAMessage) {
  const std::string wire = Wire(R"(scalars { f_int32: 5 f_string: "x" }
                                   well_known { timestamp { seconds: 1 nanos: 5000000 } }
                                   items { name: "a" tags: "t" tags: "u" })");
  const Result compact = ToJson(wire);
  ASSERT_TRUE(compact.status.ok()) << compact.status.message;
  const Result pretty = ToJson(wire, kTest, Pretty());
  ASSERT_TRUE(pretty.status.ok()) << pretty.status.message;
  EXPECT_EQ(pretty.out,
            "{\n"
            "  \"scalars\": {\n"
            "    \"fInt32\": 5,\n"
            "    \"fString\": \"x\"\n"
            "  },\n"
            "  \"wellKnown\": {\n"
            "    \"timestamp\": \"1970-01-01T00:00:01.005Z\"\n"
            "  },\n"
            "  \"items\": [\n"
            "    {\n"
            "      \"name\": \"a\",\n"
            "      \"tags\": [\n"
            "        \"t\",\n"
            "        \"u\"\n"
            "      ]\n"
            "    }\n"
            "  ]\n"
            "}")
      << compact.out;
  EXPECT_EQ(Compact(pretty.out), compact.out);
}

TEST(JsonPrettyProtobuf, EveryKindOfFieldReadsBackAsTheCompactOutput) {
  const char* const kMessages[] = {
      "",
      R"(scalars { f_double: -2.5 f_float: 0.1 f_int64: -5 f_uint64: 18446744073709551615
                   f_bool: true f_bytes: "\001\002" f_enum: BLUE })",
      R"(repeateds { p_double: 1 p_double: 2 p_int64: 3 })",
      R"(maps { string_string { key: "a" value: "b" } bool_int32 { key: true value: 1 }
                int32_item { key: 7 value { name: "n" child { quantity: 2 } } }
                string_value { key: "v" value { list_value { values { number_value: 1 }
                                                             values { struct_value {} } } } }
                string_timestamp { key: "t" value { seconds: -62135596800 } } })",
      R"(well_known { duration { seconds: 1 nanos: 340012 } double_value { value: 1.5 }
                      struct_value { fields { key: "k" value { null_value: NULL_VALUE } }
                                     fields { key: "e" value { struct_value {} } } }
                      field_mask { paths: "foo_bar" paths: "baz" } empty {}
                      any { [type.googleapis.com/rosetta.test.Item] { name: "i" tags: "x" } }
                      anys { [type.googleapis.com/google.protobuf.Duration] { seconds: 2 } }
                      anys { [type.googleapis.com/google.protobuf.Empty] {} }
                      timestamps { seconds: 1 } timestamps { seconds: 2 nanos: 1000 }
                      int32_values { value: 3 } })",
      R"(items { name: "a" } items {} children { child { children {} } } choice_enum: RED
         opt_int32: 0 renamed: 4)",
  };
  for (const char* text : kMessages) {
    SCOPED_TRACE(text);
    const std::string wire = Wire(text);
    const Result compact = ToJson(wire);
    ASSERT_TRUE(compact.status.ok()) << compact.status.message;
    const Result pretty = ToJson(wire, kTest, Pretty());
    ASSERT_TRUE(pretty.status.ok()) << pretty.status.message;
    EXPECT_EQ(Compact(pretty.out), compact.out);
    EXPECT_EQ(pretty.out.find('\n') != std::string::npos, compact.out != "{}") << pretty.out;
  }
}

}  // namespace
}  // namespace rosetta::codec::prototest
