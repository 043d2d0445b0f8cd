// The validator's own rules beyond the suite: what a violation reports (offset, path,
// keyword location) in each format, the budget a capture is charged to, depth, a schema's
// load errors, and the fuzz findings (tests/fuzz/regressions/fuzz_json_schema).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <malloc.h>

#include "core/context.h"
#include "rosetta/codec/json_schema.h"
#include "rosetta/codec/transcode.h"
#include "rosetta_test_data.h"
#include "schema/compiled.h"
#include "schema/validator.h"

namespace rosetta::codec {
namespace {

std::shared_ptr<const JsonSchemaSet> One(const std::string& text, std::string* error = nullptr) {
  std::string e;
  auto set = JsonSchemaSet::Load({{"s", "s.json", text, "https://test.invalid/s"}}, &e);
  if (error) *error = e;
  return set;
}

Status Check(const JsonSchemaSet& set, Format f, std::string_view input,
             std::vector<Status>* all = nullptr, Limits limits = {}) {
  TranscodeRequest r;
  r.from = f;
  r.input = input;
  r.limits = limits;
  r.json_schema = set.Find("s");
  r.violations = all;
  return Validate(r);
}

// A double's 8 bytes, most significant first, as CBOR's 0xfb and MessagePack's 0xcb carry
// them.
std::string Float64Bytes(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(u >> (56 - 8 * i));
  return s;
}

// A thread's Validator works in the thread's spare buffers; one made while another holds
// them has its own (Validator::Rare). Two alive at once keep their captures apart, and a
// capture that outgrows the spare (kSpareBytes) leaves nothing behind for the next.
TEST(JsonSchema, ValidatorsAliveTogetherKeepTheirBuffersApart) {
  const auto set = One(R"({"type": "array", "uniqueItems": true,
                           "items": {"type": "array", "uniqueItems": true}})");
  ASSERT_TRUE(set);
  const auto* loaded = dynamic_cast<const schema::LoadedSchema*>(set->Find("s"));
  ASSERT_NE(loaded, nullptr);
  const Limits limits;
  const MappingOptions options;
  // [[1, 2], <another Validator runs here>, [1, 2]]: a duplicate; or [3] in its place.
  for (const bool duplicate : {true, false}) {
    Context ctx(limits, options);
    schema::Validator outer(ctx, loaded->set(), loaded->root(), loaded->document(), nullptr, 16);
    ASSERT_TRUE(outer.BeginArray(3));
    ASSERT_TRUE(outer.BeginArray(2));
    ASSERT_TRUE(outer.Uint(1));
    ASSERT_TRUE(outer.Uint(2));
    ASSERT_TRUE(outer.EndArray());
    // The inner one's items are the outer's next item reversed, and equal in pairs.
    EXPECT_EQ(Check(*set, Format::kJson, "[[2, 1], [2, 1]]").code, ErrorCode::kSchemaViolation);
    EXPECT_TRUE(Check(*set, Format::kJson, "[[2, 1], [1, 2], [9, 8, 7]]").ok());
    EXPECT_EQ(Check(*set, Format::kJson, "[[2, 1], [1, 1]]").code, ErrorCode::kSchemaViolation);
    ASSERT_TRUE(outer.BeginArray(2));
    ASSERT_TRUE(outer.Uint(duplicate ? 1 : 3));
    ASSERT_TRUE(outer.Uint(2));
    ASSERT_TRUE(outer.EndArray());
    const bool ended = outer.EndArray();
    const bool valid = outer.Finish();
    EXPECT_EQ(ended && valid, !duplicate) << ctx.status.message;
    EXPECT_EQ(ctx.status.code, duplicate ? ErrorCode::kSchemaViolation : ErrorCode::kOk);
  }
  // More than kSpareBytes of captured items, then small requests on the same thread.
  std::string big = "[";
  for (int i = 0; i < 200000; ++i) {
    big.append(i == 0 ? "[" : ",[").append(std::to_string(i)).append("]");
  }
  big += "]";
  // The heap in use, its mmap'd blocks (a large buffer's) included; 0 under a sanitizer,
  // whose allocator is not malloc's.
  auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  // (Read once with no schema first: the thread's JSON index grows to the input, and keeps
  // that room.)
  TranscodeRequest plain;
  plain.from = Format::kJson;
  plain.input = big;
  ASSERT_TRUE(Validate(plain).ok());
  const size_t before = in_use();
  EXPECT_TRUE(Check(*set, Format::kJson, big).ok());
  EXPECT_LT(in_use(), before + (size_t{1} << 20)) << "the spare kept the capture";
  EXPECT_EQ(Check(*set, Format::kJson, "[[1], [1]]").code, ErrorCode::kSchemaViolation);
  EXPECT_TRUE(Check(*set, Format::kJson, "[[1], [2]]").ok());
}

TEST(JsonSchema, ViolationNamesOffsetPathAndKeyword) {
  auto set = One(R"({"properties":{"a":{"type":"array","items":{"minimum":2}}}})");
  ASSERT_TRUE(set);
  const Status s = Check(*set, Format::kJson, R"({"a": [5, 1]})");
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.offset, 10u);
  EXPECT_EQ(s.path, "/a/1");
  EXPECT_EQ(s.message, "/properties/a/items/minimum: 1 is below the minimum 2");
  // The same document in CBOR: a1 61 61 82 05 01 -> the 1 is at byte 5.
  const Status c = Check(*set, Format::kCbor, std::string("\xa1\x61\x61\x82\x05\x01", 6));
  EXPECT_EQ(c.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(c.offset, 5u);
  EXPECT_EQ(c.path, "/a/1");
  // MessagePack: 81 a1 61 92 05 01.
  const Status m = Check(*set, Format::kMsgpack, std::string("\x81\xa1\x61\x92\x05\x01", 6));
  EXPECT_EQ(m.offset, 5u);
  EXPECT_EQ(m.path, "/a/1");
  // Decimals, which the JSON reader first offers the validator before their conversion
  // (Validator::TakeDecimal): one it declines is judged at its own offset, after a number
  // it settled and after one it declined.
  std::vector<Status> all;
  const Status d = Check(*set, Format::kJson, R"({"a": [5.5, 1.5, 2.5, 0.25]})", &all);
  EXPECT_EQ(d.offset, 12u);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].offset, 12u);
  EXPECT_EQ(all[0].path, "/a/1");
  EXPECT_EQ(all[0].message, "/properties/a/items/minimum: 1.5 is below the minimum 2");
  EXPECT_EQ(all[1].offset, 22u);
  EXPECT_EQ(all[1].path, "/a/3");
}

TEST(JsonSchema, ContainerKeywordsReportTheContainerStart) {
  auto set = One(R"({"properties":{"o":{"required":["x"],"minProperties":2}}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  const Status s = Check(*set, Format::kJson, R"({"o": {"y": 1}})", &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 2u);
  for (const Status& v : all) {
    EXPECT_EQ(v.offset, 6u);
    EXPECT_EQ(v.path, "/o");
  }
  EXPECT_EQ(all[0].message,
            "/properties/o/minProperties: 1 properties, fewer than minProperties 2");
  EXPECT_EQ(all[1].message, "/properties/o/required: missing required property \"x\"");
}

// Branches that on an object only ask for names (Node::name_judged) are judged from the names
// their parent watched; on an array or a scalar they are evaluated as any branch is.
TEST(JsonSchema, NameOnlyBranchesAreJudgedFromTheParentsNames) {
  auto set = One(R"({"oneOf":[{"required":["a"]},{"type":"object","required":["b"]}],
                      "if":{"required":["c"]},"then":{"required":["d"]},
                      "else":{"not":{"required":["e"]}},
                      "properties":{"a":{"type":"integer"}}})");
  ASSERT_TRUE(set);
  auto message = [&](std::string_view json) {
    const Status s = Check(*set, Format::kJson, json);
    return s.ok() ? std::string("ok") : s.message;
  };
  EXPECT_EQ(message(R"({"a": 1})"), "ok");
  EXPECT_EQ(message(R"({"b": 1, "x": 2})"), "ok");
  EXPECT_EQ(message(R"({"a": 1, "b": 2})"),
            "/oneOf: the value matches 2 of the schemas of oneOf, not one");
  EXPECT_EQ(message(R"({"x": 1})"), "/oneOf: the value matches 0 of the schemas of oneOf, not one");
  EXPECT_EQ(message(R"({"a": 1, "c": 2})"), "/then: the value matches if but not then");
  EXPECT_EQ(message(R"({"a": 1, "c": 2, "d": 3})"), "ok");
  EXPECT_EQ(message(R"({"b": 1, "e": 2})"), "/else: the value matches neither if nor else");
  EXPECT_EQ(message(R"({"a": "1"})"), "/properties/a/type: \"1\" is not of type integer");
  // An array or a scalar: required says nothing of it, so the first branch of oneOf
  // matches (the second one's type does not take it).
  EXPECT_EQ(message("[1]"), "ok");
  EXPECT_EQ(message("2"), "ok");
  auto pair = One(R"({"oneOf":[{"required":["a"]},{"required":["b"]}]})");
  ASSERT_TRUE(pair);
  EXPECT_EQ(Check(*pair, Format::kJson, "[1]").message,
            "/oneOf: the value matches 2 of the schemas of oneOf, not one");
  EXPECT_EQ(Check(*pair, Format::kJson, "2").message,
            "/oneOf: 2 matches more than one of the schemas of oneOf");
  EXPECT_TRUE(Check(*pair, Format::kCbor, std::string("\xa1\x61\x62\x01", 4)).ok());
  // Nested: dependentRequired, not, oneOf and type under the branches of anyOf.
  auto nested = One(R"({"anyOf":[{"dependentRequired":{"p":["q"]},"not":{"required":["r"]}},
                                 {"type":"object","required":["s"],
                                  "oneOf":[{"required":["t"]},{"required":["u"]}]}]})");
  ASSERT_TRUE(nested);
  const std::string none = "/anyOf: the value matches none of the 2 schemas of anyOf";
  for (const auto& [json, want] : std::vector<std::pair<std::string, std::string>>{
           {"{}", ""},
           {R"({"p": 1})", none},
           {R"({"p": 1, "q": 2})", ""},
           {R"({"r": 1})", none},
           {R"({"r": 1, "s": 2, "t": 3})", ""},
           {R"({"r": 1, "s": 2, "t": 3, "u": 4})", none},
           // an array: `required` holds, so `not` fails; `type` fails
           {"[]", none}}) {
    EXPECT_EQ(Check(*nested, Format::kJson, json).message, want) << json;
  }
  auto cond = One(R"({"oneOf":[{"if":{"required":["i"]},"then":{"required":["j"]},
                                  "else":{"required":["k"]}},{"required":["z"]}]})");
  ASSERT_TRUE(cond);
  const std::string zero = "/oneOf: the value matches 0 of the schemas of oneOf, not one";
  for (const auto& [json, want] : std::vector<std::pair<std::string, std::string>>{
           {R"({"i": 1, "j": 2})", ""},
           {R"({"i": 1, "k": 2})", zero},
           {R"({"k": 1})", ""},
           {R"({"j": 1})", zero},
           {R"({"k": 1, "z": 2})",
            "/oneOf: the value matches 2 of the schemas of oneOf, not one"}}) {
    EXPECT_EQ(Check(*cond, Format::kJson, json).message, want) << json;
  }
  // Names past the 64 a bit set holds.
  std::string names, members;
  for (int i = 0; i < 70; ++i) {
    std::string name = "n";
    name += std::to_string(i);
    if (i != 0) {
      names.push_back(',');
      members.push_back(',');
    }
    names.append("\"").append(name).append("\"");
    members.append("\"").append(name).append("\":0");
  }
  std::string schema = R"({"anyOf":[{"required":[)";
  schema.append(names).append(R"(]},{"required":["z"]}]})");
  auto wide = One(schema);
  ASSERT_TRUE(wide);
  std::string all = "{";
  all.append(members).append("}");
  EXPECT_TRUE(Check(*wide, Format::kJson, all).ok());
  EXPECT_TRUE(Check(*wide, Format::kJson, R"({"z": 0})").ok());
  std::string short_of_one = "{";
  short_of_one.append(members, 0, members.rfind(',')).append("}");
  const Status missing = Check(*wide, Format::kJson, short_of_one);
  EXPECT_EQ(missing.message, "/anyOf: the value matches none of the 2 schemas of anyOf");
}

// A map whose subschema expands in place (allOf, $ref, branches) gets its evaluations from
// the subschema's ObjectPlan: a false schema among them is reported as it is made, and the
// committed and uncommitted plans judge alike.
TEST(JsonSchema, PlannedMapsReportWhatTheirEvaluationsFind) {
  auto set = One(R"({"properties":{"o":{"allOf":[{"required":["a"]},false]},
                                   "p":{"$ref":"#/$defs/p"}},
                     "anyOf":[{"properties":{"q":{"$ref":"#/$defs/p"}}},{"required":["z"]}],
                     "$defs":{"p":{"allOf":[{"properties":{"n":{"minimum":1}}}],
                                   "oneOf":[{"required":["n"]},{"required":["m"]}]}}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  const Status s = Check(*set, Format::kJson, R"({"o": {}})", &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].message,
            "/properties/o/allOf/1: no value is allowed here (the schema is false)");
  EXPECT_EQ(all[0].offset, 6u);
  EXPECT_EQ(all[1].message, "/properties/o/allOf/0/required: missing required property \"a\"");
  auto message = [&](std::string_view json) {
    const Status r = Check(*set, Format::kJson, json);
    return r.ok() ? std::string("ok") : r.path + " " + r.message;
  };
  EXPECT_EQ(message(R"({"p": {"n": 2}})"), "ok");
  EXPECT_EQ(message(R"({"p": {"n": 0}})"),
            "/p/n /$defs/p/allOf/0/properties/n/minimum: 0 is below the minimum 1");
  EXPECT_EQ(message(R"({"p": {"n": 2, "m": 1}})"),
            "/p /$defs/p/oneOf: the value matches 2 of the schemas of oneOf, not one");
  // Under anyOf (uncommitted): q's plan decides the branch, z rescues it.
  EXPECT_EQ(message(R"({"q": {"m": 1}})"), "ok");
  EXPECT_EQ(message(R"({"q": {"n": 0}})"),
            " /anyOf: the value matches none of the 2 schemas of anyOf");
  EXPECT_EQ(message(R"({"q": {"n": 0}, "z": 1})"), "ok");
}

// A scalar due to a plain subschema (type, bounds, an integer multipleOf, lengths, pattern,
// format, an enum of strings or a string const) is tried inline first; the same subschema under
// allOf is judged the whole way; as a branch of anyOf, a failure of the inline check is its verdict
// unless a string's length or an asserted format was judged. Every pairing of keywords
// and values must get the same verdict all three ways, in both drafts, with format
// asserted or not.
TEST(JsonSchema, PlainScalarChecksAgreeWithTheWholeWay) {
  const std::vector<std::string> keywords = {R"("type":"integer")",
                                             R"("type":"number")",
                                             R"("type":["string","null"])",
                                             R"("type":"boolean")",
                                             R"("minimum":-1)",
                                             R"("maximum":2.5)",
                                             R"("exclusiveMinimum":0)",
                                             R"("exclusiveMaximum":9007199254740993)",
                                             R"("minLength":2)",
                                             R"("maxLength":2)",
                                             R"("pattern":"^a")",
                                             R"("format":"email")",
                                             R"("enum":["a","ab","\u00e9\u00e9"])",
                                             R"("enum":["a",1])",
                                             R"("const":"ab")",
                                             R"("const":1)",
                                             R"("maximum":9007199254740992)",
                                             R"("multipleOf":3)",
                                             R"("multipleOf":2.5)"};
  const std::vector<std::string> values = {"null",
                                           "true",
                                           "0",
                                           "1",
                                           "-1",
                                           "-2",
                                           "1.0",
                                           "2.5",
                                           "2.6",
                                           "-0.5",
                                           "1e300",
                                           "9007199254740993",
                                           "18446744073709551615",
                                           "-9223372036854775808",
                                           "\"\"",
                                           "\"a\"",
                                           "\"ab\"",
                                           "\"abc\"",
                                           "\"\u00e9\u00e9\"",
                                           "\"\u65e5\u672c\u8a9e\"",
                                           "\"a@b.c\"",
                                           "\"b\"",
                                           "3",
                                           "-6",
                                           "7.5",
                                           "0.3"};
  int compared = 0, refused = 0;
  for (const char* draft : {"http://json-schema.org/draft-04/schema#",
                            "https://json-schema.org/draft/2020-12/schema"}) {
    for (size_t i = 0; i < keywords.size(); ++i) {
      for (size_t j = i; j < keywords.size(); ++j) {
        if (std::string(draft).find("draft-04") != std::string::npos &&
            (keywords[i].find("exclusive") != std::string::npos ||
             keywords[j].find("exclusive") != std::string::npos))
          continue;  // draft 4's exclusive* are booleans beside minimum / maximum
        if (j != i && keywords[i].substr(0, keywords[i].find(':')) ==
                          keywords[j].substr(0, keywords[j].find(':')))
          continue;  // one `type` a schema
        std::string body = keywords[i];
        if (j != i) body.append(",").append(keywords[j]);
        // The payload itself, a member and an item of a direct frame (OnScalar's quick
        // path, PassesQuick).
        for (const auto& [open, close, before, after] :
             {std::tuple<std::string, std::string, std::string, std::string>{"", "", "", ""},
              {R"("properties":{"x":{)", "}}", R"({"x":)", "}"},
              {R"("items":{)", "}", "[", "]"}}) {
          std::string plain = R"({"$schema":")";
          plain.append(draft).append(R"(",)").append(open).append(body).append(close).append("}");
          std::string whole = R"({"$schema":")";
          whole.append(draft).append(R"(",)").append(open).append(R"("allOf":[{)");
          whole.append(body).append("}]").append(close).append("}");
          // And as a branch (uncommitted: EvalScalar takes PassesPlain's false as the
          // verdict where it is exact).
          std::string branch = R"({"$schema":")";
          branch.append(draft).append(R"(",)").append(open).append(R"("anyOf":[{)");
          branch.append(body).append("},false]").append(close).append("}");
          auto a = One(plain);
          auto b = One(whole);
          auto c = One(branch);
          ASSERT_TRUE(a && b && c) << plain << " " << whole << " " << branch;
          for (const std::string& value : values) {
            // In JSON, and in CBOR and MessagePack (whose fractions come as doubles, where
            // JSON's decimals come to TakeDecimal first).
            std::vector<std::pair<Format, std::string>> inputs = {
                {Format::kJson, before + value + after}};
            for (Format f : {Format::kCbor, Format::kMsgpack}) {
              TranscodeRequest to;
              to.from = Format::kJson;
              to.to = f;
              to.input = inputs[0].second;
              OutputBuffer out;
              ASSERT_TRUE(Transcode(to, out).ok()) << inputs[0].second;
              inputs.push_back({f, std::string(out.data(), out.size())});
            }
            for (const auto& [format, v] : inputs)
              for (bool asserted : {false, true}) {
                TranscodeRequest r;
                r.from = format;
                r.input = v;
                r.options.format_assertion = asserted;
                r.json_schema = a->Find("s");
                const bool plain_ok = Validate(r).ok();
                r.json_schema = b->Find("s");
                const bool whole_ok = Validate(r).ok();
                r.json_schema = c->Find("s");
                const bool branch_ok = Validate(r).ok();
                EXPECT_EQ(plain_ok, whole_ok)
                    << plain << " " << value << " " << int(format) << " " << asserted;
                EXPECT_EQ(branch_ok, whole_ok)
                    << branch << " " << value << " " << int(format) << " " << asserted;
                ++compared;
                refused += !plain_ok;
              }
          }
        }
      }
    }
  }
  // 2020-12: 190 pairs less 6 of two types, 1 of two enums, 1 of two consts, 1 of two
  // maximums, 1 of two multipleOfs; draft 4: 153 less the same 10. 26 values, 3 formats,
  // 2 settings, 3 places.
  EXPECT_EQ(compared, (180 + 143) * 26 * 3 * 2 * 3);
  EXPECT_GT(refused, compared / 4);
}

