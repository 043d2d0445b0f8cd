// JSON Schema validation (codec/src/schema) on hostile payloads, against a fixed set of
// schemas that use every kind of keyword: branches side by side (anyOf, oneOf, not, if,
// dependentSchemas), unevaluated*, the canonical capture (uniqueItems, const, enum),
// number bounds on a direct frame's items and members (JSON decimals are judged from their
// digits where that settles them: Validator::TakeDecimal), dynamic references, patterns, draft 7's
// contentMediaType (a JSON read inside the request's own), member names kept down nested maps
// (integer and tagged keys). Byte 0: bits 0-1 the payload's format (JSON, CBOR, MessagePack), bits
// 2-4 and 6 the schema, bit 5 format assertion. Checked:
//   - stopping at the first violation and collecting them all give the same verdict;
//   - a payload valid in CBOR or MessagePack is valid again once transcoded to JSON (the
//     instance is the JSON data model, whatever the format); one that violates the schema
//     violates it again, first at the same instance path and keyword location (a wrong
//     member name or index in a path, such as a key read back from a reused buffer, shows
//     here without a sanitizer);
//   - every collected violation is in input order and names a keyword location.
#include <memory>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "rosetta/codec/json_schema.h"

namespace {

using namespace rosetta;

constexpr const char* kSchemas[] = {
    R"({"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":0},
        "name":{"type":"string","maxLength":8,"pattern":"^[a-z]+$"},
        "tags":{"type":"array","items":{"enum":["a","b",1,null,{"x":1}]},"uniqueItems":true},
        "at":{"type":"array","items":{"type":"number","minimum":-180,"exclusiveMaximum":180.5}}},
        "patternProperties":{"^x-":{"type":["number","boolean"]}},"additionalProperties":false})",
    R"({"anyOf":[{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"}},
        {"type":"object","minProperties":2}],"not":{"const":[1,2,3]}})",
    R"({"oneOf":[{"required":["a"]},{"required":["b"]}],"if":{"properties":{"a":{"const":1}}},
        "then":{"required":["c"]},"else":{"properties":{"c":false}},
        "dependentSchemas":{"d":{"required":["e"]}},"unevaluatedProperties":{"type":"string"}})",
    R"({"$defs":{"node":{"type":"object","properties":{"v":{"type":"number","multipleOf":0.5},
        "w":{"type":"number","exclusiveMinimum":-0.1,"maximum":1e15},
        "kids":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":4}},
        "additionalProperties":false}},"$ref":"#/$defs/node"})",
    R"({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://x.test/tree",
        "$dynamicAnchor":"node","type":"object","properties":{"data":true,
        "children":{"type":"array","items":{"$dynamicRef":"#node"}}},
        "unevaluatedProperties":false})",
    R"({"type":"array","contains":{"type":"object","propertyNames":{"maxLength":3}},
        "minContains":1,"maxContains":2,"unevaluatedItems":{"type":["null","boolean"]},
        "items":{"anyOf":[{"type":"object"},{"type":"null"},{"type":"boolean"}]}})",
    R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
        "properties":{"n":{"type":"integer","maximum":10,"exclusiveMaximum":true}},
        "dependencies":{"a":["b"],"c":{"properties":{"d":{"format":"ipv4"}}}}})",
    R"({"type":["string","integer"],"format":"date-time","minLength":2,
        "allOf":[{"not":{"type":"string","pattern":"Z$"}}]})",
    R"({"$schema":"http://json-schema.org/draft-07/schema#","type":["object","array"],
        "additionalProperties":{"type":["string","array"],"contentMediaType":"application/json",
        "items":{"contentMediaType":"application/json"}},
        "items":{"contentMediaType":"application/json"}})",
    R"({"type":["object","integer"],"propertyNames":{"maxLength":20},
        "additionalProperties":{"$ref":"#"},"unevaluatedProperties":false})",
};
constexpr size_t kSchemaCount = sizeof(kSchemas) / sizeof(kSchemas[0]);

