#include "cbor/cbor_json_fast.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/budget_vector.h"
#include "common/decimal.h"
#include "common/double_text.h"
#include "common/float_bits.h"
#include "common/key_set.h"
#include "common/utf8.h"
#include "json/json_escape.h"

namespace rosetta::codec {
namespace {

struct Level {
  uint64_t remaining;  // items still due (a map counts keys and values apart)
  bool is_map;
  bool first;  // no item written yet: no separator before the next one
};

// Strings up to this size are written with room made for their worst case (6 bytes a
// byte); longer ones through WriteJsonString, which makes room as it goes.
constexpr size_t kBoundedString = 256;

class FastCborJson {
 public:
  FastCborJson(Context& ctx, std::string_view input, OutputBuffer& out)
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

bool FastCborJson::Run() {
  const Limits& limits = ctx_.limits;
  const uint64_t max_string = limits.max_string_bytes;
  const uint8_t* p = begin_;
  const uint8_t* const end = end_;
  // The output cursor and the end of its room live in registers; out_ hears of them
  // only when more room is needed, and at the end.
  char* o = out_.cursor();
  char* lim = out_.room_end();
  auto room = [&](size_t n) {
    if (static_cast<size_t>(lim - o) >= n) [[likely]] return true;
    out_.Advance(o - out_.cursor());
    const bool ok = out_.Ensure(n);
    o = out_.cursor();
    lim = out_.room_end();
    return ok;
  };
  auto argument = [&](uint8_t ai, uint64_t* v) {
    if (ai < 24) {
      *v = ai;
      return true;
    }
    if (ai > 27) return false;
    const size_t n = size_t{1} << (ai - 24);
    if (static_cast<size_t>(end - p) < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x = x << 8 | p[i];
    p += n;
    *v = x;
    return true;
  };
  // The rest of a definite text string whose initial byte was ib, checked as the general
  // path checks it.
  auto text = [&](uint8_t ib, std::string_view* s) {
    uint64_t len;
    if ((ib & 31) == 31 || !argument(ib & 31, &len)) return false;
    if (len > static_cast<uint64_t>(end - p) || len > max_string) return false;
    *s = {reinterpret_cast<const char*>(p), static_cast<size_t>(len)};
    p += len;
    return ValidUtf8(*s);
  };
  // s as a JSON string, then `after` (0: nothing).
  auto string = [&](std::string_view s, char after) {
    if (s.size() <= kBoundedString) {
      if (!room(6 * s.size() + 11)) return false;
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
        if (p >= end || (*p >> 5) != 3) return finish(false);
        const uint8_t ib = *p++;
        if (!text(ib, &key)) return finish(false);
        if (check_keys_ && keys_.Insert(KeyKind::kText, key) != KeySet::kInserted) return finish(false);
        if (!string(key, ':')) return finish(false);
        continue;
      }
    }
    // One value (its separator or key is written).
    if (p >= end) return finish(false);
    const uint8_t ib = *p++;
    const uint8_t ai = ib & 31;
    uint64_t arg;
    switch (ib >> 5) {
      case 0:
        if (!argument(ai, &arg) || !room(20)) return finish(false);
        o = WriteDecimal(o, arg);
        break;
      case 1:
        if (!argument(ai, &arg) || arg == ~uint64_t{0} || !room(21)) return finish(false);
        *o++ = '-';
        o = WriteDecimal(o, arg + 1);
        break;
      case 3: {
        std::string_view s;
        if (!text(ib, &s) || !string(s, 0)) return finish(false);
        break;
      }
      case 4:
      case 5: {
        const bool is_map = (ib >> 5) == 5;
        if ((ai == 31) || !argument(ai, &arg)) return finish(false);
        // The claim guards and limits of the general path: every item takes a byte.
        const uint64_t left = static_cast<uint64_t>(end - p);
        if (arg > left || (is_map && arg > left / 2) || arg > limits.max_items) return finish(false);
        if (stack_.size() >= limits.max_depth) return finish(false);
        if (is_map && check_keys_ && !keys_.Open()) return finish(false);
        if (!stack_.Push(Level{is_map ? arg * 2 : arg, is_map, true}) || !room(1)) return finish(false);
        top = &stack_.back();
        *o++ = is_map ? '{' : '[';
        break;
      }
      case 7: {
        if (ai == 20 || ai == 21 || ai == 22) {
          if (!room(5)) return finish(false);
          std::memcpy(o, ai == 20 ? "false" : ai == 21 ? "true " : "null ", 5);
          o += ai == 20 ? 5 : 4;
          break;
        }
        if (ai < 25 || ai > 27 || !argument(ai, &arg)) return finish(false);
        const double d = ai == 25   ? HalfToDouble(static_cast<uint16_t>(arg))
                         : ai == 26 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(arg)))
                                    : std::bit_cast<double>(arg);
        if (!std::isfinite(d) || !room(32)) return finish(false);
        bool integral;
        o = WriteShortestDouble(o, d, &integral);
        if (integral) {  // as the general writer: keep it a float across a round trip
          o[0] = '.';
          o[1] = '0';
          o += 2;
        }
        break;
      }
      default:  // byte strings, tags
        return finish(false);
    }
  }
  return finish(p == end);
}

}  // namespace

bool FastCborToJson(Context& ctx, std::string_view input, OutputBuffer& out) {
  FastCborJson fast(ctx, input, out);
  return fast.Run();
}

}  // namespace rosetta::codec
