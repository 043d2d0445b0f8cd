#include "fast_path/binary_to_json.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "binary/big_endian.h"
#include "binary/float_bits.h"
#include "core/key_set.h"
#include "json/json_escape.h"
#include "memory/budget_vector.h"
#include "text/decimal.h"
#include "text/double_text.h"
#include "text/utf8.h"

namespace rosetta::codec {
namespace {

struct Level {
  uint64_t remaining;  // items still due (a map counts keys and values apart)
  bool is_map;
  bool first;  // no item written yet: no separator before the next one
};

// The next item when it is a float64 (`marker` + 8 bytes, big-endian in both formats): the
// runs of numbers in arrays.
template <uint8_t marker>
bool NextFloat64(const uint8_t*& p, const uint8_t* end, double* d) {
  if (end - p < 9 || *p != marker) return false;
  *d = std::bit_cast<double>(LoadBigEndian(p + 1, 8));
  p += 9;
  return true;
}

// One item of the input, as the fast loop needs it.
enum class Tok : uint8_t { kUint, kNegInt, kText, kArray, kMap, kFalse, kTrue, kNull, kDouble };
struct Item {
  Tok tok;
  uint64_t u =
      0;  // kUint: the value; kNegInt: n for -1 - n; kText: the length; containers: the count
  double d = 0;  // kDouble
};

// CBOR (RFC 8949): the items the fast loop takes. False on anything else, and when an
// argument runs past the end.
struct CborItems {
  // A text string of 0..23 bytes (most keys): its length from the initial byte alone.
  static bool ShortText(uint8_t ib, uint64_t* len) {
    *len = ib & 31;
    return (ib >> 5) == 3 && *len < 24;
  }
  static bool NextDouble(const uint8_t*& p, const uint8_t* end, double* d) {
    return NextFloat64<0xfb>(p, end, d);
  }
  static bool Next(const uint8_t*& p, const uint8_t* end, Item* it) {
    const uint8_t ib = *p++;
    const uint8_t ai = ib & 31;
    const uint8_t major = ib >> 5;
    if (major == 7) {
      switch (ai) {
        case 20:
          it->tok = Tok::kFalse;
          return true;
        case 21:
          it->tok = Tok::kTrue;
          return true;
        case 22:
          it->tok = Tok::kNull;
          return true;
        case 25:
        case 26:
        case 27: {
          const size_t n = size_t{1} << (ai - 24);
          if (static_cast<size_t>(end - p) < n) return false;
          const uint64_t v = LoadBigEndian(p, n);
          p += n;
          it->tok = Tok::kDouble;
          it->d = ai == 25   ? HalfToDouble(static_cast<uint16_t>(v))
                  : ai == 26 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)))
                             : std::bit_cast<double>(v);
          return true;
        }
        default:
          return false;
      }
    }
    if (major == 2 || major == 6 || ai > 27) return false;  // bytes, tags, indefinite or reserved
    uint64_t arg = ai;
    if (ai >= 24) {
      const size_t n = size_t{1} << (ai - 24);
      if (static_cast<size_t>(end - p) < n) return false;
      arg = LoadBigEndian(p, n);
      p += n;
    }
    static constexpr Tok kTok[6] = {Tok::kUint, Tok::kNegInt, Tok::kUint,
                                    Tok::kText, Tok::kArray,  Tok::kMap};
    it->tok = kTok[major];
    it->u = arg;
    return !(major == 1 && arg == ~uint64_t{0});  // -2^64: the general path prints it
  }
};

