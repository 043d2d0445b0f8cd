#include "schema/validator.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <re2/re2.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "json/json_scalar_reader.h"
#include "json/json_writer.h"
#include "read_any.h"
#include "schema/canonical.h"
#include "schema/regex.h"
#include "schema/uri.h"

namespace rosetta::codec::schema {
namespace {

// Code points of valid UTF-8: its bytes less its continuation bytes (10xxxxxx), counted
// 32 at a time (AVX2: the bytes whose top two bits are 10, a mask of them, its popcount;
// where it is compiled in), then eight at a time (a byte's top bit set and the next bit
// clear), then one at a time.
uint64_t CodePoints(std::string_view s) {
  const char* p = s.data();
  const size_t size = s.size();
  uint64_t continuation = 0;
  size_t i = 0;
#if defined(__AVX2__)
  const __m256i top = _mm256_set1_epi8(static_cast<char>(0xC0));
  const __m256i follow = _mm256_set1_epi8(static_cast<char>(0x80));
  for (; size - i >= 32; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i is = _mm256_cmpeq_epi8(_mm256_and_si256(v, top), follow);
    continuation +=
        static_cast<uint64_t>(std::popcount(static_cast<uint32_t>(_mm256_movemask_epi8(is))));
  }
#endif
  for (; size - i >= 8; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    continuation += static_cast<uint64_t>(std::popcount(w & ~(w << 1) & 0x8080808080808080ull));
  }
  for (; i < size; ++i) continuation += (static_cast<unsigned char>(p[i]) & 0xC0) == 0x80;
  return size - continuation;
}

std::string NumberText(const Validator::Scalar& v) {
  if (v.num == Validator::Scalar::kUint) return std::to_string(v.u);
  if (v.num == Validator::Scalar::kInt) return std::to_string(v.i);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v.d);
  return std::string(buf, r.ptr);
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  size_t n = 0;
  for (char c : s) {
    if (++n > 64) {
      out += "...";
      break;
    }
    if (c == '"' || c == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\u00";
      out.push_back("0123456789abcdef"[c >> 4]);
      out.push_back("0123456789abcdef"[c & 15]);
      continue;
    }
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string TypeNames(uint8_t types) {
  static const char* const kNames[] = {"null",   "boolean", "object", "array",
                                       "number", "string",  "integer"};
  std::string out;
  for (int i = 0; i < 7; ++i) {
    if (!(types & (1 << i))) continue;
    if (!out.empty()) out += ", ";
    out += kNames[i];
  }
  return out;
}

std::string Shown(const Validator::Scalar& v) {
  switch (v.type) {
    case kTypeNull:
      return "null";
    case kTypeBoolean:
      return v.b ? "true" : "false";
    case kTypeString:
      return Quote(v.s);
    default:
      return NumberText(v);
  }
}

// Comparisons exact for 64-bit integers (long double has a 64-bit significand here).
long double Wide(const Validator::Scalar& v) {
  if (v.num == Validator::Scalar::kUint) return static_cast<long double>(v.u);
  if (v.num == Validator::Scalar::kInt) return static_cast<long double>(v.i);
  return v.d;
}

bool MultipleOf(const Validator::Scalar& v, const Node& n) {
  if (n.integer_multiple && v.num != Validator::Scalar::kDouble) {
    const uint64_t m = static_cast<uint64_t>(n.multiple_of);
    const uint64_t a = v.num == Validator::Scalar::kUint ? v.u
                       : v.i < 0                         ? 0 - static_cast<uint64_t>(v.i)
                                                         : static_cast<uint64_t>(v.i);
    return a % m == 0;
  }
  const double x = static_cast<double>(Wide(v));
  const double q = x / n.multiple_of;
  if (!std::isfinite(q)) return std::fmod(x, n.multiple_of) == 0;  // past DBL_MAX: exact
  const double r = std::nearbyint(q);
  return std::fabs(q - r) <= 1e-9 * std::max(1.0, std::fabs(r));
}

// RFC 4648 section 4, padded.
bool DecodeBase64(std::string_view s, std::string* out) {
  if (s.size() % 4 != 0) return false;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=' && i + 2 >= s.size())
      continue;
    else
      return false;
    acc = acc << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>(acc >> bits & 0xff));
    }
  }
  return true;
}

// Draft 7's contentMediaType: whether a string is a JSON text. Read by the byte-by-byte
// reader, which holds nothing of the thread's: the request's own JsonReader may be halfway
// through the thread's structural index and string buffer right now.
bool IsJson(std::string_view text) {
  Limits limits;
  MappingOptions options;
  Context ctx(limits, options);
  NullSink sink;
  JsonScalarReader<NullSink> reader(ctx, sink);
  return reader.Read(text);
}

std::string Doubled(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

}  // namespace

// The buffers a Validator uses in place (through its references), which most requests
// touch little or not at all: not swapped, which cost more than the rest of a record's
// setup.
struct Validator::Rare {
  std::vector<Extra> extras;
  std::vector<uint64_t> marks;
  std::string canon;
  std::string scalar_canon;
  std::vector<std::string_view> sort_parts;
  std::string sort_bytes;
  std::vector<ScopeEntry> scopes;
};

struct Validator::Spare {
  PodStack<Eval> evals;
  PodStack<Slot> slots;
  FrameStack frames;
  Rare rare;
  bool in_use = false;
};

Validator::Spare& Validator::ThreadSpare() {
  thread_local Spare spare;
  return spare;
}

bool Validator::ClaimSpare() {
  Spare& spare = ThreadSpare();
  if (spare.in_use) return false;
  spare.in_use = true;
  return true;
}

Validator::Rare* Validator::OwnRare() {
  own_rare_ = std::make_unique<Rare>();
  return own_rare_.get();
}

void Validator::SwapBuffers(Spare& s) {
  evals_.swap(s.evals);
  slots_.swap(s.slots);
  std::swap(frames_, s.frames);
}

uint64_t Validator::HeldBytes() const {
  return evals_.capacity() * sizeof(Eval) + slots_.capacity() * sizeof(Slot) +
         frames_.capacity() * sizeof(Frame) + canon_.capacity() + marks_.capacity() * 8 +
         extras_.size() * sizeof(Extra) + scalar_canon_.capacity() +
         sort_parts_.capacity() * sizeof(std::string_view) + sort_bytes_.capacity();
}

namespace {
// The room a buffer grown from `reserved` by doubling would have for n entries.
uint64_t Room(uint64_t n, uint64_t reserved) { return n <= reserved ? reserved : std::bit_ceil(n); }
}  // namespace

uint64_t Validator::NeededBytes() const {
  return Room(evals_.size(), kReservedEvals) * sizeof(Eval) +
         Room(slots_.size(), 64) * sizeof(Slot) +
         Room(frames_.size(), kReservedFrames) * sizeof(Frame) + Room(canon_.size(), 0) +
         Room(marks_.size(), 0) * 8 + uint64_t{extras_used_} * sizeof(Extra) + extra_bytes_;
}

Validator::Validator(Context& ctx, const Compiled& set, uint32_t root, uint32_t document,
                     std::vector<Status>* violations, uint32_t max_violations)
    : ctx_(ctx),
      set_(set),
      nodes_(set.nodes.data()),
      root_(root),
      document_(document),
      violations_(violations),
      max_violations_(max_violations == 0 ? 1 : max_violations),
      format_assertion_(ctx.options.format_assertion),
      all_errors_(violations != nullptr),
      shallow_frames_(std::min<uint64_t>(kReservedFrames, ctx.limits.max_depth + 1u)),
      took_spare_(ClaimSpare()),
      rare_(took_spare_ ? &ThreadSpare().rare : OwnRare()),
      extras_(rare_->extras),
      marks_(rare_->marks),
      canon_(rare_->canon),
      scalar_canon_(rare_->scalar_canon),
      sort_parts_(rare_->sort_parts),
      sort_bytes_(rare_->sort_bytes),
      scopes_(rare_->scopes) {
  if (took_spare_) SwapBuffers(ThreadSpare());
  scopes_.push_back(ScopeEntry{kNone, kNone});
  evals_.reserve(kReservedEvals);
  slots_.reserve(64);
  frames_.reserve(kReservedFrames);
  // The document's root value is due: one slot, owned by nobody.
  slots_.push_back(Slot{kNone, root_, kMust});
}

Validator::~Validator() {
  if (!took_spare_) return;
  Spare& spare = ThreadSpare();
  spare.in_use = false;
  uint64_t held = HeldBytes();
  for (const Extra& x : extras_)
    held += x.claims.capacity() * 8 + x.uneval.capacity() * sizeof(x.uneval[0]) +
            x.seen_more.capacity() * 4;
  if (held > kSpareBytes) {  // freed; the next Validator starts small
    // (Moved from, not assigned to: a string assigned an empty one keeps its buffer.)
    { const Rare freed = std::move(*rare_); }
    *rare_ = Rare{};
    return;
  }
  evals_.clear();
  slots_.clear();
  frames_.clear();
  marks_.clear();
  canon_.clear();
  scopes_.clear();
  SwapBuffers(spare);
}

// ---- scalars ----------------------------------------------------------------------

bool Validator::NegInt(uint64_t n) {
  if (special_) return special_writer_->NegInt(n) && SpecialDone();
  Scalar v;
  v.type = kTypeNumber;
  v.integral = true;
  if (n <= static_cast<uint64_t>(INT64_MAX)) {
    v.num = Scalar::kInt;
    v.i = -1 - static_cast<int64_t>(n);
  } else {
    v.num = Scalar::kDouble;
    v.d = -1.0 - static_cast<double>(n);
  }
  return OnScalar(v);
}

bool Validator::Text(std::string_view s) {
  if (unusual_) [[unlikely]]
    return SpecialText(s);
  if (!frames_.empty() && frames_.back().expect_key) return OnKey(s);
  return TextValue(s);
}

bool Validator::SpecialText(std::string_view s) {
  if (special_) return special_writer_->Text(s) && SpecialDone();
  if (!frames_.empty() && frames_.back().expect_key) {
    // A tagged key read back (an IP address): its text lives in buffers the next tagged
    // item reuses, so the frame keeps a copy.
    std::string& store = KeyStore();
    store.assign(s);
    return OnKey(store);
  }
  return TextValue(s);
}

bool Validator::Bytes(std::string_view s) {
  if (special_) return special_writer_->Bytes(s) && SpecialDone();
  if (replay_bignum_ != 0) {
    // A JSON integer past 64 bits read back: compared as a double, still an integer.
    double m = 0;
    for (unsigned char c : s) m = m * 256 + c;
    Scalar v;
    v.type = kTypeNumber;
    v.num = Scalar::kDouble;
    v.d = replay_bignum_ == kTagNegativeBignum ? -1 - m : m;
    v.integral = true;
    replay_bignum_ = 0;
    return OnScalar(v);
  }
  if (!frames_.empty() && frames_.back().expect_key)
    return ctx_.Fail(ErrorCode::kUnrepresentable, "a byte string key has no JSON Schema instance");
  // The instance is its base64url text, as the JSON writer prints it.
  StartSpecial();
  return special_writer_->Bytes(s) && SpecialDone();
}

bool Validator::Tag(uint64_t tag) {
  if (special_) return special_writer_->Tag(tag);
  if (replaying_) {  // JSON read back has no tags but a bignum's
    replay_bignum_ = tag;
    return true;
  }
  const bool mapped =
      tag == kTagPositiveBignum || tag == kTagNegativeBignum || tag == kTagIpv4 ||
      tag == kTagIpv6 || (tag >= kTagMsgpackExtBase && tag <= kTagMsgpackExtBase + 0xff) ||
      (ctx_.options.timestamps_as_text && (tag == kTagEpochTime || tag == kTagExtendedTime) &&
       !(!frames_.empty() && frames_.back().expect_key));
  if (!mapped) return true;  // the tag is dropped, its item kept
  StartSpecial();
  return special_writer_->Tag(tag);
}

// A fresh writer for each special item (a writer's state does not go back to "no item
// yet"), made in place: no allocation; its output buffer keeps its room between items.
void Validator::StartSpecial() {
  special_out_.Begin(ctx_.limits.max_string_bytes + 64, &ctx_.budget);
  special_writer_.emplace(ctx_, special_out_);
  special_ = true;
  unusual_ = true;
  special_depth_ = 0;
}

bool Validator::SpecialNull() { return special_writer_->Null() && SpecialDone(); }
bool Validator::SpecialBool(bool b) { return special_writer_->Bool(b) && SpecialDone(); }
bool Validator::SpecialBegin(bool is_map) {
  ++special_depth_;
  return is_map ? special_writer_->BeginMap(kUnknownLength)
                : special_writer_->BeginArray(kUnknownLength);
}
bool Validator::SpecialEnd(bool is_map) {
  --special_depth_;
  return (is_map ? special_writer_->EndMap() : special_writer_->EndArray()) && SpecialDone();
}

// The special item is complete when its writer is back at depth 0: its JSON (a text, a
// number, or a container when the writer dropped a tag it could not apply) is read back
// into this validator, at the item's offset.
bool Validator::SpecialDone() {
  if (special_depth_ > 0) return true;
  special_ = false;
  const std::string_view text(special_out_.data(), special_out_.size());
  if (text.empty()) return unusual_ = false, true;
  replaying_ = true;
  offset_hold_ = kHeld | kReplaying;  // every item of the text is at the tagged item's offset
  JsonScalarReader<Validator> reader(ctx_, *this);
  const bool ok = reader.Read(text);
  replaying_ = false;
  unusual_ = false;
  offset_hold_ = 0;
  return ok;
}