// A NaN or an infinity (CBOR's half floats here) has no JSON Schema instance: refused
// where a direct frame's plain subschema would pass any other double at once, as the
// ordinary way refuses it, or read as null with the option nonfinite_as_null.
TEST(JsonSchema, NonFiniteDoublesAreRefusedEverywhere) {
  for (const char* schema : {R"({"items":{"type":"number","maximum":5}})",
                             R"({"items":{"type":"number","maximum":5},"allOf":[true]})",
                             R"({"items":true})", R"({"items":{"type":["number","null"]}})"}) {
    auto set = One(schema);
    ASSERT_TRUE(set) << schema;
    for (const char* x : {"\xf9\x7e\x00", "\xf9\x7c\x00", "\xf9\xfc\x00"}) {
      const std::string input = std::string("\x82\x01") + std::string(x, 3);
      EXPECT_EQ(Check(*set, Format::kCbor, input).code, ErrorCode::kUnrepresentable) << schema;
      TranscodeRequest r;
      r.from = Format::kCbor;
      r.input = input;
      r.json_schema = set->Find("s");
      r.options.nonfinite_as_null = true;
      // (null: a number schema refuses it, the others take it.)
      const bool takes_null = std::string(schema).find("null") != std::string::npos ||
                              std::string(schema).find("true}") != std::string::npos;
      EXPECT_EQ(Validate(r).code, takes_null ? ErrorCode::kOk : ErrorCode::kSchemaViolation)
          << schema;
    }
  }
}

// The schema with "unevaluatedProperties": true at its top, which means the same but makes
// its evaluation track the members it evaluated (so: no lone members, no end table); and
// a message as it is (for CompareReadings).
std::string Tracking(const std::string& schema) {
  std::string tracked = schema;
  tracked.insert(tracked.size() - 1, R"(,"unevaluatedProperties":true)");
  return tracked;
}
std::string Same(std::string message) { return message; }
// The schema with `"allOf": [true]` added at its top: no change of meaning, but an in-place
// keyword, which takes away what a node with none is read by (a scalar union, a direct
// frame's conditional, a direct array's integers).
std::string AllOfTrue(const std::string& schema) {
  std::string other = schema;
  other.insert(other.size() - 1, R"(,"allOf":[true])");
  return other;
}
// The schema {"allOf":[A],"additionalProperties":true}: A read the ordinary way, with an
// evaluation per subschema and a slot per child (additionalProperties keeps a bundle A
// apart: AllOfBundlesJoinTheirParent); and a message less its "/allOf/0" step.
std::string Ordinary(const std::string& schema) {
  std::string wrapped = "{\"allOf\":[";
  wrapped.append(schema).append("],\"additionalProperties\":true}");
  return wrapped;
}
std::string StripAllOf(std::string message) {
  const size_t at = message.find("/allOf/0");
  if (at != std::string::npos) message.erase(at, 8);
  return message;
}

// Each schema in each context (the context's A: where the schema goes, its X: where the
// instance goes) against other(schema), the same schema read another way: every instance
// must get the same violations (code; offset, path and message of each, the other's
// message after strip) either way. Counts the comparisons and the refused instances.
void CompareReadings(const std::vector<std::string>& schemas,
                     const std::vector<std::pair<std::string, std::string>>& contexts,
                     const std::vector<std::string>& instances,
                     const std::function<std::string(const std::string&)>& other,
                     const std::function<std::string(std::string)>& strip, int* compared,
                     int* refused, bool ties_in_any_order = false) {
  for (const std::string& schema : schemas) {
    for (const auto& [context, place] : contexts) {
      const size_t hole = context.find('A');
      std::string one = context, two = context;
      one.replace(hole, 1, schema);
      two.replace(hole, 1, other(schema));
      auto a = One(one);
      auto b = One(two);
      ASSERT_TRUE(a && b) << one;
      for (const std::string& x : instances) {
        std::string instance = place;
        instance.replace(instance.find('X'), 1, x);
        std::vector<Status> one_all, two_all;
        const Status os = Check(*a, Format::kJson, instance, &one_all);
        const Status ts = Check(*b, Format::kJson, instance, &two_all);
        SCOPED_TRACE(one + " " + instance);
        EXPECT_EQ(os.code, ts.code);
        ASSERT_EQ(one_all.size(), two_all.size());
        for (Status& s : two_all) s.message = strip(s.message);
        if (ties_in_any_order) {
          // (Violations at one offset in either order: by path and message.)
          auto order = [](const Status& l, const Status& r) {
            return std::tie(l.offset, l.path, l.message) < std::tie(r.offset, r.path, r.message);
          };
          std::sort(one_all.begin(), one_all.end(), order);
          std::sort(two_all.begin(), two_all.end(), order);
        }
        for (size_t i = 0; i < one_all.size(); ++i) {
          EXPECT_EQ(one_all[i].offset, two_all[i].offset);
          EXPECT_EQ(one_all[i].path, two_all[i].path);
          EXPECT_EQ(one_all[i].message, two_all[i].message);
        }
        ++*compared;
        *refused += !os.ok();
      }
    }
  }
}

// A container due to one subschema with nothing in place, no const and no enum
// (Node::direct_map / direct_array) is read in a direct frame: each member's or item's
// subschema is applied with no slot, and a container child opens its own frame from it,
// direct or not. A direct array with uniqueItems, and a direct frame inside a captured
// value, capture their children (Frame::kCaptured). {"allOf":[A],"additionalProperties":true} is
// the same schema A read the ordinary way, with an evaluation per subschema and a slot per child
// (additionalProperties keeps a bundle A apart: AllOfBundlesJoinTheirParent): every instance must
// get the same violations (offset, path, message less the "/allOf/0" step) either way, where A is
// the payload's schema, a committed member's, a branch's (anyOf, not), or applied as contains or
// unevaluatedProperties.
TEST(JsonSchema, DirectFramesReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string> schemas = {
      R"({"type":"array","minItems":2,"maxItems":3,"prefixItems":[{"type":"number","minimum":-180,"maximum":180},{"type":"number","minimum":-90}],"items":{"type":"number"}})",
      R"({"prefixItems":[{"type":"integer"}],"items":false})",
      R"({"items":{"type":"string","pattern":"^a","maxLength":2}})",
      R"({"prefixItems":[true,{"maximum":10}]})",
      R"({"maxItems":1})",
      R"({"type":"object","items":{"type":"integer"}})",
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":0},"s":{"type":"string","maxLength":3},"o":{"properties":{"x":{"type":"boolean"}},"additionalProperties":false},"l":{"items":{"required":["k"]}}},"required":["n"],"additionalProperties":{"type":"string"}})",
      R"({"propertyNames":{"maxLength":2},"minProperties":1,"maxProperties":2,"dependentRequired":{"a":["b"]}})",
      R"({"additionalProperties":false,"properties":{"a":true,"b":{"type":["array","null"],"prefixItems":[{"type":"object"}],"items":{"anyOf":[{"type":"integer"},{"required":["x"]}]}}}})",
      R"({"type":"array","items":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}})",
      R"({"properties":{"p":{"properties":{"q":{"properties":{"r":{"const":1}}}}},"e":{"enum":[[1],{"a":2}]}}})",
      R"({"uniqueItems":true,"maxItems":4,"items":{"type":["integer","string","object","array"]}})",
      R"({"uniqueItems":true,"minItems":1,"items":{"maximum":3}})",
      R"({"uniqueItems":true,"items":{"properties":{"a":{"items":{"maximum":3}}},"additionalProperties":{"type":"integer"}}})",
      R"({"properties":{"u":{"uniqueItems":true,"minItems":1},"b":{"items":{"uniqueItems":true}}}})",
      R"({"enum":[[{"a":[1]}],[],{"u":[[],{}]}],"items":{"properties":{"a":{"items":{"type":"integer"}}}}})",
      // One patternProperties entry that matches no property's name (Node::one_pattern):
      // direct; the third's matches "ab", so it is read the ordinary way on both sides.
      R"({"patternProperties":{"^[a-z]+$":{"type":"integer","maximum":5}},"additionalProperties":false,"required":["ab"]})",
      R"({"properties":{"A1":{"type":"string"}},"patternProperties":{"^[a-z]":{"items":{"type":"null"}}},"propertyNames":{"maxLength":1},"additionalProperties":{"type":"object"}})",
      R"({"properties":{"ab":{"type":"string"}},"patternProperties":{"^a":{"type":"integer"}}})",
      // Maps of names with no properties (Validator::DirectKeyNames): propertyNames' plain
      // check, then the one pattern's subschema or additionalProperties'.
      R"({"propertyNames":{"pattern":"^[a-z]+$","maxLength":3},"additionalProperties":{"type":"integer"}})",
      R"({"patternProperties":{"^[a-z]$":{"type":"integer"}},"propertyNames":{"minLength":1,"maxLength":2},"additionalProperties":{"type":"string"}})",
  };
  // X: where the instance goes.
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"a":A}})", R"({"a":X})"},
      {R"({"anyOf":[{"properties":{"a":A}},{"required":["z"]}]})", R"({"a":X})"},
      {R"({"not":A})", "X"},
      {R"({"contains":A})", "[X,1]"},
      {R"({"unevaluatedProperties":A})", R"({"a":X})"},
  };
  const std::vector<std::string> instances = {
      "[]",
      "[1]",
      "[1,2]",
      "[1,2,3,4]",
      R"(["a",1])",
      R"([1,{"x":1}])",
      "[[1],2]",
      R"([1,[2,"x"]])",
      "[-200,100,5]",
      R"([null,"ab","abc"])",
      R"([1,{},[],"b"])",
      R"([12,11,{"q":[3]}])",
      "{}",
      R"({"n":1,"s":"ab","o":{"x":true}})",
      R"({"n":-1,"s":"abcd"})",
      R"({"n":1,"o":{"x":1,"y":2}})",
      R"({"n":1,"z":3,"a":1})",
      R"({"n":1,"l":[{"k":1},{},[1]]})",
      R"({"abc":1,"b":2})",
      R"({"b":[{},1,{"x":1},{"y":[]}]})",
      R"({"b":null,"c":1})",
      R"([{"id":1},{"id":"2"},{},3])",
      R"({"p":{"q":{"r":2}},"e":{"a":2}})",
      R"({"p":{"q":{"r":1,"s":[{}]}},"e":[2]})",
      "1",
      R"("x")",
      "[1,1]",
      R"([{"a":[1]},{"a":[1.0]}])",
      R"([{"x":1,"y":2},{"y":2,"x":1},{"x":1}])",
      R"([[1,"a"],[1,"a"],[2]])",
      R"({"u":[[],{},[],1],"b":[[1,2],[3,3],{"a":[4]}]})",
      R"({"Ab":1,"abcd":2,"x":"y","xy":"z","é":3})",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Ordinary, StripAllOf, &compared, &refused);
  EXPECT_EQ(compared, 21 * 6 * 32);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 4);
  // A CBOR bignum (2^64) read back as a number inside a direct frame's array: [1,
  // 2(h'010000000000000000')].
  auto set = One(R"({"items":{"maximum":10}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  const Status s =
      Check(*set, Format::kCbor,
            std::string("\x82\x01\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00", 13), &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/1");
  EXPECT_EQ(all[0].offset, 2u);
  EXPECT_EQ(all[0].message, "/items/maximum: 18446744073709551616 is above the maximum 10");
}

// An array of a Node::leaf_array node (its end settled by its counts) that a direct frame
// or a lone member holds opens with no evaluation (Validator's Frame::kLeaf): its items
// are judged inline, or with the live evaluation above it (a scalar those checks do not
// pass, a container), and the evaluation is made only for an end its counts do not
// pass. Every instance must get what the
// ordinary reading finds (as DirectFramesReportWhatTheOrdinaryWayFinds), for the leaf
// in a direct map, in a direct array (twice), in a branch (anyOf, not), two arrays down,
// and under unevaluatedProperties.
TEST(JsonSchema, LeafArraysReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string> schemas = {
      R"({"type":"array","minItems":2,"maxItems":3,"prefixItems":[{"type":"number","minimum":-180,"maximum":180},{"type":"number","minimum":-90,"maximum":90}],"items":{"type":"number"}})",
      R"({"type":"array","minItems":2,"prefixItems":[{"type":"integer","minimum":0},{"type":"integer","minimum":0}],"items":false})",
      R"({"items":{"type":"string","pattern":"^a","maxLength":2},"maxItems":3})",
      R"({"type":["array","null"],"items":{"type":["integer","null"],"exclusiveMaximum":10}})",
      R"({"items":{"type":"boolean"},"minItems":1})",
      R"({"items":{"type":"number","multipleOf":2}})",
      // Containers as items: a leaf map's, a direct array's, a union's, anything.
      R"({"items":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},"maxItems":2})",
      R"({"prefixItems":[{"type":"integer"},{"items":{"type":"string"}}],"items":{"anyOf":[{"type":"object"},{"type":"null"}]}})",
      R"({"minItems":1})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {R"({"properties":{"a":A}})", R"({"a":X})"},
      {R"({"items":A})", "[X,X]"},
      {R"({"anyOf":[{"properties":{"a":A}},{"required":["z"]}]})", R"({"a":X})"},
      {R"({"not":{"properties":{"a":A}}})", R"({"a":X})"},
      {R"({"properties":{"a":{"items":{"items":A}}}})", R"({"a":[[X],[X,X]]})"},
      {R"({"unevaluatedProperties":{"properties":{"a":A}}})", R"({"b":{"a":X}})"},
  };
  const std::vector<std::string> instances = {
      "[]",
      "[1]",
      "[1,2]",
      "[1,2,3]",
      "[1,2,3,4]",
      "[-200,100]",
      "[0,-1]",
      "[1.5,2]",
      "[1,2e0,3.0]",
      R"(["a",1])",
      R"(["ab","abc","b"])",
      R"([1,{"x":1}])",
      "[[1],2]",
      "[1,[]]",
      "[1,{}]",
      "[null,true,9,10]",
      "[true]",
      "[true,false,1]",
      R"([{"a":1},{"a":"x"}])",
      R"([{"a":1},{},{"a":2}])",
      R"([1,["a",2],{},null,[]])",
      "[18446744073709551616,1]",
      "null",
      "5",
      "{}",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Ordinary, StripAllOf, &compared, &refused);
  EXPECT_EQ(compared, 9 * 6 * 25);
  EXPECT_GT(refused, compared / 2);
  EXPECT_GT(compared - refused, compared / 5);

  // What only CBOR and MessagePack bring into a leaf array: a bignum read back as a number,
  // a byte string read back as its base64url text, a tag on the array (dropped), and
  // max_depth reached by the leaf array itself.
  auto set = One(R"({"properties":{"a":{"items":{"type":"integer","maximum":10},"maxItems":2},
                                   "s":{"items":{"type":"string","maxLength":2}}}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  // {"a":[1, 2(h'010000000000000000'), 3]}: a1 61 61 83 01 c2 49 01 00.. 03
  Status s =
      Check(*set, Format::kCbor,
            std::string("\xa1\x61\x61\x83\x01\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00\x03", 17),
            &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].path, "/a");
  EXPECT_EQ(all[0].offset, 3u);
  EXPECT_EQ(all[0].message, "/properties/a/maxItems: 3 items, more than maxItems 2");
  EXPECT_EQ(all[1].path, "/a/1");
  EXPECT_EQ(all[1].offset, 5u);
  EXPECT_EQ(all[1].message,
            "/properties/a/items/maximum: 18446744073709551616 is above the maximum 10");
  // {"s":["ab", h'ffff']}: the bytes are "__8", 3 characters.
  all.clear();
  s = Check(*set, Format::kCbor, std::string("\xa1\x61\x73\x82\x62\x61\x62\x42\xff\xff", 10), &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/s/1");
  EXPECT_EQ(all[0].offset, 7u);
  EXPECT_EQ(all[0].message,
            "/properties/s/items/maxLength: \"__8\" has 3 characters, more than maxLength 2");
  // {"a": 55799([1, 2])} passes; {"a": 55799([1, 11])} fails at the 11.
  EXPECT_TRUE(
      Check(*set, Format::kCbor, std::string("\xa1\x61\x61\xd9\xd9\xf7\x82\x01\x02", 9)).ok());
  s = Check(*set, Format::kCbor, std::string("\xa1\x61\x61\xd9\xd9\xf7\x82\x01\x0b", 9));
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.path, "/a/1");
  EXPECT_EQ(s.offset, 8u);
  // MessagePack {"a":[1,11]}: 81 a1 61 92 01 0b
  s = Check(*set, Format::kMsgpack, std::string("\x81\xa1\x61\x92\x01\x0b", 6));
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.path, "/a/1");
  EXPECT_EQ(s.offset, 5u);
  // max_depth 1: the map is as deep as it may be; its leaf array is one too deep.
  Limits limits;
  limits.max_depth = 1;
  EXPECT_EQ(Check(*set, Format::kJson, R"({"a":[1]})", nullptr, limits).code,
            ErrorCode::kDepthExceeded);
  limits.max_depth = 2;
  EXPECT_TRUE(Check(*set, Format::kJson, R"({"a":[1]})", nullptr, limits).ok());
}

