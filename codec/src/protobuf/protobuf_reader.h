#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/reader_state.h"
#include "protobuf/protobuf_schema.h"
#include "protobuf/protobuf_wkt.h"
#include "rosetta/codec/sink.h"
#include "text/utf8.h"

namespace rosetta::codec {

// Protobuf nests by recursion (as libprotobuf does); max_depth bounds it, and so does
// this, whatever max_depth is configured.
inline constexpr int kProtobufMaxNesting = 512;

// Reads protobuf wire format driven by a message descriptor and drives a sink with events
// shaped by the proto3 JSON mapping: json_name keys, fields in declaration order,
// defaults of fields without presence omitted, repeated fields as arrays (packed or not,
// even interleaved), maps as maps with text keys, enums by name, the well-known types in
// their JSON forms. With json_target, 64-bit integers and non-finite floats become
// strings, as proto3 JSON writes them.
//
// Each message is read in two passes over its own bytes: an index of its fields (offsets
// only, charged to the budget), then the events. That is what lets a repeated field split
// across the message, a singular field given twice (last wins) and a message given twice
// (merged) come out as protobuf defines them, without buffering any value.
template <Sink S>
class ProtobufReader {
 public:
  template <Sink>
  friend class ProtobufReader;

  ProtobufReader(Context& ctx, S& sink, const Schema* schema, const MessageInfo& root,
                 bool json_target)
      : ctx_(ctx),
        st_(ctx),
        sink_(sink),
        schema_(schema),
        root_(root),
        json_(json_target),
        occ_(ctx),
        ranges_(ctx),
        counts_(ctx) {}

  bool Read(std::string_view input) {
    begin_ = reinterpret_cast<const uint8_t*>(input.data());
    Range whole{0, input.size()};
    return Value(root_, &whole, 1, 0);
  }

 private:
  struct Range {
    uint64_t begin, end;
  };
  // One field occurrence: the value's bytes [begin, end), its field index and wire type.
  struct Occ {
    uint64_t begin, end;
    uint32_t field;
    uint8_t wire;
  };

