#include "cbor/cbor_writer.h"

#include <string>

namespace rosetta::codec {

template <bool kDeterministic>
bool BasicCborWriter<kDeterministic>::RoomExact(size_t exact) {
  if (out_.Ensure(exact)) return true;
  return OutputFull();
}

template <bool kDeterministic>
bool BasicCborWriter<kDeterministic>::OutputFull() {
  if (out_.over_limit()) {
    return ctx_.Fail(ErrorCode::kOutputTooLarge, "output would pass max_output_bytes " +
                                                     std::to_string(ctx_.limits.max_output_bytes));
  }
  return ctx_.BudgetExceeded(out_.capacity());
}

template <bool kDeterministic>
bool BasicCborWriter<kDeterministic>::Blob(uint8_t major, std::string_view s) {
  if (!Room(9, HeadSize(s.size()))) return false;
  Head(major, s.size());
  return out_.AppendBlob(s.data(), s.size()) || OutputFull();
}

// The slot reserved one byte; a count of 24 or more needs a longer head, so the content
// moves up by the difference (once per such container).
template <bool kDeterministic>
bool BasicCborWriter<kDeterministic>::FillLongSlot(uint8_t major, uint64_t slot, uint64_t n) {
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

// The closing map's entries in bytewise order of their keys' encodings (RFC 8949 section
// 4.2.1). Its starts are key, value, key, value, ...: entry i is [starts[2i], the next
// entry's start or the end of the output), its key [starts[2i], starts[2i + 1]). An order
// of entry numbers is sorted, not the entries; the bytes move once, through a copy of the
// content, and only when the input's order was not already the right one. The order and
// the copy are kept for the next map (they grow, charged to the budget, and never shrink).
template <bool kDeterministic>
bool BasicCborWriter<kDeterministic>::SortEntries() {
  const size_t first = maps_.back();
  maps_.Pop();
  const size_t items = starts_.size() - first;
  const size_t entries = items / 2;
  if (entries < 2) {
    starts_.Truncate(first);
    return true;
  }
  const char* base = out_.data();
  const uint64_t end = out_.size();
  auto key = [&](size_t e) {
    const uint64_t from = starts_[first + 2 * e];
    return std::string_view(base + from, starts_[first + 2 * e + 1] - from);
  };
  auto entry_end = [&](size_t e) { return e + 1 < entries ? starts_[first + 2 * (e + 1)] : end; };
  bool sorted = true;
  for (size_t e = 1; e < entries && sorted; ++e) sorted = key(e - 1) < key(e);
  if (!sorted) {
    // Sorted by the first 8 bytes of each key as one big-endian number (zero-padded), the
    // whole keys compared only where those are equal.
    order_.Truncate(0);
    if (!order_.Reserve(entries)) return false;
    for (size_t e = 0; e < entries; ++e) {
      const std::string_view k = key(e);
      unsigned char head[8] = {};
      std::memcpy(head, k.data(), std::min<size_t>(k.size(), 8));
      uint64_t prefix = 0;
      for (unsigned char b : head) prefix = prefix << 8 | b;
      order_.Push(SortEntry{prefix, static_cast<uint32_t>(e)});
    }
    SortEntry* o = &order_[0];
    std::sort(o, o + entries, [&](const SortEntry& a, const SortEntry& b) {
      return a.prefix != b.prefix ? a.prefix < b.prefix : key(a.entry) < key(b.entry);
    });
    for (size_t i = 1; i < entries; ++i) {
      if (o[i - 1].prefix == o[i].prefix && key(o[i - 1].entry) == key(o[i].entry)) {
        return ctx_.Fail(ErrorCode::kDuplicateKey,
                         "deterministic CBOR: a map holds the same key twice");
      }
    }
    const uint64_t content = starts_[first];
    // A map moves its whole content, maps nested in it included, so maps nested out of
    // order could move a large value once per level: the bytes moved are bounded by four
    // times max_output_bytes, which keeps the cost linear in the output whatever the shape.
    moved_ += end - content;
    if (moved_ / 4 > ctx_.limits.max_output_bytes) {
      return ctx_.Fail(ErrorCode::kBudgetExceeded,
                       "deterministic CBOR: sorting maps nested out of order would move more "
                       "than 4 x max_output_bytes");
    }
    if (!copy_.Reserve(end - content)) return false;
    char* c = &copy_[0];
    std::memcpy(c, base + content, end - content);
    char* to = out_.data() + content;
    for (size_t i = 0; i < entries; ++i) {
      const uint64_t from = starts_[first + 2 * o[i].entry];
      const uint64_t size = entry_end(o[i].entry) - from;
      std::memcpy(to, c + (from - content), size);
      to += size;
    }
  }
  starts_.Truncate(first);
  return true;
}

template class BasicCborWriter<false>;
template class BasicCborWriter<true>;

}  // namespace rosetta::codec