const codec::JsonSchemaSet& Schemas() {
  static const std::shared_ptr<const codec::JsonSchemaSet> set = [] {
    std::vector<codec::JsonSchemaSet::Document> docs;
    for (size_t i = 0; i < kSchemaCount; ++i)
      docs.push_back({"s" + std::to_string(i), "s" + std::to_string(i) + ".json", kSchemas[i],
                      "https://schemas.test/s" + std::to_string(i)});
    std::string error;
    auto s = codec::JsonSchemaSet::Load(std::move(docs), &error);
    if (!s) fuzz::Fail(error.c_str());
    return s;
  }();
  return *set;
}

codec::Status Check(codec::Format f, const codec::JsonSchema* schema, std::string_view input,
                    std::vector<codec::Status>* all, bool format_assertion) {
  codec::TranscodeRequest r;
  r.from = f;
  r.input = input;
  r.limits = fuzz::ProductionLimits();
  r.json_schema = schema;
  r.violations = all;
  r.options.format_assertion = format_assertion;
  return codec::Validate(r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  constexpr codec::Format kFormats[] = {codec::Format::kJson, codec::Format::kCbor,
                                        codec::Format::kMsgpack, codec::Format::kJson};
  const codec::Format f = kFormats[data[0] & 3];
  const size_t which = ((data[0] >> 2) & 7) | ((data[0] >> 6 & 1) << 3);
  const bool assert_format = (data[0] >> 5) & 1;
  const codec::JsonSchema* schema = Schemas().Find("s" + std::to_string(which % kSchemaCount));
  if (schema == nullptr) fuzz::Fail("schema not loaded");
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  const codec::Status first = Check(f, schema, input, nullptr, assert_format);
  std::vector<codec::Status> all;
  const codec::Status every = Check(f, schema, input, &all, assert_format);
  if (first.code != every.code) fuzz::Fail("first-violation and all-violations verdicts differ");
  if (every.code == codec::ErrorCode::kSchemaViolation) {
    if (all.empty()) fuzz::Fail("a schema violation with no violation listed");
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].code != codec::ErrorCode::kSchemaViolation) fuzz::Fail("a listed non-violation");
      if (i > 0 && all[i].offset < all[i - 1].offset) fuzz::Fail("violations out of input order");
      if (all[i].message.find(": ") == std::string::npos) fuzz::Fail("no keyword location");
    }
  }
  const bool violation = first.code == codec::ErrorCode::kSchemaViolation;
  if ((first.ok() || violation) && f != codec::Format::kJson) {
    // The same instance written as JSON: the same verdict.
    codec::OutputBuffer json;
    codec::TranscodeRequest t;
    t.from = f;
    t.to = codec::Format::kJson;
    t.input = input;
    t.limits = fuzz::ProductionLimits();
    if (codec::Transcode(t, json).ok()) {
      const std::string text(json.data(), json.size());
      const codec::Status again = Check(codec::Format::kJson, schema, text, nullptr, assert_format);
      if (first.ok() && again.code == codec::ErrorCode::kSchemaViolation)
        fuzz::Fail("valid as CBOR/MessagePack, a violation once written as JSON");
      // A violation's JSON may still be refused for itself (a limit the JSON reader counts
      // differently, members 1 and "1" that became duplicates): only two violations compare.
      if (violation && again.code == codec::ErrorCode::kSchemaViolation) {
        auto keyword = [](const codec::Status& s) {
          return s.message.substr(0, s.message.find(": "));
        };
        if (again.path != first.path)
          fuzz::Fail("a violation's instance path differs once written as JSON");
        if (keyword(again) != keyword(first))
          fuzz::Fail("a violation's keyword location differs once written as JSON");
      }
      if (violation && again.ok())
        fuzz::Fail("a violation as CBOR/MessagePack, valid once written as JSON");
    }
  }
  return 0;
}