namespace {

// Whether a string is one of a texts_only node's texts (out of line: few nodes have them).
[[gnu::noinline]] bool InTexts(const Node& n, std::string_view s) {
  for (const std::string& text : n.texts)
    if (SameBytes(text, s)) return true;
  return false;
}

// PassesPlain's checks of a string (whose type the node lets through).
[[gnu::always_inline]] inline bool PassesPlainText(const Node& n, std::string_view s,
                                                   const Compiled& set, bool format_assertion) {
  const uint64_t bytes = s.size();
  if (bytes > n.max_length || (bytes + 3) / 4 < n.min_length) return false;
  if ((n.has & Node::kFormat) && (format_assertion || n.format_asserted)) return false;
  if ((n.has & (Node::kConst | Node::kEnum)) && !InTexts(n, s)) return false;
  return n.pattern == kNone || set.Search(n.pattern, s);
}

// The type bits a scalar has under a node of draft d: a number's kTypeInteger too when it is
// integral (draft 4 counts 1.0 as a number only: it was written as a float).
inline uint8_t TypeBits(const Validator::Scalar& v, Draft d) {
  const bool integer = v.integral && (d != Draft::k4 || !v.is_float);
  return v.type | (v.type == kTypeNumber && integer ? kTypeInteger : 0);
}

// Whether a scalar passes a scalar_plain node: the checks EvalScalarKeywords makes, with
// no message. False sends the scalar the whole way (which finds the same verdict and, when
// it counts, says why); so does a length the bytes cannot settle, and an asserted format.
// Inlined where it is called (OnScalar, ScalarChild, JudgeName): a call costs about as
// much as the checks.
[[gnu::always_inline]] inline bool PassesPlain(const Node& n, const Validator::Scalar& v,
                                               const Compiled& set, bool format_assertion) {
  const uint8_t t = TypeBits(v, n.draft);
  if (!(n.plain_types & t)) return false;  // (a texts_only node: strings alone)
  if (v.type == kTypeNumber) {
    if (!(n.has & Node::kNumeric)) return true;
    // (The evaluation's own check, exact: a scalar_plain node's multipleOf is an integer.)
    if ((n.has & Node::kMultipleOf) && !MultipleOf(v, n)) return false;
    // In double when the number is one exactly (a double, an integer of at most 2^53),
    // with no x87 long double: the bounds are doubles.
    constexpr uint64_t kExact = uint64_t{1} << 53;
    double x;
    if (v.num == Validator::Scalar::kDouble) {
      x = v.d;
    } else if (v.num == Validator::Scalar::kUint ? v.u <= kExact : v.i + kExact <= 2 * kExact) {
      x = v.num == Validator::Scalar::kUint ? static_cast<double>(v.u) : static_cast<double>(v.i);
    } else {
      return WithinBounds(n, Wide(v));
    }
    return WithinBounds(n, x);
  }
  if (v.type != kTypeString) return true;
  return PassesPlainText(n, v.s, set, format_assertion);
}

// Whether PassesPlain's false is the verdict on v: so unless it judged a string's length by
// its bytes (the code points decide) or an asserted format (PassesPlain declines those),
// and never for a scalar union (plain only for the types its branches surely pass:
// Compiler::UnionPlain).
bool PlainExact(const Node& n, const Validator::Scalar& v, bool format_assertion) {
  return !n.scalar_union &&
         (v.type != kTypeString ||
          (n.min_length == 0 && n.max_length == kNoLimit &&
           !((n.has & Node::kFormat) && (format_assertion || n.format_asserted))));
}
}  // namespace

// ---- the walk ---------------------------------------------------------------------

bool Validator::Null() {
  if (special_) return SpecialNull();
  // As Uint: a direct frame's null that its plain subschema lets through.
  if (PassDirect([](const Node& n) { return n.scalar_plain && (n.plain_types & kTypeNull); }))
    return extra_bytes_ == extra_accounted_ || AccountExtras();
  return NullOrBoolScalar(kTypeNull, false);
}

bool Validator::NullOrBoolScalar(uint8_t type, bool b) {
  // (OnScalar's way to CondChild for a kDirect frame's member: its offset, its verdicts,
  // the count.) Twitter's nulls of in_reply_to_* and of a user's utc_offset and time_zone.
  if (!stopped_ && !frames_.empty()) {
    Frame& f = frames_.back();
    if (f.mode == Frame::kDirect && f.is_map && !f.expect_key && f.child != kNone) {
      const Node& item = nodes_[f.child];
      const int t = type == kTypeNull ? 0 : 1;
      if ((item.has & Node::kCondMember) && (item.rare().cond_by_type >> t & 1)) {
        offset_hold_ &= kReplaying;
        Eval& ev = evals_[f.evals_begin];
        if (ev.valid || ev.committed) ev.cond |= item.rare().cond_type_fails[t];
        ++f.count;
        f.expect_key = true;
        return extra_bytes_ == extra_accounted_ || AccountExtras();
      }
    }
  }
  Scalar v;
  v.type = type;
  v.b = b;
  return OnScalar(v);
}

bool Validator::Bool(bool b) {
  if (special_) return SpecialBool(b);
  if (PassDirect([](const Node& n) { return n.scalar_plain && (n.plain_types & kTypeBoolean); }))
    return extra_bytes_ == extra_accounted_ || AccountExtras();
  return NullOrBoolScalar(kTypeBoolean, b);
}

bool Validator::SpecialUint(uint64_t u) { return special_writer_->Uint(u) && SpecialDone(); }

bool Validator::UintScalar(uint64_t u) {
  Scalar v;
  v.type = kTypeNumber;
  v.num = Scalar::kUint;
  v.u = u;
  v.integral = true;
  return OnScalar(v);
}

bool Validator::Uint(uint64_t u) {
  // (Tail calls only, so that the common case keeps no frame: with the special writer's
  // call and the Scalar in here, every integer paid some 15 instructions of prologue.)
  if (special_) [[unlikely]]
    return SpecialUint(u);
  // A direct frame's (or a lone member's) integer whose subschema is none, or passes it
  // by IntegerPasses.
  if (PassDirect([u](const Node& n) { return IntegerPasses(n, u, false); }))
    return extra_bytes_ == extra_accounted_ || AccountExtras();
  return UintScalar(u);
}

bool Validator::SpecialDouble(double d) { return special_writer_->Double(d) && SpecialDone(); }

bool Validator::Double(double d) {
  // (Tail calls only, as Uint.) A direct frame's finite double whose subschema is none, or
  // a plain one that takes any number and whose bounds it is within: CBOR's and
  // MessagePack's floats (GeoJSON's coordinates), which come as doubles where JSON's
  // decimals come to TakeDecimal.
  if (special_) [[unlikely]]
    return SpecialDouble(d);
  // Its bounds are the node's sure range (Node::sure_low: the bounds moved inwards by a
  // relative 2^-48, infinite where there is none, empty with multipleOf): two compares
  // where four keywords' flags and bounds were tested, and a double within 2^-48 of a
  // bound goes the whole way.
  if (std::isfinite(d) && PassDirect([d](const Node& n) {
        return n.scalar_plain && (n.plain_types & kTypeNumber) && d >= n.sure_low &&
               d <= n.sure_high;
      }))
    return extra_bytes_ == extra_accounted_ || AccountExtras();
  return DoubleScalar(d);
}

bool Validator::DoubleScalar(double d) {
  if (!std::isfinite(d)) [[unlikely]] {
    if (ctx_.options.nonfinite_as_null) return Null();
    return ctx_.Fail(ErrorCode::kUnrepresentable,
                     "NaN and infinities have no JSON Schema instance (option nonfinite_as_null)");
  }
  Scalar v;
  v.type = kTypeNumber;
  v.num = Scalar::kDouble;
  v.d = d;
  v.integral = d == std::floor(d);
  v.is_float = true;
  return OnScalar(v);
}

bool Validator::TextValue(std::string_view s) {
  // As Uint: a direct frame's string that its plain subschema passes.
  if (PassDirect([&](const Node& n) {
        return n.scalar_plain && (n.plain_types & kTypeString) &&
               PassesPlainText(n, s, set_, format_assertion_);
      }))
    return extra_bytes_ == extra_accounted_ || AccountExtras();
  Scalar v;
  v.type = kTypeString;
  v.s = s;
  return OnScalar(v);
}

bool Validator::OnScalar(const Scalar& v) {
  if (stopped_) return false;
  const uint64_t offset = item_offset_;
  offset_hold_ &= kReplaying;
  uint32_t slots_begin = 0;
  if (!frames_.empty()) {
    Frame& f = frames_.back();
    if (f.expect_key) {
      if (v.type == kTypeNumber && v.num != Scalar::kDouble) {
        // An integer key is its decimal text (as the JSON writer prints it).
        std::string& store = KeyStore();
        store = NumberText(v);
        return OnKey(store);
      }
      return ctx_.Fail(ErrorCode::kUnrepresentable,
                       "a map key that is not text or an integer has no JSON Schema instance");
    }
    // kLone, kDirect, kLeafMap, kLeaf (whose evals_begin is the live evaluation above).
    if (f.mode >= Frame::kLone) return ScalarChild(f, v, offset);
    if (f.mode <= Frame::kTexts && f.mode >= Frame::kPending) {
      // An array with uniqueItems (Frame::kInts, kTexts): unsigned integers, or strings,
      // kept as they are.
      if (f.mode != Frame::kTexts && v.type == kTypeNumber && v.num == Scalar::kUint &&
          f.count < kMaxInts) {
        f.mode = Frame::kInts;
        ints_[f.count] = v.u;
        return ScalarChild(f, v, offset);
      }
      if (f.mode != Frame::kInts && v.type == kTypeString && f.count < kMaxTexts) {
        const size_t from = f.count == 0 ? 0 : text_ends_[f.count - 1];
        if (v.s.size() <= kMaxTextBytes - from) {
          f.mode = Frame::kTexts;
          if (!v.s.empty()) std::memcpy(text_bytes_ + from, v.s.data(), v.s.size());
          text_ends_[f.count] = static_cast<uint16_t>(from + v.s.size());
          return ScalarChild(f, v, offset);
        }
      }
      if (f.mode == Frame::kPending)
        StartCapture(f);
      else if (f.mode == Frame::kInts ? !IntsToCapture(f) : !TextsToCapture(f))
        return false;
    }
    if (f.capture) {
      if (f.mode == Frame::kChooseValue) [[unlikely]] {  // (Frame::kChoose)
        if (!ChooseValue(f, v.type == kTypeString ? &v.s : nullptr)) return false;
        item_offset_ = offset;
        return OnScalar(v);  // as the chosen frame's
      }
      if (!CaptureScalar(v)) return false;
    }
    if (f.mode == Frame::kCaptured) return ScalarChild(f, v, offset);
    if (!f.is_map) PrepareItem(f);
    slots_begin = f.slots_begin;
  }
  item_offset_ = offset;
  const size_t n = slots_.size();
  for (size_t i = slots_begin; i < n; ++i) {
    const Slot s = slots_[i];
    const Node& node = nodes_[s.node];
    bool ok;
    if (node.scalar_plain && PassesPlain(node, v, set_, format_assertion_)) {
      ok = true;
    } else {
      const bool committed = s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed);
      const uint32_t scope = s.owner == kNone ? 0 : evals_[s.owner].scope;
      ok = EvalScalar(s.node, v, scope, committed);
    }
    if (stopped_) return false;
    if (s.owner != kNone) {
      Deliver(s.owner, s.kind, ok, frames_.back().count, frames_.back().key);
    } else if (!ok) {
      failed_ = true;
    }
  }
  return ChildDone();
}

bool Validator::MapKey(Frame& f, std::string_view key, uint64_t offset) {
  // (Calls in tail position only: no frame of its own. A kChoose frame's name goes to
  // CapturedKey: Frame::kChoose.)
  if (f.capture) return CapturedKey(f, key, offset);
  if (Lone(f, key)) {
    f.mode = Frame::kLone;
    return DirectKey(f, key, offset);
  }
  if (f.lone_members && !RestMay(f, key) && LoneMember(f, key, offset)) return true;
  f.mode = Frame::kEach;
  return EachKey(f, key, offset);
}

bool Validator::LoneMember(Frame& f, std::string_view key, uint64_t offset) {
  const Node& n = nodes_[f.node];
  Eval& ev = evals_[f.evals_begin];
  if ((!ev.valid && !ev.committed) || !n.MightBeMember(key)) return false;
  const Node::Member* m = n.FindMemberFrom(f.expect, key, MemberKeyOf(key));
  if (m == nullptr || !m->sole) return false;
  f.mode = Frame::kLone;
  f.expect = m->next;
  f.key_bit = m->bit;
  f.child = m->property;
  if (m->watch != kNone) Watch(ev, m->watch);
  item_offset_ = offset;
  return AccountExtras();
}

bool Validator::ChooseKey(Frame& f, std::string_view key, uint64_t offset) {
  const UnionChoice& c = set_.choices[f.child];
  if (SameBytes(c.value_name, key) && !c.value_name.empty()) {
    f.mode = Frame::kChooseValue;
    f.rest_bits = offset;
    return true;
  }
  if (!MakeChoice(f, c.ForName(key))) return false;
  return f.mode == Frame::kDirect ? DirectKey(f, key, offset) : MapKey(f, key, offset);
}

bool Validator::ChooseValue(Frame& f, const std::string_view* value) {
  const UnionChoice& c = set_.choices[f.child];
  const uint64_t offset = f.rest_bits;
  if (!MakeChoice(f, value != nullptr ? c.ForValue(*value) : c.no_string)) return false;
  if (f.claims) {
    // The first name went to the reader's record (nothing claimed then); its bit is
    // recorded too, so that the same name again is the validator's duplicate.
    const uint8_t bit = MemberBit(f, f.key);
    if (bit != Node::Member::kNoBit) f.claimed |= uint64_t{1} << bit;
  }
  return f.mode == Frame::kDirect ? DirectKey(f, f.key, offset) : MapKey(f, f.key, offset);
}

bool Validator::MakeChoice(Frame& f, const ChoiceTable::Entry& choice) {
  // As OnBeginRest's planned map: the slot, the parent's last, is still in place (nothing
  // was read since). Only the node's own evaluation is committed, if any: no plan of a
  // union has a committed false schema to report.
  const Slot s = slots_[f.slots_begin - 1];
  const bool committed = s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed);
  const uint32_t plan = choice.plans[committed] != kNone ? choice.plans[committed]
                                                         : nodes_[f.node].object_plan[committed];
  const ObjectPlan& p = set_.plans[plan];
  if (const uint32_t at = p.direct_leaf) {
    // One leaf live, whose map a direct frame reads: the frame becomes its direct frame,
    // its evaluation a branch's (not committed) that delivers to the union's owner, as
    // the union's verdict is the leaf's (the branches not made fail). Its role names the
    // union, whose failure CloseDirect reports when it counts (UnionFailed).
    const uint32_t leaf = p.evals[at].node;
    const Node& ln = nodes_[leaf];
    const uint32_t e = static_cast<uint32_t>(evals_.size());
    Eval ev = DirectEval(leaf, s.owner, s.kind,
                         !(ln.has & Node::kType) || (ln.types & kTypeObject) != 0, false, true);
    NameUnion(ev, p.evals[0].node);
    evals_.push_back(ev);
    f.evals_begin = e;
    f.node = leaf;
    f.table = ln.member_table.data();
    f.mode = Frame::kDirect;
    f.child = kNone;
    f.capture = false;
    // The leaf's member bits take over the duplicate check from here (ClaimKey): the first
    // name, given before the choice when the choice is by its value, is claimed by
    // ChooseValue; else the reader claims it after this.
    f.claims = ln.member_bits;
    f.expect = ln.first_member;
    f.rest_lengths = f.rest_bits = ~uint64_t{0};
    return Account();
  }
  if (!MakePlanned(p, s)) return false;
  f.rest_lengths = p.rest_lengths;
  f.rest_bits = p.rest_bits;
  f.mode = Frame::kEach;
  f.child = kNone;
  f.capture = false;  // (a union's plan captures nothing)
  SetLone(f);
  return Account();
}