// A map of a Node::leaf_map node (its members' subschemas found at once, its end settled by
// its counts and required names) that a direct frame, a lone member or another leaf frame
// holds opens with no evaluation (Validator's Frame::kLeafMap): names its member table
// passes at once keep their watched bits in the frame, values are judged inline, empty
// containers pass with no evaluation, a direct frame inside it (a leaf one or not) has the
// live evaluation above it as its owner, and the map's evaluation is made only for a name,
// a value, a container or an end those checks do not pass. Every instance must get what
// the ordinary reading finds (as DirectFramesReportWhatTheOrdinaryWayFinds), for the leaf
// map in a direct map, in a direct array (after another map), in a branch (anyOf, not),
// under two and three leaf maps, under an array of leaf maps, and under
// unevaluatedProperties.
TEST(JsonSchema, LeafMapsReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string> schemas = {
      R"({"type":"object","properties":{"a":{"type":"integer","minimum":0},"b":{"type":"string","maxLength":3},"c":{"type":"boolean"},"d":{"additionalProperties":{"type":"integer"},"maxProperties":1}},"required":["a"]})",
      R"({"properties":{"p":{"properties":{"x":{"type":"number"},"y":{"type":"number","maximum":5}},"required":["x"]},"l":{"items":{"type":"integer"},"maxItems":2},"m":{"type":"object","properties":{"q":{"properties":{"r":{"type":"null"}},"required":["r"]}}}},"additionalProperties":{"type":"string"},"maxProperties":3})",
      R"({"properties":{"a":{"type":"integer"},"b":{"type":["object","array"],"items":{"type":"integer"},"properties":{"k":{"type":"integer"}}}},"additionalProperties":false,"minProperties":1})",
      R"({"type":["object","null"],"properties":{"u":{"uniqueItems":true},"v":{"anyOf":[{"type":"integer"},{"required":["k"]}]},"w":{"type":"object","properties":{"k":{"const":1}}}},"required":["v"]})",
      R"({"properties":{"a_rather_long_member_name_over_32_bytes":{"type":"integer"},"seventeen_bytes_x":{"type":"string"},"a":{"type":"array"}},"required":["seventeen_bytes_x"]})",
      R"({"properties":{"a":{"properties":{"b":{"properties":{"c":{"type":"integer","maximum":1}},"required":["c"]}}},"b":{"type":"string"}},"required":["b"]})",
      // Names with no member: propertyNames' plain check, the one pattern,
      // additionalProperties (false, or a subschema).
      R"({"propertyNames":{"pattern":"^[a-z]+$","maxLength":3},"additionalProperties":{"type":"integer"},"maxProperties":2})",
      R"({"properties":{"A1":{"type":"string"}},"patternProperties":{"^[a-z]":{"type":"integer"}},"propertyNames":{"maxLength":2},"additionalProperties":false})",
      // A required name that is no property: a member with no subschema of its own.
      R"({"properties":{"a":{"type":"integer"}},"required":["b"],"additionalProperties":{"type":"string"}})",
      // No leaf maps: an end with dependentRequired to judge, an if / then judged by
      // members (Node::kCondNode).
      R"({"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"dependentRequired":{"a":["b"]}})",
      R"({"properties":{"a":{"type":"integer"},"b":{}},"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]}})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {R"({"properties":{"a":A}})", R"({"a":X})"},
      {R"({"items":A})", "[X,X]"},
      // (A map at the leaf map's depth before it, with the names the others require.)
      {R"({"items":A})", R"([{"a":1,"b":"s","v":1,"seventeen_bytes_x":"s"},X])"},
      {R"({"anyOf":[{"properties":{"a":A}},{"required":["z"]}]})", R"({"a":X})"},
      {R"({"not":{"properties":{"a":A}}})", R"({"a":X})"},
      {R"({"properties":{"a":{"properties":{"b":A}}}})", R"({"a":{"b":X,"c":1}})"},
      {R"({"properties":{"a":{"items":{"properties":{"b":A}}}}})",
       R"({"a":[{"b":X},{"c":1,"b":X}]})"},
      {R"({"unevaluatedProperties":{"properties":{"a":A}}})", R"({"b":{"a":X}})"},
  };
  const std::vector<std::string> instances = {
      "{}",
      R"({"a":1,"b":"ab","c":true})",
      R"({"c":true,"b":"ab","a":1})",
      R"({"a":-1})",
      R"({"a":2})",
      R"({"a":1,"d":{"x":1},"c":true})",
      R"({"ab":1,"A1":"x","é":2})",
      R"({"Z":1,"ab":2})",
      R"({"ab":"s","x":1,"yz":2,"A1":3})",
      R"({"d":{"x":"s","y":2},"a":1,"b":"abcd"})",
      R"({"a":1,"b":"abcd"})",
      R"({"b":"x"})",
      R"({"a":1,"z":"s"})",
      R"({"a":1,"z":2})",
      R"({"a":1,"a":2})",
      R"({"p":{"x":1,"y":6},"l":[1,2,3]})",
      R"({"p":{"y":1},"l":[1,"x"]})",
      R"({"p":{"x":1},"m":{"q":{"r":null}}})",
      R"({"m":{"q":{"r":1}}})",
      R"({"m":{"q":{}},"p":{"x":1,"x":2}})",
      R"({"p":{},"l":[],"m":{},"n":"s"})",
      R"({"u":[1,1],"v":{"k":1},"w":{"k":2}})",
      R"({"v":{},"w":{"k":1},"u":[]})",
      R"({"a_rather_long_member_name_over_32_bytes":1,"seventeen_bytes_x":"s"})",
      R"({"seventeen_bytes_x":1,"a_rather_long_member_name_over_32_bytes":"q"})",
      R"({"b":[1,"x"],"a":"q"})",
      R"({"b":{"k":1},"a":1})",
      R"({"a":{"b":{"c":1}},"b":"s"})",
      R"({"b":"s","a":{"b":{"c":2}}})",
      R"({"a":{"b":{}},"b":1})",
      R"({"a":{"b":{"c":[1]}}})",
      "null",
      "1",
      "[]",
      R"(["a",{}])",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Ordinary, StripAllOf, &compared, &refused);
  EXPECT_EQ(compared, 11 * 8 * 35);
  EXPECT_GT(refused, compared / 2);
  EXPECT_GT(compared - refused, compared / 10);

  // What only CBOR and MessagePack bring into a leaf map: an integer key (its text), a
  // bignum read back as a number, a byte string read back as its base64url text; and
  // max_depth reached by the leaf map itself.
  auto set = One(R"({"properties":{"m":{"properties":{"1":{"type":"integer","maximum":10},
                                                       "s":{"type":"string","maxLength":2}},
                                         "required":["1"]}}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  // {"m":{1: 2(h'010000000000000000')}}: a1 61 6d a1 01 c2 49 01 00..
  Status s = Check(
      *set, Format::kCbor,
      std::string("\xa1\x61\x6d\xa1\x01\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00", 16), &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/m/1");
  EXPECT_EQ(all[0].offset, 5u);
  EXPECT_EQ(all[0].message,
            "/properties/m/properties/1/maximum: 18446744073709551616 is above the maximum 10");
  // {"m":{1: 3, "s": h'ffff'}}: the bytes are "__8", 3 characters.
  all.clear();
  s = Check(*set, Format::kCbor, std::string("\xa1\x61\x6d\xa2\x01\x03\x61\x73\x42\xff\xff", 11),
            &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].path, "/m/s");
  EXPECT_EQ(all[0].offset, 8u);
  // {"m":{1: 3}} passes; {"m":{"s": "a"}} has no "1".
  EXPECT_TRUE(Check(*set, Format::kCbor, std::string("\xa1\x61\x6d\xa1\x01\x03", 6)).ok());
  s = Check(*set, Format::kMsgpack, std::string("\x81\xa1\x6d\x81\xa1\x73\xa1\x61", 8));
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.path, "/m");
  EXPECT_EQ(s.offset, 3u);
  // max_depth 1: the map is as deep as it may be; its leaf map is one too deep.
  Limits limits;
  limits.max_depth = 1;
  EXPECT_EQ(Check(*set, Format::kJson, R"({"m":{"1":1}})", nullptr, limits).code,
            ErrorCode::kDepthExceeded);
  limits.max_depth = 2;
  EXPECT_TRUE(Check(*set, Format::kJson, R"({"m":{"1":1}})", nullptr, limits).ok());
}

// A direct frame's integer past 2^53 is passed inline by its double when that is within
// the node's sure range (Node::sure_low: the bounds moved inwards by a relative 2^-48),
// and judged exactly otherwise: near each bound, every verdict and message is the
// ordinary reading's. Booleans and nulls are passed inline too.
TEST(JsonSchema, LargeIntegersAreJudgedAsTheOrdinaryWayJudgesThem) {
  const std::vector<std::string> schemas = {
      R"({"type":"integer","maximum":18446744073709551615})",
      R"({"maximum":9007199254740993})",
      R"({"minimum":18014398509481985})",
      R"({"exclusiveMaximum":1e19})",
      R"({"exclusiveMinimum":12345678901234567890})",
      R"({"type":["integer","boolean"],"maximum":1e18,"minimum":-1})",
      R"({"type":["null","number"],"minimum":0})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {R"({"properties":{"a":A}})", R"({"a":X})"},
      {R"({"items":A})", "[X]"},
  };
  const std::vector<std::string> instances = {
      "9007199254740991",
      "9007199254740992",
      "9007199254740993",
      "9007199254740994",
      "18014398509481984",
      "18014398509481985",
      "18014398509481986",
      "999999999999999999",
      "1000000000000000000",
      "1000000000000000001",
      "1000000000000000128",
      "9999999999999999999",
      "10000000000000000000",
      "12345678901234567889",
      "12345678901234567890",
      "12345678901234567891",
      "18446744073709551615",
      "18446744073709551616",
      "true",
      "null",
      "-1",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Ordinary, StripAllOf, &compared, &refused);
  EXPECT_EQ(compared, 7 * 2 * 21);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 4);
  // Each bound's near side: 2^54 + 1 is not below the minimum 2^54 + 1 (as a double,
  // 2^54), 2^53 + 1 is not above the maximum 2^53 + 1 (both 2^53).
  auto min = One(R"({"properties":{"a":{"minimum":18014398509481985}}})");
  ASSERT_TRUE(min);
  EXPECT_TRUE(Check(*min, Format::kJson, R"({"a":18014398509481985})").ok());
  EXPECT_EQ(Check(*min, Format::kJson, R"({"a":18014398509481982})").message,
            "/properties/a/minimum: 18014398509481982 is below the minimum 18014398509481984");
}

// Direct frames that capture (an array with uniqueItems, any direct frame inside a
// captured value) compare maps whatever the order of their members, and numbers by
// value, at every depth (JSON Schema's instance equality).
TEST(JsonSchema, CapturedDirectFramesCompareValuesNotText) {
  auto set = One(
      R"({"uniqueItems":true,"items":{"items":{"properties":{"a":{"items":{"additionalProperties":{"type":"integer"}}}}}}})");
  ASSERT_TRUE(set);
  struct Case {
    const char* instance;
    bool unique;
  };
  const Case cases[] = {
      {R"([[{"a":[1,{"b":2,"c":3}]}],[{"a":[1.0,{"c":3,"b":2}]}]])", false},
      {R"([[{"a":[1,{"b":2,"c":3}]}],[{"a":[1,{"c":3,"b":4}]}]])", true},
      {R"([[{"x":1,"y":2}],[{"y":2,"x":1}],[]])", false},
      {R"([[{"x":1,"y":2}],[{"y":2,"z":1}],[{"x":1}]])", true},
      {R"([[],[[]],[{}]])", true},
      {R"([[{}],[{}]])", false},
  };
  for (const Case& c : cases) {
    std::vector<Status> all;
    const Status s = Check(*set, Format::kJson, c.instance, &all);
    EXPECT_EQ(s.ok(), c.unique) << c.instance;
    if (!c.unique) {
      ASSERT_EQ(all.size(), 1u) << c.instance;
      EXPECT_EQ(all[0].message, "/uniqueItems: items 0 and 1 are equal") << c.instance;
    }
  }
  // An array with uniqueItems that ends with no item captured nothing (Frame::kPending):
  // when another keyword fails at its end, only that one is reported.
  auto empty = One(R"({"properties":{"a":{"uniqueItems":true,"minItems":1}}})");
  ASSERT_TRUE(empty);
  for (const char* instance : {"{\"a\":[]}", "{\"a\":[],\"b\":[1]}"}) {
    std::vector<Status> all;
    const Status s = Check(*empty, Format::kJson, instance, &all);
    EXPECT_EQ(s.code, ErrorCode::kSchemaViolation) << instance;
    ASSERT_EQ(all.size(), 1u) << instance;
    EXPECT_EQ(all[0].path, "/a");
    EXPECT_EQ(all[0].message, "/properties/a/minItems: 0 items, fewer than minItems 1");
  }
  EXPECT_TRUE(Check(*empty, Format::kJson, R"({"a":[1]})").ok());
  EXPECT_EQ(Check(*empty, Format::kJson, R"({"a":[1,1.0]})").code, ErrorCode::kSchemaViolation);
}

TEST(JsonSchema, UniqueItemsNamesTheEqualPairAtEveryLength) {
  // Arrays of 2 to 40 distinct items (integers, strings and doubles by turns), then each
  // with one item made equal to an earlier one: the message names the pair, on either side
  // of 16 items (sorted in place up to 16, in a vector past that).
  auto set = One(R"({"uniqueItems":true})");
  ASSERT_TRUE(set);
  int checked = 0;
  for (int n = 2; n <= 40; ++n) {
    std::vector<std::string> items;
    for (int k = 0; k < n; ++k) {
      const int v = (k * 7 + 3) % 41;  // distinct for k < 41
      items.push_back(k % 3 == 0   ? std::to_string(v)
                      : k % 3 == 1 ? "\"s" + std::to_string(v) + "\""
                                   : std::to_string(v) + ".5");
    }
    auto join = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
      return s + "]";
    };
    EXPECT_TRUE(Check(*set, Format::kJson, join(items)).ok()) << n;
    for (const auto& [i, j] : {std::pair<int, int>{0, n - 1}, {n / 2, n - 1}, {0, 1}}) {
      if (i >= j) continue;
      std::vector<std::string> dup = items;
      dup[j] = dup[i];
      std::vector<Status> all;
      const Status s = Check(*set, Format::kJson, join(dup), &all);
      EXPECT_EQ(s.code, ErrorCode::kSchemaViolation) << n;
      ASSERT_EQ(all.size(), 1u) << n;
      EXPECT_EQ(all[0].message, "/uniqueItems: items " + std::to_string(i) + " and " +
                                    std::to_string(j) + " are equal")
          << n << " " << join(dup);
      ++checked;
    }
  }
  // 39 lengths x 3 pairs, less n = 2's middle one (1 and 1: no pair).
  EXPECT_EQ(checked, 39 * 3 - 1);
}

// Where the map tests below put a schema A and its instance X: the payload's, a committed
// member's, a branch's (anyOf), under not, an item's.
const std::vector<std::pair<std::string, std::string>> kMapPlaces = {
    {"A", "X"},
    {R"({"properties":{"a":A}})", R"({"a":X})"},
    {R"({"anyOf":[{"properties":{"a":A}},{"required":["z"]}]})", R"({"a":X})"},
    {R"({"not":A})", "X"},
    {R"({"items":A})", "[X,{}]"},
};

// A member of a map read the ordinary way (Frame::kEach) that only the map's first
// evaluation has work for, when that evaluation has no patternProperties and tracks
// nothing, is read as a direct frame's member (Frame::kLone): its subschema kept in the
// frame, with no slot. Such members are the names outside an if / then branch's
// properties (a planned map's rest_lengths and rest_bits: "tags" has the length of the
// `then` branch's "kind", and another NameBit) and every name of a map whose one evaluation
// is not direct (name_judged anyOf / oneOf branches). "unevaluatedProperties": true changes
// no verdict but makes the evaluation track its members, which turns that path off (its
// members may still be lone: LoneMembersOfTrackingMapsReportWhatTheOrdinaryWayFinds):
// every instance must get the same violations (offset, path, message) either way.
TEST(JsonSchema, LoneMembersReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string> schemas = {
      R"({"type":"object","required":["id","kind"],"properties":{"id":{"type":"integer","minimum":0},"kind":{"enum":["a","b"]},"sub":{"properties":{"x":{"type":"boolean"}},"additionalProperties":false},"tags":{"type":"array","items":{"type":"string","maxLength":3},"uniqueItems":true},"deeper":{"anyOf":[{"type":"null"},{"properties":{"y":{"const":1}}}]}},"additionalProperties":false,"if":{"properties":{"flag":{"type":"null"}}},"then":{"properties":{"kind":{"const":"a"}}}})",
      R"({"properties":{"id":{"type":"integer"},"tags":{"type":"array","maxItems":1},"sub":{"type":"object","required":["k"]}},"anyOf":[{"required":["id"]},{"required":["tags"]}],"propertyNames":{"maxLength":4},"additionalProperties":{"type":"string"}})",
      R"({"properties":{"id":{"type":"integer"},"sub":{"items":{"maximum":2}}},"dependentRequired":{"id":["kind"]},"oneOf":[{"required":["id"]},{"required":["q"]}],"additionalProperties":{"type":["string","null"]},"maxProperties":3})",
  };
  const auto& contexts = kMapPlaces;
  const std::vector<std::string> instances = {
      "{}",
      R"({"id":1,"kind":"a"})",
      R"({"id":-1,"kind":"c","sub":{"x":1,"y":2}})",
      R"({"id":1,"kind":"b","flag":null})",
      R"({"id":1,"kind":"a","flag":null,"tags":["ab","ab","abcd"]})",
      R"({"id":"1","sub":{},"deeper":{"y":2},"extra":3})",
      R"({"sub":[1,3],"tags":[{},[]],"deeper":null})",
      R"({"id":2,"kind":null,"sub":{"k":[1]},"q":"x"})",
      R"({"kind":"a","toolong":1,"tags":[1]})",
      R"({"id":1,"deeper":[{"y":1}],"sub":{"x":true}})",
      "[]",
      "3",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Tracking, Same, &compared, &refused);
  EXPECT_EQ(compared, 3 * 5 * 12);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 8);
}

// A member of a map read the kEach way that only the map's first evaluation has work for,
// when that evaluation takes other names another way (unevaluatedProperties, which makes
// it track what it evaluates; patternProperties that match no property; bundles of
// allOf joined to it), is read as a lone member (Validator::LoneMember) when no pattern
// matches its name and its node has no propertyNames (Member::sole): package.json's root.
// Every instance must get the same violations (offset, path, message less the "/allOf/0"
// step) as the schema read the ordinary way (Ordinary: its map's first evaluation then has
// no members, and every name is read the kEach way): with a pattern that matches a property
// ("f.o"), propertyNames, watched names (required, dependentRequired), names with work in an if /
// then branch or an allOf entry not joined (one that names a property of the map's own),
// unevaluated names, a repeated name, and members whose values are themselves such maps.
TEST(JsonSchema, LoneMembersOfTrackingMapsReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string> schemas = {
      R"({"allOf":[{"properties":{"name":{"type":"string"},"sub":{"maxProperties":2}}},{"properties":{"id":{"multipleOf":2}},"required":["name"]}],"properties":{"id":{"type":"integer"},"sub":{"type":"object","required":["k"]},"flag":{"type":"boolean"}},"patternProperties":{"^x-":true},"unevaluatedProperties":false,"if":{"properties":{"flag":{"const":true}},"required":["flag"]},"then":{"required":["id"],"properties":{"id":{"minimum":5}}}})",
      R"({"properties":{"foo":{"type":"array","maxItems":2},"bar":{"type":"string"},"n":{"type":"integer","minimum":0}},"patternProperties":{"f.o":{"minItems":1},"^q":{"type":"null"}},"additionalProperties":{"type":"integer"},"unevaluatedProperties":false,"required":["n"]})",
      R"({"type":"object","required":["a","b"],"dependentRequired":{"a":["c"]},"allOf":[{"properties":{"c":{"type":"boolean"},"d":{"items":{"type":"integer"}}}}],"properties":{"a":{"type":"string","maxLength":2},"b":{"type":"object","properties":{"z":{"const":1}},"additionalProperties":false}},"unevaluatedProperties":{"type":"number"}})",
      R"({"properties":{"k":{"enum":[1,2]},"m":{"type":"object","required":["r"]}},"patternProperties":{"^p":{"type":"string"},"^s":{"minimum":5}}})",
      R"({"properties":{"o":{"properties":{"i":{"type":"integer"}},"patternProperties":{"^_":true,"^-":{"type":"string"}},"unevaluatedProperties":false},"bb":{"type":"integer"},"zz":{"type":"integer"}},"propertyNames":{"pattern":"^[a-o_-]"},"unevaluatedProperties":false})",
  };
  const auto& contexts = kMapPlaces;
  const std::vector<std::string> instances = {
      "{}",
      R"({"id":7,"name":"n","sub":{"k":1}})",
      R"({"flag":true,"id":1,"name":"n"})",
      R"({"name":2,"id":"x","sub":{},"x-y":[1],"zz":1})",
      R"({"n":1,"foo":[],"bar":"s","q1":null,"other":3})",
      R"({"n":-1,"foo":[1,2,3],"fxo":["a"],"q":1,"bar":null})",
      R"({"a":"abc","b":{"z":2},"d":[1,"2"],"e":"s"})",
      R"({"a":"ab","b":{"z":1},"c":true,"e":2})",
      R"({"k":3,"m":{},"p1":5,"s":1,"t":null})",
      R"({"k":1,"m":{"r":0},"p":"s","s":6})",
      R"({"o":{"i":"1","_x":1,"-y":2,"j":3},"bb":1})",
      R"({"o":{"i":1,"-y":"s"},"bb":"s","p":1})",
      R"({"bb":2,"zz":1,"o":{}})",
      R"({"id":3,"name":"n","sub":{"k":1,"l":2,"m":3}})",
      R"({"n":1,"bar":"a","id":4,"bar":"b"})",
      "[]",
      "3",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Ordinary, StripAllOf, &compared, &refused);
  EXPECT_EQ(compared, 5 * 5 * 17);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 8);
}