  [[gnu::cold]] bool Fail(ErrorCode code, uint64_t offset, std::string message) {
    return st_.FailAt(code, offset, std::move(message));
  }
  [[gnu::cold]] bool TooManyItems(uint64_t n, uint64_t offset) {
    return Fail(
        ErrorCode::kTooManyItems, offset,
        std::to_string(n) + " items pass max_items " + std::to_string(ctx_.limits.max_items));
  }
  [[gnu::cold]] bool SinkFailed(uint64_t offset) {
    st_.Locate(offset);
    return false;
  }
  bool Varint(uint64_t* at, uint64_t end, uint64_t* v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (*at >= end)
        return Fail(ErrorCode::kTruncated, *at, "varint runs past the end of its message");
      const uint8_t b = begin_[(*at)++];
      if (shift == 63 && b > 1)
        return Fail(ErrorCode::kSyntax, *at - 1, "varint overflows 64 bits");
      x |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = x;
        return true;
      }
    }
    return Fail(ErrorCode::kSyntax, *at, "varint longer than 10 bytes");
  }

  // A tag is a varint of 32 bits: at most 5 bytes (as libprotobuf reads it).
  [[gnu::cold]] bool BadTag(uint64_t at) {
    return Fail(ErrorCode::kSyntax, at, "field tag longer than 5 bytes or 32 bits");
  }
  bool Index(const MessageInfo& m, const Range* ranges, size_t n, size_t* first);
  // Setting a oneof member clears the others: of the occurrences [i, j) of the member
  // that won, those before the last occurrence of another member of its oneof are void
  // (a message set, then another member, then the message again starts over).
  size_t AfterOtherOneofMembers(const MessageInfo& m, size_t first, size_t end, size_t i,
                                size_t j) const {
    const int oneof = m.fields[occ_[i].field].oneof_index;
    uint64_t cutoff = 0;
    bool any = false;
    for (size_t k = first; k < end; ++k) {
      if (occ_[k].field != occ_[i].field && m.fields[occ_[k].field].oneof_index == oneof &&
          occ_[k].begin >= cutoff) {
        cutoff = occ_[k].begin;
        any = true;
      }
    }
    size_t from = i;
    while (any && from + 1 < j && occ_[from].begin < cutoff) ++from;
    return from;
  }
  bool Value(const MessageInfo& m, const Range* ranges, size_t n, int depth);
  bool Message(const MessageInfo& m, const Range* ranges, size_t n, int depth, bool inline_fields);
  bool WellKnownValue(const MessageInfo& m, const Range* ranges, size_t n, int depth);
  bool Field(const MessageInfo& m, const FieldInfo& f, size_t occ_first, size_t occ_count,
             int depth);
  bool Element(const FieldInfo& f, uint8_t wire, uint64_t* at, uint64_t end, int depth);
  bool Scalar(const FieldInfo& f, uint64_t raw, uint64_t at);
  // Checks one occurrence whose value is discarded, emitting nothing.
  bool Check(const FieldInfo& f, const Occ& o, int depth);
  bool MapKey(const FieldInfo& key, uint64_t raw, std::string_view text, uint64_t at);
  bool Open(bool is_map, uint64_t count, uint64_t at, int depth) {
    if (depth >= kProtobufMaxNesting)
      return Fail(ErrorCode::kDepthExceeded, at, "nesting deeper than 512");
    // The sink first: a container it refuses is located at itself, not at its first item.
    if (!(is_map ? sink_.BeginMap(count) : sink_.BeginArray(count))) return SinkFailed(at);
    return st_.Open(is_map, kUnknownLength, at);
  }
  bool Close(bool is_map, uint64_t at) {
    st_.Close();
    if (!st_.empty()) ++st_.top().index;
    return (is_map ? sink_.EndMap() : sink_.EndArray()) || SinkFailed(at);
  }
  bool KeyText(std::string_view name, uint64_t at) {
    if (!sink_.Text(name)) return SinkFailed(at);
    ++st_.top().index;
    st_.SetKey(KeyKind::kText, name, 0);
    return true;
  }
  // The input offset of a view into the input.
  uint64_t OffsetOf(std::string_view piece) const {
    return static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(piece.data()) - begin_);
  }
  void Done() {  // a scalar value completed in the current container
    if (!st_.empty()) ++st_.top().index;
  }
  bool Decimal(bool negative, uint64_t magnitude, uint64_t at) {
    char buf[24];
    char* p = buf;
    if (negative) *p++ = '-';
    p = std::to_chars(p, buf + sizeof buf, magnitude).ptr;
    return sink_.Text({buf, static_cast<size_t>(p - buf)}) || SinkFailed(at);
  }
  bool Signed(int64_t v, bool as_text, uint64_t at) {
    if (as_text)
      return Decimal(v < 0, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v), at);
    return (v >= 0 ? sink_.Uint(static_cast<uint64_t>(v))
                   : sink_.NegInt(~static_cast<uint64_t>(v))) ||
           SinkFailed(at);
  }
  bool Unsigned(uint64_t v, bool as_text, uint64_t at) {
    if (as_text) return Decimal(false, v, at);
    return sink_.Uint(v) || SinkFailed(at);
  }
  bool Floating(double d, bool is_float, uint64_t at) {
    if (json_) {
      if (std::isnan(d)) return sink_.Text("NaN") || SinkFailed(at);
      if (std::isinf(d)) return sink_.Text(d > 0 ? "Infinity" : "-Infinity") || SinkFailed(at);
      if (is_float) {  // the float's shortest decimal form, as protobuf prints it
        char buf[32];
        char* e = std::to_chars(buf, buf + sizeof buf, static_cast<float>(d)).ptr;
        std::from_chars(buf, e, d);
      }
    }
    return sink_.Double(d) || SinkFailed(at);
  }

  Context& ctx_;
  ReaderState st_;
  S& sink_;
  const Schema* schema_;
  const MessageInfo& root_;
  const bool json_;
  const uint8_t* begin_ = nullptr;
  BudgetVector<Occ> occ_;       // stack of message indexes
  BudgetVector<Range> ranges_;  // ranges of merged messages
  BudgetVector<uint32_t> counts_;
};