bool Validator::CapturedKey(Frame& f, std::string_view key, uint64_t offset) {
  if (f.mode == Frame::kChoose) return ChooseKey(f, key, offset);
  if (!CaptureKey(key)) return false;
  return f.mode == Frame::kCaptured ? DirectKey(f, key, offset) : EachKey(f, key, offset);
}

bool Validator::EachKey(Frame& f, std::string_view key, uint64_t offset) {
  // (A planned frame's evaluations are all of evals_ from evals_begin.)
  const uint32_t end = RestMay(f, key) ? static_cast<uint32_t>(evals_.size()) : f.evals_begin + 1;
  // No Eval is made while a name is looked at (propertyNames judges a scalar): the
  // pointer stays good.
  Eval* const evals = evals_.data();
  MemberKey mk{};  // (made at the first member lookup)
  bool made = false;
  bool refused = false;  // a branch refused the name (SettleToDirect)
  for (uint32_t e = f.evals_begin; e < end; ++e) {
    Eval& ev = evals[e];
    if (!ev.valid && !ev.committed) {
      // Settled: nothing can change it, and what it applied in place feeds only it.
      e = ev.subtree_end - 1;
      continue;
    }
    const Node& n = nodes_[ev.node];
    const uint8_t work = n.key_work;
    // Nothing to do, or only members and none of this name's length (most names in an
    // `if` / `then` branch of a few properties): the next evaluation.
    if (work == 0 || (work == Node::kKeyMembers && !n.MightBeMember(key))) continue;
    bool claimed = false;
    const Node::Member* member = nullptr;
    if ((work & Node::kKeyMembers) && n.MightBeMember(key)) {
      if (!made) {
        mk = MemberKeyOf(key);
        made = true;
      }
      member = n.FindMember(key, mk);
      if (e == f.evals_begin) f.key_bit = member != nullptr ? member->bit : Node::Member::kNoBit;
      if (member != nullptr && member->property != kNone) {
        slots_.push_back(Slot{e, member->property, kMust});
        claimed = true;
      }
    }
    if (work & Node::kKeyPatterns) {
      for (const PatternProperty& pp : n.rare_->pattern_properties) {  // (kKeyPatterns: made)
        if (set_.Search(pp.regex, key)) {
          slots_.push_back(Slot{e, pp.node, kMust});
          claimed = true;
        }
      }
    }
    if (!claimed && (work & Node::kKeyAdditional)) {
      if (nodes_[n.additional_properties].kind == Node::kFalse) {
        if (!RefuseMember(ev, n, key, offset)) return false;
        refused |= !ev.committed;
      } else {
        slots_.push_back(Slot{e, n.additional_properties, kMust});
      }
      claimed = true;
    }
    if (!claimed && (work & Node::kKeyUneval)) {
      if (nodes_[n.unevaluated_properties].kind == Node::kSchema)
        slots_.push_back(Slot{e, n.unevaluated_properties, kUneval});
      else
        UnevaluatedNoSlot(e, n.unevaluated_properties, key);
    }
    if (claimed && ev.tracks) SetBit(ExtraOf(ev).claims, f.count);
    if (member != nullptr && member->watch != kNone) Watch(ev, member->watch);
    if ((work & Node::kKeyNames) && !JudgeName(ev, n, key, offset)) return false;
  }
  item_offset_ = offset;
  if (refused) [[unlikely]]
    SettleToDirect(f);
  return AccountExtras();
}

void Validator::SettleToDirect(Frame& f) {
  // [the union, its branches]: the union's node as DirectLeaf asks, nothing tracked, each
  // branch a leaf of the union (made in place under it), one alone live.
  if (f.mode != Frame::kEach || f.capture) return;
  const uint32_t b = f.evals_begin;
  const uint32_t end = static_cast<uint32_t>(evals_.size());
  const Eval& u = evals_[b];
  if (u.parent != kNone || u.subtree_end != end || u.tracks || u.extra != kNone ||
      !PlainUnion(nodes_[u.node]))
    return;
  uint32_t live = kNone;
  for (uint32_t c = b + 1; c < end; c = evals_[c].subtree_end) {
    if (Settled(evals_[c])) continue;
    if (live != kNone) return;
    live = c;
  }
  if (live == kNone) return;
  const Eval& l = evals_[live];
  const Node& ln = nodes_[l.node];
  if (l.subtree_end != live + 1 || l.tracks || l.extra != kNone || l.committed ||
      ln.kind != Node::kSchema || !ln.direct_map || ln.has_in_place)
    return;
  // The name's slots: the live branch's member subschema, if any, is the frame's child.
  uint32_t child = kNone;
  for (uint32_t s = f.slots_begin; s < slots_.size(); ++s) {
    const Slot& slot = slots_[s];
    if (slot.owner != live || slot.kind != kMust || child != kNone) return;
    child = slot.node;
  }
  // As MakeChoice's DirectLeaf evaluation: a branch's (not committed) delivering to the
  // union's owner, its role naming the union (CloseDirect: UnionFailed).
  Eval ev = l;
  ev.parent = kNone;
  ev.subtree_end = b + 1;
  ev.owner = u.owner;
  ev.owner_kind = u.owner_kind;
  NameUnion(ev, u.node);
  evals_[b] = ev;
  evals_.truncate(b + 1);
  slots_.truncate(f.slots_begin);
  f.node = l.node;
  f.table = ln.member_table.data();
  f.mode = Frame::kDirect;
  f.child = child;
  const Node::Member* m = ln.FindMember(f.key, MemberKeyOf(f.key));
  f.expect = m != nullptr ? m->next : ln.first_member;
  f.rest_lengths = f.rest_bits = ~uint64_t{0};
}

void Validator::UnevaluatedNoSlot(uint32_t e, uint32_t node, std::string_view key) {
  if (nodes_[node].kind == Node::kFalse) DeliverOther(e, kUneval, false, frames_.back().count, key);
}

bool Validator::DirectKey(Frame& f, std::string_view key, uint64_t offset) {
  // The commonest case, in few registers (two saved, no call): the name is the member the
  // frame expects next (Node::FindMemberFrom), of at most 32 bytes (so its compare needs
  // no memcmp), with a subschema, watched among the first 64 names or not at all, in a
  // node with no work for names but members and additionalProperties (Member::direct, one
  // byte settled at load). Payloads list an
  // object's members in its schema's order: 105,467 of twitter's 120,173 names here and
  // 53,047 of citm's 53,719 are found so (1,000 records). Every other name goes on to
  // DirectKeyFind, whose hash probe and name compare of any length save six registers.
  if (const Node::Member* m = ExpectedMember(f, key)) {
    Eval& ev = evals_[f.evals_begin];
    if (ev.valid || ev.committed) {
      TakeMember(f, *m, &ev.seen, offset);
      return true;
    }
  }
  return DirectKeyFind(f, key, offset);
}

bool Validator::LeafKey(Frame& f, std::string_view key, uint64_t offset) {
  // DirectKey's common case, with no evaluation to read (a leaf map's is live: anything
  // that fails makes it first).
  if (const Node::Member* m = ExpectedMember(f, key)) {
    TakeMember(f, *m, &f.seen, offset);
    return true;
  }
  return LeafKeyFind(f, key, offset);
}

bool Validator::LeafKeyFind(Frame& f, std::string_view key, uint64_t offset) {
  // DirectKeyFind's and DirectKeyNames' common cases, as LeafKey has DirectKey's: a name
  // propertyNames' plain check passes (when there is one), with its member's subschema (a
  // member with one, watched among the first 64 names or not at all), else that of
  // NonMemberChild.
  const Node& n = nodes_[f.node];
  if ((n.key_work & Node::kKeyNames) && !NamePassesPlain(n, key))
    return LeafKeyRest(f, key, offset);
  if (n.MightBeMember(key)) {
    // (LeafKey compared a name of up to 32 bytes with the expected member: the table.)
    const uint16_t expect = key.size() <= 32 ? Node::Member::kNoPlace : f.expect;
    if (const Node::Member* m = n.FindMemberFrom(expect, key, MemberKeyOf(key))) {
      if (m->property == kNone || (m->watch != kNone && m->watch >= 64))
        return LeafKeyRest(f, key, offset);
      TakeMember(f, *m, &f.seen, offset);
      return true;
    }
  }
  uint32_t child = kNone;
  if (!NonMemberChild(n, key, &child)) return LeafKeyRest(f, key, offset);
  f.key_bit = Node::Member::kNoBit;  // (no member: the reader checks the name)
  f.child = child;
  item_offset_ = offset;
  return true;
}

bool Validator::LeafKeyRest(Frame& f, std::string_view key, uint64_t offset) {
  // (DirectKeyFind compares no name of up to 32 bytes with the expected member again.)
  return Unleaf() && DirectKeyFind(f, key, offset);
}

bool Validator::NamePassesPlain(const Node& n, std::string_view key) const {
  const Node& names = nodes_[n.property_names];
  return names.scalar_plain && (names.plain_types & kTypeString) &&
         PassesPlainText(names, key, set_, format_assertion_);
}

bool Validator::NonMemberChild(const Node& n, std::string_view key, uint32_t* child) const {
  const uint8_t work = n.key_work;
  if (work & Node::kKeyPatterns) {
    const PatternProperty& pp = n.rare_->pattern_properties[0];  // (one_pattern)
    if (set_.Search(pp.regex, key)) {
      *child = pp.node;
      return true;
    }
  }
  if (work & Node::kKeyAdditional) {
    *child = n.additional_properties;
    return nodes_[*child].kind != Node::kFalse;
  }
  *child = kNone;
  return true;
}

bool Validator::DirectKeyFind(Frame& f, std::string_view key, uint64_t offset) {
  // The common case, with no call: a member with a subschema, watched among the first 64
  // names or not at all, and no propertyNames to judge.
  Eval& ev = evals_[f.evals_begin];
  const Node& n = nodes_[f.node];
  if ((n.key_work & (Node::kKeyMembers | Node::kKeyUneval)) == 0)
    return DirectKeyNames(f, key, offset);
  if ((n.key_work & ~(Node::kKeyMembers | Node::kKeyAdditional)) == 0 &&
      (n.key_work & Node::kKeyMembers) && n.MightBeMember(key) && (ev.valid || ev.committed)) {
    // (DirectKey compared a name of up to 32 bytes with the expected member: the table.)
    const uint16_t expect = key.size() <= 32 ? Node::Member::kNoPlace : f.expect;
    const Node::Member* member = n.FindMemberFrom(expect, key, MemberKeyOf(key));
    if (member != nullptr && member->direct) {
      TakeMember(f, *member, &ev.seen, offset);
      return true;
    }
  }
  return DirectKeyRest(f, key, offset);
}

bool Validator::DirectKeyNames(Frame& f, std::string_view key, uint64_t offset) {
  // A map of names with no properties (package's dependencies, workflow's env): a name
  // propertyNames' plain subschema passes, with the subschema of its one pattern, else of
  // additionalProperties (not false), for its value. A name the plain check fails, or
  // that additionalProperties: false refuses, goes the whole way (for the messages).
  const Eval& ev = evals_[f.evals_begin];
  const Node& n = nodes_[f.node];
  uint32_t child = kNone;
  if ((ev.valid || ev.committed) && (!(n.key_work & Node::kKeyNames) || NamePassesPlain(n, key)) &&
      NonMemberChild(n, key, &child)) {
    f.child = child;
    item_offset_ = offset;
    return true;
  }
  return DirectKeyRest(f, key, offset);
}

bool Validator::DirectKeyRest(Frame& f, std::string_view key, uint64_t offset) {
  // EachKey's work for the frame's first evaluation, with the member's subschema kept in
  // the frame instead of a slot (a direct_map node, like a Lone evaluation, has no
  // tracking or unevaluatedProperties, and no patternProperties but a one_pattern one).
  f.child = kNone;
  Eval& ev = evals_[f.evals_begin];
  const Node& n = nodes_[f.node];
  const uint8_t work = n.key_work;
  if (work == 0 || (!ev.valid && !ev.committed)) return true;  // (settled)
  bool claimed = false;
  if ((work & Node::kKeyMembers) && n.MightBeMember(key)) {
    const Node::Member* member = n.FindMemberFrom(f.expect, key, MemberKeyOf(key));
    f.key_bit = Node::Member::kNoBit;
    if (member != nullptr) {
      f.expect = member->next;
      f.key_bit = member->bit;
      if (member->property != kNone) {
        f.child = member->property;
        claimed = true;
      }
      if (member->watch != kNone) Watch(ev, member->watch);
    }
  }
  if (!claimed && (work & Node::kKeyPatterns)) {
    const PatternProperty& pp = n.rare_->pattern_properties[0];  // (one_pattern)
    if (set_.Search(pp.regex, key)) {
      f.child = pp.node;
      claimed = true;
    }
  }
  if (!claimed && (work & Node::kKeyAdditional)) {
    if (nodes_[n.additional_properties].kind == Node::kFalse) {
      if (!RefuseMember(ev, n, key, offset)) return false;
    } else {
      f.child = n.additional_properties;
    }
  }
  if ((work & Node::kKeyNames) && !JudgeName(ev, n, key, offset)) return false;
  item_offset_ = offset;
  return AccountExtras();
}

uint8_t Validator::MemberBit(const Frame& f, std::string_view key) const {
  const Node& n = nodes_[f.node];
  if (!n.MightBeMember(key)) return Node::Member::kNoBit;
  const Node::Member* member = n.FindMember(key, MemberKeyOf(key));
  return member != nullptr ? member->bit : Node::Member::kNoBit;
}

