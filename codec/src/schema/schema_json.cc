#include "schema/schema_json.h"

#include <cmath>
#include <vector>

#include "core/context.h"
#include "read_any.h"
#include "schema/canonical.h"

namespace rosetta::codec::schema {
namespace {

// Builds a JVal from the reader's events.
class Builder {
 public:
  explicit Builder(JVal* root) : root_(root) {}

  bool Null() { return Put(JVal{}); }
  bool Undefined() { return Put(JVal{}); }
  bool Simple(uint8_t) { return Put(JVal{}); }
  bool Bool(bool b) {
    JVal v;
    v.kind = JVal::kBool;
    v.b = b;
    return Put(std::move(v));
  }
  bool Uint(uint64_t u) {
    JVal v;
    if (bignum_) return Put(Big(static_cast<double>(u)));
    if (u <= static_cast<uint64_t>(INT64_MAX)) {
      v.kind = JVal::kInt;
      v.i = static_cast<int64_t>(u);
    } else {
      v.kind = JVal::kUint;
      v.u = u;
    }
    return Put(std::move(v));
  }
  bool NegInt(uint64_t n) {
    if (n > static_cast<uint64_t>(INT64_MAX)) return Put(Big(-1.0 - static_cast<double>(n)));
    JVal v;
    v.kind = JVal::kInt;
    v.i = -1 - static_cast<int64_t>(n);
    return Put(std::move(v));
  }
  bool Double(double d) { return Put(Big(d)); }
  bool Text(std::string_view s) {
    if (stack_.empty() ? false : stack_.back()->kind == JVal::kObject && !have_key_) {
      key_.assign(s);
      have_key_ = true;
      return true;
    }
    JVal v;
    v.kind = JVal::kString;
    v.s.assign(s);
    return Put(std::move(v));
  }
  bool Bytes(std::string_view s) {
    if (bignum_ != 0) {  // a JSON integer past 64 bits
      double m = 0;
      for (unsigned char c : s) m = m * 256 + c;
      const bool negative = bignum_ == 3;
      bignum_ = 0;
      return Put(Big(negative ? -1 - m : m));
    }
    return false;
  }
  bool BeginArray(uint64_t) {
    JVal v;
    v.kind = JVal::kArray;
    return Open(std::move(v));
  }
  bool BeginMap(uint64_t) {
    JVal v;
    v.kind = JVal::kObject;
    return Open(std::move(v));
  }
  bool EndArray() { return stack_.pop_back(), true; }
  bool EndMap() { return stack_.pop_back(), true; }
  bool Tag(uint64_t tag) {
    if (tag == kTagPositiveBignum || tag == kTagNegativeBignum) bignum_ = static_cast<int>(tag);
    return true;
  }

 private:
  static JVal Big(double d) {
    JVal v;
    v.kind = JVal::kDouble;
    v.d = d;
    return v;
  }
  JVal* Place(JVal&& v) {
    if (stack_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    JVal* top = stack_.back();
    if (top->kind == JVal::kArray) {
      top->items.push_back(std::move(v));
      return &top->items.back();
    }
    have_key_ = false;
    top->members.push_back(JMember{std::move(key_), std::move(v)});
    return &top->members.back().second;
  }
  bool Put(JVal&& v) { return Place(std::move(v)), true; }
  bool Open(JVal&& v) {
    stack_.push_back(Place(std::move(v)));
    return true;
  }

  JVal* root_;
  std::vector<JVal*> stack_;
  std::string key_;
  bool have_key_ = false;
  int bignum_ = 0;
};

}  // namespace

bool ParseJson(std::string_view text, JVal* out, std::string* error) {
  Limits limits;
  limits.max_depth = 512;
  limits.max_input_bytes = ~uint64_t{0};
  limits.max_alloc_bytes = ~uint64_t{0};
  MappingOptions options;
  Context ctx(limits, options);
  Builder builder(out);
  if (!ReadAny(Format::kJson, ctx, builder, text, 0)) {
    *error = ctx.status.ToString(true);
    return false;
  }
  return true;
}

void Canonicalize(const JVal& v, std::string* out) {
  switch (v.kind) {
    case JVal::kNull:
      out->push_back('n');
      return;
    case JVal::kBool:
      out->push_back(v.b ? 't' : 'f');
      return;
    case JVal::kInt:
      canonical::Int(*out, v.i);
      return;
    case JVal::kUint:
      canonical::Uint(*out, v.u);
      return;
    case JVal::kDouble:
      canonical::Double(*out, v.d);
      return;
    case JVal::kString:
      canonical::String(*out, v.s);
      return;
    case JVal::kArray:
      out->push_back('[');
      for (const JVal& item : v.items) Canonicalize(item, out);
      out->push_back(']');
      return;
    case JVal::kObject: {
      out->push_back('{');
      const size_t begin = out->size();
      std::vector<size_t> starts;
      for (const auto& [key, value] : v.members) {
        starts.push_back(out->size());
        canonical::String(*out, key);
        Canonicalize(value, out);
      }
      std::vector<std::string_view> parts;
      std::string sorted;
      canonical::SortMembers(*out, begin, out->size(), starts.data(), starts.size(), 1, &parts,
                             &sorted);
      out->push_back('}');
      return;
    }
  }
}

}  // namespace rosetta::codec::schema