// Builds the field index of a message (its occurrences, grouped by field in declaration
// order, each group in wire order) at occ_[*first ..]. Every length is checked against
// the bytes of its message before it is used.
template <Sink S>
bool ProtobufReader<S>::Index(const MessageInfo& m, const Range* ranges, size_t n, size_t* first) {
  const size_t mark = occ_.size();
  bool in_order = true;  // occurrences already grouped by field in declaration order
  uint32_t last_field = 0;
  for (size_t r = 0; r < n; ++r) {
    uint64_t at = ranges[r].begin;
    const uint64_t end = ranges[r].end;
    while (at < end) {
      const uint64_t tag_at = at;
      uint64_t tag = 0;
      if (!Varint(&at, end, &tag)) return false;
      if (at - tag_at > 5 || tag > 0xffffffffu) return BadTag(tag_at);
      const uint64_t number = tag >> 3;
      const uint8_t wire = tag & 7;
      if (number == 0 || number > 536870911)
        return Fail(ErrorCode::kSyntax, tag_at, "invalid field number " + std::to_string(number));
      uint64_t vbegin = at, v = 0;
      switch (wire) {
        case kVarint:
          if (!Varint(&at, end, &v)) return false;
          break;
        case kI64:
          if (end - at < 8)
            return Fail(ErrorCode::kTruncated, tag_at, "fixed64 runs past the end of its message");
          at += 8;
          break;
        case kI32:
          if (end - at < 4)
            return Fail(ErrorCode::kTruncated, tag_at, "fixed32 runs past the end of its message");
          at += 4;
          break;
        case kLen:
          if (!Varint(&at, end, &v)) return false;
          // Claim guard: a length is checked against the bytes of its message first.
          if (v > end - at) {
            return Fail(ErrorCode::kTruncated, tag_at,
                        "field " + std::to_string(number) + " claims " + std::to_string(v) +
                            " bytes but " + std::to_string(end - at) + " remain");
          }
          vbegin = at;
          at += v;
          break;
        case kStartGroup:
        case kEndGroup:
          return Fail(ErrorCode::kUnsupported, tag_at,
                      "groups (deprecated wire types 3 and 4) are not supported");
        default:
          return Fail(ErrorCode::kSyntax, tag_at, "invalid wire type " + std::to_string(wire));
      }
      const FieldInfo* f = m.FieldByNumber(static_cast<uint32_t>(number));
      if (f == nullptr) {
        if (ctx_.options.reject_unknown_fields) {
          return Fail(ErrorCode::kSchemaMismatch, tag_at,
                      "unknown field " + std::to_string(number) + " in " + m.full_name);
        }
        continue;  // unknown fields are skipped (proto3 JSON has no place for them)
      }
      if (wire != f->wire_type && !(f->packable && wire == kLen)) {
        return Fail(ErrorCode::kSchemaMismatch, tag_at,
                    "field " + f->name + " has wire type " + std::to_string(wire) + ", expected " +
                        std::to_string(static_cast<int>(f->wire_type)));
      }
      const uint32_t field = static_cast<uint32_t>(f - m.fields.data());
      in_order &= field >= last_field;
      last_field = field;
      if (!occ_.Push(Occ{vbegin, at, field, wire})) return SinkFailed(tag_at);
    }
  }
  // Encoders write fields in number order, which is usually declaration order: then the
  // index is already grouped and the sort is skipped (3% of the instructions of protobuf
  // -> JSON on a batch of small records, callgrind).
  if (in_order) {
    *first = mark;
    return true;
  }
  // Counting sort by field: the groups in declaration order, each in wire order.
  const size_t count = occ_.size() - mark;
  const size_t fields = m.fields.size();
  const size_t counts_mark = counts_.size();
  if (!counts_.Reserve(counts_mark + fields + 1) || !occ_.Reserve(mark + 2 * count))
    return SinkFailed(0);
  counts_.Truncate(counts_mark + fields + 1);
  for (size_t i = 0; i <= fields; ++i) counts_[counts_mark + i] = 0;
  for (size_t i = mark; i < mark + count; ++i) ++counts_[counts_mark + occ_[i].field + 1];
  for (size_t i = 1; i <= fields; ++i) counts_[counts_mark + i] += counts_[counts_mark + i - 1];
  occ_.Truncate(mark + 2 * count);
  for (size_t i = mark; i < mark + count; ++i)
    occ_[mark + count + counts_[counts_mark + occ_[i].field]++] = occ_[i];
  counts_.Truncate(counts_mark);
  *first = mark + count;
  return true;
}

template <Sink S>
bool ProtobufReader<S>::Value(const MessageInfo& m, const Range* ranges, size_t n, int depth) {
  if (m.well_known != WellKnown::kNone) return WellKnownValue(m, ranges, n, depth);
  return Message(m, ranges, n, depth, false);
}