void Validator::Watch(Eval& ev, uint32_t w) {
  if (w < 64) {
    ev.seen |= uint64_t{1} << w;
  } else {
    ExtraOf(ev).seen_more.push_back(static_cast<uint32_t>(w));
    extra_bytes_ += 4;
  }
}

bool Validator::RefuseMember(Eval& ev, const Node& n, std::string_view key, uint64_t offset) {
  ev.valid = false;  // the member's value needs no look
  if (ev.committed) {
    Violation(n, "additionalProperties", offset, frames_.size(), [&] {
      return "property " + Quote(key) + " is not allowed (additionalProperties is false)";
    });
  }
  return !stopped_;
}

bool Validator::JudgeName(Eval& ev, const Node& n, std::string_view key, uint64_t offset) {
  Scalar name;
  name.type = kTypeString;
  name.s = key;
  const Node& names = nodes_[n.property_names];
  if (names.scalar_plain && PassesPlain(names, name, set_, format_assertion_)) return true;
  item_offset_ = offset;
  const bool ok = EvalScalar(n.property_names, name, ev.scope, ev.committed);
  if (!ok) ev.valid = false;
  return !stopped_;
}

bool Validator::ScalarChild(Frame& f, const Scalar& v, uint64_t offset) {
  // What PrepareItem, EachKey and OnScalar's slot loop would do for the frame's one
  // evaluation.
  item_offset_ = offset;
  // The evaluation is read only when the plain check does not pass: a scalar that passes
  // changes nothing, whether the evaluation is settled or not (a settled map's member has
  // no subschema: DirectKeyRest).
  const uint32_t c = f.is_map ? f.child : ItemNode(nodes_[f.node], f.count);
  if (c != kNone) {
    const Node& item = nodes_[c];
    if (!(item.scalar_plain && PassesPlain(item, v, set_, format_assertion_))) {
      const Eval& ev = evals_[f.evals_begin];
      if (item.has & Node::kCondMember) [[unlikely]] {
        if ((ev.valid || ev.committed) && !CondChild(f, item, v)) return false;
      } else if (ev.valid || ev.committed) {
        const bool ok = EvalScalar(c, v, ev.scope, ev.committed);
        if (stopped_) return false;
        if (!ok) evals_[f.evals_begin].valid = false;
      }
    }
  }
  ++f.count;
  if (f.is_map) f.expect_key = true;
  return AccountExtras();
}

bool Validator::CondChild(Frame& f, const Node& item, const Scalar& v) {
  const NodeRare& r = item.rare();
  const uint32_t base = r.cond_base;
  const Node& b = nodes_[base];
  if (!(b.scalar_plain && PassesPlain(b, v, set_, format_assertion_))) {
    const Eval& ev = evals_[f.evals_begin];
    const bool ok = EvalScalar(base, v, ev.scope, ev.committed);
    if (stopped_) return false;
    if (!ok) evals_[f.evals_begin].valid = false;
  }
  if (!IsDirect(f)) return true;  // (the kEach frame's evaluations judge the branches)
  for (const auto& [bit, node] : r.cond_checks) {
    if (evals_[f.evals_begin].cond & bit) continue;
    const Node& c = nodes_[node];
    // (A type the branch's subschema excludes fails it with no evaluation: the null of
    // `"then": {"properties": {"in_reply_to_user_id": {"type": "integer"}}}`.)
    const bool ok =
        c.kind == Node::kSchema && (c.has & Node::kType) && !(c.types & TypeBits(v, c.draft))
            ? false
            : (c.scalar_plain && PassesPlain(c, v, set_, format_assertion_)) ||
                  EvalScalar(node, v, evals_[f.evals_begin].scope, false);
    if (!ok) evals_[f.evals_begin].cond |= bit;
  }
  return true;
}

uint32_t Validator::CondContainer(const Frame& p, const Node& item, bool is_map) {
  const NodeRare& r = item.rare();
  if (r.cond_deep && IsDirect(p) && is_map && r.cond_nested != kNone) {
    // The branches' types now, their properties in the nested node's frame (CondNested).
    for (const auto& [bit, node] : r.cond_checks) {
      const Node& c = nodes_[node];
      if (c.kind == Node::kSchema && (c.has & Node::kType) && !(c.types & kTypeObject))
        evals_[p.evals_begin].cond |= bit;
    }
    return r.cond_nested;
  }
  if (r.cond_deep && IsDirect(p)) {
    // The member's own subschema and each branch's, as the slots of an ordinary frame.
    slots_.push_back(Slot{p.evals_begin, r.cond_base, kMust});
    for (const auto& [bit, node] : r.cond_checks)
      slots_.push_back(
          Slot{p.evals_begin, node, static_cast<SlotKind>(kCond + std::countr_zero(bit))});
    return kNone;
  }
  if (IsDirect(p)) {
    for (const auto& [bit, node] : r.cond_checks) {
      const Node& c = nodes_[node];
      const bool ok = c.kind == Node::kTrue ||
                      (c.kind == Node::kSchema &&
                       (!(c.has & Node::kType) || (c.types & (is_map ? kTypeObject : kTypeArray))));
      if (!ok) evals_[p.evals_begin].cond |= bit;
    }
  }
  return r.cond_base;
}

uint32_t Validator::CondOwner(uint32_t e) const {
  // (The frame is the last: its parent, before it.)
  if (frames_.size() < 2) return kNone;
  const Frame& p = frames_[frames_.size() - 2];
  const uint32_t owner = evals_[e].owner;
  return IsDirect(p) && owner == p.evals_begin ? owner : kNone;
}

void Validator::CondCount(uint32_t e, const Frame& f) {
  const uint32_t owner = CondOwner(e);
  if (owner == kNone) return;
  for (const auto& [bit, node] : nodes_[f.node].rare().cond_checks) {
    const Node& c = nodes_[node];
    if (c.kind != Node::kSchema) continue;  // (CondContainer judged it)
    const bool ok = f.is_map ? f.count >= c.min_properties && f.count <= c.max_properties
                             : f.count >= c.min_items && f.count <= c.max_items;
    if (!ok) evals_[owner].cond |= bit;
  }
}

void Validator::CondNested(uint32_t e) {
  const uint32_t owner = CondOwner(e);
  if (owner != kNone) evals_[owner].cond |= evals_[e].cond;
}

void Validator::MakeItemSlots(Frame& f) {
  const uint64_t i = f.count;
  const uint32_t end = static_cast<uint32_t>(evals_.size());
  for (uint32_t e = f.evals_begin; e < end; ++e) {
    const Eval& ev = evals_[e];
    if (!ev.valid && !ev.committed) {
      e = ev.subtree_end - 1;
      continue;
    }
    const Node& n = nodes_[ev.node];
    if (n.kind != Node::kSchema || !n.has_array_work) continue;
    bool covered = false;
    if (i < n.prefix_items.size()) {
      slots_.push_back(Slot{e, n.prefix_items[i], kMust});
      covered = true;
    } else if (n.items != kNone) {
      slots_.push_back(Slot{e, n.items, kMust});
      covered = true;
    }
    if (n.contains != kNone) slots_.push_back(Slot{e, n.contains, kContains});
    if (n.unevaluated_items != kNone && !covered) {
      if (nodes_[n.unevaluated_items].kind == Node::kSchema)
        slots_.push_back(Slot{e, n.unevaluated_items, kUneval});
      else
        UnevaluatedNoSlot(e, n.unevaluated_items, {});
    }
    if (covered && ev.tracks) SetBit(ExtraOf(evals_[e]).claims, i);
  }
  if (i >= f.stable_from) {
    f.mode = Frame::kKept;
    f.item_slots_end = static_cast<uint32_t>(slots_.size());
  }
}

void Validator::DeliverOther(uint32_t owner, SlotKind kind, bool ok, uint64_t index,
                             std::string_view key) {
  Eval& ev = evals_[owner];
  switch (kind) {
    case kMust:
      if (!ok) ev.valid = false;
      return;
    case kContains:
      if (ok) {
        ++ev.contains;
        if (nodes_[ev.node].draft == Draft::k2020 && ev.tracks) SetBit(ExtraOf(ev).claims, index);
      }
      return;
    default:  // kCond + p
      if (!ok) ev.cond |= static_cast<uint8_t>(1u << (kind - kCond));
      return;
    case kUneval:
      if (!ok) {
        const Frame& f = frames_.back();
        std::string_view name = f.is_map ? key : std::string_view();
        extra_bytes_ += sizeof(std::pair<uint64_t, std::string_view>);
        if (InKeyStore(name)) [[unlikely]] {
          name = key_copies_.emplace_front(name);
          extra_bytes_ += sizeof(std::string) + name.size();
        }
        ExtraOf(evals_[owner]).uneval.emplace_back(index, name);
      }
      return;
  }
}

bool Validator::OnBegin(bool is_map) {
  // The common case, with tail calls only (no frame of its own): the child of a direct
  // frame, a lone member (neither captured) or a leaf frame whose one subschema opens a
  // direct frame: a leaf frame, else a kDirect one (owned by the live evaluation above a
  // leaf frame: Frame::kLeaf).
  const uint32_t c = DirectChild();
  if (c != kNone && Direct(nodes_[c], is_map)) {
    const Frame& p = frames_.back();
    offset_hold_ &= kReplaying;
    if (!is_map) {
      if (nodes_[c].leaf_array) return OpenLeaf<false>(c, item_offset_);
    } else if (nodes_[c].leaf_map) {
      return OpenLeaf<true>(c, item_offset_);
    }
    return OpenShallow(c, p.evals_begin, evals_[p.evals_begin].committed, is_map);
  }
  return OnBeginRest(is_map);
}

bool Validator::OnBeginRest(bool is_map) {
  if (stopped_) return false;
  const uint64_t offset = item_offset_;
  offset_hold_ &= kReplaying;
  uint32_t slots_begin = 0;
  bool capture = false;
  if (!frames_.empty()) {
    Frame& p = frames_.back();
    if (p.expect_key)
      return ctx_.Fail(ErrorCode::kUnrepresentable,
                       "a container as a map key has no JSON Schema instance");
    if (p.mode >= Frame::kPending) {
      if (p.mode == Frame::kPending) StartCapture(p);
      if (p.mode == Frame::kInts && !IntsToCapture(p)) return false;
      if (p.mode == Frame::kTexts && !TextsToCapture(p)) return false;
      // The child's one subschema (none: nothing is due, or the evaluation is settled),
      // applied the ordinary way, from a slot, when its node cannot open a direct frame.
      // (Or the lone member's: Frame::kLone; a captured direct frame's: kCaptured, or
      // kPending's, captured from this first item on; a leaf frame's, owned by the live
      // evaluation above it: Frame::kLeaf.)
      const Eval& pe = evals_[p.evals_begin];
      uint32_t c = !pe.valid && !pe.committed ? kNone
                   : p.is_map                 ? p.child
                                              : ItemNode(nodes_[p.node], p.count);
      if (c != kNone && (nodes_[c].has & Node::kCondMember)) [[unlikely]]
        c = CondContainer(p, nodes_[c], is_map);
      if (c != kNone) {
        if (Direct(nodes_[c], is_map)) {
          if (p.capture) marks_.push_back(canon_.size());
          return OpenDirect(c, p.evals_begin, kMust, pe.committed, is_map, offset, p.capture);
        }
        slots_.push_back(Slot{p.evals_begin, c, kMust});
      }
    } else if (!p.is_map) {
      PrepareItem(p);
    }
    slots_begin = p.slots_begin;
    capture = p.capture;
    if (capture) {
      if (p.mode == Frame::kChooseValue) [[unlikely]] {  // (Frame::kChoose)
        if (!ChooseValue(p, nullptr)) return false;
        item_offset_ = offset;
        return OnBeginRest(is_map);  // as the chosen frame's child
      }
      marks_.push_back(canon_.size());
    }
  }
  const size_t n = slots_.size();
  if (n == slots_begin + 1) {
    const Slot& s = slots_[slots_begin];
    if (Direct(nodes_[s.node], is_map))
      return OpenDirect(s.node, s.owner, s.kind,
                        s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed), is_map,
                        offset, capture);
    if (is_map && !capture) {
      const bool committed = s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed);
      const uint32_t plan = nodes_[s.node].object_plan[committed];
      const uint32_t at =
          plan != kNone && set_.plans[plan].choice == kNone ? set_.plans[plan].direct_leaf : 0;
      if (at != 0) return OpenLeafOfUnion(s.node, set_.plans[plan].evals[at].node, s, true, offset);
    } else if (!capture && nodes_[s.node].rare().array_leaf != kNone) {
      return OpenLeafOfUnion(s.node, nodes_[s.node].rare().array_leaf, s, false, offset);
    }
  }
  // Filled in place (a Frame built aside and copied costs a stall per field), pushed last:
  // a violation found while the Evals are made has the parent's path.
  Frame& f = frames_.next();
  f.count = 0;
  f.offset = offset;
  f.is_map = is_map;
  f.expect_key = is_map;
  f.evals_begin = static_cast<uint32_t>(evals_.size());
  f.extras_begin = extras_used_;
  f.marks_begin = 0;
  f.canon_begin = 0;
  f.stable_from = 0;
  f.item_slots_end = 0;
  f.key = {};
  f.expect = Node::Member::kNoPlace;
  opening_type_ = is_map ? kTypeObject : kTypeArray;
  // A map with one subschema due that has an ObjectPlan: its evaluations copied from it;
  // one with a UnionChoice, none yet (Frame::kChoose).
  bool planned = false;
  if (is_map && n == slots_begin + 1) {
    const Slot& s = slots_[slots_begin];
    const bool committed = s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed);
    const uint32_t plan = nodes_[s.node].object_plan[committed];
    if (plan != kNone && set_.plans[plan].choice != kNone && !capture) [[unlikely]] {
      f.slots_begin = static_cast<uint32_t>(n);
      f.rest_lengths = f.rest_bits = ~uint64_t{0};
      f.capture = true;  // (until the choice: Frame::kChoose)
      f.mode = Frame::kChoose;
      f.node = s.node;
      f.table = nodes_[s.node].member_table.data();
      f.child = set_.plans[plan].choice;
      f.claims = nodes_[s.node].member_bits;
      f.claimed = 0;
      frames_.push_next();
      if (frames_.size() > ctx_.limits.max_depth + 1u) {
        return ctx_.Fail(ErrorCode::kDepthExceeded, "deeper than max_depth");
      }
      // (Charged with the evaluations, by the choice that the next event makes: nothing
      // grows before it.)
      return true;
    }
    if (plan != kNone) {
      planned = true;
      if (!MakePlanned(set_.plans[plan], s)) return false;
      capture |= set_.plans[plan].capture;
      f.rest_lengths = set_.plans[plan].rest_lengths;
      f.rest_bits = set_.plans[plan].rest_bits;
    }
  }
  if (is_map && !planned) f.rest_lengths = f.rest_bits = ~uint64_t{0};
  for (size_t i = planned ? n : slots_begin; i < n; ++i) {
    const Slot& s = slots_[i];
    const bool committed = s.owner == kNone || (s.kind == kMust && evals_[s.owner].committed);
    const uint32_t scope = s.owner == kNone ? 0 : evals_[s.owner].scope;
    CreateEval(s.node, kNone, kAll, 0, s.owner, s.kind, scope, committed);
    if (stopped_) return false;
  }
  f.slots_begin = static_cast<uint32_t>(slots_.size());
  for (uint32_t e = planned ? static_cast<uint32_t>(evals_.size()) : f.evals_begin;
       e < evals_.size(); ++e) {
    const Node& node = nodes_[evals_[e].node];
    if (CapturesFor(node)) capture = true;
    if (!is_map && node.kind == Node::kSchema && node.has_array_work) {
      if (evals_[e].tracks)
        f.stable_from = kNoLimit;
      else if (node.prefix_items.size() > f.stable_from)
        f.stable_from = node.prefix_items.size();
    }
  }
  f.capture = capture;
  f.mode = Frame::kEach;
  f.node = evals_.size() > f.evals_begin ? evals_[f.evals_begin].node : kNone;
  f.claims = is_map && f.node != kNone && nodes_[f.node].member_bits;
  if (is_map && f.node != kNone) f.table = nodes_[f.node].member_table.data();
  f.claimed = 0;
  if (is_map) SetLone(f);
  if (capture) OpenCapture(f);
  frames_.push_next();
  if (frames_.size() > ctx_.limits.max_depth + 1u) {
    return ctx_.Fail(ErrorCode::kDepthExceeded, "deeper than max_depth");
  }
  return Account();
}

