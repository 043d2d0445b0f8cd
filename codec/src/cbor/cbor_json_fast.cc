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

class FastCborJson {
 public:
  FastCborJson(Context& ctx, std::string_view input, OutputBuffer& out)
      : ctx_(ctx),
        out_(out),
        p_(reinterpret_cast<const uint8_t*>(input.data())),
        end_(p_ + input.size()),
        stack_(ctx),
        keys_(ctx),
        check_keys_(!ctx.options.allow_duplicate_keys) {}

  bool Run();

 private:
  // The argument after an initial byte (RFC 8949 3): false when reserved or truncated.
  bool Argument(uint8_t ai, uint64_t* v) {
    if (ai < 24) {
      *v = ai;
      return true;
    }
    if (ai > 27) return false;
    const size_t n = size_t{1} << (ai - 24);
    if (static_cast<size_t>(end_ - p_) < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x = x << 8 | p_[i];
    p_ += n;
    *v = x;
    return true;
  }
  // A definite text string at p_ (its initial byte not yet read), checked as the general
  // path checks it.
  bool Text(std::string_view* s) {
    if (p_ >= end_) return false;
    const uint8_t ib = *p_++;
    if ((ib >> 5) != 3 || (ib & 31) == 31) return false;
    uint64_t len;
    if (!Argument(ib & 31, &len)) return false;
    if (len > static_cast<uint64_t>(end_ - p_) || len > ctx_.limits.max_string_bytes) return false;
    *s = {reinterpret_cast<const char*>(p_), static_cast<size_t>(len)};
    p_ += len;
    return ValidUtf8(*s);
  }

  Context& ctx_;
  OutputBuffer& out_;
  const uint8_t* p_;
  const uint8_t* const end_;
  BudgetVector<Level, 32> stack_;
  KeySet keys_;
  const bool check_keys_;
};

bool FastCborJson::Run() {
  const Limits& limits = ctx_.limits;
  bool root_read = false;
  for (;;) {
    if (stack_.empty()) {
      if (root_read) break;
      root_read = true;
    } else {
      Level& l = stack_.back();
      if (l.remaining == 0) {
        if (!out_.Ensure(1)) return false;
        out_.Put(l.is_map ? '}' : ']');
        if (l.is_map && check_keys_) keys_.Close();
        stack_.Pop();
        continue;
      }
      const bool at_key = l.is_map && (l.remaining & 1) == 0;
      --l.remaining;
      if (at_key) {
        std::string_view key;
        if (!Text(&key)) return false;
        if (check_keys_ && keys_.Insert(KeyKind::kText, key) != KeySet::kInserted) return false;
        if (!out_.Ensure(key.size() + 4)) return false;
        if (!l.first) out_.Put(',');
        l.first = false;
        if (!WriteJsonString(out_, key) || !out_.Ensure(1)) return false;
        out_.Put(':');
        continue;
      }
      if (!l.is_map) {
        if (!l.first) {
          if (!out_.Ensure(1)) return false;
          out_.Put(',');
        }
        l.first = false;
      }
    }
    // One value (its separator or key is written).
    if (p_ >= end_) return false;
    const uint8_t ib = *p_++;
    const uint8_t ai = ib & 31;
    uint64_t arg;
    switch (ib >> 5) {
      case 0:
        if (!Argument(ai, &arg) || !out_.Ensure(20)) return false;
        out_.Advance(WriteDecimal(out_.cursor(), arg) - out_.cursor());
        break;
      case 1:
        if (!Argument(ai, &arg) || arg == ~uint64_t{0} || !out_.Ensure(21)) return false;
        out_.Put('-');
        out_.Advance(WriteDecimal(out_.cursor(), arg + 1) - out_.cursor());
        break;
      case 3: {
        std::string_view s;
        --p_;
        if (!Text(&s) || !out_.Ensure(s.size() + 2) || !WriteJsonString(out_, s)) return false;
        break;
      }
      case 4:
      case 5: {
        const bool is_map = (ib >> 5) == 5;
        if (!Argument(ai, &arg)) return false;
        // The claim guards and limits of the general path: every item takes a byte.
        const uint64_t left = static_cast<uint64_t>(end_ - p_);
        if (arg > left || (is_map && arg > left / 2) || arg > limits.max_items) return false;
        if (stack_.size() >= limits.max_depth) return false;
        if (is_map && check_keys_ && !keys_.Open()) return false;
        if (!stack_.Push(Level{is_map ? arg * 2 : arg, is_map, true}) || !out_.Ensure(1)) return false;
        out_.Put(is_map ? '{' : '[');
        break;
      }
      case 7: {
        if (ai == 20 || ai == 21) {
          if (!out_.Ensure(5)) return false;
          out_.Append(ai == 21 ? "true" : "false", ai == 21 ? 4 : 5);
          break;
        }
        if (ai == 22) {
          if (!out_.Ensure(4)) return false;
          out_.Append("null", 4);
          break;
        }
        if (ai < 25 || ai > 27 || !Argument(ai, &arg)) return false;
        const double d = ai == 25   ? HalfToDouble(static_cast<uint16_t>(arg))
                         : ai == 26 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(arg)))
                                    : std::bit_cast<double>(arg);
        if (!std::isfinite(d) || !out_.Ensure(32)) return false;
        bool integral;
        char* e = WriteShortestDouble(out_.cursor(), d, &integral);
        if (integral) {  // as the general writer: keep it a float across a round trip
          e[0] = '.';
          e[1] = '0';
          e += 2;
        }
        out_.Advance(e - out_.cursor());
        break;
      }
      default:  // byte strings, tags
        return false;
    }
  }
  return p_ == end_;
}

}  // namespace

bool FastCborToJson(Context& ctx, std::string_view input, OutputBuffer& out) {
  FastCborJson fast(ctx, input, out);
  return fast.Run();
}

}  // namespace rosetta::codec