template <Sink S>
bool ProtobufReader<S>::Message(const MessageInfo& m, const Range* ranges, size_t n, int depth,
                                bool inline_fields) {
  const size_t mark = occ_.size();
  size_t first;
  if (!Index(m, ranges, n, &first)) return false;
  const size_t end = occ_.size();
  const uint64_t at = n ? ranges[0].begin : 0;
  // Which fields are written: a oneof shows its last member set; a field without presence
  // is left out at its default, as proto3 JSON does.
  uint64_t emitted = 0;
  {
    size_t i = first;
    while (i < end) {
      size_t j = i;
      while (j < end && occ_[j].field == occ_[i].field) ++j;
      const FieldInfo& f = m.fields[occ_[i].field];
      bool emit = true;
      if (f.oneof_index >= 0) {
        for (size_t k = first; k < end; ++k) {  // a later member of the same oneof wins
          const FieldInfo& g = m.fields[occ_[k].field];
          if (g.oneof_index == f.oneof_index && occ_[k].begin > occ_[j - 1].begin) emit = false;
        }
      } else if (!f.repeated && !f.has_presence) {
        const Occ& last = occ_[j - 1];
        if (last.wire == kLen) {
          emit = last.end > last.begin;
        } else if (last.wire == kVarint) {
          // Decoded, not looked at: 80 00 is a zero too, and an int32 or enum is the low
          // 32 bits of its varint.
          uint64_t v = begin_[last.begin], p = last.begin;
          if (last.end - last.begin > 1) Varint(&p, last.end, &v);
          emit = (f.type == google::protobuf::FieldDescriptor::TYPE_BOOL ||
                  f.type == google::protobuf::FieldDescriptor::TYPE_INT64 ||
                  f.type == google::protobuf::FieldDescriptor::TYPE_UINT64 ||
                  f.type == google::protobuf::FieldDescriptor::TYPE_SINT64)
                     ? v != 0
                     : static_cast<uint32_t>(v) != 0;
        } else {
          uint64_t raw = 0;
          std::memcpy(&raw, begin_ + last.begin, last.wire == kI64 ? 8 : 4);
          // -0.0 is not the default (its bits are not 0): protobuf writes it, so do we.
          emit = raw != 0;
        }
      } else if (f.repeated && f.packable) {
        emit = false;
        for (size_t k = i; k < j && !emit; ++k)
          emit = occ_[k].end > occ_[k].begin || occ_[k].wire != kLen;
      }
      occ_[i].wire |= emit ? 0 : 0x80;  // marks the group's first occurrence
      emitted += emit;
      i = j;
    }
  }
  if (!inline_fields && !Open(true, emitted, at, depth)) return false;
  for (size_t i = first; i < end;) {
    size_t j = i;
    while (j < end && occ_[j].field == occ_[i].field) ++j;
    const bool skip = occ_[i].wire & 0x80;
    occ_[i].wire &= 0x7f;
    {
      // What protobuf discards (a oneof member replaced by a later one, a singular value
      // given again) is still checked: a validator accepts only what libprotobuf accepts.
      const FieldInfo& f = m.fields[occ_[i].field];
      const bool merged = f.repeated || f.type == google::protobuf::FieldDescriptor::TYPE_MESSAGE;
      // Occurrences before `kept` are discarded: all of a field not written, those before
      // the last for a singular value, those before a later other member for a oneof.
      const size_t from = f.oneof_index >= 0 ? AfterOtherOneofMembers(m, first, end, i, j) : i;
      const size_t kept = skip ? j : merged ? from : j - 1;
      for (size_t k = i; k < kept; ++k) {
        if (!Check(f, occ_[k], depth + 1)) return false;
      }
    }
    if (!skip) {
      const FieldInfo& f = m.fields[occ_[i].field];
      size_t from = i;
      if (f.oneof_index >= 0) from = AfterOtherOneofMembers(m, first, end, i, j);
      if (!KeyText(f.json_name, occ_[from].begin)) return false;
      if (!Field(m, f, from, j - from, depth + 1)) return false;
    }
    i = j;
  }
  occ_.Truncate(mark);
  return inline_fields || Close(true, at);
}