inline Validator::Eval Validator::DirectEval(uint32_t node, uint32_t owner, SlotKind kind,
                                             bool valid, bool committed, bool is_map) const {
  const Node& n = nodes_[node];
  const uint32_t e = static_cast<uint32_t>(evals_.size());
  return Eval{
      {node, kNone, e + 1, 0, kAll, kind, valid, committed, false,
       n.kind == Node::kSchema && (is_map ? n.end_object_work : n.end_array_work), false, owner, 0},
      kNone,
      0,
      0,
      0};
}

inline void Validator::PushDirectEval(uint32_t node, uint32_t owner, SlotKind kind, bool valid,
                                      bool committed, bool is_map) {
  evals_.push_back(DirectEval(node, owner, kind, valid, committed, is_map));
}

inline void Validator::FillDirect(Frame& f, const Node& n, uint32_t node, uint32_t e,
                                  uint64_t offset, bool is_map) {
  f.count = 0;
  f.offset = offset;
  f.is_map = is_map;
  f.expect_key = is_map;
  f.evals_begin = e;
  f.node = node;
  f.slots_begin = static_cast<uint32_t>(slots_.size());
  f.extras_begin = extras_used_;
  f.child = kNone;
  f.key = {};
  if (is_map) {
    f.claims = n.member_bits;
    f.claimed = 0;
    f.expect = n.first_member;
    f.table = n.member_table.data();
  }
}

bool Validator::OpenDirect(uint32_t node, uint32_t owner, SlotKind kind, bool committed,
                           bool is_map, uint64_t offset, bool capture, bool common) {
  // As OnBegin and CreateEval make a frame and its one evaluation.
  const Node& n = nodes_[node];
  const uint32_t e = static_cast<uint32_t>(evals_.size());
  const bool valid =
      committed || !(n.has & Node::kType) || (n.types & (is_map ? kTypeObject : kTypeArray)) != 0;
  PushDirectEval(node, owner, kind, valid, committed, is_map);
  Frame& f = frames_.next();
  FillDirect(f, n, node, e, offset, is_map);
  f.capture = capture;
  f.mode = Frame::kDirect;
  if (capture) {
    f.mode = Frame::kCaptured;
    OpenCapture(f);
  } else if (!is_map && n.captures_items) {
    f.mode = Frame::kPending;
  }
  frames_.push_next();
  if (frames_.size() > ctx_.limits.max_depth + 1u) {
    return ctx_.Fail(ErrorCode::kDepthExceeded, "deeper than max_depth");
  }
  // OnBegin's common case: what the stacks held before it was charged (its parent, a
  // direct frame or a lone member, makes no slots, and a sibling's are dropped when it
  // ends), and a frame and an evaluation within the rooms reserved from the start leave
  // NeededBytes as it was.
  if (common && frames_.size() <= kReservedFrames && evals_.size() <= kReservedEvals) return true;
  return Account();
}

bool Validator::OpenShallow(uint32_t node, uint32_t owner, bool committed, bool is_map) {
  const Node& n = nodes_[node];
  if (!(frames_.size() < shallow_frames_ && frames_.HasRoom() &&
        evals_.size() < std::min<size_t>(kReservedEvals, evals_.capacity()) &&
        (is_map || !n.captures_items))) [[unlikely]]
    return OpenDeep(node, owner, committed, is_map);
  // OpenDirect's evaluation and frame, with no capture and no kPending.
  const uint32_t e = static_cast<uint32_t>(evals_.size());
  const bool valid =
      committed || !(n.has & Node::kType) || (n.types & (is_map ? kTypeObject : kTypeArray)) != 0;
  evals_.push_within(DirectEval(node, owner, kMust, valid, committed, is_map));
  Frame& f = frames_.next_within();
  FillDirect(f, n, node, e, item_offset_, is_map);
  f.capture = false;
  f.mode = Frame::kDirect;
  frames_.push_next();
  return true;
}

bool Validator::OpenDeep(uint32_t node, uint32_t owner, bool committed, bool is_map) {
  return OpenDirect(node, owner, kMust, committed, is_map, item_offset_, false, true);
}

template <bool kMap>
inline void Validator::FillLeaf(Frame& f, uint32_t node, uint64_t offset) {
  // OpenDirect's frame, with its evaluation put off (Frame::kLeaf, kLeafMap).
  f.count = 0;
  f.offset = offset;
  f.is_map = kMap;
  f.expect_key = kMap;
  f.evals_begin = frames_.back().evals_begin;  // (Frame::kLeaf)
  f.node = node;
  f.slots_begin = static_cast<uint32_t>(slots_.size());
  f.extras_begin = extras_used_;
  f.capture = false;
  f.mode = kMap ? Frame::kLeafMap : Frame::kLeaf;
  f.child = kNone;
  f.key = {};
  if constexpr (kMap) {
    const Node& n = nodes_[node];
    f.claims = n.member_bits;
    f.claimed = 0;
    f.expect = n.first_member;
    f.table = n.member_table.data();
    f.seen = 0;
  }
}

template <bool kMap>
bool Validator::OpenLeaf(uint32_t node, uint64_t offset) {
  // A frame more within the rooms reserved from the start and within max_depth: no
  // depth to check, nothing to charge (below), no pool to grow, so no call and no
  // register to save. (GeoJSON's positions: 56,351 in 1,000 records.)
  if (frames_.size() < shallow_frames_ && frames_.HasRoom()) [[likely]] {
    FillLeaf<kMap>(frames_.next_within(), node, offset);
    frames_.push_next();
    return true;
  }
  return OpenLeafDeep(node, offset, kMap);
}

bool Validator::OpenLeafDeep(uint32_t node, uint64_t offset, bool is_map) {
  if (is_map)
    FillLeaf<true>(frames_.next(), node, offset);
  else
    FillLeaf<false>(frames_.next(), node, offset);
  frames_.push_next();
  if (frames_.size() > ctx_.limits.max_depth + 1u) {
    return ctx_.Fail(ErrorCode::kDepthExceeded, "deeper than max_depth");
  }
  // The frame is all that grew: its room (NeededBytes) is the reserved one up to
  // kReservedFrames deep, already charged by the parent's opening.
  return frames_.size() <= kReservedFrames || Account();
}

bool Validator::Unleaf() {
  // The evaluation OpenDirect makes, as OnBegin's common case has it made: owned by the
  // parent's first evaluation as kMust, committed as that one is, valid (a leaf node's
  // type lets its container through), with the names a leaf map has seen. (A leaf
  // parent's evals_begin is the live evaluation above it: Frame::kLeaf.) What the frame's
  // children made is gone, and their failures went to the live evaluation above, where
  // this one's would have gone.
  Frame& f = frames_.back();
  const uint32_t owner = frames_[frames_.size() - 2].evals_begin;
  Eval ev = DirectEval(f.node, owner, kMust, true, evals_[owner].committed, f.is_map);
  if (f.is_map) ev.seen = f.seen;
  f.evals_begin = static_cast<uint32_t>(evals_.size());
  evals_.push_back(ev);
  f.mode = Frame::kDirect;
  return Account();
}

bool Validator::CloseLeaf(Frame& f) { return Unleaf() && CloseDirect(f); }

bool Validator::Account() {
  const uint64_t bytes = NeededBytes();
  if (bytes <= charged_) return true;
  if (!ctx_.budget.Charge(bytes - charged_)) return ctx_.BudgetExceeded(bytes - charged_);
  charged_ = bytes;
  return true;
}

uint32_t Validator::ScopeFor(uint32_t node, uint32_t scope) {
  if (!set_.uses_dynamic_scope) return 0;
  const uint32_t resource = nodes_[node].resource;
  if (scopes_[scope].resource == resource) return scope;
  const uint64_t key = (uint64_t{resource} << 32) | scope;
  auto it = scope_ids_.find(key);
  if (it != scope_ids_.end()) return it->second;
  scopes_.push_back(ScopeEntry{resource, scope});
  const uint32_t id = static_cast<uint32_t>(scopes_.size() - 1);
  scope_ids_.emplace(key, id);
  // Charged with the evaluation records (the next Account or AccountExtras): the entry in
  // a vector grown by doubling, and a hash node with its bucket.
  extra_bytes_ += 2 * sizeof(ScopeEntry) + 40;
  return id;
}

uint32_t Validator::Dynamic(const Node& n, uint32_t scope) const {
  if (n.dynamic_name == kNone) return n.dynamic_ref;
  uint32_t found = n.dynamic_ref;
  // Innermost to outermost; the outermost match wins.
  for (uint32_t s = scope; s != kNone && scopes_[s].resource != kNone; s = scopes_[s].parent) {
    const Resource& r = set_.resources[scopes_[s].resource];
    if (n.dynamic_name == kRecursiveAnchor) {
      if (r.recursive_anchor && r.root != kNone) found = r.root;
      continue;
    }
    for (const auto& [name, node] : r.dynamic_anchors)
      if (name == n.dynamic_name) found = node;
  }
  return found;
}

void Validator::CreateEval(uint32_t node, uint32_t parent, Role role, uint32_t role_index,
                           uint32_t owner, SlotKind owner_kind, uint32_t scope, bool committed) {
  scope = ScopeFor(node, scope);
  const uint32_t e = static_cast<uint32_t>(evals_.size());
  const Node& n = nodes_[node];
  const bool tracks = n.tracks_evaluated || (parent != kNone && evals_[parent].tracks);
  evals_.push_back(Eval{{node, parent, e + 1, role_index, role, owner_kind, true, committed, tracks,
                         false, false, owner, scope},
                        kNone,
                        0,
                        0,
                        0});
  if (n.kind == Node::kFalse) {
    evals_[e].valid = false;
    if (committed)
      Violation(n, "", item_offset_, frames_.size(),
                [] { return std::string("no value is allowed here (the schema is false)"); });
  } else if (!committed && (n.has & Node::kType) && !(n.types & opening_type_)) {
    // A branch of the wrong type (anyOf: [{type: string}, {type: object}]) fails now: its
    // in-place subschemas could not change that.
    evals_[e].valid = false;
  } else if (n.kind == Node::kSchema && n.has_in_place) {
    ExpandInPlace(e, n, scope, committed);
  }
  Eval& ev = evals_[e];
  ev.subtree_end = static_cast<uint32_t>(evals_.size());
  ev.ends = ev.tracks || ev.subtree_end != e + 1 ||
            (n.kind == Node::kSchema &&
             (opening_type_ == kTypeObject ? n.end_object_work : n.end_array_work));
}

void Validator::MakeEval(uint32_t node, uint32_t parent, Role role, uint32_t role_index,
                         uint32_t owner, SlotKind owner_kind, uint32_t scope, bool committed) {
  CreateEval(node, parent, role, role_index, owner, owner_kind, scope, committed);
}

void Validator::ExpandInPlace(uint32_t e, const Node& n, uint32_t scope, bool committed) {
  if (n.ref != kNone) MakeEval(n.ref, e, kAll, 0, kNone, kMust, scope, committed);
  if (n.dynamic_ref != kNone)
    MakeEval(Dynamic(n, scope), e, kAll, 0, kNone, kMust, scope, committed);
  for (uint32_t c : n.all_of) MakeEval(c, e, kAll, 0, kNone, kMust, scope, committed);
  // A branch of anyOf, oneOf, not or if that cannot take a container of this type (false,
  // or a `type` without it) is not made at all: Finalize counts a missing branch of these
  // as a failed one, which it is. (then, else and dependentSchemas branches are always
  // made: Finalize reads their failures.) On an object, a name_judged branch is not made
  // either: Finalize judges it from the names this evaluation watched.
  const bool object = opening_type_ == kTypeObject;
  auto viable = [&](uint32_t c) {
    const Node& b = nodes_[c];
    return b.kind != Node::kFalse && (!(b.has & Node::kType) || (b.types & opening_type_)) &&
           !(object && b.name_judged);
  };
  auto made = [&](uint32_t c) { return !(object && nodes_[c].name_judged); };
  for (uint32_t c : n.any_of)
    if (viable(c)) MakeEval(c, e, kAny, 0, kNone, kMust, scope, false);
  for (uint32_t c : n.one_of)
    if (viable(c)) MakeEval(c, e, kOne, 0, kNone, kMust, scope, false);
  if (n.not_ != kNone && viable(n.not_)) MakeEval(n.not_, e, kNot, 0, kNone, kMust, scope, false);
  if (n.if_ != kNone) {
    if (viable(n.if_)) MakeEval(n.if_, e, kIf, 0, kNone, kMust, scope, false);
    if (n.then_ != kNone && made(n.then_))
      MakeEval(n.then_, e, kThen, 0, kNone, kMust, scope, false);
    if (n.else_ != kNone && made(n.else_))
      MakeEval(n.else_, e, kElse, 0, kNone, kMust, scope, false);
  }
  const std::vector<DependentSchema>& deps = n.rare().dependent_schemas;
  for (uint32_t i = 0; i < deps.size(); ++i)
    MakeEval(deps[i].node, e, kDep, i, kNone, kMust, scope, false);
}