// MessagePack: the items the fast loop takes. False on anything else (bin, ext, 0xc1), and
// when a value runs past the end.
struct MsgpackItems {
  // A fixstr (0..31 bytes: most keys): its length from the initial byte alone.
  static bool ShortText(uint8_t b, uint64_t* len) {
    *len = b & 31;
    return (b & 0xe0) == 0xa0;
  }
  static bool NextDouble(const uint8_t*& p, const uint8_t* end, double* d) {
    return NextFloat64<0xcb>(p, end, d);
  }
  static bool Next(const uint8_t*& p, const uint8_t* end, Item* it) {
    const uint8_t b = *p++;
    if (b <= 0x7f) {
      it->tok = Tok::kUint;
      it->u = b;
      return true;
    }
    if (b >= 0xe0) {
      it->tok = Tok::kNegInt;
      it->u = ~static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(b)));
      return true;
    }
    if (b <= 0xbf) {
      it->tok = b <= 0x8f ? Tok::kMap : b <= 0x9f ? Tok::kArray : Tok::kText;
      it->u = b <= 0x9f ? b & 0x0f : b & 0x1f;
      return true;
    }
    auto fixed = [&](size_t n, uint64_t* v) {
      if (static_cast<size_t>(end - p) < n) return false;
      *v = LoadBigEndian(p, n);
      p += n;
      return true;
    };
    uint64_t v;
    switch (b) {
      case 0xc0:
        it->tok = Tok::kNull;
        return true;
      case 0xc2:
        it->tok = Tok::kFalse;
        return true;
      case 0xc3:
        it->tok = Tok::kTrue;
        return true;
      case 0xca:
        if (!fixed(4, &v)) return false;
        it->tok = Tok::kDouble;
        it->d = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)));
        return true;
      case 0xcb:
        if (!fixed(8, &v)) return false;
        it->tok = Tok::kDouble;
        it->d = std::bit_cast<double>(v);
        return true;
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        if (!fixed(size_t{1} << (b - 0xcc), &it->u)) return false;
        it->tok = Tok::kUint;
        return true;
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3: {
        const size_t n = size_t{1} << (b - 0xd0);
        if (!fixed(n, &v)) return false;
        const int shift = static_cast<int>(64 - 8 * n);
        const int64_t s = static_cast<int64_t>(v << shift) >> shift;  // sign-extend
        it->tok = s >= 0 ? Tok::kUint : Tok::kNegInt;
        it->u = s >= 0 ? static_cast<uint64_t>(s) : ~static_cast<uint64_t>(s);
        return true;
      }
      case 0xd9:
      case 0xda:
      case 0xdb:
        it->tok = Tok::kText;
        return fixed(size_t{1} << (b - 0xd9), &it->u);
      case 0xdc:
      case 0xdd:
      case 0xde:
      case 0xdf:
        it->tok = b >= 0xde ? Tok::kMap : Tok::kArray;
        return fixed(b & 1 ? 4 : 2, &it->u);
      default:  // bin, ext, timestamps, 0xc1
        return false;
    }
  }
};

template <class Items>
class FastToJson {
 public:
  FastToJson(Context& ctx, std::string_view input, OutputBuffer& out)
      : ctx_(ctx),
        out_(out),
        begin_(reinterpret_cast<const uint8_t*>(input.data())),
        end_(begin_ + input.size()),
        stack_(ctx),
        keys_(ctx),
        check_keys_(!ctx.options.allow_duplicate_keys) {}

  bool Run();

 private:
  Context& ctx_;
  OutputBuffer& out_;
  const uint8_t* const begin_;
  const uint8_t* const end_;
  BudgetVector<Level, 32> stack_;
  KeySet keys_;
  const bool check_keys_;
};