// A map due to a union (a node whose only work is one oneOf or anyOf, through such unions
// down to its leaves) makes its evaluations at its first name, or at that name's string
// value, with only the leaves that can still pass (UnionChoice, Frame::kChoose): a closed
// leaf fails on a name it lacks, a leaf whose required discriminator has a const or enum
// of strings fails on another value. "unevaluatedProperties": true at the union's top
// changes no verdict but makes it no union (every branch made): every instance must get
// the same violations either way, with the discriminator first or later, of a wrong
// type, or missing, where the union is the payload's schema, a member's, an item's, a
// branch's or under not.
TEST(JsonSchema, UnionChoicesReportWhatTheOrdinaryWayFinds) {
  const std::vector<std::string>
      schemas =
          {
              // GeoJSON's shape: a const, an enum, and a nested union.
              R"({"oneOf":[{"type":"object","required":["type","c"],"properties":{"type":{"const":"A"},"c":{"type":"integer"}}},{"type":"object","required":["type"],"properties":{"type":{"enum":["B","C"]},"d":{"type":"string"}},"additionalProperties":false},{"oneOf":[{"required":["type"],"properties":{"type":{"const":"D"},"e":{"maximum":3}}},{"required":["type"],"properties":{"type":{"const":"E"}}},{"type":"null"}]}]})",
              // citm's shape: closed leaves told apart by their names; anyOf.
              R"({"anyOf":[{"properties":{"a":{"type":"integer"},"b":true},"additionalProperties":false,"required":["a"]},{"properties":{"x":{"type":"integer"},"y":true},"additionalProperties":false},{"properties":{"p":{"minimum":0},"q":true},"additionalProperties":false,"if":{"required":["p"]},"then":{"required":["q"]}},{"properties":{"r":{"type":"string"},"a":{"type":"string"}},"additionalProperties":false,"required":["r"]}]})",
              // Both, with the discriminator in some leaves only, and a leaf neither tells.
              R"({"oneOf":[{"required":["kind"],"properties":{"kind":{"const":"k1"},"a":true},"additionalProperties":false},{"required":["kind"],"properties":{"kind":{"const":"k2"},"b":{"type":"string"}},"additionalProperties":false},{"required":["kind"],"properties":{"kind":{"enum":["k3","k4"]}}},{"properties":{"z":{"type":"integer"}},"minProperties":2},{"required":["kind"],"properties":{"kind":{"const":"k5"},"c":{"type":"null"}}},{"required":["kind"],"properties":{"kind":{"const":"k6"}},"maxProperties":2}]})",
              // GeoJSON's Feature geometry: one branch an object can take, a union, whose leaves a
              // value of none of them leaves all failing (the end table, which counts that branch
              // as made, must not pass it).
              R"({"oneOf":[{"type":"null"},{"oneOf":[{"required":["t"],"properties":{"t":{"const":"x"},"v":{"type":"integer"}},"additionalProperties":false},{"required":["t"],"properties":{"t":{"const":"y"}}},{"required":["t"],"properties":{"t":{"const":"w"},"u":true}},{"required":["t"],"properties":{"t":{"const":"s"}}}]}]})",
              // One leaf left live, read as a direct frame (Validator::DirectLeaf): beside a branch
              // judged by names, under a type that takes an object, and one that takes none.
              R"({"oneOf":[{"properties":{"t":{"const":"a"},"v":{"type":"integer"}},"required":["t"],"additionalProperties":false},{"required":["zz"]}]})",
              R"({"type":"object","anyOf":[{"properties":{"t":{"const":"a"},"v":{"type":"integer"}},"required":["t"],"additionalProperties":false},{"properties":{"u":{"const":1}},"required":["u"],"additionalProperties":false}]})",
              R"({"type":"string","oneOf":[{"properties":{"t":{"const":"a"},"v":{"type":"integer"}},"required":["t"],"additionalProperties":false},{"properties":{"u":{"const":1}},"required":["u"],"additionalProperties":false}]})",
              // A live leaf with if / then judged by member (citm's performance), read as a direct
              // frame all the same.
              R"({"oneOf":[{"properties":{"e":{"type":"integer"}},"required":["e"],"additionalProperties":false},{"properties":{"p":{"type":"array","maxItems":3},"s":{"type":"array"}},"required":["p"],"additionalProperties":false,"if":{"properties":{"p":{"maxItems":1}}},"then":{"properties":{"s":{"maxItems":1}}}}]})",
              // Closed leaves sharing their first names (workflow's jobs): the branch a later name
              // leaves live is read as a direct frame from there (Validator::SettleToDirect).
              R"({"oneOf":[{"properties":{"n":{"type":"string"},"r":{"type":"integer"},"s":{"type":"array","items":{"type":"integer"}}},"required":["r"],"additionalProperties":false},{"properties":{"n":{"type":"string"},"u":{"type":"string"},"w":{"type":"object"}},"required":["u"],"additionalProperties":false}]})",
              R"({"anyOf":[{"properties":{"n":true,"r":{"minimum":2}},"additionalProperties":false},{"properties":{"n":{"type":"string"},"u":{"type":"string"}},"required":["u"],"additionalProperties":false},{"properties":{"n":true,"x":true},"patternProperties":{"^q":{"type":"null"}},"additionalProperties":false}]})",
              // One branch alone takes an object (package's person, twitter's nullable members):
              // its direct frame from the start (Validator::OpenLeafOfUnion).
              R"({"oneOf":[{"type":"string"},{"type":"object","properties":{"n":{"type":"string"},"r":{"type":"integer"}},"required":["n"],"additionalProperties":false}]})",
              R"({"anyOf":[{"type":"null"},{"type":["array","boolean"]},{"properties":{"t":{"const":"a"},"v":{"maximum":1}},"required":["t"]}]})",
              // And one alone takes an array (NodeRare::array_leaf).
              R"({"oneOf":[{"type":"string"},{"type":"array","items":{"type":"integer"},"maxItems":2}]})",
              R"({"anyOf":[{"type":["null","object"]},{"type":"array","prefixItems":[{"const":1}]},false]})",
              // A branch with keywords of its own beside its anyOf: no leaf under it.
              R"({"oneOf":[{"type":"string"},{"required":["n"],"anyOf":[{"properties":{"r":{"type":"integer"}}},{"required":["zz"]}]}]})",
              // (Two that take an array: no leaf.)
              R"({"oneOf":[{"type":"array","maxItems":1},{"type":["array","string"],"minItems":1}]})",
          };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X,"n":1})"},
      {R"({"items":A})", "[X,{}]"},
      {R"({"anyOf":[A,{"required":["zz"]}]})", "X"},
      {R"({"not":A})", "X"},
  };
  const std::vector<std::string> instances = {
      "{}",
      R"({"type":"A","c":1})",
      R"({"type":"A"})",
      R"({"c":1,"type":"A"})",
      R"({"type":"B","d":"s"})",
      R"({"type":"C","x":1})",
      R"({"type":"D","e":5})",
      R"({"type":"E","c":"q"})",
      R"({"type":"Z"})",
      R"({"type":1,"c":2})",
      R"({"type":null})",
      R"({"type":[1],"d":"s"})",
      R"({"type":{"c":1}})",
      R"({"a":1,"b":2})",
      R"({"a":"1"})",
      R"({"x":1,"y":[]})",
      R"({"p":-1})",
      R"({"p":1,"q":{}})",
      R"({"b":2,"a":1,"x":3})",
      R"({"kind":"k1","a":{}})",
      R"({"kind":"k2","b":1})",
      R"({"kind":"k4","zz":1})",
      R"({"kind":"k9"})",
      R"({"z":1,"kind":"k1"})",
      R"({"z":"1","w":2})",
      R"({"r":"s","a":"t"})",
      R"({"a":"t","r":"s"})",
      R"({"kind":"k5","c":null,"z":1})",
      R"({"kind":"k6","a":1,"b":2})",
      R"({"t":"x","v":1})",
      R"({"t":"q"})",
      R"({"t":"w","u":1,"v":"s"})",
      R"({"u":1,"t":"y"})",
      R"({"t":"a","v":1})",
      R"({"t":"a","v":"x"})",
      R"({"v":2,"t":"a"})",
      R"({"u":1})",
      R"({"u":2,"t":"a"})",
      R"({"zz":1,"t":"a","v":1})",
      R"({"p":[1],"s":[1,2]})",
      R"({"p":[{}],"s":[[]]})",
      R"({"p":[1,2],"s":[1,2,3]})",
      R"({"s":[1,2],"p":[]})",
      R"({"p":[1,2,3,4]})",
      R"({"p":{},"s":{}})",
      R"({"e":1,"p":[]})",
      R"({"n":"x","r":1,"s":[1,2]})",
      R"({"n":"x","u":"y","w":{}})",
      R"({"n":1,"r":"x"})",
      R"({"n":"x","r":1,"u":"y"})",
      R"({"n":"x","z":1})",
      R"({"n":"x","s":["a"]})",
      R"({"n":"x","w":{"k":1},"u":2})",
      R"({"n":"x","x":1,"q1":null,"q2":0})",
      R"({"n":"x","r":3,"n":"y"})",
      "[]",
      "[1,2]",
      "[1,2,3]",
      R"([1,"x"])",
      "[[1]]",
      R"("s")",
      "null",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Tracking, Same, &compared, &refused);
  EXPECT_EQ(compared, 16 * 5 * 62);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 8);
}

// A scalar union (Node::scalar_union: anyOf or oneOf and no other keyword a scalar is
// judged by) judges a scalar by its branches' inline checks, and evaluates it only when one
// of them does not settle it. "allOf": [true] changes no verdict but makes it no union:
// every instance must get the same violations either way, where the union is the
// payload's schema, a member's (of an open and of a closed object), an item's, a branch's
// or under not. The branches: plain ones (type, bounds, pattern, lengths, texts), true,
// false, ones whose type takes no scalar, and ones no inline check settles (multipleOf,
// a length past the bytes' bound); draft 4, where 1.0 is no integer.
TEST(JsonSchema, ScalarUnionsJudgeAsEvaluationDoes) {
  const std::vector<std::string> schemas = {
      R"({"anyOf":[{"type":"null"},{"type":"string","pattern":"^[a-z]+$","maxLength":3}]})",
      R"({"oneOf":[{"type":"string","minLength":1},{"type":"array"},{"type":"object","properties":{"a":{"type":"integer"}}}]})",
      R"({"oneOf":[{"type":"integer"},{"type":"number","maximum":10}]})",
      R"({"anyOf":[{"enum":["a","b"]},{"type":"string","pattern":"x"}]})",
      R"({"$schema":"http://json-schema.org/draft-04/schema#","oneOf":[{"type":"integer"},{"type":"number","minimum":2}]})",
      R"({"anyOf":[false,{"type":"boolean"},{"multipleOf":2}]})",
      R"({"oneOf":[true,{"type":"null"},{"const":"a"}]})",
      R"({"oneOf":[{"type":["string","null"],"minLength":2},{"type":"string","maxLength":1},{"not":{"type":"string"}}]})",
      R"({"anyOf":[{"type":"null"},{"type":"string","minLength":2,"maxLength":3}]})",
      R"({"oneOf":[{"type":["string","integer"],"minLength":2,"maximum":5},{"type":["string","number"],"maxLength":2,"minimum":1}]})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X,"n":1})"},
      {R"({"properties":{"m":A},"additionalProperties":false})", R"({"m":X})"},
      {R"({"items":A})", "[X,1]"},
      {R"({"anyOf":[A,{"required":["zz"]}]})", "X"},
      {R"({"oneOf":[A,{"type":"object"}]})", "X"},
      {R"({"not":A})", "X"},
  };
  const std::vector<std::string> instances = {
      "null",
      "true",
      "false",
      "0",
      "1",
      "1.0",
      "2",
      "2.5",
      "12",
      "-3",
      R"("")",
      R"("a")",
      R"("ab")",
      R"("abcd")",
      R"("\u00e9\u00e9")",
      R"("\u00e9\u00e9\u00e9\u00e9")",
      R"("x")",
      R"("ax")",
      "[]",
      "{}",
      R"({"a":1})",
      R"({"a":"s"})",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, AllOfTrue, Same, &compared, &refused);
  EXPECT_EQ(compared, 10 * 7 * 22);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 4);
}

// A node whose only in-place keywords are if / then / else, with branches that check only
// the names present and their members' own subschemas (NodeRare::cond_direct), is read as
// a direct frame: each member one of those branches has a subschema for is judged by it
// as it arrives (Validator::CondChild, CondContainer), and Finalize combines the
// verdicts. `"allOf": [true]` takes that away with no change of meaning (the branches are
// then evaluated side by side): every instance must get the same violations either way,
// with its members in either order, where the node is the payload's, a member's, an
// item's, a captured item's (uniqueItems), or one of a kEach frame's evaluations.
TEST(JsonSchema, ConditionalsByMemberJudgeAsEvaluationDoes) {
  const std::vector<std::string> schemas =
      {
          // (The benchmark's twitter user and status.)
          R"({"properties":{"a":{"type":["integer","null"],"minimum":-5},"b":{"type":["string","null"],"minLength":1}},"if":{"properties":{"a":{"type":"null"}}},"then":{"properties":{"b":{"type":"null"}}},"else":{"properties":{"b":{"type":"string"}}}})",
          R"({"properties":{"a":{"type":["integer","null"]},"b":{"type":["string","null"]},"c":{}},"required":["a"],"if":{"properties":{"a":{"type":"integer"}},"required":["a"]},"then":{"required":["b","c"],"properties":{"b":{"type":"string"},"c":{"type":"integer"}}},"additionalProperties":false})",
          // A name_judged else beside member-judged branches.
          R"({"properties":{"a":{},"b":{"maxLength":2}},"if":{"properties":{"a":{"type":"string","pattern":"^x"}}},"then":{"properties":{"b":{"type":"string"}}},"else":{"required":["b"]}})",
          // false and container types in the branches; a required name no property watches.
          R"({"properties":{"a":{},"b":{}},"if":{"properties":{"a":false}},"then":{"properties":{"b":{"type":"object"}}},"else":{"properties":{"b":{"type":["array","null"]}},"required":["a","zz"]}})",
          R"({"type":"object","properties":{"a":{"type":"string"},"b":true},"if":{"type":"object","properties":{"a":{"format":"date","maxLength":3}}},"then":{"properties":{"b":{"type":"integer","multipleOf":2}}}})",
          R"({"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"integer"},"b":{}},"if":{"properties":{"a":{"minimum":3}}},"then":{"properties":{"b":{"type":"string"}}},"else":{"properties":{"b":{"type":"number"}}}})",
          R"({"properties":{"a":{"type":"object","properties":{"k":{"type":"string"}}},"b":{"type":"array","items":{"type":"integer"}}},"if":{"properties":{"a":{"type":"object"},"b":{"type":"array"}}},"then":{"properties":{"a":{"type":["object","array"]}}},"else":{"properties":{"b":{"type":"string"}}},"minProperties":1})",
          // Counts judged at the member's end (Node::kCondCount): the benchmark's citm
          // performance; counts of items and members on an untyped member and a typed one; and
          // members whose own subschemas open no direct frame (uniqueItems, patternProperties),
          // whose branches are evaluated.
          R"({"required":["a"],"properties":{"a":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{"k":{"type":"integer"}}}},"b":{"type":"array"}},"if":{"properties":{"a":{"maxItems":1}}},"then":{"properties":{"b":{"maxItems":1}}},"additionalProperties":false})",
          R"({"properties":{"a":true,"b":{"type":["array","object","string"]}},"if":{"properties":{"a":{"minItems":2,"minProperties":1}}},"then":{"properties":{"b":{"maxProperties":1,"type":["object","array"]}}},"else":{"properties":{"b":{"minItems":1,"maxLength":1}}}})",
          R"({"properties":{"a":{"uniqueItems":true},"b":{"patternProperties":{"^k":{"type":"integer"}}}},"if":{"properties":{"a":{"maxItems":1}}},"then":{"properties":{"b":{"minProperties":1}}}})",
          // Branches that look into a member's container, evaluated beside its own subschema
          // (NodeRare::cond_deep), with unions and not of names beside (the benchmark's
          // workflow step), ends passed by the end table (Node::kCondTable).
          R"({"properties":{"a":{},"b":{"type":"object","additionalProperties":{"type":["string","integer"]}},"c":{}},"additionalProperties":false,"oneOf":[{"required":["a"]},{"required":["c"]}],"dependentRequired":{"b":["a"]},"if":{"required":["a"]},"then":{"properties":{"b":{"properties":{"k":{"type":"string"}}}}},"else":{"not":{"required":["b"]}}})",
          R"({"properties":{"a":{"type":["array","object","integer"]},"b":{}},"anyOf":[{"required":["a"]},{"required":["b"]}],"not":{"required":["zz"]},"if":{"properties":{"a":{"items":{"type":"integer"},"minItems":2}}},"then":{"properties":{"b":{"type":"array","maxItems":1}}},"else":{"properties":{"b":{"type":["object","string","null"],"required":["k"]}}}})",
          R"({"properties":{"a":{"type":["integer","null","array"]},"b":{}},"required":["b"],"dependentRequired":{"a":["b"]},"if":{"properties":{"a":{"type":"integer"}}},"then":{"required":["c"]},"else":{"properties":{"b":{"type":"string"}}}})",
          // Branches that look into a member's map by its properties alone, judged in a copy of
          // the member's own subschema that holds them (NodeRare::cond_nested): a name the
          // member's subschema has and one only its additionalProperties takes, a branch whose
          // type excludes the map.
          R"({"properties":{"a":{"type":["integer","string"]},"b":{"type":["object","array"],"properties":{"k":{"type":["integer","string","object"]}},"additionalProperties":{"type":["integer","array","object"]}}},"if":{"properties":{"a":{"type":"integer"}}},"then":{"properties":{"b":{"properties":{"k":{"type":"integer"},"j":{"type":"object"}}}}},"else":{"properties":{"b":{"type":"object","properties":{"k":{"type":"string","minLength":2}}}}}})",
          R"({"properties":{"a":{},"b":{"additionalProperties":true}},"if":{"properties":{"a":{"const":1}}},"then":{"properties":{"b":{"type":"array","properties":{"k":{"type":"string"}}}}}})",
          // A union with a branch evaluated beside: no conditional by member.
          R"({"properties":{"a":{},"b":{}},"oneOf":[{"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}],"if":{"properties":{"a":{"type":"string"}}},"then":{"properties":{"b":{"type":"integer"}}}})",
          // Nulls and booleans judged by their type alone (NodeRare::cond_by_type): a nullable
          // union as the member's own subschema, branches that pass, exclude or evaluate them
          // (const, false, a union).
          R"({"properties":{"a":{"anyOf":[{"type":"null"},{"type":"integer","minimum":0}]},"b":{"type":["boolean","null","string"]}},"if":{"properties":{"a":{"type":["null","boolean"]}}},"then":{"properties":{"b":{"type":"boolean"}}},"else":{"properties":{"b":{"type":["null","string"],"maxLength":1}}}})",
          R"({"properties":{"a":{"type":["boolean","null"]},"b":{"type":["boolean","null"]}},"if":{"properties":{"a":{"const":true}}},"then":{"properties":{"b":false}},"else":{"properties":{"b":{"anyOf":[{"type":"null"},{"type":"boolean"}]},"a":{"type":"boolean"}}}})",
      };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X,"n":1})"},
      {R"({"items":A})", "[X,{}]"},
      {R"({"type":"array","uniqueItems":true,"items":A})", "[{},X]"},
      {R"({"allOf":[A,{"required":[]}]})", "X"},
      {R"({"anyOf":[A,{"required":["zz"]}]})", "X"},
  };
  const std::vector<std::string> values = {"",
                                           "null",
                                           "1",
                                           "-7",
                                           "2.5",
                                           R"("s")",
                                           R"("")",
                                           R"("x1")",
                                           "true",
                                           "false",
                                           "[]",
                                           "{}",
                                           "[1]",
                                           R"({"k":1})",
                                           "[1,2]",
                                           "[1,1,3]",
                                           R"({"k":1,"j":2})",
                                           R"([{"k":1}])",
                                           R"([{"k":"x"},{}])",
                                           R"({"k":"xy"})"};
  std::vector<std::string> instances = {"1", "null", "[]", R"("s")", "{}"};
  // An object of the members given (name, value; an empty value: absent), in that order.
  auto object = [](const std::vector<std::pair<std::string, std::string>>& members) {
    std::string out = "{";
    for (const auto& [name, value] : members) {
      if (value.empty()) continue;
      if (out.size() > 1) out.append(",");
      out.append("\"").append(name).append("\":").append(value);
    }
    return out.append("}");
  };
  for (const std::string& a : values) {
    for (const std::string& b : values) {
      instances.push_back(object({{"a", a}, {"b", b}}));
      if (!a.empty() && !b.empty()) instances.push_back(object({{"b", b}, {"a", a}, {"c", "3"}}));
    }
  }
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, AllOfTrue, Same, &compared, &refused);
  EXPECT_EQ(compared, 18 * 6 * (5 + 20 * 20 + 19 * 19));
  EXPECT_GT(refused, compared / 2);
  EXPECT_GT(compared - refused, compared / 10);
}

