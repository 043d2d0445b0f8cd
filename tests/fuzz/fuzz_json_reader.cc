// JSON reader: never crashes, never allocates what the input claims, and agrees with
// simdjson's own validating parser (an independent implementation) wherever the mapping
// agrees: our extra rules (duplicate keys, depth, numbers past a double) are set aside.
// And the structural-index reader (json_reader.h) agrees exactly with the byte-by-byte
// reader (json_scalar_reader.h): the same CBOR and JSON, or the same error code, offset
// and path.
#include <simdjson.h>

#include "fuzz_common.h"
#include "tests/support/json_readers.h"

namespace {

// True when the document holds something simdjson's DOM accepts but rosetta refuses by
// design: integers past 64 bits (rosetta keeps them as bignums, simdjson refuses them) are
// the reverse case; numbers beyond double range are refused by both.
bool HasBigInteger(std::string_view s) {
  size_t run = 0;
  for (char c : s) {
    run = (c >= '0' && c <= '9') ? run + 1 : 0;
    if (run > 18) return true;
  }
  return false;
}

template <class Writer>
void CompareReaders(std::string_view json, const rosetta::codec::MappingOptions& options) {
  using rosetta::testing::ReadJsonInto;
  const rosetta::codec::Limits limits;
  if (!rosetta::testing::SameOutcome(ReadJsonInto<Writer>(true, json, limits, options),
                                     ReadJsonInto<Writer>(false, json, limits, options))) {
    rosetta::fuzz::Fail("the structural-index reader and the byte-by-byte reader disagree");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  fuzz::Padded input(data, size);
  const std::string_view json = input.view(size);
  codec::MappingOptions lenient;
  lenient.allow_duplicate_keys = true;
  codec::Status ours = fuzz::Validate(codec::Format::kJson, json, lenient);

  codec::OutputBuffer out;
  codec::Status to_cbor = fuzz::Transcode(codec::Format::kJson, codec::Format::kCbor, json, out,
                                          codec::kInputPadding, lenient);
  if (to_cbor.ok() != ours.ok()) fuzz::Fail("validate and transcode disagree on acceptance");
  if (to_cbor.ok() && !fuzz::Validate(codec::Format::kCbor, out.view(), lenient).ok())
    fuzz::Fail("JSON -> CBOR output is not valid CBOR");

  CompareReaders<codec::CborWriter>(json, lenient);
  CompareReaders<codec::JsonWriter>(json, lenient);

  static simdjson::dom::parser parser(1 << 20);
  simdjson::dom::element doc;
  const simdjson::error_code theirs = parser.parse(json.data(), json.size(), false).get(doc);
  if (ours.ok() && theirs && theirs != simdjson::CAPACITY && !HasBigInteger(json)) {
    fuzz::Fail("rosetta accepts JSON that simdjson refuses");
  }
  const bool bom = json.size() >= 3 &&
                   json.substr(0, 3) == "\xEF\xBB\xBF";  // refused by rosetta (docs/formats.md)
  if (!ours.ok() && !theirs && !bom) {
    using codec::ErrorCode;
    const ErrorCode c = ours.code;
    // Refusals by rosetta's own rules, not by RFC 8259 syntax.
    if (c != ErrorCode::kDepthExceeded && c != ErrorCode::kUnrepresentable &&
        c != ErrorCode::kTooManyItems && c != ErrorCode::kStringTooLarge &&
        c != ErrorCode::kInvalidUtf8 && c != ErrorCode::kBudgetExceeded) {
      fuzz::Fail("rosetta refuses JSON that simdjson accepts");
    }
  }
  return 0;
}
