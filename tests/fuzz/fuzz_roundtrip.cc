// Round-trip property: X -> CBOR -> X gives the same bytes as X -> X, for X in JSON, CBOR
// and MessagePack (the first byte picks X). CBOR is the hub every pair can pass through.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rosetta;
  if (size < 1) return 0;
  const codec::Format x = static_cast<codec::Format>(1 + data[0] % 3);
  fuzz::Padded input(data + 1, size - 1);
  const std::string_view in = input.view(size - 1);
  codec::OutputBuffer direct, hub, back;
  if (!fuzz::Transcode(x, x, in, direct, codec::kInputPadding).ok()) return 0;
  if (!fuzz::Transcode(x, codec::Format::kCbor, in, hub, codec::kInputPadding).ok()) {
    fuzz::Fail("X -> X succeeds but X -> CBOR fails");
  }
  if (!fuzz::Transcode(codec::Format::kCbor, x, hub.view(), back).ok())
    fuzz::Fail("X -> CBOR -> X fails");
  if (back.view() != direct.view()) fuzz::Fail("X -> CBOR -> X differs from X -> X");
  return 0;
}