// An array with uniqueItems read as a direct frame keeps its unsigned integers as they are
// (Frame::kInts, up to 16), with no capture; any other item, a 17th, or an end that does
// not pass captures them as the ordinary way would have (Validator::IntsToCapture). The
// same array under `"allOf": [true]` is no direct frame and captures its items from the
// first: both must report the same violations.
TEST(JsonSchema, UniqueIntegerArraysJudgeAsCapturesDo) {
  const std::vector<std::string> schemas = {
      R"({"uniqueItems":true})",
      R"({"type":"array","uniqueItems":true,"items":{"type":"integer","minimum":1}})",
      R"({"uniqueItems":true,"minItems":2,"maxItems":5})",
      R"({"type":["array","string"],"uniqueItems":true,"prefixItems":[{"type":"integer"}],"items":{"maximum":100}})",
      R"({"type":"object","uniqueItems":true})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X})"},
      {R"({"items":A})", "[X,[]]"},
      {R"({"anyOf":[A,{"type":"null"}]})", "X"},
      {R"({"uniqueItems":true,"items":A})", "[X,[1]]"},
  };
  auto run = [](int from, int to, const std::string& tail) {
    std::string out = "[";
    for (int i = from; i <= to; ++i) out.append(i > from ? "," : "").append(std::to_string(i));
    if (!tail.empty()) out.append(to >= from ? "," : "").append(tail);
    return out.append("]");
  };
  const std::vector<std::string> instances = {
      "[]",
      "[1]",
      "[1,1]",
      "[1,2]",
      "[2,1,2]",
      "[0,18446744073709551615,0]",
      "[1,1.0]",
      "[1.0,1]",
      "[1,-1,1]",
      R"([1,"1"])",
      R"(["1","1"])",
      "[1,[1]]",
      "[[1],[1]]",
      "[1,{},2]",
      "[5,null,5]",
      "[1,2.5,1]",
      "[1,true,1]",
      "[1,2,3,4,5,6]",
      "[0,101,0]",
      run(1, 16, ""),
      run(1, 17, ""),
      run(1, 16, "1"),
      run(1, 15, "15"),
      run(1, 16, "16"),
      run(1, 3, "[]"),
      run(1, 3, "{}"),
      run(1, 3, R"("x")"),
      "7",
      R"("s")",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, AllOfTrue, Same, &compared, &refused);
  EXPECT_EQ(compared, 5 * 5 * 29);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 10);
}

// The schema with an object put first in every enum: a container may then be one of the
// enum's values, so it is captured for the enum's sake; no instance here is that object.
std::string EnumWithObject(const std::string& schema) {
  std::string other = schema;
  for (size_t at = other.find(R"("enum":[)"); at != std::string::npos;
       at = other.find(R"("enum":[)", at + 1))
    other.insert(at + 8, R"({"~never":1},)");
  return other;
}

// A const or an enum of strings alone (Node::texts_only) is no reason to capture a
// container (CapturesFor): a container fails it at its end with no look at its bytes
// (workflow's `on` and permissions: a oneOf of a string enum and an object). Every
// instance must get the same violations as when each enum also has an object, for which
// the container is captured and compared.
TEST(JsonSchema, StringEnumsJudgeContainersWithNoCapture) {
  const std::vector<std::string> schemas = {
      R"({"oneOf":[{"enum":["push","pull"]},{"type":"array","uniqueItems":true,"items":{"enum":["push","pull"]}},{"type":"object","properties":{"push":{"type":["object","null"],"properties":{"branches":{"type":"array","items":{"type":"string"}}}}},"additionalProperties":false}]})",
      R"({"oneOf":[{"enum":["read-all","write-all"]},{"type":"object","additionalProperties":{"enum":["read","write"]}}]})",
      R"({"enum":["a","b"],"properties":{"x":{"type":"integer"}},"items":{"type":"string"}})",
      R"({"anyOf":[{"enum":["a"]},{"type":"object","not":{"enum":["b","c"]}},{"type":"array","minItems":2}]})",
      R"({"uniqueItems":true,"items":{"oneOf":[{"enum":["a","b"]},{"type":"object"}]}})",
  };
  const auto& contexts = kMapPlaces;
  const std::vector<std::string> instances = {
      R"("push")",
      R"("a")",
      R"("read-all")",
      "{}",
      R"({"push":{"branches":["main"]}})",
      R"({"push":null,"pull":1})",
      R"({"x":1})",
      R"({"x":"1","y":["a"]})",
      R"({"contents":"read","pages":"none"})",
      R"(["push","pull"])",
      R"(["push","push"])",
      R"(["a","b",{}])",
      R"(["a",{},{}])",
      R"([{"x":1},{"x":1}])",
      "[]",
      "[[]]",
      "null",
      "7",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, EnumWithObject, Same, &compared, &refused);
  EXPECT_EQ(compared, 5 * 5 * 18);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 10);
  // A const of a string fails a container as an enum of strings does, with its keyword.
  auto set = One(R"({"properties":{"c":{"const":"x"},"e":{"enum":["x"]}}})");
  ASSERT_TRUE(set);
  std::vector<Status> all;
  const Status s = Check(*set, Format::kJson, R"({"c": {"x": 1}, "e": ["x"]})", &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].offset, 6u);
  EXPECT_EQ(all[0].path, "/c");
  EXPECT_EQ(all[0].message, "/properties/c/const: the value is not the constant");
  EXPECT_EQ(all[1].offset, 21u);
  EXPECT_EQ(all[1].path, "/e");
  EXPECT_EQ(all[1].message, "/properties/e/enum: the value is none of the enum's");
}

// The same for strings (Frame::kTexts): up to 16 of them and 512 bytes kept as they are,
// compared at the array's end, and captured as the ordinary way would have when anything
// else comes. Strings with escapes are the same strings as their unescaped text.
TEST(JsonSchema, UniqueTextArraysJudgeAsCapturesDo) {
  const std::vector<std::string> schemas = {
      R"({"uniqueItems":true})",
      R"({"type":"array","uniqueItems":true,"items":{"type":"string","minLength":1}})",
      R"({"uniqueItems":true,"minItems":2,"maxItems":5})",
      R"({"type":["array","string"],"uniqueItems":true,"prefixItems":[{"type":"string"}],"items":{"maxLength":3}})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X})"},
      {R"({"items":A})", "[X,[]]"},
      {R"({"anyOf":[A,{"type":"null"}]})", "X"},
      {R"({"uniqueItems":true,"items":A})", R"([X,["a"]])"},
  };
  auto run = [](int from, int to, const std::string& tail, size_t width) {
    std::string out = "[";
    for (int i = from; i <= to; ++i) {
      std::string s = std::to_string(i);
      s.insert(0, width > s.size() ? width - s.size() : 0, 'x');
      out.append(i > from ? "," : "").append("\"" + s + "\"");
    }
    if (!tail.empty()) out.append(to >= from ? "," : "").append(tail);
    return out.append("]");
  };
  const std::vector<std::string> instances = {
      R"([""])",
      R"(["",""])",
      R"(["a"])",
      R"(["a","a"])",
      R"(["a","b"])",
      R"(["ab","a","b"])",
      R"(["a","\u0061"])",
      R"(["\n","\u000a","n"])",
      R"(["é","e","é"])",
      R"(["b","a","b"])",
      R"(["a",1,"a"])",
      R"([1,"a",1])",
      R"(["1",1])",
      R"(["a",["a"]])",
      R"(["a",{},"a"])",
      R"(["a",null,"b"])",
      R"(["a","abcd","a"])",
      run(1, 16, "", 1),
      run(1, 17, "", 1),
      run(1, 16, R"("1")", 1),
      run(1, 15, R"("15")", 1),
      run(1, 3, "[]", 1),
      run(1, 15, "", 33),
      run(1, 16, "", 33),
      run(1, 14, R"("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx2")", 33),
      run(1, 16, R"("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx2")", 33),
      "[" + std::string("\"") + std::string(600, 'y') + "\",\"" + std::string(600, 'y') + "\"]",
      R"("s")",
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, AllOfTrue, Same, &compared, &refused);
  EXPECT_EQ(compared, 4 * 5 * 28);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 10);
}

// A map whose evaluation's end is judged by names (required, dependentRequired, branches
// that ask only for names, and how anyOf, oneOf, not and if combine them with branches that
// were evaluated) passes by its node's end table when it can (Node::end_table,
// Validator::PassesTable), and goes through Finalize otherwise. "unevaluatedProperties":
// true makes an evaluation track its members, which takes the table away with no change
// of meaning: every set of the names, with values that pass and fail the evaluated
// branches, must get the same violations either way, where the schema is the payload's, a
// member's, an item's, or under allOf or anyOf.
TEST(JsonSchema, EndTablesJudgeAsFinalizeDoes) {
  const std::vector<std::string> schemas = {
      // (The benchmark's workflow step.)
      R"({"properties":{"with":{"type":"object"},"uses":{"type":"string"}},"oneOf":[{"required":["uses"]},{"required":["run"]}],"dependentRequired":{"wd":["run"]},"if":{"required":["uses"]},"then":{"properties":{"with":{"properties":{"args":{"type":"string"}}}}},"else":{"not":{"required":["with"]}}})",
      R"({"required":["a","b"],"anyOf":[{"required":["c"]},{"not":{"required":["d"]}}]})",
      R"({"dependentRequired":{"a":["b","c"]},"not":{"anyOf":[{"required":["a","d"]},{"required":["e"]}]}})",
      R"({"type":"object","oneOf":[{"required":["a"]},{"required":["b"]},{"properties":{"c":{"type":"string"}},"required":["c"]}],"minProperties":1,"maxProperties":3})",
      R"({"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]},"dependentSchemas":{"d":{"required":["e"]}},"allOf":[{"properties":{"a":{"type":"integer"}}}]})",
      R"({"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"properties":{"d":{"type":"string"}}}},"required":["e"],"anyOf":[{"properties":{"b":{"type":"integer"}}},{"required":["d"]}]})",
      // Seven names: past the table's six, Finalize alone.
      R"({"required":["a"],"oneOf":[{"required":["b","c"]},{"required":["d","e"]},{"required":["f","g"]}]})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X})"},
      {R"({"items":A})", "[{},X]"},
      {R"({"allOf":[A,{"required":[]}]})", "X"},
      {R"({"anyOf":[A,{"required":["zz"]}]})", "X"},
  };
  // Every set of the names, with the values: the evaluated branches pass with some and
  // fail with others.
  const std::vector<std::string> values = {"1", R"("s")", R"({"args":1})", R"({"args":"a"})"};
  std::vector<std::string> instances;
  auto add = [&](const std::vector<std::string>& set) {
    for (uint32_t s = 0; s < (1u << set.size()); ++s) {
      for (const std::string& v : values) {
        std::string object = "{";
        for (size_t i = 0; i < set.size(); ++i) {
          if (!(s >> i & 1)) continue;
          if (object.size() > 1) object += ",";
          object.append("\"").append(set[i]).append("\":").append(v);
        }
        instances.push_back(object + "}");
      }
    }
  };
  add({"uses", "run", "wd", "with"});
  add({"a", "b", "c", "d", "e"});
  add({"a", "b", "d", "f", "g"});
  instances.push_back("[]");
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, Tracking, Same, &compared, &refused);
  EXPECT_EQ(compared, 7 * 5 * (4 * (16 + 32 + 32) + 1));
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 8);
}

// The readers leave the duplicate check of a text key with a bit in its map's first
// evaluation to the validator (Validator::ClaimKey), and keep their own for every other
// key. Whichever way a key goes, a repeated one must be refused as the reader alone
// refuses it (code, offset, path, message), in JSON, CBOR and MessagePack, in maps read
// every way: direct, lone members, planned with several evaluations, settled, captured,
// nested, past 64 members, with names that look like integers, with names only
// `required` watches, chosen among a union's leaves by the first name or by its value
// (whose name reached the reader's record before the choice), and (CBOR) keys under
// tags, which the validator drops.
TEST(JsonSchema, RepeatedMemberNamesAreRefusedAsTheReaderRefusesThem) {
  std::string wide = R"({"type":"object","properties":{)";
  for (int i = 0; i < 70; ++i) {
    if (i > 0) wide += ',';
    wide += "\"p";
    wide += std::to_string(i);
    wide += "\":{}";
  }
  wide += "}}";
  const std::vector<std::string> schemas = {
      R"({"properties":{"a":{"type":"integer"},"b":{},"12":{}}})",
      R"({"properties":{"a":{},"o":{"properties":{"a":{},"b":{}}}},"required":["r"]})",
      R"({"properties":{"a":{},"b":{}},"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"b":{}}}})",
      R"({"anyOf":[{"type":"array"},{"properties":{"a":{},"b":{}}}]})",
      R"({"properties":{"a":{},"b":{}},"additionalProperties":{"type":"integer"}})",
      R"({"properties":{"a":{},"b":{}},"unevaluatedProperties":true})",
      R"({"properties":{"a":{},"b":{}},"patternProperties":{"^x":{}}})",
      R"({"properties":{"o":{"properties":{"a":{},"b":{}}}},"uniqueItems":true})",
      R"({"items":{"properties":{"a":{},"b":{}}},"uniqueItems":true})",
      R"({"properties":{"o":{"properties":{"a":{},"b":{}},"const":{"a":1}}}})",
      R"({"required":["a","b"],"dependentRequired":{"a":["b"]}})",
      R"({"type":"integer"})",
      // "o" in a branch: a refused name or a failed value settles its map's evaluation,
      // whose later names are then not looked up by the evaluation.
      R"({"anyOf":[{"properties":{"o":{"properties":{"a":{"type":"integer"},"x":{}},"additionalProperties":false}}},true]})",
      wide,
      // Unions whose map is chosen by its first name's value, and by its first name.
      R"({"oneOf":[{"properties":{"type":{"const":"A"},"a":{},"b":{}},"required":["type"]},
                   {"properties":{"type":{"const":"B"},"a":{},"b":{}},"required":["type"]},
                   {"properties":{"type":{"const":"C"},"a":{},"b":{}},"required":["type"]},
                   {"properties":{"type":{"const":"D"},"a":{},"b":{}},"required":["type"]}],
          "type":"object"})",
      R"({"oneOf":[{"properties":{"w":{},"a":{},"b":{}},"additionalProperties":false},
                   {"properties":{"x":{},"a":{},"b":{}},"additionalProperties":false},
                   {"properties":{"y":{},"a":{},"b":{}},"additionalProperties":false},
                   {"properties":{"z":{},"a":{},"b":{}},"additionalProperties":false}],
          "type":"object"})",
  };
  const std::vector<std::string> instances = {
      R"({"a":1,"a":2})",
      R"({"a":1,"b":2,"a":3})",
      R"({"c":1,"c":2})",
      R"({"a":1,"c":2,"c":3})",
      R"({"12":1,"12":2})",
      R"({"-1":1,"-1":2})",
      R"({"r":1,"r":1})",
      R"({"k":1,"b":2,"b":3})",
      R"({"x1":1,"x1":2})",
      R"({"o":{"a":1,"a":1}})",
      R"({"o":{"a":1,"b":2},"o":{}})",
      R"([{"a":1},{"b":1,"b":2}])",
      R"([{"a":1},{"a":2,"b":1,"b":2}])",
      R"({"o":{"a":1},"p":{"a":1},"o":2})",
      R"({"o":{"b":{"a":1,"a":2}}})",
      R"({"o":{"a":1,"z":1,"a":2}})",
      R"({"o":{"a":"s","a":2}})",
      R"({"p3":1,"p69":2,"p69":3})",
      R"({"p0":1,"p66":2,"p0":3})",
      R"({"a":"x","a":"y"})",
      R"({"a\u0062":1,"ab":2})",
      R"({"b":1,"\u0062":2})",
      R"({"type":"A","a":1,"a":2})",
      R"({"type":"A","type":"A"})",
      R"({"type":"B","b":1,"type":"B"})",
      R"({"w":1,"a":1,"a":2})",
      R"({"w":1,"b":1,"w":2})",
  };
  // Each instance in each format (transcoded with repeated keys allowed), CBOR maps with a
  // tag (32, a URI: dropped) on a key: {"a": 1, 32("a"): 2}, the other way round, and
  // {"o": {32("b"): 1, "b": 2}}; and {"12": 1, 12: 2} (an integer key is its text).
  std::vector<std::pair<Format, std::string>> inputs;
  for (const std::string& x : instances) {
    inputs.push_back({Format::kJson, x});
    for (Format f : {Format::kCbor, Format::kMsgpack}) {
      TranscodeRequest to;
      to.from = Format::kJson;
      to.to = f;
      to.input = x;
      to.options.allow_duplicate_keys = true;
      OutputBuffer out;
      ASSERT_TRUE(Transcode(to, out).ok()) << x;
      inputs.push_back({f, std::string(out.data(), out.size())});
    }
  }
  inputs.push_back({Format::kCbor, std::string("\xa2\x61\x61\x01\xd8\x20\x61\x61\x02", 9)});
  inputs.push_back({Format::kCbor, std::string("\xa2\xd8\x20\x61\x61\x01\x61\x61\x02", 9)});
  inputs.push_back(
      {Format::kCbor, std::string("\xa1\x61\x6f\xa2\xd8\x20\x61\x62\x01\x61\x62\x02", 12)});
  inputs.push_back({Format::kCbor, std::string("\xa2\x62\x31\x32\x01\x0c\x02", 7)});
  inputs.push_back({Format::kMsgpack, std::string("\x82\xa2\x31\x32\x01\x0c\x02", 7)});
  // What the reader alone finds: the schema `true` has no member names to claim (and the
  // reader reads as it does under any schema: a tag on a key dropped).
  auto reader_alone = One("true");
  ASSERT_TRUE(reader_alone);
  int compared = 0;
  for (const std::string& schema : schemas) {
    auto set = One(schema);
    ASSERT_TRUE(set) << schema;
    for (const auto& [format, x] : inputs) {
      SCOPED_TRACE(schema + " " + std::string(FormatName(format)) + " " + x);
      const Status want = Check(*reader_alone, format, x);
      ASSERT_EQ(want.code, ErrorCode::kDuplicateKey);
      std::vector<Status> all;
      const Status got = Check(*set, format, x, &all);
      // A violation found before the repeated name stops the payload there first.
      if (got.code == ErrorCode::kSchemaViolation) {
        ASSERT_FALSE(all.empty());
        EXPECT_LT(all.front().offset, want.offset);
        continue;
      }
      EXPECT_EQ(got.code, want.code);
      EXPECT_EQ(got.offset, want.offset);
      EXPECT_EQ(got.path, want.path);
      EXPECT_EQ(got.message, want.message);
      ++compared;
      // Allowed, a repeated name is no error.
      TranscodeRequest allowed;
      allowed.from = format;
      allowed.input = x;
      allowed.options.allow_duplicate_keys = true;
      allowed.json_schema = set->Find("s");
      EXPECT_NE(Validate(allowed).code, ErrorCode::kDuplicateKey);
    }
  }
  EXPECT_EQ(inputs.size(), instances.size() * 3 + 5);
  EXPECT_GT(compared, static_cast<int>(schemas.size() * inputs.size() * 3 / 4));
}