bool Validator::MakePlanned(const ObjectPlan& plan, const Slot& s) {
  // As CreateEval would make them (ObjectPlan): each record's first 32 bytes copied whole
  // (a vector move, no call), its indexes moved by the frame's first, the rest as every
  // evaluation starts; the root has no parent and takes the slot's owner.
  const uint32_t base = static_cast<uint32_t>(evals_.size());
  const size_t n = plan.evals.size();
  Eval* const out = evals_.extend(n);
  const EvalHead* const in = plan.evals.data();
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(static_cast<void*>(out + i), in + i, sizeof(EvalHead));
    out[i].parent += base;
    out[i].subtree_end += base;
    out[i].extra = kNone;
    out[i].cond = 0;
    out[i].contains = 0;
    out[i].seen = 0;
  }
  out[0].parent = kNone;
  out[0].owner = s.owner;
  out[0].owner_kind = s.kind;
  if (plan.committed_false) [[unlikely]] {
    for (size_t i = 0; i < n; ++i) {
      if (!out[i].committed || nodes_[out[i].node].kind != Node::kFalse) continue;
      Violation(nodes_[out[i].node], "", item_offset_, frames_.size(),
                [] { return std::string("no value is allowed here (the schema is false)"); });
      if (stopped_) return false;
    }
  }
  return true;
}

Validator::Extra& Validator::NewExtra(Eval& e) {
  if (extras_used_ == extras_.size()) extras_.emplace_back();
  Extra& x = extras_[extras_used_];
  x.claims.clear();
  x.uneval.clear();
  x.seen_more.clear();
  x.claims_all = false;
  e.extra = extras_used_++;
  return x;
}

void Validator::GrowBits(std::vector<uint64_t>& bits, size_t word) {
  extra_bytes_ += (word + 1 - bits.size()) * 8;
  bits.resize(word + 1, 0);
}

bool Validator::AccountExtras() {
  if (extra_bytes_ == extra_accounted_) return true;
  extra_accounted_ = extra_bytes_;
  return Account();
}

bool Validator::TestBit(const std::vector<uint64_t>& bits, uint64_t i) {
  const size_t word = static_cast<size_t>(i >> 6);
  return word < bits.size() && (bits[word] >> (i & 63) & 1);
}

bool Validator::OnEnd() {
  // (Tail calls only: no frame of its own.)
  if (stopped_) return false;
  Frame& f = frames_.back();
  if (f.mode == Frame::kDirect) return CloseDirect(f);
  if (f.mode >= Frame::kLeafMap) {
    // PassesEnd's verdict on a leaf_array node (min_items 0 and quick_max_items no limit
    // when it has no work at the end), or a leaf_map one (whose end has no work, or a quick
    // one; its type let the map through when it opened) on the names seen: nothing to
    // deliver. (One test of the mode for both: GCC made the tests of five a jump table.)
    const Node& n = nodes_[f.node];
    const bool passes =
        f.mode == Frame::kLeaf
            ? f.count >= n.min_items && f.count <= n.quick_max_items
            : !n.end_object_work || (f.count >= n.min_properties && f.count <= n.max_properties &&
                                     (f.seen & n.required_mask) == n.required_mask);
    if (passes) {
      frames_.pop();
      return ChildDone();
    }
    return CloseLeaf(f);
  }
  if (f.mode == Frame::kCaptured) return CloseDirectCaptured(f);
  if (f.mode == Frame::kPending) return CloseDirect(f);  // (no item came)
  if (f.mode == Frame::kInts) return CloseInts(f);
  return CloseGeneral(f);
}

bool Validator::IntsToCapture(Frame& f) {
  StartCapture(f);
  for (uint64_t i = 0; i < f.count; ++i) {
    Scalar v;
    v.type = kTypeNumber;
    v.num = Scalar::kUint;
    v.u = ints_[i];
    v.integral = true;
    if (!CaptureScalar(v)) return false;
  }
  return true;
}

bool Validator::KeptCountsPass(const Frame& f) const {
  // What Finalize checks at a direct array's end (a direct_array node has no in-place
  // keyword, const, enum or contains): its type (settled when it opened), its counts, and
  // (the caller) uniqueItems.
  const Node& n = nodes_[f.node];
  return f.count >= n.min_items && f.count <= n.max_items &&
         (!(n.has & Node::kType) || (n.types & kTypeArray));
}

bool Validator::CloseKept(Frame& f) {
  // Nothing to finalize, as CloseDirect.
  const uint32_t e = f.evals_begin;
  extras_used_ = f.extras_begin;
  frames_.pop();
  DeliverRoot(evals_[e]);
  evals_.pop_back();
  return ChildDone();
}

bool Validator::CloseInts(Frame& f) {
  // When the items pass, nothing to finalize; else the ordinary way, for the messages.
  bool pass = KeptCountsPass(f);
  for (uint64_t i = 1; i < f.count && pass; ++i)
    for (uint64_t j = 0; j < i; ++j) pass &= ints_[i] != ints_[j];
  if (!pass) return IntsToCapture(f) && CloseDirectCaptured(f);
  return CloseKept(f);
}

bool Validator::TextsToCapture(Frame& f) {
  StartCapture(f);
  for (uint64_t i = 0; i < f.count; ++i) {
    Scalar v;
    v.type = kTypeString;
    v.s = KeptText(i);
    if (!CaptureScalar(v)) return false;
  }
  return true;
}

bool Validator::CloseTexts(Frame& f) {
  // As CloseInts: distinct strings (the same code points are the same bytes) within the
  // counts pass with no capture.
  bool pass = KeptCountsPass(f);
  for (uint64_t i = 1; i < f.count && pass; ++i)
    for (uint64_t j = 0; j < i && pass; ++j) pass = KeptText(i) != KeptText(j);
  if (!pass) return TextsToCapture(f) && CloseDirectCaptured(f);
  return CloseKept(f);
}

bool Validator::CloseChoose(Frame& f) {
  if (!MakeChoice(f, ChoiceTable::Entry{})) return false;
  return f.mode == Frame::kDirect ? CloseDirect(f) : CloseGeneral(f);
}

bool Validator::OpenLeafOfUnion(uint32_t union_node, uint32_t leaf, const Slot& s, bool is_map,
                                uint64_t offset) {
  // As MakeChoice's DirectLeaf frame: a branch's evaluation (not committed) delivering to
  // the union's owner, its role naming the union (CloseDirect: UnionFailed).
  if (!OpenDirect(leaf, s.owner, s.kind, false, is_map, offset, false)) return false;
  NameUnion(evals_.back(), union_node);
  return true;
}

void Validator::UnionFailed(uint32_t e, const Frame& f) {
  const Eval& ev = evals_[e];
  const bool committed =
      ev.owner == kNone || (ev.owner_kind == kMust && evals_[ev.owner].committed);
  if (!committed) return;
  // As Finalize reports the union's failure: its one live leaf failed.
  const Node& u = nodes_[ev.role_index];
  if (ev.role == kAny) {
    Violation(u, "anyOf", f.offset, frames_.size() - 1, [&] {
      return "the value matches none of the " + std::to_string(u.any_of.size()) +
             " schemas of anyOf";
    });
  } else {
    Violation(u, "oneOf", f.offset, frames_.size() - 1,
              [] { return std::string("the value matches 0 of the schemas of oneOf, not one"); });
  }
}

bool Validator::CloseGeneral(Frame& f) {
  // (Here, not in OnEnd, whose chain of tests one more made GCC lay out anew: geojson's
  // direct frames' ends took 0.3M more instructions.)
  if (f.mode == Frame::kTexts) return CloseTexts(f);
  if (f.capture) {
    // A kChoose frame that had no name (Frame::kChoose): every leaf. (A tail call: any
    // other call here would give every close a stack frame.)
    if (f.mode == Frame::kChoose) return CloseChoose(f);
    CloseCapture(f);
  }
  const uint32_t end = static_cast<uint32_t>(evals_.size());
  for (uint32_t e = f.evals_begin; e < end; e = evals_[e].subtree_end) {
    if (!evals_[e].ends || Settled(evals_[e]) || PassesTable(e, f)) continue;
    Finalize(e, f);
    if (stopped_) return false;
  }
  // Deliver each root's verdict to the Eval that applied it, with the frame popped (the
  // parent's current child is this container: its index and member name). A popped Frame
  // stays in the pool, and an owner lies below this container's Evals: what is read here
  // is not written.
  const bool capture = f.capture;
  const size_t canon_begin = f.canon_begin;
  const uint32_t marks_begin = f.marks_begin;
  const uint32_t evals_begin = f.evals_begin;
  extras_used_ = f.extras_begin;
  frames_.pop();
  for (uint32_t e = evals_begin; e < end; e = evals_[e].subtree_end) {
    DeliverRoot(evals_[e]);
  }
  evals_.truncate(evals_begin);
  if (capture) DropCapture(canon_begin, marks_begin);
  return ChildDone();
}

void Validator::StartCapture(Frame& f) {
  f.mode = Frame::kCaptured;
  f.capture = true;
  OpenCapture(f);
}

void Validator::OpenCapture(Frame& f) {
  f.canon_begin = canon_.size();
  f.marks_begin = static_cast<uint32_t>(marks_.size());
  canon_.push_back(f.is_map ? '{' : '[');
}

void Validator::CloseCapture(const Frame& f) {
  if (f.is_map) {
    // members: a key mark, then the value's own mark; the keys' are every other one
    const size_t marks = marks_.size() - f.marks_begin;
    canonical::SortMembers(canon_, f.canon_begin + 1, canon_.size(), marks_.data() + f.marks_begin,
                           (marks + 1) / 2, 2, &sort_parts_, &sort_bytes_);
  }
  canon_.push_back(f.is_map ? '}' : ']');
}

void Validator::DropCapture(size_t canon_begin, uint32_t marks_begin) {
  marks_.erase(marks_.begin() + marks_begin, marks_.end());  // (only ever fewer)
  if (frames_.empty() || !frames_.back().capture) canon_.resize(canon_begin);
}

bool Validator::CaptureKey(std::string_view key) {
  marks_.push_back(canon_.size());
  canonical::String(canon_, key);
  return Account();
}

bool Validator::CaptureScalar(const Scalar& v) {
  marks_.push_back(canon_.size());
  Canonical(v, &canon_);
  return Account();
}

bool Validator::CloseDirect(Frame& f) {
  // OnEnd for a direct frame: its one evaluation (the last in evals_), no slots of its
  // own.
  const uint32_t e = f.evals_begin;
  const Eval& ev = evals_[e];
  if (ev.ends && !PassesEnd(nodes_[f.node], f, ev)) {
    FinalizeDirect(e, f);
    if (stopped_) return false;
  }
  if (!evals_[e].valid && evals_[e].role != kAll) [[unlikely]] {  // (MakeChoice)
    UnionFailed(e, f);
    if (stopped_) return false;
  }
  extras_used_ = f.extras_begin;
  frames_.pop();
  DeliverRoot(evals_[e]);
  evals_.pop_back();
  return ChildDone();
}

bool Validator::CloseDirectCaptured(Frame& f) {
  CloseCapture(f);
  const uint32_t e = f.evals_begin;
  const Eval& ev = evals_[e];
  if (ev.ends && !PassesEnd(nodes_[f.node], f, ev)) {
    FinalizeDirect(e, f);
    if (stopped_) return false;
  }
  const size_t canon_begin = f.canon_begin;
  const uint32_t marks_begin = f.marks_begin;
  extras_used_ = f.extras_begin;
  frames_.pop();
  DeliverRoot(evals_[e]);
  evals_.pop_back();
  DropCapture(canon_begin, marks_begin);
  return ChildDone();
}

void Validator::FinalizeDirect(uint32_t e, const Frame& f) {
  const Node& n = nodes_[f.node];
  if (n.has & (Node::kCondCount | Node::kCondNested)) [[unlikely]] {
    if (n.has & Node::kCondCount)
      CondCount(e, f);
    else
      CondNested(e);
    // Then the end as the member's own subschema's frame has it.
    const Node& b = nodes_[n.rare().cond_base];
    if (b.kind != Node::kSchema || !(f.is_map ? b.end_object_work : b.end_array_work) ||
        PassesEnd(b, f, evals_[e]))
      return;
  }
  if (n.has & (Node::kCondNode | Node::kCondTable)) {
    if ((n.has & Node::kCondNode) ? PassesCondEnd(n, f, evals_[e])
                                  : PassesCondTable(n, f, evals_[e]))
      return;
  }
  Finalize(e, f);
}

