// Every (input, output) pair: the first byte picks the pair and the mapping options. What
// a transcode produces is always valid in its output format.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  if (size < 1) return 0;
  const uint8_t pick = data[0];
  const codec::Format from = static_cast<codec::Format>(1 + pick % 3);
  const codec::Format to = static_cast<codec::Format>(1 + (pick / 3) % 3);
  codec::MappingOptions options;
  options.allow_duplicate_keys = pick & 0x10;
  options.base64_standard = pick & 0x20;
  options.nonfinite_as_null = pick & 0x40;
  options.bignum_as_double = pick & 0x80;
  fuzz::Padded input(data + 1, size - 1);
  codec::OutputBuffer out;
  codec::Status s =
      fuzz::Transcode(from, to, input.view(size - 1), out, codec::kInputPadding, options);
  if (!s.ok()) {
    if (s.code == codec::ErrorCode::kOk) fuzz::Fail("failure without a code");
    return 0;
  }
  codec::MappingOptions check = fuzz::OutputCheck();
  check.allow_duplicate_keys = options.allow_duplicate_keys;  // what was allowed in stays allowed
  if (!fuzz::Validate(to, out.view(), check).ok())
    fuzz::Fail("transcode output is not valid in its format");
  return 0;
}