TEST(JsonSchema, IntegerKeysAndBytesAreTheirJsonText) {
  // CBOR {1: h'0102'}: the member "1" holds the base64url text "AQI".
  auto set = One(R"({"properties":{"1":{"const":"AQI"}},"required":["1"]})");
  ASSERT_TRUE(set);
  EXPECT_TRUE(Check(*set, Format::kCbor, std::string("\xa1\x01\x42\x01\x02", 5)).ok());
  EXPECT_EQ(Check(*set, Format::kCbor, std::string("\xa1\x01\x42\x01\x03", 5)).code,
            ErrorCode::kSchemaViolation);
}

TEST(JsonSchema, IntegerKeysKeepTheirTextPastManyOpenMaps) {
  // CBOR {10: {11: ... {49: "x"}}}: 40 maps, each member name the text of an integer
  // held by its map's frame, while more frames than were first set aside are opened. The
  // string fails `type`, and its path names every key.
  auto set = One(R"({"type":"object","additionalProperties":{"$ref":"#"}})");
  ASSERT_TRUE(set);
  std::string input, path;
  for (int k = 10; k < 50; ++k) {
    input.push_back('\xa1');
    if (k >= 24) input.push_back('\x18');
    input.push_back(static_cast<char>(k));
    path.push_back('/');
    path += std::to_string(k);
  }
  input += "\x61x";
  const Status s = Check(*set, Format::kCbor, input);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.offset, input.size() - 2);
  EXPECT_EQ(s.path, path);
}

// A direct frame takes the member it expects next with no lookup only when nothing else
// judges that name (Node::Member::direct): not when its node has propertyNames, and not
// for a name watched past the 64th (its record is Extra::seen_more, not a bit). Each
// schema at the top, as a member and as an item, with its members in declared order.
TEST(JsonSchema, DirectFramesJudgeEveryNameTheirMembersTake) {
  std::string wide = R"({"properties":{)", required, all, missing;
  for (int i = 0; i < 70; ++i) {
    std::string name = "p";  // (appended: GCC 12 warns, wrongly, of "..." + std::string)
    name += std::to_string(i);
    wide.append(i ? ",\"" : "\"").append(name).append("\":{\"type\":\"integer\"}");
    required.append(i ? ",\"" : "\"").append(name).append("\"");
    all.append(i ? ",\"" : "\"").append(name).append("\":1");
    if (i != 66) missing.append(missing.empty() ? "\"" : ",\"").append(name).append("\":1");
  }
  wide.append("},\"required\":[").append(required).append("],\"additionalProperties\":false}");
  struct Case {
    std::string schema, instance;
    bool ok;
    std::string message;  // (a refusal's, found in the first violation's)
  };
  const std::vector<Case> cases = {
      {R"({"properties":{"a":{},"long":{"type":"integer"}},"propertyNames":{"maxLength":2}})",
       R"({"a":1,"long":2})", false, "propertyNames"},
      {R"({"properties":{"a":{},"long":{"type":"integer"}},"propertyNames":{"maxLength":2}})",
       R"({"a":1})", true, ""},
      {wide, "{" + all + "}", true, ""},
      {wide, "{" + missing + "}", false, "missing required property \"p66\""},
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A},"additionalProperties":false})", R"({"m":X})"},
      {R"({"items":A})", "[X]"},
  };
  int checked = 0;
  for (const Case& c : cases) {
    for (const auto& [context, place] : contexts) {
      std::string schema = context, instance = place;
      schema.replace(schema.find('A'), 1, c.schema);
      instance.replace(instance.find('X'), 1, c.instance);
      auto set = One(schema);
      ASSERT_TRUE(set) << schema;
      const Status s = Check(*set, Format::kJson, instance);
      SCOPED_TRACE(schema + " " + instance);
      EXPECT_EQ(s.ok(), c.ok) << s.message;
      if (!c.ok) {
        EXPECT_NE(s.message.find(c.message), std::string::npos) << s.message;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 * 3);
}

TEST(JsonSchema, MemberNamesOfEveryLengthAreFoundWhole) {
  // A member name is looked up by its length and its first and last 8 bytes, which are the
  // whole name up to 16 bytes; a longer one is compared whole. Names of 0 to 40 bytes, each
  // with its own const; a name that differs from one of them in its middle byte alone
  // (past 16 bytes: the same first and last 8) is no member.
  auto name = [](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
    return s;
  };
  std::string schema = R"({"additionalProperties":false,"properties":{)";
  std::string all = "{";
  // (Appended piece by piece: GCC 12 warns, wrongly, of an overlap in "..." + std::string.)
  auto member = [&](std::string* out, size_t n, const std::string& value) {
    out->append(n ? ",\"" : "\"").append(name(n)).append("\":").append(value);
  };
  for (size_t n = 0; n <= 40; ++n) {
    member(&schema, n, std::string("{\"const\":").append(std::to_string(n)).append("}"));
    member(&all, n, std::to_string(n));
  }
  schema += "}}";
  all += "}";
  auto set = One(schema);
  ASSERT_TRUE(set);
  EXPECT_TRUE(Check(*set, Format::kJson, all).ok());
  for (size_t n = 1; n <= 40; ++n) {
    std::string wrong_value = "{";
    member(&wrong_value, 0, "0");
    member(&wrong_value, n, std::to_string(n + 1));
    wrong_value += "}";
    EXPECT_EQ(Check(*set, Format::kJson, wrong_value).code, ErrorCode::kSchemaViolation) << n;
    std::string other = "{\"";
    other.append(name(n)).append("\":").append(std::to_string(n)).append("}");
    other[2 + n / 2] = '_';  // the name's middle byte
    const Status s = Check(*set, Format::kJson, other);
    EXPECT_EQ(s.code, ErrorCode::kSchemaViolation) << n;
    EXPECT_NE(s.message.find("additionalProperties"), std::string::npos) << n << ": " << s.message;
  }
}

TEST(JsonSchema, StringLengthsAreCodePoints) {
  // A string of n bytes has ceil(n / 4) to n code points: the bytes settle a length when
  // that range is inside the bounds, else the code points are counted. Strings of one
  // code point of 1 to 4 bytes and of 1 to 3 ASCII bytes, each against minLength and
  // maxLength 1 and 2, as the payload and as an item of a direct frame.
  const std::vector<std::pair<std::string, int>> strings = {{"a", 1},
                                                            {"ab", 2},
                                                            {"abc", 3},
                                                            {"\\u00e9", 1},
                                                            {"\\u65e5", 1},
                                                            {"\\ud83d\\udca9", 1},
                                                            {"\\ud83d\\udca9a", 2},
                                                            {"", 0}};
  int checked = 0;
  for (const int bound : {1, 2}) {
    for (const char* keyword : {"minLength", "maxLength"}) {
      const bool min = std::string(keyword) == "minLength";
      std::string body = "\"";
      body.append(keyword).append("\":").append(std::to_string(bound));
      auto top = One("{" + body + "}");
      auto items = One(R"({"items":{)" + body + "}}");
      ASSERT_TRUE(top && items);
      for (const auto& [text, points] : strings) {
        const bool want = min ? points >= bound : points <= bound;
        const std::string value = "\"" + text + "\"";
        EXPECT_EQ(Check(*top, Format::kJson, value).ok(), want) << body << " " << value;
        EXPECT_EQ(Check(*items, Format::kJson, "[" + value + "]").ok(), want)
            << body << " " << value;
        checked += 2;
      }
    }
  }
  EXPECT_EQ(checked, 2 * 2 * 8 * 2);
}

TEST(JsonSchema, LongStringLengthsAreCodePoints) {
  // Strings of 0 to 40 code points of 1 to 4 bytes, in raw UTF-8, mixed so that a
  // character falls across every place of an 8-byte word: each against maxLength at its
  // count and one less, and minLength at its count and one more.
  const char* const chars[] = {"a", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x92\xa9"};
  int checked = 0;
  for (int points = 0; points <= 40; ++points) {
    for (int shift = 0; shift < 4; ++shift) {
      std::string text;
      for (int i = 0; i < points; ++i) text += chars[(i * (shift + 1) + shift) % 4];
      const std::string value = "\"" + text + "\"";
      for (const auto& [keyword, bound, want] :
           std::vector<std::tuple<std::string, int, bool>>{{"maxLength", points, true},
                                                           {"maxLength", points - 1, false},
                                                           {"minLength", points, true},
                                                           {"minLength", points + 1, false}}) {
        if (bound < 0) continue;
        auto set = One("{\"" + keyword + "\":" + std::to_string(bound) + "}");
        ASSERT_TRUE(set);
        EXPECT_EQ(Check(*set, Format::kJson, value).ok(), want)
            << keyword << " " << bound << " on " << text.size() << " bytes";
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 41 * 4 * 4 - 4);
}

// x in fixed notation with `digits` significant digits and a fraction ("-0.00012", "180.0").
std::string Fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  std::string s = buf;
  const size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string mantissa;
  for (size_t i = 0; i < e; ++i)
    if (s[i] >= '0' && s[i] <= '9') mantissa += s[i];
  std::string out = s[0] == '-' ? "-" : "";
  if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + mantissa;
  } else {
    const size_t whole = static_cast<size_t>(exponent) + 1;
    if (mantissa.size() <= whole) {
      out += mantissa + std::string(whole - mantissa.size(), '0') + ".0";
    } else {
      out += mantissa.substr(0, whole) + "." + mantissa.substr(whole);
    }
  }
  return out;
}

TEST(JsonSchema, DecimalsNearBoundsAreJudgedAsTheirDoubles) {
  // A JSON decimal in a direct frame is judged against a plain subschema's bounds before
  // it is converted when an approximation settles it (Validator::TakeDecimal); the verdict
  // must be that of the double the text reads as. Decimals within 4 units in the last
  // place of each bound, written with 15 to 19 significant digits (some round to the
  // bound itself, some to its neighbours): inside the approximation's margin, so that
  // they must go to the exact conversion. And decimals a relative 2^-47, 2^-44 and 2^-20
  // from the bound, on either side: the first two just outside the margin (2^-48) but
  // inside the float the range is kept as (Node::sure_low), the last outside both, where
  // the approximation alone decides. Each against each bound keyword, as a member and as
  // an item. The oracle: strtod's double compared with the bound.
  const std::vector<double> bounds = {
      180, -180, 90, -90, 0, 0.1, -0.1, 0.001, 1.5, -2.5, 123456.789, 1e15, 9007199254740992.0};
  int checked = 0, passed = 0, decimals = 0;
  for (const double bound : bounds) {
    std::vector<std::string> texts;
    for (int k = -4; k <= 4; ++k) {
      double x = bound;
      for (int i = 0; i < (k < 0 ? -k : k); ++i)
        x = std::nextafter(x, k < 0 ? -HUGE_VAL : HUGE_VAL);
      for (int digits = 15; digits <= 19; ++digits) texts.push_back(Fixed(x, digits));
    }
    for (const double r : {0x1p-47, 0x1p-44, 0x1p-20}) {
      for (const double side : {-1.0, 1.0}) {
        const double x = bound == 0 ? side * r : bound * (1 + side * r);
        for (int digits = 15; digits <= 19; ++digits) texts.push_back(Fixed(x, digits));
      }
    }
    char bound_text[64];
    std::snprintf(bound_text, sizeof bound_text, "%.17g", bound);
    for (const char* keyword : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      const std::string body = std::string("\"") + keyword + "\":" + bound_text;
      auto member = One(R"({"properties":{"x":{"type":"number",)" + body + "}}}");
      auto item = One(R"({"items":{)" + body + "}}");
      ASSERT_TRUE(member && item) << body;
      const std::string k = keyword;
      for (const std::string& t : texts) {
        const double d = std::strtod(t.c_str(), nullptr);
        const bool want = k == "minimum"            ? d >= bound
                          : k == "maximum"          ? d <= bound
                          : k == "exclusiveMinimum" ? d > bound
                                                    : d < bound;
        EXPECT_EQ(Check(*member, Format::kJson, R"({"x":)" + t + "}").ok(), want)
            << body << " " << t;
        EXPECT_EQ(Check(*item, Format::kJson, "[" + t + "]").ok(), want) << body << " " << t;
        checked += 2;
        passed += 2 * want;
        // (Counted: the texts the reader hands over as decimals, 19 digits at most.)
        size_t n = 0;
        for (char c : t) n += c >= '0' && c <= '9';
        decimals += 2 * (n <= 19);
      }
    }
  }
  // 13 bounds x (9 neighbours + 6 outside the margin) x 5 widths x 4 keywords x 2 places.
  EXPECT_EQ(checked, 13 * (9 + 6) * 5 * 4 * 2);
  EXPECT_GT(passed, checked / 3);
  EXPECT_LT(passed, checked * 2 / 3);
  EXPECT_GT(decimals, checked / 2);
}

TEST(JsonSchema, BinaryDoublesNearBoundsAreJudgedExactly) {
  // A CBOR or MessagePack double in a direct frame is passed inline when it is within the
  // node's sure range (Node::sure_low: the bounds moved inwards by a relative 2^-48), and
  // judged exactly otherwise (Validator::Double). Doubles within 4 units in the last place
  // of each bound, and a relative 2^-47, 2^-44, 2^-30 and 2^-20 from it on either side,
  // against each bound keyword, as a member and as an item, in both formats. The oracle:
  // the double compared with the bound.
  const std::vector<double> bounds = {
      180, -180, 90, -90, 0, 0.1, -0.1, 0.001, 1.5, -2.5, 123456.789, 1e15, 9007199254740992.0};
  int checked = 0, passed = 0;
  for (const double bound : bounds) {
    std::vector<double> values;
    for (int k = -4; k <= 4; ++k) {
      double x = bound;
      for (int i = 0; i < (k < 0 ? -k : k); ++i)
        x = std::nextafter(x, k < 0 ? -HUGE_VAL : HUGE_VAL);
      values.push_back(x);
    }
    for (const double r : {0x1p-47, 0x1p-44, 0x1p-30, 0x1p-20})
      for (const double side : {-1.0, 1.0})
        values.push_back(bound == 0 ? side * r : bound * (1 + side * r));
    char bound_text[64];
    std::snprintf(bound_text, sizeof bound_text, "%.17g", bound);
    for (const char* keyword : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      const std::string body = std::string("\"") + keyword + "\":" + bound_text;
      auto member = One(R"({"properties":{"x":{"type":"number",)" + body + "}}}");
      auto item = One(R"({"items":{)" + body + "}}");
      ASSERT_TRUE(member && item) << body;
      const std::string k = keyword;
      for (const double d : values) {
        const bool want = k == "minimum"            ? d >= bound
                          : k == "maximum"          ? d <= bound
                          : k == "exclusiveMinimum" ? d > bound
                                                    : d < bound;
        // {"x": d} and [d]: CBOR a1 61 78 fb .., 81 fb ..; MessagePack 81 a1 78 cb .., 91 cb ..
        const std::string bytes = Float64Bytes(d);
        EXPECT_EQ(Check(*member, Format::kCbor, "\xa1\x61\x78\xfb" + bytes).ok(), want)
            << body << " " << d;
        EXPECT_EQ(Check(*item, Format::kCbor, "\x81\xfb" + bytes).ok(), want) << body << " " << d;
        EXPECT_EQ(Check(*member, Format::kMsgpack, "\x81\xa1\x78\xcb" + bytes).ok(), want)
            << body << " " << d;
        EXPECT_EQ(Check(*item, Format::kMsgpack, "\x91\xcb" + bytes).ok(), want)
            << body << " " << d;
        checked += 4;
        passed += 4 * want;
      }
    }
  }
  // 13 bounds x (9 neighbours + 8 relative steps) x 4 keywords x 2 places x 2 formats.
  EXPECT_EQ(checked, 13 * (9 + 8) * 4 * 2 * 2);
  EXPECT_GT(passed, checked / 3);
  EXPECT_LT(passed, checked * 2 / 3);
}

// The subschemas A of the short-array tests (an array's whole and its items), and A's
// places: a member, an item, a member's member, a member in an anyOf branch.
const std::vector<std::string> kShortArraySchemas = {
    R"({"type":"array","minItems":2,"maxItems":3,"prefixItems":[{"type":"number","minimum":-180,"maximum":180},{"type":"number","minimum":-90,"maximum":90}],"items":{"type":"number"}})",
    R"({"items":{"type":"number","exclusiveMaximum":10}})",
    R"({"items":{"type":"integer"}})",
    R"({"items":{"type":"number","multipleOf":0.5}})",
    R"({"prefixItems":[{"type":"string"}]})",
    R"({"minItems":3})",
    R"({"uniqueItems":true})",
    R"({"items":{"enum":[1.5,2.5]}})",
    R"({"type":"object"})",
};
// The violations `got` as `want`: each one's path and message, and its offset when
// `offsets`.
void ExpectSameViolations(const std::vector<Status>& got, const std::vector<Status>& want,
                          bool offsets) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (offsets) {
      EXPECT_EQ(got[i].offset, want[i].offset);
    }
    EXPECT_EQ(got[i].path, want[i].path);
    EXPECT_EQ(got[i].message, want[i].message);
  }
}
const std::vector<std::string> kShortArrayContexts = {
    R"({"properties":{"a":A}})",
    R"({"items":A})",
    R"({"properties":{"p":{"properties":{"a":A}}}})",
    R"({"anyOf":[{"properties":{"a":A}},{"required":["z"]}]})",
};

