#include "cbor/cbor_writer.h"

#include <string>

namespace rosetta::codec {

bool CborWriter::RoomExact(size_t exact) {
  if (out_.Ensure(exact)) return true;
  return OutputFull();
}

bool CborWriter::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

// The slot reserved one byte; a count of 24 or more needs a longer head, so the content
// moves up by the difference (once per such container).
bool CborWriter::FillLongSlot(uint8_t major, uint64_t slot, uint64_t n) {
  size_t head = n <= 0xff ? 2 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
  size_t extra = head - 1;
  if (!Room(extra)) return false;
  char* base = out_.data();
  std::memmove(base + slot + head, base + slot + 1, out_.size() - slot - 1);
  size_t end = out_.size() + extra;
  out_.Resize(slot);
  Head(major, n);
  out_.Resize(end);
  return true;
}

}  // namespace rosetta::codec
