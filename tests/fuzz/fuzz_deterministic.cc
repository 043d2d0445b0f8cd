// Deterministic CBOR, differential: X -> CBOR with the option `deterministic` must be
// X -> CBOR without it, with every map's entries sorted by their encoded keys (by the
// independent walker of tests/support/cbor_sorted.h, not the writer's offsets), for X in
// JSON, CBOR and MessagePack (the first byte picks X). The deterministic output must pass
// validate --deterministic, and written again deterministically it must not change.
#include "fuzz_common.h"
#include "tests/support/cbor_sorted.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  if (size < 1) return 0;
  const codec::Format x = static_cast<codec::Format>(1 + data[0] % 3);
  fuzz::Padded input(data + 1, size - 1);
  const std::string_view in = input.view(size - 1);
  codec::MappingOptions deterministic;
  deterministic.deterministic = true;
  codec::OutputBuffer plain, sorted, again;
  if (!fuzz::Transcode(x, codec::Format::kCbor, in, plain, codec::kInputPadding).ok()) return 0;
  const codec::Status s =
      fuzz::Transcode(x, codec::Format::kCbor, in, sorted, codec::kInputPadding, deterministic);
  if (!s.ok()) {
    // Sorting takes memory of its own, and two keys the reader tells apart may have one
    // encoding (then deterministic CBOR has no form for the map): only these may refuse
    // what the plain writer took.
    if (s.code == codec::ErrorCode::kBudgetExceeded || s.code == codec::ErrorCode::kDuplicateKey)
      return 0;
    fuzz::Fail("X -> CBOR succeeds but X -> deterministic CBOR fails");
  }
  if (sorted.view() != testing::CborSorted(plain.view()))
    fuzz::Fail("deterministic CBOR differs from the plain output sorted");
  if (!fuzz::Validate(codec::Format::kCbor, sorted.view(), deterministic).ok())
    fuzz::Fail("validate --deterministic refuses the deterministic output");
  if (!fuzz::Transcode(codec::Format::kCbor, codec::Format::kCbor, sorted.view(), again, 0,
                       deterministic)
           .ok() ||
      again.view() != sorted.view())
    fuzz::Fail("deterministic CBOR written again deterministically changes");
  return 0;
}