TEST(JsonSchema, ShortDoubleArraysJudgeAsTheirEventsDo) {
  // A CBOR or MessagePack array of up to four float64 items comes to the validator as one
  // event (TakeDoubles, sink.h), taken where a leaf array's checks pass it at once; any
  // other goes event by event. Each array here, in each place, must get the violations it
  // gets event by event: those of the same CBOR array of indefinite length, which no
  // reader offers whole (at the same offsets: the array is the document's last item, and
  // both heads take one byte); MessagePack's the same paths and messages.
  const std::vector<std::string>& schemas = kShortArraySchemas;
  const std::vector<std::string>& contexts = kShortArrayContexts;
  // The instance's head before the array, in CBOR and MessagePack, for each place.
  const std::vector<std::pair<std::string, std::string>> heads = {
      {"\xa1\x61\x61", "\x81\xa1\x61"},
      {"\x81", "\x91"},
      {"\xa1\x61\x70\xa1\x61\x61", "\x81\xa1\x70\x81\xa1\x61"},
      {"\xa1\x61\x61", "\x81\xa1\x61"},
  };
  const std::vector<std::vector<double>> arrays = {
      {1.5, 2.5},      {200.5, 1.5},         {1.5, -95.0},    {1.5},
      {1.5, 2.5, 3.5}, {1.5, 2.5, 3.5, 4.5}, {2.0, 4.0},      {-0.0, 0.0},
      {1e308, -1e308}, {10.0, 9.5},          {HUGE_VAL, 1.0}, {1.0, 2.0, HUGE_VAL}};
  int compared = 0, refused = 0;
  for (const std::string& schema : schemas) {
    for (size_t c = 0; c < contexts.size(); ++c) {
      std::string text = contexts[c];
      text.replace(text.find('A'), 1, schema);
      auto set = One(text);
      ASSERT_TRUE(set) << text;
      for (const std::vector<double>& a : arrays) {
        std::string definite(1, static_cast<char>(0x80 | a.size())), indefinite("\x9f");
        std::string msgpack(1, static_cast<char>(0x90 | a.size()));
        for (double x : a) {
          const std::string bytes = Float64Bytes(x);
          definite.append(1, '\xfb').append(bytes);
          indefinite.append(1, '\xfb').append(bytes);
          msgpack.append(1, '\xcb').append(bytes);
        }
        indefinite += "\xff";
        std::vector<Status> whole, events, packed;
        const Status w = Check(*set, Format::kCbor, heads[c].first + definite, &whole);
        const Status e = Check(*set, Format::kCbor, heads[c].first + indefinite, &events);
        const Status m = Check(*set, Format::kMsgpack, heads[c].second + msgpack, &packed);
        SCOPED_TRACE(text + " " + std::to_string(a.size()) + " items, first " +
                     std::to_string(a[0]));
        EXPECT_EQ(w.code, e.code);
        EXPECT_EQ(m.code, e.code);
        EXPECT_EQ(w.message, e.message);
        ExpectSameViolations(whole, events, true);
        ExpectSameViolations(packed, events, false);
        ++compared;
        refused += !e.ok();
      }
    }
  }
  EXPECT_EQ(compared, 9 * 4 * 12);
  EXPECT_GT(refused, compared / 3);
  EXPECT_GT(compared - refused, compared / 5);
}

TEST(JsonSchema, ShortNumberArraysJudgeAsTheirEventsDo) {
  // A JSON array of up to four short numbers comes to the validator as one event
  // (TakeDecimals, sink.h), taken where a leaf array's checks pass it at once. Each array
  // here, in each place, must get the violations it gets event by event, each item judged
  // exactly: those of the same array with its items written with an exponent, which no
  // reader offers whole and which come as exact doubles, at the same length (a decimal's
  // "00" against "e0", an integer's two spaces against "e0"), so at the same offsets.
  // kShortArraySchemas, and integers' bounds and multipleOf.
  std::vector<std::string> schemas = kShortArraySchemas;
  schemas.push_back(R"({"items":{"type":"number","exclusiveMinimum":-1.5,"maximum":1e19}})");
  schemas.push_back(R"({"items":{"type":"integer","minimum":0,"maximum":10}})");
  schemas.push_back(R"({"items":{"type":"integer","multipleOf":3}})");
  const std::vector<std::string>& contexts = kShortArrayContexts;
  const std::vector<std::pair<std::string, std::string>> places = {
      {R"({"a":)", "}"}, {"[", "]"}, {R"({"p":{"a":)", "}}"}, {R"({"a":)", "}"}};
  const std::vector<std::vector<std::string>> arrays = {
      {"1.5", "2.5"},
      {"200.5", "1.5"},
      {"1.5", "-95"},
      {"1.5"},
      {"1.5", "2.5", "3.5"},
      {"1.5", "2.5", "3.5", "4.5"},
      {"2", "4"},
      {"3", "6", "9", "12"},
      {"0", "-3"},  // (not "-0": the integer 0, where "-0e0" is the double -0)
      {"-0.0", "0.25"},
      {"10", "9.5"},
      {"-1.5", "-1.25"},
      {"180.0000000000001", "90"},
      // 2^53 + 4 and 2^54 + 8: exact as doubles, so printed alike, and multiples of 3 (a
      // double's multipleOf is judged within a tolerance, an integer's exactly).
      {"9007199254740996", "1"},
      {"123456789012.5", "-7"},
      {"0.1234567890123456", "11"},
      {"18014398509481992", "1"},
  };
  int compared = 0, refused = 0;
  for (const std::string& schema : schemas) {
    for (size_t c = 0; c < contexts.size(); ++c) {
      std::string text = contexts[c];
      text.replace(text.find('A'), 1, schema);
      auto set = One(text);
      ASSERT_TRUE(set) << text;
      for (const std::vector<std::string>& a : arrays) {
        std::string whole = "[", events = "[";
        for (size_t i = 0; i < a.size(); ++i) {
          const std::string sep = i > 0 ? "," : "";
          const bool decimal = a[i].find('.') != std::string::npos;
          whole += sep + a[i] + (decimal ? "00" : "  ");
          events += sep + a[i] + "e0";
        }
        whole += "]";
        events += "]";
        std::vector<Status> w_all, e_all;
        const Status w =
            Check(*set, Format::kJson, places[c].first + whole + places[c].second, &w_all);
        const Status e =
            Check(*set, Format::kJson, places[c].first + events + places[c].second, &e_all);
        SCOPED_TRACE(text + " " + whole);
        EXPECT_EQ(w.code, e.code);
        EXPECT_EQ(w.offset, e.offset);
        EXPECT_EQ(w.message, e.message);
        ExpectSameViolations(w_all, e_all, true);
        ++compared;
        refused += !e.ok();
      }
    }
  }
  EXPECT_EQ(compared, 12 * 4 * 17);
  EXPECT_GT(refused, compared / 3);
  EXPECT_GT(compared - refused, compared / 5);
}

TEST(JsonSchema, ShortMapsJudgeAsTheirEventsDo) {
  // A JSON map of up to kMaxTakenMembers members whose values are scalars or empty
  // containers comes to the validator as one event (TakeMembers, sink.h), taken where a
  // leaf map's checks pass it at once. Each map here, in each place, must get the
  // violations it gets event by event: those of the same map with its first name's first
  // character escaped (`"\u0061"` for `"a"`), which no reader offers whole, the offered
  // form's name followed by five spaces, so at the same offsets. In CBOR, against the same
  // map of indefinite length (offered by no reader; its head one byte too, so at the same
  // offsets: the map is the document's last item); in MessagePack, with the same paths and
  // messages.
  const std::vector<std::string> schemas = {
      R"({"type":"object","required":["a","b"],"properties":{"a":{"type":"integer","minimum":0,"multipleOf":50},"b":{"type":["string","null"],"maxLength":3},"c":{"type":"array","maxItems":0},"d":{"type":"boolean"}},"additionalProperties":false})",
      R"({"additionalProperties":{"type":"string","pattern":"^x"}})",
      R"({"properties":{"a":{"type":"number","exclusiveMaximum":10}},"patternProperties":{"^p":{"type":"integer"}},"additionalProperties":false})",
      R"({"propertyNames":{"maxLength":2},"additionalProperties":{"type":["number","boolean"]}})",
      R"({"minProperties":2,"maxProperties":3})",
      R"({"dependentRequired":{"a":["b"]},"properties":{"a":{"type":"integer"}}})",
      R"({"required":["z"]})",
      R"({"properties":{"a":{"const":1},"b":{"enum":["x","xy"]},"c":{"format":"date"}}})",
      R"({"properties":{"a":{"type":"string","minLength":2},"b":{"type":"string","maxLength":1}}})",
      R"({"properties":{"c":{"type":"object","maxProperties":0},"d":{"type":"array","minItems":1}}})",
      R"({"properties":{"a":{}},"unevaluatedProperties":false})",
      R"({"type":"array"})",
      R"({"properties":{"k3":{"type":"integer","maximum":2}},"additionalProperties":{"type":"integer"}})",
  };
  const std::vector<std::string>& contexts = kShortArrayContexts;
  const std::vector<std::pair<std::string, std::string>> places = {
      {R"({"a":)", "}"}, {"[", "]"}, {R"({"p":{"a":)", "}}"}, {R"({"a":)", "}"}};
  // The CBOR and MessagePack heads before the map, for each place.
  const std::vector<std::pair<std::string, std::string>> heads = {
      {"\xa1\x61\x61", "\x81\xa1\x61"},
      {"\x81", "\x91"},
      {"\xa1\x61\x70\xa1\x61\x61", "\x81\xa1\x70\x81\xa1\x61"},
      {"\xa1\x61\x61", "\x81\xa1\x61"},
  };
  // Each map as its members' names and values.
  using Members = std::vector<std::pair<std::string, std::string>>;
  std::vector<Members> maps = {
      {{"a", "100"}, {"b", R"("xy")"}},
      {{"a", "-5"}, {"b", "null"}},
      {{"a", "75"}, {"b", R"("long")"}},
      {{"b", R"("x")"}, {"a", "0"}},
      {{"a", "1"}, {"a", "2"}},
      {{"a", "50"}, {"b", R"("x")"}, {"c", "[]"}, {"d", "true"}},
      {{"a", "1"}, {"c", "{}"}, {"d", "false"}},
      {{"p1", "3"}, {"x", R"("xa")"}},
      {{"a", "9.5"}, {"p", "2.5"}, {"pq", "-7"}},
      {{"a", R"("é")"}, {"b", R"("é")"}},
      {{"z", "1"}},
      {{"12", "1"}, {"12", "2"}},
      {{"x", R"("x")"}, {"xy", R"("xz")"}, {"xyz", "1"}},
      {{"a", "1.25"}, {"b", R"("x")"}, {"c", "[]"}, {"d", "true"}, {"x", "null"}},
      {{"c", "[]"}, {"d", "{}"}},
      {{"a", "100"}},
      {{"abc", "1"}, {"b", "true"}},
      {{"a", "12.5"}, {"p", "1"}},
  };
  Members ten;
  for (int i = 0; i < 10; ++i) ten.emplace_back("k" + std::to_string(i), std::to_string(i));
  maps.push_back(ten);
  int compared = 0, refused = 0;
  for (const std::string& schema : schemas) {
    for (size_t c = 0; c < contexts.size(); ++c) {
      std::string text = contexts[c];
      text.replace(text.find('A'), 1, schema);
      auto set = One(text);
      ASSERT_TRUE(set) << text;
      for (const Members& map : maps) {
        std::string whole = "{", events = "{";
        for (size_t i = 0; i < map.size(); ++i) {
          const std::string sep = i > 0 ? "," : "";
          const std::string& name = map[i].first;
          whole += sep + "\"" + name + "\"" + (i == 0 ? "     " : "") + ":" + map[i].second;
          if (i == 0) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", name[0]);
            events += std::string("\"") + escaped + name.substr(1) + "\":" + map[i].second;
          } else {
            events += sep + "\"" + name + "\":" + map[i].second;
          }
        }
        whole += "}";
        events += "}";
        ASSERT_EQ(whole.size(), events.size());
        std::vector<Status> w_all, e_all;
        const Status w =
            Check(*set, Format::kJson, places[c].first + whole + places[c].second, &w_all);
        const Status e =
            Check(*set, Format::kJson, places[c].first + events + places[c].second, &e_all);
        SCOPED_TRACE(text + " " + whole);
        EXPECT_EQ(w.code, e.code);
        EXPECT_EQ(w.offset, e.offset);
        EXPECT_EQ(w.message, e.message);
        ExpectSameViolations(w_all, e_all, true);
        std::string binary[2];  // the map alone in CBOR, in MessagePack
        for (int b = 0; b < 2; ++b) {
          TranscodeRequest to;
          to.from = Format::kJson;
          to.to = b == 0 ? Format::kCbor : Format::kMsgpack;
          to.input = whole;
          to.options.allow_duplicate_keys = true;  // (the maps whose names repeat)
          OutputBuffer out;
          ASSERT_TRUE(Transcode(to, out).ok()) << whole;
          binary[b].assign(out.data(), out.size());
        }
        ASSERT_EQ(static_cast<uint8_t>(binary[0][0]), 0xa0 + map.size());
        std::string indefinite(1, '\xbf');
        indefinite.append(binary[0], 1).append(1, '\xff');
        std::vector<Status> c_all, i_all, m_all;
        const Status cw = Check(*set, Format::kCbor, heads[c].first + binary[0], &c_all);
        const Status ci = Check(*set, Format::kCbor, heads[c].first + indefinite, &i_all);
        const Status mw = Check(*set, Format::kMsgpack, heads[c].second + binary[1], &m_all);
        EXPECT_EQ(ci.code, e.code);
        EXPECT_EQ(cw.code, ci.code);
        EXPECT_EQ(cw.offset, ci.offset);
        EXPECT_EQ(cw.message, ci.message);
        ExpectSameViolations(c_all, i_all, true);
        EXPECT_EQ(mw.code, ci.code);
        EXPECT_EQ(mw.message, ci.message);
        ExpectSameViolations(m_all, i_all, false);
        ++compared;
        refused += !e.ok();
      }
    }
  }
  EXPECT_EQ(compared, 13 * 4 * 19);
  EXPECT_GT(refused, compared / 3);
  EXPECT_GT(compared - refused, compared / 5);
}

TEST(JsonSchema, TheExpectedNextMemberIsComparedWhole) {
  // A direct frame tries the property declared after the last one it found before the
  // table (Node::FindMemberFrom). Two properties whose names have the same length and the
  // same first and last 8 bytes, declared one after the other, in either order, and a third
  // name like them that is none.
  auto set = One(R"({"additionalProperties":false,"properties":{
      "aaaaaaaa_1_bbbbbbbb":{"type":"string"},"aaaaaaaa_2_bbbbbbbb":{"type":"integer"}}})");
  ASSERT_TRUE(set);
  EXPECT_TRUE(
      Check(*set, Format::kJson, R"({"aaaaaaaa_1_bbbbbbbb":"x","aaaaaaaa_2_bbbbbbbb":1})").ok());
  EXPECT_TRUE(
      Check(*set, Format::kJson, R"({"aaaaaaaa_2_bbbbbbbb":1,"aaaaaaaa_1_bbbbbbbb":"x"})").ok());
  Status s = Check(*set, Format::kJson, R"({"aaaaaaaa_2_bbbbbbbb":"x"})");
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_NE(s.message.find("/properties/aaaaaaaa_2_bbbbbbbb/type"), std::string::npos) << s.message;
  s = Check(*set, Format::kJson, R"({"aaaaaaaa_1_bbbbbbbb":"x","aaaaaaaa_2_bbbbbbbb":"y"})");
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_NE(s.message.find("/properties/aaaaaaaa_2_bbbbbbbb/type"), std::string::npos) << s.message;
  s = Check(*set, Format::kJson, R"({"aaaaaaaa_1_bbbbbbbb":"x","aaaaaaaa_3_bbbbbbbb":1})");
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_NE(s.message.find("additionalProperties"), std::string::npos) << s.message;
}

// A subschema of allOf with `properties` alone (a bundle) joins its parent's properties at
// load (Compiler::MergeBundles), unless a name is in both or the parent has
// additionalProperties, which reads the parent's own properties alone. The same schema
// with "additionalProperties": true at its top (the same meaning) keeps the bundles apart:
// every instance must get the same violations either way, where the schema is the
// payload's, a member's, an anyOf branch's or the items'. Violations of one value may come
// in another order: a bundle's property is evaluated with its parent's properties, before
// the parent's patternProperties ("ab" below).
TEST(JsonSchema, AllOfBundlesJoinTheirParent) {
  const std::vector<std::string> schemas = {
      R"({"allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"minLength":2}}}],"properties":{"c":{"const":1}},"required":["a"]})",
      // A name in both: the bundle stays apart, and both maxima apply.
      R"({"properties":{"a":{"minimum":0}},"allOf":[{"properties":{"a":{"maximum":5}}}]})",
      R"({"allOf":[{"$ref":"#i"},{"$ref":"#j"}],"$defs":{"i":{"$anchor":"i","properties":{"a":{"type":"string"}}},"j":{"$anchor":"j","title":"t","properties":{"b":{"type":"array","items":{"type":"integer"}}}}}})",
      // Not bundles: a type, a required name.
      R"({"allOf":[{"type":"object","properties":{"a":true}},{"required":["b"],"properties":{"b":{"type":"null"}}}]})",
      R"({"allOf":[{"properties":{"ab":{"type":"null"}}}],"patternProperties":{"^a":{"type":"null"}},"propertyNames":{"maxLength":2},"minProperties":1})",
      R"({"oneOf":[{"type":"string"},{"allOf":[{"properties":{"a":{"enum":[1,2]}}}],"required":["a"]}]})",
  };
  const std::vector<std::pair<std::string, std::string>> contexts = {
      {"A", "X"},
      {R"({"properties":{"m":A}})", R"({"m":X})"},
      {R"({"anyOf":[{"properties":{"m":A}},{"required":["z"]}]})", R"({"m":X})"},
      {R"({"items":A})", "[X,{}]"},
  };
  const std::vector<std::string> instances = {
      "{}",
      R"({"a":1,"b":"xy","c":1})",
      R"({"a":"1","b":"x","c":2})",
      R"({"a":7})",
      R"({"a":-1,"b":[1,"2"]})",
      R"({"a":null,"ab":null,"b":null})",
      R"({"ab":1,"abc":null})",
      R"({"a":2,"b":[3]})",
      "[]",
      R"("s")",
  };
  auto apart = [](const std::string& schema) {
    std::string s = schema;
    s.insert(s.size() - 1, R"(,"additionalProperties":true)");
    return s;
  };
  int compared = 0, refused = 0;
  CompareReadings(schemas, contexts, instances, apart, Same, &compared, &refused, true);
  EXPECT_EQ(compared, 6 * 4 * 10);
  EXPECT_GT(refused, compared / 4);
  EXPECT_GT(compared - refused, compared / 8);
}

// Under unevaluatedProperties, a bundle's members count as evaluated by the parent that
// took them in, also when a member's value fails (a bundle kept apart would fail whole and
// lose its annotations): the verdict is the same, and --all-errors lists the member's own
// violation and the names no subschema evaluates, not a second violation for the member.
TEST(JsonSchema, BundleMembersAreEvaluatedByTheirParent) {
  auto set = One(
      R"({"allOf":[{"properties":{"a":{"type":"integer"},"b":true}}],"unevaluatedProperties":false})");
  ASSERT_TRUE(set);
  EXPECT_TRUE(Check(*set, Format::kJson, R"({"a":1,"b":[]})").ok());
  std::vector<Status> all;
  const Status s = Check(*set, Format::kJson, R"({"a":"x","c":1})", &all);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].offset, 0u);
  EXPECT_EQ(all[0].message,
            "/unevaluatedProperties: property \"c\" is not evaluated and fails "
            "unevaluatedProperties");
  EXPECT_EQ(all[1].offset, 5u);
  EXPECT_EQ(all[1].path, "/a");
  EXPECT_EQ(all[1].message, "/allOf/0/properties/a/type: \"x\" is not of type integer");
}