template <class Items>
bool FastToJson<Items>::Run() {
  const Limits& limits = ctx_.limits;
  const uint64_t max_string = limits.max_string_bytes;
  const uint8_t* p = begin_;
  const uint8_t* const end = end_;
  // The output cursor and the end of its room live in registers; out_ hears of them
  // only when more room is needed, and at the end.
  char* o = out_.cursor();
  char* lim = out_.room_end();
  auto room = [&](size_t n) {
    if (static_cast<size_t>(lim - o) >= n) [[likely]]
      return true;
    out_.Advance(o - out_.cursor());
    const bool ok = out_.Ensure(n);
    o = out_.cursor();
    lim = out_.room_end();
    return ok;
  };
  // A text item's bytes (u: its length), checked as the general path checks them.
  auto text = [&](const Item& it, std::string_view* s) {
    if (it.u > static_cast<uint64_t>(end - p) || it.u > max_string) return false;
    *s = {reinterpret_cast<const char*>(p), static_cast<size_t>(it.u)};
    p += it.u;
    return ValidUtf8(*s);
  };
  // s as a JSON string, then `after` (0: nothing).
  auto string = [&](std::string_view s, char after) {
    if (s.size() <= kBoundedJsonString) {
      if (!room(BoundedJsonStringRoom(s.size()) + 1)) return false;  // and `after`
      o = WriteJsonStringBounded(o, s, reinterpret_cast<const char*>(end));
    } else {
      if (!room(s.size() + 3)) return false;
      out_.Advance(o - out_.cursor());
      const bool ok = WriteJsonString(out_, s) && out_.Ensure(1);
      o = out_.cursor();
      lim = out_.room_end();
      if (!ok) return false;
    }
    if (after) *o++ = after;
    return true;
  };
  auto finish = [&](bool ok) {
    out_.Advance(o - out_.cursor());
    return ok;
  };

  bool root_read = false;
  Level* top = nullptr;  // the innermost open container: stack_.back(), or null
  for (;;) {
    if (top == nullptr) {
      if (root_read) break;
      root_read = true;
    } else {
      Level& l = *top;
      if (l.remaining == 0) {
        if (!room(1)) return finish(false);
        *o++ = l.is_map ? '}' : ']';
        if (l.is_map && check_keys_) keys_.Close();
        stack_.Pop();
        top = stack_.empty() ? nullptr : &stack_.back();
        continue;
      }
      const bool at_key = l.is_map && (l.remaining & 1) == 0;
      --l.remaining;
      if (!l.first) {
        if (!l.is_map || at_key) {
          if (!room(1)) return finish(false);
          *o++ = ',';
        }
      }
      l.first = false;
      if (at_key) {
        std::string_view key;
        Item it;
        if (p >= end) return finish(false);
        if (Items::ShortText(*p, &it.u)) {
          ++p;
        } else if (!Items::Next(p, end, &it) || it.tok != Tok::kText) {
          return finish(false);
        }
        if (!text(it, &key)) return finish(false);
        if (check_keys_ && keys_.Insert(KeyKind::kText, key) != KeySet::kInserted)
          return finish(false);
        if (!string(key, ':')) return finish(false);
        --l.remaining;  // its value follows at once: no separator, nothing to close
      }
    }
    // One value (its separator or key is written).
    Item it;
    if (p >= end || !Items::Next(p, end, &it)) return finish(false);
    switch (it.tok) {
      case Tok::kUint:
        if (!room(20)) return finish(false);
        o = WriteDecimal(o, it.u);
        break;
      case Tok::kNegInt:  // -1 - u (u < 2^64 - 1: the readers leave -2^64 to the general path)
        if (!room(21)) return finish(false);
        *o++ = '-';
        o = WriteDecimal(o, it.u + 1);
        break;
      case Tok::kText: {
        std::string_view s;
        if (!text(it, &s) || !string(s, 0)) return finish(false);
        break;
      }
      case Tok::kArray:
      case Tok::kMap: {
        const bool is_map = it.tok == Tok::kMap;
        const uint64_t n = it.u;
        // The claim guards and limits of the general path: every item takes a byte.
        const uint64_t left = static_cast<uint64_t>(end - p);
        if (n > left || (is_map && n > left / 2) || n > limits.max_items) return finish(false);
        if (stack_.size() >= limits.max_depth) return finish(false);
        if (is_map && check_keys_ && !keys_.Open()) return finish(false);
        uint64_t done = 0;  // items of an array written here
        if (!is_map) {
          // An array that starts with float64s (a coordinate pair, a vector) is written
          // here as far as they go, without a level of its own if they fill it.
          if (!room(1)) return finish(false);
          *o++ = '[';
          double d;
          while (done < n && Items::NextDouble(p, end, &d)) {
            if (!std::isfinite(d) || !room(33)) return finish(false);
            if (done++) *o++ = ',';
            o = WriteJsonDouble(o, d);
          }
          if (done == n) {
            if (!room(1)) return finish(false);
            *o++ = ']';
            break;
          }
        }
        if (!stack_.Push(Level{is_map ? n * 2 : n - done, is_map, done == 0}) || !room(1))
          return finish(false);
        top = &stack_.back();
        if (is_map) *o++ = '{';
        break;
      }
      case Tok::kFalse:
      case Tok::kTrue:
      case Tok::kNull:
        if (!room(5)) return finish(false);
        std::memcpy(o,
                    it.tok == Tok::kFalse  ? "false"
                    : it.tok == Tok::kTrue ? "true "
                                           : "null ",
                    5);
        o += it.tok == Tok::kFalse ? 5 : 4;
        break;
      case Tok::kDouble: {
        // A run of doubles in an array (coordinates, samples) is written in this loop.
        double d = it.d;
        for (;;) {
          if (!std::isfinite(d) || !room(33)) return finish(false);  // and a ','
          o = WriteJsonDouble(o, d);
          if (top == nullptr || top->is_map || top->remaining == 0 ||
              !Items::NextDouble(p, end, &d))
            break;
          --top->remaining;
          *o++ = ',';
        }
        break;
      }
    }
  }
  if (uint64_t* item_end = ctx_.item_end) {  // a record of a sequence: the rest is the next
    *item_end = static_cast<uint64_t>(p - begin_);
    return finish(true);
  }
  return finish(p == end);
}

}  // namespace

bool FastCborToJson(Context& ctx, std::string_view input, OutputBuffer& out) {
  return FastToJson<CborItems>(ctx, input, out).Run();
}

bool FastMsgpackToJson(Context& ctx, std::string_view input, OutputBuffer& out) {
  return FastToJson<MsgpackItems>(ctx, input, out).Run();
}

}  // namespace rosetta::codec