void Validator::Finalize(uint32_t e, const Frame& f) {
  // In-place children first.
  bool any_ok = false, not_ok = false, if_ok = false;
  int one_ok = 0;
  bool then_ok = true, else_ok = true;
  const uint32_t end = evals_[e].subtree_end;
  for (uint32_t c = e + 1; c < end; c = evals_[c].subtree_end) {
    if (evals_[c].ends && !Settled(evals_[c])) {
      Finalize(c, f);
      if (stopped_) return;
    }
    const Eval& ch = evals_[c];
    switch (ch.role) {
      case kAll:
        if (!ch.valid) evals_[e].valid = false;
        break;
      case kAny:
        any_ok |= ch.valid;
        break;
      case kOne:
        one_ok += ch.valid;
        break;
      case kNot:
        not_ok = ch.valid;
        break;
      case kIf:
        if_ok = ch.valid;
        break;
      case kThen:
        then_ok = ch.valid;
        break;
      case kElse:
        else_ok = ch.valid;
        break;
      case kDep:
        break;
    }
  }
  Eval& ev = evals_[e];
  const Node& n = nodes_[ev.node];
  if (n.kind != Node::kSchema) return;
  if (!(f.is_map ? n.end_object_work : n.end_array_work) && !ev.tracks) return;
  const bool committed = ev.committed;
  const size_t here = frames_.size() - 1;  // the container's own path: its parents' keys
  auto fail = [&](std::string_view keyword, auto&& message) {
    evals_[e].valid = false;
    if (committed) Violation(n, keyword, f.offset, here, message);
  };
  const uint8_t type = f.is_map ? kTypeObject : kTypeArray;
  if ((n.has & Node::kType) && !(n.types & type)) {
    fail("type", [&] {
      return std::string(f.is_map ? "an object" : "an array") + " is not of type " +
             TypeNames(n.types);
    });
  }
  if ((n.has & (Node::kConst | Node::kEnum)) && n.texts_only) {
    // Strings alone: no container is one of them (and none was captured for them).
    if (n.has & Node::kConst)
      fail("const", [] { return std::string("the value is not the constant"); });
    else
      fail("enum", [] { return std::string("the value is none of the enum's"); });
  } else if (n.has & (Node::kConst | Node::kEnum)) {
    const std::string_view value(canon_.data() + f.canon_begin, canon_.size() - f.canon_begin);
    if ((n.has & Node::kConst) && value != n.rare().const_value)
      fail("const", [] { return std::string("the value is not the constant"); });
    if (n.has & Node::kEnum) {
      bool found = false;
      for (const auto& v : n.rare().enum_values) found |= v == value;
      if (!found) fail("enum", [] { return std::string("the value is none of the enum's"); });
    }
  }
  if (f.is_map) {
    if (f.count < n.min_properties)
      fail("minProperties", [&] {
        return std::to_string(f.count) + " properties, fewer than minProperties " +
               std::to_string(n.min_properties);
      });
    if (f.count > n.max_properties)
      fail("maxProperties", [&] {
        return std::to_string(f.count) + " properties, more than maxProperties " +
               std::to_string(n.max_properties);
      });
    auto seen = [&](uint32_t w) { return Seen(evals_[e], w); };
    if (n.required_mask == 0 || (evals_[e].seen & n.required_mask) != n.required_mask) {
      for (size_t i = 0; i < n.required_w.size(); ++i) {
        if (!seen(n.required_w[i]))
          fail("required",
               [&] { return "missing required property " + Quote(n.watched[n.required_w[i]]); });
      }
    }
    const NodeRare& rare = n.rare();
    for (size_t i = 0; i < rare.dependent_required_w.size(); ++i) {
      const auto& [trigger, list] = rare.dependent_required_w[i];
      if (!seen(trigger)) continue;
      for (size_t j = 0; j < list.size(); ++j) {
        if (!seen(list[j])) {
          const char* kw = n.draft >= Draft::k2019 ? "dependentRequired" : "dependencies";
          fail(kw, [&] {
            return "missing property " + Quote(rare.dependent_required[i].required[j]) +
                   ", required when " + Quote(rare.dependent_required[i].name) + " is present";
          });
        }
      }
    }
    if (!rare.dependent_schemas.empty()) {
      for (uint32_t c = e + 1; c < end; c = evals_[c].subtree_end) {
        if (evals_[c].role != kDep || evals_[c].valid) continue;
        const uint32_t i = evals_[c].role_index;
        if (!seen(rare.dependent_schemas_w[i])) continue;
        const char* kw = n.draft >= Draft::k2019 ? "dependentSchemas" : "dependencies";
        fail(kw, [&] {
          return "the object does not match the schema required when " +
                 Quote(rare.dependent_schemas[i].name) + " is present";
        });
      }
    }
    if (!n.name_tests.empty()) {
      // The name_judged branches, which CreateEval did not make, in the order NameTests
      // listed them.
      const Node::NameTest* test = n.name_tests.data();
      const Eval& ev = evals_[e];
      auto judge = [&] {
        const Node::NameTest& t = *test++;
        if (t.by_mask) return ((ev.seen & t.mask) == t.mask) != t.negated;
        return JudgeNames(t.program, ev);
      };
      for (uint32_t c : n.any_of)
        if (nodes_[c].name_judged) any_ok |= judge();
      for (uint32_t c : n.one_of)
        if (nodes_[c].name_judged) one_ok += judge();
      if (n.not_ != kNone && nodes_[n.not_].name_judged) not_ok = judge();
      if (n.if_ != kNone) {
        if (nodes_[n.if_].name_judged) if_ok = judge();
        if (n.then_ != kNone && nodes_[n.then_].name_judged) then_ok = judge();
        if (n.else_ != kNone && nodes_[n.else_].name_judged) else_ok = judge();
      }
    }
    if (rare.cond_direct && IsDirect(f)) {
      // The member-judged branches, which a direct frame does not make (CondChild).
      const Eval& ev = evals_[e];
      if (rare.cond_parts & 1) if_ok = CondBranchPasses(rare, ev, 0);
      if (rare.cond_parts & 2) then_ok = CondBranchPasses(rare, ev, 1);
      if (rare.cond_parts & 4) else_ok = CondBranchPasses(rare, ev, 2);
    }
  } else {
    if (f.count < n.min_items)
      fail("minItems", [&] {
        return std::to_string(f.count) + " items, fewer than minItems " +
               std::to_string(n.min_items);
      });
    if (f.count > n.max_items)
      fail("maxItems", [&] {
        return std::to_string(f.count) + " items, more than maxItems " +
               std::to_string(n.max_items);
      });
    // (At most one item is unique. Two or more were captured: a kPending frame captures
    // from its first item on, and an empty one has no canonical bytes to read.)
    if ((n.has & Node::kUniqueItems) && f.count > 1) {
      // (Arrays of up to 16 items, most, sorted in place with no allocation.)
      using Item = std::pair<std::string_view, uint64_t>;
      Item few[16];
      std::vector<Item> many;
      if (f.count > std::size(few)) many.resize(f.count);
      Item* const items = many.empty() ? few : many.data();
      const size_t room = many.empty() ? std::size(few) : many.size();
      size_t count = 0;
      // The items are found by walking the array's canonical bytes (each item's extent
      // follows from its tags and lengths).
      size_t pos = f.canon_begin + 1;
      const size_t stop = canon_.size() - 1;
      uint64_t index = 0;
      while (pos < stop && count < room) {  // (f.count items: room for all)
        const size_t start = pos;
        int depth = 0;
        do {
          const char c = canon_[pos];
          if (c == '[' || c == '{') {
            ++depth;
            ++pos;
          } else if (c == ']' || c == '}') {
            --depth;
            ++pos;
          } else if (c == 's') {
            uint64_t len;
            std::memcpy(&len, canon_.data() + pos + 1, 8);
            pos += 9 + len;
          } else if (c == 'i' || c == 'u' || c == 'd') {
            pos += 9;
          } else {
            ++pos;
          }
        } while (depth > 0);
        items[count++] = Item(std::string_view(canon_.data() + start, pos - start), index++);
      }
      std::sort(items, items + count);
      for (size_t i = 1; i < count; ++i) {
        if (items[i].first == items[i - 1].first) {
          const uint64_t a = std::min(items[i].second, items[i - 1].second);
          const uint64_t b = std::max(items[i].second, items[i - 1].second);
          fail("uniqueItems", [&] {
            return "items " + std::to_string(a) + " and " + std::to_string(b) + " are equal";
          });
          break;
        }
      }
    }
    if (n.contains != kNone) {
      const uint64_t c = evals_[e].contains;
      if (c < n.min_contains)
        fail(n.min_contains == 1 && n.draft < Draft::k2019 ? "contains" : "minContains", [&] {
          return std::to_string(c) + " items match `contains`, fewer than " +
                 std::to_string(n.min_contains);
        });
      if (c > n.max_contains)
        fail("maxContains", [&] {
          return std::to_string(c) + " items match `contains`, more than " +
                 std::to_string(n.max_contains);
        });
    }
  }
  if (!n.any_of.empty() && !any_ok)
    fail("anyOf", [&] {
      return "the value matches none of the " + std::to_string(n.any_of.size()) +
             " schemas of anyOf";
    });
  if (!n.one_of.empty() && one_ok != 1)
    fail("oneOf", [&] {
      return "the value matches " + std::to_string(one_ok) + " of the schemas of oneOf, not one";
    });
  if (n.not_ != kNone && not_ok)
    fail("not", [] { return std::string("the value matches the schema of not"); });
  if (n.if_ != kNone) {
    if (if_ok && !then_ok)
      fail("then", [] { return std::string("the value matches if but not then"); });
    if (!if_ok && !else_ok)
      fail("else", [] { return std::string("the value matches neither if nor else"); });
  }
  // Annotations: which children this schema (and what it applied in place, where that
  // succeeded) evaluated; the unevaluated* keywords judge the rest.
  if (evals_[e].tracks) {
    ExtraOf(evals_[e]);  // the claims below are merged into this evaluation's
    for (uint32_t c = e + 1; c < end; c = evals_[c].subtree_end) {
      const Eval& ch = evals_[c];
      if (!ch.valid || ch.extra == kNone) continue;
      bool counts = true;
      switch (ch.role) {
        case kNot:
          counts = false;
          break;
        case kThen:
          counts = if_ok;
          break;
        case kElse:
          counts = !if_ok;
          break;
        case kDep: {
          const uint32_t i = ch.role_index;
          const uint32_t w = n.rare().dependent_schemas_w[i];
          counts = w < 64 ? (evals_[e].seen >> w & 1) != 0 : true;
          break;
        }
        default:
          break;
      }
      if (!counts) continue;
      Extra& cx = extras_[ch.extra];
      Extra& px = extras_[evals_[e].extra];
      if (cx.claims_all) px.claims_all = true;
      if (px.claims.size() < cx.claims.size()) {
        extra_bytes_ += (cx.claims.size() - px.claims.size()) * 8;
        px.claims.resize(cx.claims.size(), 0);
      }
      for (size_t w = 0; w < cx.claims.size(); ++w) px.claims[w] |= cx.claims[w];
    }
    Extra& px = extras_[evals_[e].extra];
    const uint32_t uneval = f.is_map ? n.unevaluated_properties : n.unevaluated_items;
    if (uneval != kNone && !px.claims_all) {
      for (const auto& [index, key] : px.uneval) {
        if (TestBit(px.claims, index)) continue;
        const uint64_t i = index;
        const std::string_view k = key;
        fail(f.is_map ? "unevaluatedProperties" : "unevaluatedItems", [&] {
          return f.is_map
                     ? "property " + Quote(k) + " is not evaluated and fails unevaluatedProperties"
                     : "item " + std::to_string(i) + " is not evaluated and fails unevaluatedItems";
        });
        break;
      }
    }
    if (uneval != kNone) extras_[evals_[e].extra].claims_all = true;
  }
}

bool Validator::Seen(const Eval& ev, uint32_t w) const {
  if (w < 64) return (ev.seen >> w & 1) != 0;
  if (ev.extra == kNone) return false;
  for (uint32_t b : extras_[ev.extra].seen_more)
    if (b == w) return true;
  return false;
}

bool Validator::JudgeNames(const std::vector<uint32_t>& test, const Eval& ev) const {
  return RunNameTest(test, [&](uint32_t w) { return Seen(ev, w); });
}

// ---- scalar keywords --------------------------------------------------------------

bool Validator::EvalScalar(uint32_t node, const Scalar& v, uint32_t scope, bool committed) {
  const Node& n = nodes_[node];
  if (n.kind == Node::kTrue) return true;
  if (n.kind == Node::kFalse) {
    if (committed)
      Violation(n, "", item_offset_, frames_.size(),
                [] { return std::string("no value is allowed here (the schema is false)"); });
    return false;
  }
  // A branch's plain node: its verdict is all that is asked, and PassesPlain's is exact
  // but for a string's length or an asserted format.
  if (!committed && n.scalar_plain) {
    if (PassesPlain(n, v, set_, format_assertion_)) return true;
    if (PlainExact(n, v, format_assertion_)) return false;
  }
  // A scalar union: a failure that counts goes on, for its messages.
  if (n.scalar_union) {
    const int verdict = UnionVerdict(n, v);
    if (verdict == 1 || (verdict == 0 && !committed)) return verdict == 1;
  }
  bool ok = EvalScalarKeywords(n, v, committed);
  if (!ok && (!committed || stopped_)) return false;
  if (!n.has_in_place) return ok;
  scope = ScopeFor(node, scope);
  if (n.ref != kNone) {
    ok &= EvalScalar(n.ref, v, scope, committed);
    if (!ok && (!committed || stopped_)) return false;
  }
  if (n.dynamic_ref != kNone) {
    ok &= EvalScalar(Dynamic(n, scope), v, scope, committed);
    if (!ok && (!committed || stopped_)) return false;
  }
  for (uint32_t c : n.all_of) {
    ok &= EvalScalar(c, v, scope, committed);
    if (!ok && (!committed || stopped_)) return false;
  }
  auto fail = [&](std::string_view keyword, auto&& message) {
    ok = false;
    if (committed) Violation(n, keyword, item_offset_, frames_.size(), message);
  };
  if (!n.any_of.empty()) {
    bool any = false;
    for (uint32_t c : n.any_of) {
      if (EvalScalar(c, v, scope, false)) {
        any = true;
        break;
      }
    }
    if (!any)
      fail("anyOf", [&] {
        return Shown(v) + " matches none of the " + std::to_string(n.any_of.size()) +
               " schemas of anyOf";
      });
    if (!ok && (!committed || stopped_)) return false;
  }
  if (!n.one_of.empty()) {
    int matches = 0;
    for (uint32_t c : n.one_of) {
      matches += EvalScalar(c, v, scope, false);
      if (matches > 1) break;
    }
    if (matches != 1)
      fail("oneOf", [&] {
        return Shown(v) + " matches " + std::string(matches == 0 ? "none" : "more than one") +
               " of the schemas of oneOf";
      });
    if (!ok && (!committed || stopped_)) return false;
  }
  if (n.not_ != kNone && EvalScalar(n.not_, v, scope, false)) {
    fail("not", [&] { return Shown(v) + " matches the schema of not"; });
    if (!ok && (!committed || stopped_)) return false;
  }
  if (n.if_ != kNone) {
    if (EvalScalar(n.if_, v, scope, false)) {
      if (n.then_ != kNone) ok &= EvalScalar(n.then_, v, scope, committed);
    } else if (n.else_ != kNone) {
      ok &= EvalScalar(n.else_, v, scope, committed);
    }
  }
  return ok;
}