// Repeated fields: arrays of every element, packed or not; maps: a map of the entries;
// singular: the last occurrence, or for a message all of them merged.
template <Sink S>
bool ProtobufReader<S>::Field(const MessageInfo&, const FieldInfo& f, size_t first, size_t count,
                              int depth) {
  const uint64_t at = occ_[first].begin;
  if (f.is_map) {
    const MessageInfo& entry = *f.message;
    const FieldInfo* key_field = entry.FieldByNumber(1);
    const FieldInfo* value_field = entry.FieldByNumber(2);
    if (!key_field || !value_field)
      return Fail(ErrorCode::kSchemaMismatch, at, "map entry without key or value");
    if (count > ctx_.limits.max_items) return TooManyItems(count, at);
    if (!Open(true, count, at, depth)) return false;
    for (size_t k = first; k < first + count; ++k) {
      const Occ entry_occ = occ_[k];
      // An entry is a small message {1: key, 2: value}; a missing part is its default.
      uint64_t key_raw = 0, p = entry_occ.begin;
      std::string_view key_text;
      uint64_t value_begin = 0, value_end = 0;
      uint8_t value_wire = 0xff;
      while (p < entry_occ.end) {
        const uint64_t tag_at = p;
        uint64_t tag = 0, v = 0;
        if (!Varint(&p, entry_occ.end, &tag)) return false;
        if (p - tag_at > 5 || tag > 0xffffffffu) return BadTag(tag_at);
        const uint8_t wire = tag & 7;
        if ((tag >> 3) == 0 || (tag >> 3) > 536870911) {
          return Fail(ErrorCode::kSyntax, tag_at,
                      "invalid field number " + std::to_string(tag >> 3) + " in a map entry");
        }
        if (wire > kI32)
          return Fail(ErrorCode::kSyntax, tag_at, "invalid wire type " + std::to_string(wire));
        uint64_t vb = p;
        if (wire == kVarint) {
          if (!Varint(&p, entry_occ.end, &v)) return false;
        } else if (wire == kI64 || wire == kI32) {
          uint64_t size = wire == kI64 ? 8 : 4;
          if (entry_occ.end - p < size)
            return Fail(ErrorCode::kTruncated, tag_at, "map entry field runs past its entry");
          p += size;
        } else if (wire == kLen) {
          if (!Varint(&p, entry_occ.end, &v)) return false;
          if (v > entry_occ.end - p)
            return Fail(ErrorCode::kTruncated, tag_at,
                        "map entry field claims more bytes than its entry holds");
          vb = p;
          p += v;
        } else {
          return Fail(ErrorCode::kUnsupported, tag_at, "groups are not supported");
        }
        const uint64_t number = tag >> 3;
        const FieldInfo* part = number == 1 ? key_field : number == 2 ? value_field : nullptr;
        if (part == nullptr) continue;
        if (wire != part->wire_type)
          return Fail(ErrorCode::kSchemaMismatch, tag_at,
                      "map entry field with the wrong wire type");
        // A part given twice: the last wins, the earlier is still checked (as libprotobuf does).
        if (number == 1) {
          if (wire == kLen) {
            if (!key_text.empty() && !ValidUtf8(key_text))
              return Fail(ErrorCode::kInvalidUtf8, OffsetOf(key_text),
                          "map key is not valid UTF-8");
            key_text = {reinterpret_cast<const char*>(begin_ + vb), static_cast<size_t>(p - vb)};
          } else if (wire == kVarint) {
            Varint(&vb, p, &key_raw);
          } else {
            std::memcpy(&key_raw, begin_ + vb, p - vb);
          }
        } else {
          if (value_wire != 0xff &&
              !Check(*value_field, Occ{value_begin, value_end, 0, value_wire}, depth + 1))
            return false;
          value_begin = vb;
          value_end = p;
          value_wire = wire;
        }
      }
      if (!MapKey(*key_field, key_raw, key_text, entry_occ.begin)) return false;
      if (value_wire == 0xff) {  // absent value: its default
        if (value_field->type == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
          Range none{entry_occ.end, entry_occ.end};
          if (!Value(*value_field->message, &none, 1, depth + 1)) return false;
        } else {
          if (!Scalar(*value_field, 0, entry_occ.begin)) return false;
          Done();
        }
        continue;
      }
      uint64_t vat = value_begin;
      if (!Element(*value_field, value_wire, &vat, value_end, depth + 1)) return false;
    }
    return Close(true, at);
  }
  if (f.repeated) {
    uint64_t elements = 0;
    for (size_t k = first; k < first + count; ++k) {
      const Occ& o = occ_[k];
      if (o.wire != kLen || f.wire_type == kLen) {
        ++elements;
      } else if (f.wire_type == kI64 || f.wire_type == kI32) {
        const uint64_t size = f.wire_type == kI64 ? 8 : 4;
        if ((o.end - o.begin) % size)
          return Fail(ErrorCode::kTruncated, o.begin,
                      "packed field is not a whole number of elements");
        elements += (o.end - o.begin) / size;
      } else {
        for (uint64_t p = o.begin; p < o.end; ++p) elements += !(begin_[p] & 0x80);
      }
    }
    if (elements > ctx_.limits.max_items) return TooManyItems(elements, at);
    if (!Open(false, elements, at, depth)) return false;
    for (size_t k = first; k < first + count; ++k) {
      const Occ o = occ_[k];
      uint64_t p = o.begin;
      if (o.wire == kLen && f.wire_type != kLen) {
        while (p < o.end) {
          if (!Element(f, f.wire_type, &p, o.end, depth + 1)) return false;
        }
      } else {
        if (!Element(f, o.wire, &p, o.end, depth + 1)) return false;
      }
    }
    return Close(false, at);
  }
  if (f.type == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
    const size_t mark = ranges_.size();
    for (size_t k = first; k < first + count; ++k) {
      if (!ranges_.Push(Range{occ_[k].begin, occ_[k].end})) return SinkFailed(at);
    }
    bool ok = Value(*f.message, &ranges_[mark], count, depth);
    ranges_.Truncate(mark);
    return ok;
  }
  uint64_t p = occ_[first + count - 1].begin;
  return Element(f, occ_[first + count - 1].wire, &p, occ_[first + count - 1].end, depth);
}

template <Sink S>
bool ProtobufReader<S>::Check(const FieldInfo& f, const Occ& o, int depth) {
  if (f.type == google::protobuf::FieldDescriptor::TYPE_STRING) {
    std::string_view text(reinterpret_cast<const char*>(begin_ + o.begin),
                          static_cast<size_t>(o.end - o.begin));
    if (!ValidUtf8(text))
      return Fail(ErrorCode::kInvalidUtf8, o.begin,
                  "string field " + f.name + " is not valid UTF-8");
    return true;
  }
  if (f.type != google::protobuf::FieldDescriptor::TYPE_MESSAGE)
    return true;  // scanned with the index
  NullSink none;
  ProtobufReader<NullSink> checker(ctx_, none, schema_, *f.message, false);
  checker.begin_ = begin_;
  typename ProtobufReader<NullSink>::Range r{o.begin, o.end};
  if (checker.Value(*f.message, &r, 1, depth)) return true;
  st_.Locate(o.begin);
  return false;
}