TEST(JsonSchema, UnevaluatedIntegerKeysKeepTheirNames) {
  // CBOR {1: 0, 2: 0, 3: 0} and MessagePack {1: 0, 2: 0, 3: 0}: "1" and "3" are evaluated by
  // no subschema. The record of "1" (made when its name is read) outlives the frame's text
  // of that integer key, which "2" and "3" rewrite: the violation still names "1".
  auto set = One(R"({"allOf":[{"properties":{"2":true}}],"unevaluatedProperties":false})");
  ASSERT_TRUE(set);
  for (const auto& [format, input] :
       {std::pair{Format::kCbor, std::string("\xa3\x01\x00\x02\x00\x03\x00", 7)},
        std::pair{Format::kMsgpack, std::string("\x83\x01\x00\x02\x00\x03\x00", 7)}}) {
    const Status s = Check(*set, format, input);
    EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
    EXPECT_EQ(s.message,
              "/unevaluatedProperties: property \"1\" is not evaluated and fails "
              "unevaluatedProperties");
  }
}

TEST(JsonSchema, CaptureIsChargedToTheBudget) {
  // 20,000 strings in one array: uniqueItems captures them all (about 500 KB in canonical
  // form), a schema without a capturing keyword holds nothing of them. A budget that the
  // reader and the plain schema fit is passed by the capture, in JSON (whose reader holds
  // an index of about 2.7 MB) and in CBOR (whose reader holds nothing).
  auto set = One(R"({"uniqueItems":true})");
  auto plain = One(R"({"type":"array","items":{"type":"string"}})");
  ASSERT_TRUE(set);
  ASSERT_TRUE(plain);
  std::string big = "[";
  std::string cbor = "\x99\x4e\x20";  // array(20000)
  for (int i = 0; i < 20000; ++i) {
    const std::string item = "item number " + std::to_string(i);
    big += "\"" + item + "\",";
    cbor.push_back(static_cast<char>(0x60 + item.size()));
    cbor += item;
  }
  big.back() = ']';
  EXPECT_TRUE(Check(*set, Format::kJson, big).ok());
  Limits json_limits;
  json_limits.max_alloc_bytes = 3 << 20;
  EXPECT_TRUE(Check(*plain, Format::kJson, big, nullptr, json_limits).ok());
  EXPECT_EQ(Check(*set, Format::kJson, big, nullptr, json_limits).code, ErrorCode::kBudgetExceeded);
  Limits cbor_limits;
  cbor_limits.max_alloc_bytes = 128 << 10;
  EXPECT_TRUE(Check(*plain, Format::kCbor, cbor, nullptr, cbor_limits).ok());
  EXPECT_EQ(Check(*set, Format::kCbor, cbor, nullptr, cbor_limits).code,
            ErrorCode::kBudgetExceeded);
  // The verdict is the request's own: the same after a request that grew the thread's
  // buffers (the validator keeps them for the next request).
  EXPECT_TRUE(Check(*set, Format::kCbor, cbor).ok());
  EXPECT_EQ(Check(*set, Format::kCbor, cbor, nullptr, cbor_limits).code,
            ErrorCode::kBudgetExceeded);
}

TEST(JsonSchema, EvaluatedItemRecordsAreChargedToTheBudget) {
  // unevaluatedItems makes 50 allOf branches record which of 200,000 items each one
  // evaluated: 50 bitsets of 25 KB, charged as they grow.
  std::string branches;
  for (int i = 0; i < 50; ++i) branches += std::string(i ? "," : "") + R"({"items":true})";
  auto tracked = One(R"({"allOf":[)" + branches + R"(],"unevaluatedItems":false})");
  auto plain = One(R"({"allOf":[)" + branches + "]}");
  ASSERT_TRUE(tracked);
  ASSERT_TRUE(plain);
  std::string cbor("\x9a\x00\x03\x0d\x40", 5);  // array(200000) of 0
  cbor.append(200000, '\0');
  Limits limits;
  limits.max_alloc_bytes = 512 << 10;
  EXPECT_TRUE(Check(*plain, Format::kCbor, cbor, nullptr, limits).ok());
  EXPECT_EQ(Check(*tracked, Format::kCbor, cbor, nullptr, limits).code, ErrorCode::kBudgetExceeded);
  EXPECT_TRUE(Check(*tracked, Format::kCbor, cbor).ok());
}

TEST(JsonSchema, DynamicScopesAreChargedToTheBudget) {
  // Three resources, entered by member name ("a": A, "b": B, "c": C), so a map's dynamic
  // scope is the chain of resources down its path. In a binary tree of maps whose every
  // member enters another resource than its map's, every path is a chain of its own: a
  // scope per map, some 130,000. They are charged as they are made.
  auto schema = [](bool dynamic) {
    const std::string extra = dynamic ? R"(,"d":{"$dynamicRef":"#n"})" : "";
    auto resource = [&](const char* id) {
      return std::string(R"({"$id":")") + id +
             R"(","$dynamicAnchor":"n","type":"object","properties":{"a":{"$ref":"urn:a"},)" +
             R"("b":{"$ref":"urn:b"},"c":{"$ref":"urn:c"})" + extra + "}}";
    };
    return One(R"({"$id":"urn:root","$ref":"urn:a","$defs":{"A":)" + resource("urn:a") +
               R"(,"B":)" + resource("urn:b") + R"(,"C":)" + resource("urn:c") + "}}");
  };
  auto dynamic = schema(true);
  auto plain = schema(false);
  ASSERT_TRUE(dynamic);
  ASSERT_TRUE(plain);
  std::string cbor;
  // In resource r (0: A, 1: B, 2: C): {name of r+1: tree, name of r+2: tree}, {} at the leaves.
  std::function<void(int, int)> tree = [&](int depth, int r) {
    if (depth == 0) {
      cbor += '\xa0';
      return;
    }
    cbor += '\xa2';
    for (int k = 1; k <= 2; ++k) {
      const int child = (r + k) % 3;
      cbor += '\x61';
      cbor += static_cast<char>('a' + child);
      tree(depth - 1, child);
    }
  };
  tree(16, 0);
  Limits limits;
  limits.max_alloc_bytes = 1 << 20;
  EXPECT_TRUE(Check(*plain, Format::kCbor, cbor, nullptr, limits).ok());
  EXPECT_EQ(Check(*dynamic, Format::kCbor, cbor, nullptr, limits).code, ErrorCode::kBudgetExceeded);
  EXPECT_TRUE(Check(*dynamic, Format::kCbor, cbor).ok());
}

TEST(JsonSchema, TaggedKeysKeepTheirText) {
  // CBOR {52(h'01020304'): {52(h'05060708'): "x"}}: each key is an IP address, read back
  // as text from buffers the next tagged item reuses. The path names both.
  auto set = One(R"({"additionalProperties":{"additionalProperties":{"type":"integer"}}})");
  ASSERT_TRUE(set);
  const std::string input("\xa1\xd8\x34\x44\x01\x02\x03\x04\xa1\xd8\x34\x44\x05\x06\x07\x08\x61x",
                          18);
  const Status s = Check(*set, Format::kCbor, input);
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.path, "/1.2.3.4/5.6.7.8");
}

TEST(JsonSchema, ContentMediaTypeLeavesTheRequestsReaderAlone) {
  // Draft 7 reads a string as JSON for contentMediaType while the request's JSON reader is
  // halfway through its own document: neither may disturb the other.
  auto items = One(R"({"$schema":"http://json-schema.org/draft-07/schema#",
                       "items":{"contentMediaType":"application/json"}})");
  ASSERT_TRUE(items);
  EXPECT_TRUE(Check(*items, Format::kJson, R"(["[0,0,0,0,0,0,0,0]", true])").ok());
  EXPECT_EQ(Check(*items, Format::kJson, R"(["[0,0,", true])").code, ErrorCode::kSchemaViolation);
  // An escaped member name (held by the reader's string buffer) survives the inner read.
  auto keyed = One(R"({"$schema":"http://json-schema.org/draft-07/schema#",
                       "additionalProperties":{"type":"array","items":{"type":"string",
                         "contentMediaType":"application/json"}}})");
  ASSERT_TRUE(keyed);
  const Status s = Check(*keyed, Format::kJson, R"({"k\n": ["[\"\u0041\u0042\u0043\"]", 5]})");
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.path, "/k\n/1");
  // A document past the thread's index size, with a JSON string early in it.
  auto one = One(R"({"$schema":"http://json-schema.org/draft-07/schema#",
                     "properties":{"a":{"contentMediaType":"application/json"}}})");
  ASSERT_TRUE(one);
  const std::string big = R"({"a": "[1]", "b": ")" + std::string(1200000, 'x') + "\"}";
  EXPECT_TRUE(Check(*one, Format::kJson, big).ok());
}

TEST(JsonSchema, InPlaceExpansionIsBoundedAtLoad) {
  // d_i is allOf [d_{i+1}, d_{i+1}]: a value gets 2^(levels+1) - 1 evaluations.
  auto chain = [](int levels) {
    std::string defs;
    for (int i = 0; i < levels; ++i) {
      const std::string next = "#/$defs/d" + std::to_string(i + 1);
      defs += "\"d" + std::to_string(i) + "\":{\"allOf\":[{\"$ref\":\"" + next +
              "\"},{\"$ref\":\"" + next + "\"}],\"minProperties\":0},";
    }
    defs += "\"d" + std::to_string(levels) + "\":{\"type\":\"object\"}";
    return R"({"$ref":"#/$defs/d0","$defs":{)" + defs + "}}";
  };
  auto small = One(chain(10));  // 2,047 evaluations
  ASSERT_TRUE(small);
  EXPECT_TRUE(Check(*small, Format::kJson, "{}").ok());
  EXPECT_EQ(Check(*small, Format::kJson, "[]").code, ErrorCode::kSchemaViolation);
  std::string error;
  EXPECT_FALSE(One(chain(20), &error));  // 2,097,151
  EXPECT_NE(error.find("/$defs/d"), std::string::npos) << error;
  EXPECT_NE(error.find("expand to more than 10000 evaluations"), std::string::npos) << error;
}

TEST(JsonSchema, RecursionFollowsTheInstanceWithinMaxDepth) {
  auto set =
      One(R"({"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"})");
  ASSERT_TRUE(set);
  Limits limits;
  limits.max_depth = 64;
  EXPECT_TRUE(
      Check(*set, Format::kJson, std::string(60, '[') + std::string(60, ']'), nullptr, limits)
          .ok());
  EXPECT_EQ(
      Check(*set, Format::kJson, std::string(70, '[') + std::string(70, ']'), nullptr, limits).code,
      ErrorCode::kDepthExceeded);
}

// An empty array or map is given to the validator as one event (sink.h, TakesEmpty) by
// all three readers, and opens no frame when its subschema passes it as it is. What it
// fails is still said at the container, it still counts as an item of its parent, a
// repeated name after it is still refused, and max_depth still counts it.
TEST(JsonSchema, EmptyContainersAreJudgedInOneEvent) {
  auto set = One(R"({"properties":{"a":{"type":"array","minItems":1},
                                   "o":{"type":"object","required":["x"]},
                                   "s":{"type":"string"},
                                   "l":{"items":{"type":"array"}},
                                   "m":{"properties":{"k":{"type":"object"}}}}})");
  ASSERT_TRUE(set);
  struct Case {
    Format format;
    std::string violations, items, repeated;
  };
  const std::vector<Case> cases = {
      {Format::kJson, R"({"a":[],"o":{},"s":[]})", R"({"l":[[],[],5]})",
       R"({"m":{"k":{},"k":{}}})"},
      // a3 61 61 80 61 6f a0 61 73 80 / a1 61 6c 83 80 80 05 / a1 61 6d a2 61 6b a0 61 6b a0
      {Format::kCbor, std::string("\xa3\x61\x61\x80\x61\x6f\xa0\x61\x73\x80", 10),
       std::string("\xa1\x61\x6c\x83\x80\x80\x05", 7),
       std::string("\xa1\x61\x6d\xa2\x61\x6b\xa0\x61\x6b\xa0", 10)},
      {Format::kMsgpack, std::string("\x83\xa1\x61\x90\xa1\x6f\x80\xa1\x73\x90", 10),
       std::string("\x81\xa1\x6c\x93\x90\x90\x05", 7),
       std::string("\x81\xa1\x6d\x82\xa1\x6b\x80\xa1\x6b\x80", 10)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(FormatName(c.format)));
    const bool json = c.format == Format::kJson;
    std::vector<Status> all;
    EXPECT_EQ(Check(*set, c.format, c.violations, &all).code, ErrorCode::kSchemaViolation);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].path, "/a");
    EXPECT_EQ(all[0].offset, json ? 5u : 3u);
    EXPECT_EQ(all[0].message, "/properties/a/minItems: 0 items, fewer than minItems 1");
    EXPECT_EQ(all[1].path, "/o");
    EXPECT_EQ(all[1].offset, json ? 12u : 6u);
    EXPECT_EQ(all[1].message, "/properties/o/required: missing required property \"x\"");
    EXPECT_EQ(all[2].path, "/s");
    EXPECT_EQ(all[2].offset, json ? 19u : 9u);
    EXPECT_EQ(all[2].message, "/properties/s/type: an array is not of type string");
    const Status item = Check(*set, c.format, c.items);
    EXPECT_EQ(item.code, ErrorCode::kSchemaViolation);
    EXPECT_EQ(item.path, "/l/2");
    EXPECT_EQ(item.offset, json ? 12u : 6u);
    EXPECT_EQ(Check(*set, c.format, c.repeated).code, ErrorCode::kDuplicateKey);
  }
  // max_depth 3: three arrays deep pass, a fourth (empty) one is too deep, in each format.
  auto nested =
      One(R"({"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"})");
  ASSERT_TRUE(nested);
  Limits limits;
  limits.max_depth = 3;
  struct Nesting {
    Format format;
    std::string open, empty, close;
  };
  const std::vector<Nesting> nestings = {{Format::kJson, "[", "[]", "]"},
                                         {Format::kCbor, "\x81", "\x80", ""},
                                         {Format::kMsgpack, "\x91", "\x90", ""}};
  for (const Nesting& n : nestings) {
    SCOPED_TRACE(std::string(FormatName(n.format)));
    auto deep = [&](int opens) {
      std::string s;
      for (int i = 0; i < opens; ++i) s += n.open;
      s += n.empty;
      for (int i = 0; i < opens; ++i) s += n.close;
      return s;
    };
    EXPECT_TRUE(Check(*nested, n.format, deep(2), nullptr, limits).ok());
    EXPECT_EQ(Check(*nested, n.format, deep(3), nullptr, limits).code, ErrorCode::kDepthExceeded);
  }
}

TEST(JsonSchema, LoadErrorsNameTheLocation) {
  std::string error;
  EXPECT_FALSE(One(R"({"properties":{"a":{"pattern":"(?<=x)y"}}})", &error));
  EXPECT_EQ(error.rfind("s.json: /properties/a/pattern: ", 0), 0u) << error;
  EXPECT_FALSE(One(R"({"$ref":"#/$defs/missing"})", &error));
  EXPECT_EQ(error.rfind("s.json: /$ref: ", 0), 0u) << error;
  EXPECT_FALSE(One(R"({"allOf":[{"$ref":"#"}]})", &error));
  EXPECT_NE(error.find("a $ref cycle that consumes no input"), std::string::npos) << error;
  EXPECT_FALSE(One(R"({"$ref":"https://example.com/remote.json"})", &error));
  EXPECT_NE(error.find("nothing is fetched"), std::string::npos) << error;
  // A recursive reference that consumes input loads.
  EXPECT_TRUE(One(R"({"properties":{"next":{"$ref":"#"}}})", &error)) << error;
}

// fuzz_json_schema's violation_before_syntax_error: schema 1 of the target (anyOf of an
// array and an object), JSON "2@". The violation at byte 0 comes before the malformed byte
// 1: both modes report it (collecting every violation used to report the syntax error).
TEST(JsonSchema, FuzzViolationBeforeSyntaxError) {
  const std::string input =
      testing::ReadFile(std::string(ROSETTA_SOURCE_DIR) +
                        "/tests/fuzz/regressions/fuzz_json_schema/violation_before_syntax_error");
  ASSERT_EQ(input, std::string("\x04"
                               "2@",
                               3));
  auto set = One(R"({"anyOf":[{"type":"array"},{"type":"object","minProperties":2}]})");
  ASSERT_TRUE(set);
  const Status first = Check(*set, Format::kJson, input.substr(1));
  std::vector<Status> all;
  const Status every = Check(*set, Format::kJson, input.substr(1), &all);
  EXPECT_EQ(first.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(every.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(first.offset, 0u);
  EXPECT_EQ(every.offset, 0u);
  EXPECT_EQ(first.message, "/anyOf: 2 matches none of the 2 schemas of anyOf");
}

// fuzz_json_schema's bignum_tag_over_an_array: schema 7 of the target (a string or an
// integer), CBOR whose bignum tags are over an array. The JSON writer drops those tags and
// writes the array: the instance is that array, not a number.
// tests/fuzz/regressions/fuzz_json_schema/claim_in_a_tagged_top_map: a map under a tag the
// validator hands to its JSON writer whole (a bignum tag, at the top, so with no frame of
// the validator's open) had its keys offered to the validator's record of member names,
// which read a frame that was not there. Such a map's keys stay with the reader.
TEST(JsonSchema, FuzzKeysOfATaggedTopMap) {
  auto set = One(R"({"properties":{"a":{},"b":{}}})");
  auto reader_alone = One("true");
  ASSERT_TRUE(set && reader_alone);
  // 3({"a": 1, "b": 2}), 3({"a": 1, "a": 2}), and {"o": 3({"a": 1, "a": 2})}.
  for (const std::string& input :
       {std::string("\xc3\xa2\x61\x61\x01\x61\x62\x02", 8),
        std::string("\xc3\xa2\x61\x61\x01\x61\x61\x02", 8),
        std::string("\xa1\x61\x6f\xc3\xa2\x61\x61\x01\x61\x61\x02", 11)}) {
    const Status want = Check(*reader_alone, Format::kCbor, input);
    const Status got = Check(*set, Format::kCbor, input);
    EXPECT_EQ(got.code, want.code);
    EXPECT_EQ(got.offset, want.offset);
    EXPECT_EQ(got.message, want.message);
  }
  EXPECT_EQ(Check(*set, Format::kCbor, std::string("\xc3\xa2\x61\x61\x01\x61\x61\x02", 8)).code,
            ErrorCode::kDuplicateKey);
}

TEST(JsonSchema, FuzzBignumTagOverAnArray) {
  const std::string input =
      testing::ReadFile(std::string(ROSETTA_SOURCE_DIR) +
                        "/tests/fuzz/regressions/fuzz_json_schema/bignum_tag_over_an_array");
  ASSERT_EQ(static_cast<uint8_t>(input[0]), 0x5d);  // CBOR, schema 7
  auto set = One(R"({"type":["string","integer"],"format":"date-time","minLength":2,
                     "allOf":[{"not":{"type":"string","pattern":"Z$"}}]})");
  ASSERT_TRUE(set);
  const Status s = Check(*set, Format::kCbor, input.substr(1));
  EXPECT_EQ(s.code, ErrorCode::kSchemaViolation);
  EXPECT_EQ(s.offset, 0u);
  EXPECT_EQ(s.message, "/type: an array is not of type string, integer");
  // A bignum over its byte string is the integer it encodes: 2^64 is an integer.
  EXPECT_TRUE(Check(*set, Format::kCbor, std::string("\xc2\x49\x01\0\0\0\0\0\0\0\0", 11)).ok());
}

}  // namespace
}  // namespace rosetta::codec