int Validator::UnionVerdict(const Node& n, const Scalar& v) const {
  // Each branch passes, fails, or needs its evaluation: true, false, a type that does not
  // take the value (whatever else the branch has), a plain node's inline check when it is
  // exact (PlainExact), or none of those.
  const bool any = !n.any_of.empty();
  int passes = 0;
  for (uint32_t c : any ? n.any_of : n.one_of) {
    const Node& b = nodes_[c];
    int verdict;
    if (b.kind != Node::kSchema) {
      verdict = b.kind == Node::kTrue;
    } else {
      if ((b.has & Node::kType) && !(b.types & TypeBits(v, b.draft)))
        verdict = 0;
      else if (!b.scalar_plain)
        return -1;
      else if (PassesPlain(b, v, set_, format_assertion_))
        verdict = 1;
      else if (PlainExact(b, v, format_assertion_))
        verdict = 0;
      else
        return -1;
    }
    if (verdict == 1) {
      if (any) return 1;
      if (++passes > 1) return 0;  // oneOf: two pass
    }
  }
  return any ? 0 : passes;
}

bool Validator::EvalScalarKeywords(const Node& n, const Scalar& v, bool committed) {
  bool ok = true;
  auto fail = [&](std::string_view keyword, auto&& message) {
    ok = false;
    if (committed) Violation(n, keyword, item_offset_, frames_.size(), message);
  };
  if (n.has & Node::kType) {
    const uint8_t t = TypeBits(v, n.draft);
    if (!(n.types & t))
      fail("type", [&] { return Shown(v) + " is not of type " + TypeNames(n.types); });
    if (!ok && !committed) return false;
  }
  if (n.has & (Node::kConst | Node::kEnum)) {
    std::string& c = scalar_canon_;  // reused: no allocation per value
    c.clear();
    Canonical(v, &c);
    if ((n.has & Node::kConst) && c != n.rare().const_value)
      fail("const", [&] { return Shown(v) + " is not the constant"; });
    if (n.has & Node::kEnum) {
      bool found = false;
      for (const auto& e : n.rare().enum_values)
        if (e == c) {
          found = true;
          break;
        }
      if (!found) fail("enum", [&] { return Shown(v) + " is none of the enum's values"; });
    }
    if (!ok && !committed) return false;
  }
  if (v.type == kTypeNumber && (n.has & Node::kNumeric)) {
    const long double x = Wide(v);
    if ((n.has & Node::kMinimum) && x < n.minimum)
      fail("minimum",
           [&] { return NumberText(v) + " is below the minimum " + Doubled(n.minimum); });
    if ((n.has & Node::kMaximum) && x > n.maximum)
      fail("maximum",
           [&] { return NumberText(v) + " is above the maximum " + Doubled(n.maximum); });
    if ((n.has & Node::kExclusiveMinimum) && x <= n.exclusive_minimum)
      fail("exclusiveMinimum", [&] {
        return NumberText(v) + " is not above the exclusive minimum " +
               Doubled(n.exclusive_minimum);
      });
    if ((n.has & Node::kExclusiveMaximum) && x >= n.exclusive_maximum)
      fail("exclusiveMaximum", [&] {
        return NumberText(v) + " is not below the exclusive maximum " +
               Doubled(n.exclusive_maximum);
      });
    if ((n.has & Node::kMultipleOf) && !MultipleOf(v, n))
      fail("multipleOf",
           [&] { return NumberText(v) + " is not a multiple of " + Doubled(n.multiple_of); });
  } else if (v.type == kTypeString) {
    // A code point is 1 to 4 bytes, so a string of n bytes has from ceil(n / 4) to n: the
    // bytes alone settle most lengths without a count.
    const uint64_t bytes = v.s.size();
    if (bytes > n.max_length || (bytes + 3) / 4 < n.min_length) {
      const uint64_t len = CodePoints(v.s);
      if (len < n.min_length)
        fail("minLength", [&] {
          return Quote(v.s) + " has " + std::to_string(len) + " characters, fewer than minLength " +
                 std::to_string(n.min_length);
        });
      if (len > n.max_length)
        fail("maxLength", [&] {
          return Quote(v.s) + " has " + std::to_string(len) + " characters, more than maxLength " +
                 std::to_string(n.max_length);
        });
    }
    if (n.pattern != kNone && !set_.Search(n.pattern, v.s))
      fail("pattern", [&] {
        return Quote(v.s) + " does not match the pattern " + Quote(set_.regex_sources[n.pattern]);
      });
    if ((n.has & Node::kFormat) && (format_assertion_ || n.format_asserted) &&
        !CheckFormat(n.format, v.s))
      fail("format", [&] { return Quote(v.s) + " is not a valid " + n.rare().format_name; });
    if (n.has & Node::kContent) {
      std::string decoded;
      std::string_view content = v.s;
      if (n.content_base64) {
        if (!DecodeBase64(v.s, &decoded))
          fail("contentEncoding", [&] { return Quote(v.s) + " is not base64"; });
        content = decoded;
      }
      if (ok && n.content_json && !IsJson(content))
        fail("contentMediaType", [&] { return Quote(content) + " is not JSON"; });
    }
  }
  return ok;
}

void Validator::Canonical(const Scalar& v, std::string* out) const {
  switch (v.type) {
    case kTypeNull:
      out->push_back('n');
      return;
    case kTypeBoolean:
      out->push_back(v.b ? 't' : 'f');
      return;
    case kTypeString:
      canonical::String(*out, v.s);
      return;
    default:
      if (v.num == Scalar::kUint)
        canonical::Uint(*out, v.u);
      else if (v.num == Scalar::kInt)
        canonical::Int(*out, v.i);
      else
        canonical::Double(*out, v.d);
  }
}

// ---- violations -------------------------------------------------------------------

std::string Validator::PathOf(size_t frames) const {
  std::string path;
  for (size_t i = 0; i < frames && i < frames_.size(); ++i) {
    const Frame& f = frames_[i];
    path.push_back('/');
    if (f.is_map)
      path += EscapePointerToken(f.key);
    else
      path += std::to_string(f.count);
  }
  return path;
}

std::string Validator::KeywordLocation(const Node& n, std::string_view keyword) const {
  std::string loc;
  if (n.document != document_) loc = set_.documents[n.document] + "#";
  loc += set_.Location(n);
  if (!keyword.empty()) {
    loc.push_back('/');
    loc += keyword;
  }
  if (loc.empty()) loc = "/";
  return loc;
}

template <class Message>
void Validator::Violation(const Node& n, std::string_view keyword, uint64_t offset,
                          size_t path_frames, Message&& message) {
  if (stopped_) return;
  failed_ = true;
  Status s;
  s.code = ErrorCode::kSchemaViolation;
  s.offset = offset;
  s.path = PathOf(path_frames);
  s.message = KeywordLocation(n, keyword) + ": " + message();
  if (!all_errors_) {
    ctx_.status = std::move(s);
    ctx_.located = true;
    stopped_ = true;
    return;
  }
  violations_->push_back(std::move(s));
  if (violations_->size() >= max_violations_) stopped_ = true;
}

bool Validator::Finish() {
  // A violation found before the input turned out malformed (or past a limit) is the
  // request's error, as it is when the first violation stops the reading; without one,
  // the reader's error is.
  const bool other_error = !ctx_.status.ok() && ctx_.status.code != ErrorCode::kSchemaViolation;
  if (other_error && !(all_errors_ && !violations_->empty())) return false;
  if (all_errors_ && !violations_->empty()) {
    std::stable_sort(violations_->begin(), violations_->end(),
                     [](const Status& a, const Status& b) { return a.offset < b.offset; });
    ctx_.status = violations_->front();
    ctx_.located = true;
    return false;
  }
  if (failed_ && ctx_.status.ok()) {
    // A violation no committed keyword saw (never expected): still a refusal.
    ctx_.status.code = ErrorCode::kSchemaViolation;
    ctx_.status.message = KeywordLocation(nodes_[root_], "") + ": the value does not match";
    ctx_.located = true;
  }
  return ctx_.status.ok();
}

bool Validator::Empty(bool is_map) {
  // OnBegin's common case, closed at once: the child of a direct frame or a lone member
  // whose one subschema would open a direct frame that passes (a verdict of true, which
  // the parent's evaluation takes as it is). So twitter's empty entity lists and citm's
  // empty blockIds open no frame. Anything else (a violation to say, a tag's special item,
  // a capture) goes the whole way.
  if (!special_) {
    const uint32_t c = DirectChild();
    if (c != kNone && PassesEmpty(nodes_[c], is_map)) {
      offset_hold_ &= kReplaying;
      return ChildDone();
    }
  }
  return is_map ? BeginMap(0) && EndMap() : BeginArray(0) && EndArray();
}

bool Validator::TakeDoubles(const double* v, size_t n, bool* ok) {
  // (TakeDecimals' steps for doubles: one template for both, each item's check a lambda,
  // took geojson from CBOR and MessagePack 0.18M more instructions, 0.6%.)
  if (unusual_) return false;
  const uint32_t c = DirectChild();
  if (c == kNone) return false;
  const Node& a = nodes_[c];
  if (!a.leaf_array || n < a.min_items || n > a.quick_max_items) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
    const uint32_t ic = ItemNode(a, i);
    if (ic == kNone) continue;
    const Node& item = nodes_[ic];
    // (As Double's inline check.)
    if (!(item.scalar_plain && (item.plain_types & kTypeNumber) && v[i] >= item.sure_low &&
          v[i] <= item.sure_high))
      return false;
  }
  offset_hold_ &= kReplaying;
  *ok = ChildDone();
  return true;
}

namespace {
// TakeMembers' table of the names with no bit (out of line: inlined, it took citm's maps,
// whose names all have bits, 2% more instructions).
struct NameTable {
  uint64_t used = 0;                  // the places taken (bit s: place s)
  uint8_t holder[64];                 // each place's member
  uint64_t hashes[kMaxTakenMembers];  // each member's hash (its name's with no bit)
  // Member i's name put in the table; false when a member before it has the same name.
  [[gnu::noinline]] bool Add(const ShortMember* v, size_t i) {
    const uint64_t hash = MemberKeyOf(v[i].key).hash;
    hashes[i] = hash;
    size_t s = static_cast<size_t>(hash >> 58);
    for (; used >> s & 1; s = (s + 1) & 63) {
      const size_t j = holder[s];
      if (hashes[j] == hash && SameBytes(v[j].key, v[i].key)) return false;
    }
    used |= uint64_t{1} << s;
    holder[s] = static_cast<uint8_t>(i);
    return true;
  }
};
}  // namespace

bool Validator::TakeMembers(const ShortMember* v, size_t n, bool* ok) {
  if (unusual_) return false;
  const uint32_t c = DirectChild();
  if (c == kNone) return false;
  const Node& map = nodes_[c];
  if (!map.leaf_map) return false;  // (which lets an object through)
  uint64_t claimed = 0;             // the members' bits: a name given twice is declined
  uint64_t seen = 0;                // their watched bits, as a kLeafMap frame's
  // The names with no bit, which the reader's check would have compared, are kept in a
  // table of 64 places (at most half full), each name's place by its MemberKey hash, its
  // bytes compared only with a name of the same hash: of at most kMaxComparedName bytes
  // (a longer one is left to the reader's check), so that even a map whose names all
  // have one hash costs at most kMaxTakenMembers^2 / 2 compares of 64 bytes. (Each name
  // compared with every other one took 40% of TakeMembers' time on package.json's
  // dependencies.)
  static_assert(kMaxTakenMembers <= 32, "the table of names is at most half full");
  constexpr size_t kMaxComparedName = 64;
  NameTable names;
  uint16_t expect = map.first_member;
  for (size_t i = 0; i < n; ++i) {
    const ShortMember& x = v[i];
    // As LeafKeyFind: a name propertyNames' plain check passes, then a member with a
    // subschema, watched among the first 64 names or not at all, or a name that is none,
    // with NonMemberChild's subschema (any other name: the events').
    if ((map.key_work & Node::kKeyNames) && !NamePassesPlain(map, x.key)) return false;
    const Node::Member* m =
        map.MightBeMember(x.key) ? map.FindMemberFrom(expect, x.key, MemberKeyOf(x.key)) : nullptr;
    uint32_t child;
    if (m != nullptr) {
      if (m->property == kNone || (m->watch != kNone && m->watch >= 64)) return false;
      if (m->bit == Node::Member::kNoBit) {
        if (x.key.size() > kMaxComparedName || !names.Add(v, i)) return false;
      } else {
        const uint64_t bit = uint64_t{1} << m->bit;
        if (claimed & bit) return false;
        claimed |= bit;
      }
      expect = m->next;
      if (m->watch != kNone) seen |= uint64_t{1} << m->watch;
      child = m->property;
    } else {
      if (x.key.size() > kMaxComparedName || !NonMemberChild(map, x.key, &child) ||
          !names.Add(v, i))
        return false;
    }
    if (child == kNone) continue;  // (passes whatever it is)
    // The value by its event's inline check (Uint, NegInt and TakeDecimal's, TextValue's,
    // Null's, Bool's; Empty's).
    const Node& item = nodes_[child];
    bool passes;
    switch (x.kind) {
      case ShortMember::kNumber:
        passes =
            x.number.fraction_digits == 0
                ? IntegerPasses(item, x.number.digits, x.number.negative)
                : DecimalPasses(item, x.number.digits, x.number.fraction_digits, x.number.negative);
        break;
      case ShortMember::kDouble:  // (as Double's inline check)
        passes = std::isfinite(x.real) && item.scalar_plain && (item.plain_types & kTypeNumber) &&
                 x.real >= item.sure_low && x.real <= item.sure_high;
        break;
      case ShortMember::kText:
        passes = item.scalar_plain && (item.plain_types & kTypeString) &&
                 PassesPlainText(item, x.text, set_, format_assertion_);
        break;
      case ShortMember::kNull:
        passes = item.scalar_plain && (item.plain_types & kTypeNull);
        break;
      case ShortMember::kTrue:
      case ShortMember::kFalse:
        passes = item.scalar_plain && (item.plain_types & kTypeBoolean);
        break;
      default:
        passes = PassesEmpty(item, x.kind == ShortMember::kEmptyMap);
    }
    if (!passes) return false;
  }
  // OnEnd's leaf check.
  if (map.end_object_work && !(n >= map.min_properties && n <= map.max_properties &&
                               (seen & map.required_mask) == map.required_mask))
    return false;
  offset_hold_ &= kReplaying;
  *ok = ChildDone();
  return true;
}

}  // namespace rosetta::codec::schema