// One value of field f at *at (a whole LEN value, or one varint/fixed element).
template <Sink S>
bool ProtobufReader<S>::Element(const FieldInfo& f, uint8_t wire, uint64_t* at, uint64_t end,
                                int depth) {
  const uint64_t start = *at;
  uint64_t raw = 0;
  switch (wire) {
    case kVarint:
      if (!Varint(at, end, &raw)) return false;
      break;
    case kI64:
    case kI32: {
      const uint64_t size = wire == kI64 ? 8 : 4;
      if (end - *at < size)
        return Fail(ErrorCode::kTruncated, start, "fixed-size element runs past its field");
      for (uint64_t i = 0; i < size; ++i) raw |= uint64_t{begin_[*at + i]} << (8 * i);
      *at += size;
      break;
    }
    default: {  // kLen: the whole value
      *at = end;
      if (f.type == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
        Range r{start, end};
        return Value(*f.message, &r, 1, depth);
      }
      std::string_view bytes(reinterpret_cast<const char*>(begin_ + start),
                             static_cast<size_t>(end - start));
      if (bytes.size() > ctx_.limits.max_string_bytes) {
        return Fail(
            ErrorCode::kStringTooLarge, start,
            "string passes max_string_bytes " + std::to_string(ctx_.limits.max_string_bytes));
      }
      bool ok;
      if (f.type == google::protobuf::FieldDescriptor::TYPE_STRING) {
        if (!ValidUtf8(bytes))
          return Fail(ErrorCode::kInvalidUtf8, start,
                      "string field " + f.name + " is not valid UTF-8");
        ok = sink_.Text(bytes);
      } else {
        ok = sink_.Bytes(bytes);
      }
      if (!ok) return SinkFailed(start);
      Done();
      return true;
    }
  }
  if (!Scalar(f, raw, start)) return false;
  Done();
  return true;
}

template <Sink S>
bool ProtobufReader<S>::Scalar(const FieldInfo& f, uint64_t raw, uint64_t at) {
  using T = google::protobuf::FieldDescriptor;
  switch (f.type) {
    case T::TYPE_INT64:
    case T::TYPE_SFIXED64:
      return Signed(static_cast<int64_t>(raw), json_, at);
    case T::TYPE_SINT64:
      return Signed(static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1)), json_, at);
    case T::TYPE_UINT64:
    case T::TYPE_FIXED64:
      return Unsigned(raw, json_, at);
    case T::TYPE_INT32:
    case T::TYPE_SFIXED32:
      return Signed(static_cast<int32_t>(static_cast<uint32_t>(raw)), false, at);
    case T::TYPE_SINT32: {
      uint32_t u = static_cast<uint32_t>(raw);
      return Signed(static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1)), false, at);
    }
    case T::TYPE_UINT32:
    case T::TYPE_FIXED32:
      return Unsigned(static_cast<uint32_t>(raw), false, at);
    case T::TYPE_BOOL:
      return sink_.Bool(raw != 0) || SinkFailed(at);
    case T::TYPE_DOUBLE:
      return Floating(std::bit_cast<double>(raw), false, at);
    case T::TYPE_FLOAT:
      return Floating(std::bit_cast<float>(static_cast<uint32_t>(raw)), true, at);
    case T::TYPE_ENUM: {
      const int32_t number = static_cast<int32_t>(static_cast<uint32_t>(raw));
      if (f.enum_info->is_null_value) return sink_.Null() || SinkFailed(at);
      const auto* value = f.enum_info->descriptor->FindValueByNumber(number);
      if (value != nullptr) return sink_.Text(value->name()) || SinkFailed(at);
      return Signed(number, false, at);  // an unknown value stays a number
    }
    case T::TYPE_STRING:
      return sink_.Text("") || SinkFailed(at);
    case T::TYPE_BYTES:
      return sink_.Bytes("") || SinkFailed(at);
    default:
      return Fail(ErrorCode::kUnsupported, at, "field type not supported");
  }
}

// Map keys are text in every output (proto3 JSON): "true", "-5", "name".
template <Sink S>
bool ProtobufReader<S>::MapKey(const FieldInfo& key, uint64_t raw, std::string_view text,
                               uint64_t at) {
  using T = google::protobuf::FieldDescriptor;
  char buf[24];
  std::string_view k;
  switch (key.type) {
    case T::TYPE_STRING:
      if (text.size() > ctx_.limits.max_string_bytes) {
        return Fail(
            ErrorCode::kStringTooLarge, at,
            "map key passes max_string_bytes " + std::to_string(ctx_.limits.max_string_bytes));
      }
      if (!ValidUtf8(text))
        return Fail(ErrorCode::kInvalidUtf8, OffsetOf(text), "map key is not valid UTF-8");
      k = text;
      break;
    case T::TYPE_BOOL:
      k = raw ? "true" : "false";
      break;
    default: {
      int64_t v;
      bool is_unsigned = false;
      switch (key.type) {
        case T::TYPE_SINT64:
          v = static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
          break;
        case T::TYPE_SINT32: {
          uint32_t u = static_cast<uint32_t>(raw);
          v = static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
          break;
        }
        case T::TYPE_INT32:
        case T::TYPE_SFIXED32:
          v = static_cast<int32_t>(static_cast<uint32_t>(raw));
          break;
        case T::TYPE_UINT32:
        case T::TYPE_FIXED32:
          v = static_cast<uint32_t>(raw);
          break;
        case T::TYPE_UINT64:
        case T::TYPE_FIXED64:
          is_unsigned = true;
          v = 0;
          break;
        default:
          v = static_cast<int64_t>(raw);
      }
      char* e = is_unsigned ? std::to_chars(buf, buf + sizeof buf, raw).ptr
                            : std::to_chars(buf, buf + sizeof buf, v).ptr;
      k = {buf, static_cast<size_t>(e - buf)};
    }
  }
  if (!sink_.Text(k)) return SinkFailed(at);
  ++st_.top().index;
  // A key printed from a number lives in buf: the duplicate check copies nothing, so give
  // it the input's bytes only when it is text; numbers are compared by value.
  if (key.type == T::TYPE_STRING) return st_.Key(KeyKind::kText, k, 0, at);
  return st_.Key(KeyKind::kUint, {}, raw, at);
}

template <Sink S>
bool ProtobufReader<S>::WellKnownValue(const MessageInfo& m, const Range* ranges, size_t n,
                                       int depth) {
  const uint64_t at = n ? ranges[0].begin : 0;
  if (m.well_known == WellKnown::kStruct || m.well_known == WellKnown::kEmpty) {
    // Struct is {fields: map<string, Value>}: its map is the object itself.
    if (m.well_known == WellKnown::kEmpty) {
      if (!Open(true, 0, at, depth)) return false;
      return Close(true, at);
    }
    const size_t mark = occ_.size();
    size_t first;
    if (!Index(m, ranges, n, &first)) return false;
    const size_t end = occ_.size();
    bool ok;
    if (first == end) {
      ok = Open(true, 0, at, depth) && Close(true, at);
    } else {
      ok = Field(m, m.fields[occ_[first].field], first, end - first, depth);
    }
    occ_.Truncate(mark);
    return ok;
  }
  if (m.well_known == WellKnown::kListValue) {
    const size_t mark = occ_.size();
    size_t first;
    if (!Index(m, ranges, n, &first)) return false;
    const size_t end = occ_.size();
    bool ok;
    if (first == end) {
      ok = Open(false, 0, at, depth) && Close(false, at);
    } else {
      ok = Field(m, m.fields[occ_[first].field], first, end - first, depth);
    }
    occ_.Truncate(mark);
    return ok;
  }
  // The rest are small: read their last-set fields into locals.
  const size_t mark = occ_.size();
  size_t first;
  if (!Index(m, ranges, n, &first)) return false;
  const size_t end = occ_.size();
  auto last = [&](uint32_t number) -> const Occ* {
    const Occ* found = nullptr;
    for (size_t k = first; k < end; ++k) {
      if (m.fields[occ_[k].field].number == number) found = &occ_[k];
    }
    return found;
  };
  // A text field given more than once (a StringValue, an Any's type_url): the last is
  // used, the earlier ones are still checked, as libprotobuf parses them.
  if (m.well_known != WellKnown::kValue) {
    for (size_t k = first; k < end; ++k) {
      const FieldInfo& f = m.fields[occ_[k].field];
      if (f.type == google::protobuf::FieldDescriptor::TYPE_STRING && &occ_[k] != last(f.number) &&
          !Check(f, occ_[k], depth + 1)) {
        occ_.Truncate(mark);
        return false;
      }
    }
  }
  auto varint = [&](const Occ* o) {
    uint64_t v = 0, p = o ? o->begin : 0;
    if (o) Varint(&p, o->end, &v);
    return v;
  };
  bool ok = true;
  switch (m.well_known) {
    case WellKnown::kTimestamp:
    case WellKnown::kDuration: {
      const int64_t seconds = static_cast<int64_t>(varint(last(1)));
      const int32_t nanos = static_cast<int32_t>(static_cast<uint32_t>(varint(last(2))));
      char buf[48];
      size_t len = m.well_known == WellKnown::kTimestamp ? FormatTimestamp(seconds, nanos, buf)
                                                         : FormatDuration(seconds, nanos, buf);
      if (len == 0) {
        ok = Fail(ErrorCode::kUnrepresentable, at,
                  m.full_name + " out of the range proto3 JSON can write");
      } else {
        ok = sink_.Text({buf, len}) || SinkFailed(at);
        if (ok) Done();
      }
      break;
    }
    case WellKnown::kFieldMask: {
      // The joined paths are no longer than the path bytes plus a comma each: charged
      // (and checked against max_string_bytes) before anything is allocated.
      uint64_t size = 0;
      for (size_t k = first; k < end; ++k) {
        const Occ& o = occ_[k];
        size += o.end - o.begin + 1;
        const std::string_view path(reinterpret_cast<const char*>(begin_ + o.begin),
                                    static_cast<size_t>(o.end - o.begin));
        if (!ValidUtf8(path)) {
          ok = Fail(ErrorCode::kInvalidUtf8, o.begin, "FieldMask path is not valid UTF-8");
          break;
        }
        if (!CamelPathRoundTrips(path)) {
          ok = Fail(ErrorCode::kUnrepresentable, o.begin,
                    "FieldMask path \"" + std::string(path) +
                        "\" has no lowerCamelCase form that converts back");
          break;
        }
      }
      if (!ok) break;
      if (size > ctx_.limits.max_string_bytes) {
        ok = Fail(
            ErrorCode::kStringTooLarge, at,
            "FieldMask passes max_string_bytes " + std::to_string(ctx_.limits.max_string_bytes));
        break;
      }
      if (!ctx_.budget.Charge(size)) {
        ok = Fail(ErrorCode::kBudgetExceeded, at,
                  "FieldMask of " + std::to_string(size) + " bytes passes max_alloc_bytes");
        break;
      }
      std::string joined;
      joined.reserve(size);
      for (size_t k = first; k < end; ++k) {
        const Occ& o = occ_[k];
        if (k != first) joined += ',';
        AppendCamelPath(
            {reinterpret_cast<const char*>(begin_ + o.begin), static_cast<size_t>(o.end - o.begin)},
            joined);
      }
      ok = sink_.Text(joined) || SinkFailed(at);
      if (ok) Done();
      break;
    }
    case WellKnown::kValue: {
      // The oneof `kind`: the last member set; none set reads as null.
      const Occ* kind = end > first ? &occ_[first] : nullptr;
      for (size_t k = first; k < end; ++k) {
        if (occ_[k].begin >= kind->begin) kind = &occ_[k];
      }
      if (kind == nullptr) {
        ok = sink_.Null() || SinkFailed(at);
        if (ok) Done();
        break;
      }
      // Its occurrences (contiguous in the index): a struct or list given twice merges.
      size_t i = static_cast<size_t>(kind - &occ_[0]), j = i + 1;
      while (i > first && occ_[i - 1].field == kind->field) --i;
      const FieldInfo& f = m.fields[kind->field];
      const size_t from = AfterOtherOneofMembers(m, first, end, i, j);
      // The members this kind replaced are still checked, as libprotobuf parses them, and
      // so are the earlier occurrences of a scalar kind given more than once (the last
      // wins: string_value "\xb4" then string_value "ok" is still invalid UTF-8). A
      // struct or list kind given more than once merges: Field reads all of it.
      const bool merged = f.type == google::protobuf::FieldDescriptor::TYPE_MESSAGE;
      const size_t kept = merged ? from : j - 1;
      for (size_t k = first; k < end && ok; ++k) {
        if (k < kept || k >= j) ok = Check(m.fields[occ_[k].field], occ_[k], depth + 1);
      }
      ok = ok && Field(m, f, kept, j - kept, depth);
      break;
    }
    case WellKnown::kAny: {
      // {"@type": url, ...the packed message's fields} or, for a well-known type,
      // {"@type": url, "value": its JSON form}.
      const Occ* url_occ = last(1);
      const Occ* value_occ = last(2);
      if (url_occ == nullptr) {
        if (value_occ != nullptr) {
          ok = Fail(ErrorCode::kSchemaMismatch, at, "Any with a value but no type_url");
        } else {
          ok = Open(true, 0, at, depth) && Close(true, at);
        }
        break;
      }
      std::string_view url(reinterpret_cast<const char*>(begin_ + url_occ->begin),
                           url_occ->end - url_occ->begin);
      if (!ValidUtf8(url)) {
        ok = Fail(ErrorCode::kInvalidUtf8, url_occ->begin, "Any type_url is not valid UTF-8");
        break;
      }
      const MessageInfo* packed = schema_ ? schema_->Find(url.substr(url.rfind('/') + 1)) : nullptr;
      if (packed == nullptr) {
        ok = Fail(ErrorCode::kUnknownMessageType, url_occ->begin,
                  "Any holds " + std::string(url) + ", not in the loaded descriptors");
        break;
      }
      Range value{value_occ ? value_occ->begin : at, value_occ ? value_occ->end : at};
      ok = Open(true, kUnknownLength, at, depth) && KeyText("@type", url_occ->begin) &&
           (sink_.Text(url) || SinkFailed(url_occ->begin));
      if (!ok) break;
      Done();
      if (AnyHasValueMember(packed->well_known)) {
        ok = KeyText("value", value.begin) && WellKnownValue(*packed, &value, 1, depth + 1);
      } else {
        ok = Message(*packed, &value, 1, depth + 1, true);
      }
      ok = ok && Close(true, at);
      break;
    }
    default: {  // wrappers: {value = 1}, absent means the default
      const FieldInfo& f = m.fields[0];
      const Occ* o = last(1);
      if (o == nullptr) {
        ok = Scalar(f, 0, at);
        if (ok) Done();
      } else {
        uint64_t p = o->begin;
        ok = Element(f, o->wire, &p, o->end, depth);
      }
    }
  }
  occ_.Truncate(mark);
  return ok;
}

}  // namespace rosetta::codec
