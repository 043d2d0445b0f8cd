// Differential test against libprotobuf: randomized messages of the test schema (fixed
// seed), built with DynamicMessage + Reflection, go through rosetta and through
// libprotobuf's own JSON mapping (util/json_util.h), both ways:
//   (a) binary -> rosetta JSON        == binary -> util::MessageToJsonString (as JSON values)
//   (b) libprotobuf JSON -> rosetta binary, parsed back == the original (MessageDifferencer)
//   (c) binary -> rosetta binary (protobuf -> protobuf), parsed back == the original
//   (d) rosetta JSON -> util::JsonStringToMessage == the original
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>

#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "protobuf_test_support.h"

namespace rosetta::codec {
namespace {

using namespace prototest;
namespace pb = google::protobuf;
using json = nlohmann::json;
using FD = pb::FieldDescriptor;

constexpr int kMessages = 600;
constexpr uint64_t kSeed = 20240501;

// --- random messages -------------------------------------------------------------------------

class RandomMessages {
 public:
  explicit RandomMessages(uint64_t seed) : rng_(seed) {}

  std::unique_ptr<pb::Message> Next() {
    std::unique_ptr<pb::Message> m = NewMessage(kTest);
    Fill(m.get(), 0);
    return m;
  }

 private:
  uint64_t Bits() { return rng_(); }
  int Below(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Below(100) < percent; }

  template <class T>
  T Pick(std::initializer_list<T> values) {
    return *(values.begin() + Below(static_cast<int>(values.size())));
  }
  // A random integer of a random bit width, so that small values are common.
  uint64_t Sized() { return Bits() >> Below(64); }

  int32_t Int32() {
    if (Chance(40))
      return Pick<int32_t>({0, 1, -1, 127, 128, -128, INT32_MIN, INT32_MAX, 300, -300});
    return static_cast<int32_t>(static_cast<uint32_t>(Sized()));
  }
  int64_t Int64() {
    if (Chance(40)) {
      return Pick<int64_t>({0, 1, -1, INT64_MIN, INT64_MAX, (int64_t{1} << 53) + 1,
                            -(int64_t{1} << 53) - 1, INT32_MIN, int64_t{INT32_MAX} + 1});
    }
    return Chance(50) ? static_cast<int64_t>(Sized()) : -static_cast<int64_t>(Sized() >> 1);
  }
  uint32_t Uint32() {
    return Chance(30) ? Pick<uint32_t>({0, 1, UINT32_MAX, 128}) : static_cast<uint32_t>(Sized());
  }
  uint64_t Uint64() {
    return Chance(30) ? Pick<uint64_t>({0, 1, UINT64_MAX, uint64_t{1} << 63}) : Sized();
  }
  double Double(bool finite = false) {
    if (Chance(40)) {
      double d = Pick<double>(
          {0.0, -0.0, 1.5, -2.25, 0.1, 1e300, -1e-300, 5e-324, std::numeric_limits<double>::max(),
           std::numeric_limits<double>::min(), 9007199254740993.0, 1e21, 123456789.125});
      return d;
    }
    if (!finite && Chance(10)) {
      return Pick<double>({std::numeric_limits<double>::quiet_NaN(), INFINITY, -INFINITY});
    }
    if (Chance(50))
      return static_cast<double>(static_cast<int64_t>(Sized() >> 1)) /
             Pick<double>({1, 2, 10, 1000});
    double d;
    do {
      d = std::bit_cast<double>(Bits());
    } while (!std::isfinite(d));
    return d;
  }
  float Float() {
    if (Chance(40)) {
      return Pick<float>({0.0f, -0.0f, 0.1f, 1.5f, std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
                          1e-45f, 16777217.0f, 3.14159274f});
    }
    if (Chance(10))
      return Pick<float>({std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY});
    float f;
    do {
      f = std::bit_cast<float>(static_cast<uint32_t>(Bits()));
    } while (!std::isfinite(f));
    return f;
  }
  std::string String(int max_len = 12) {
    static const char* const kPieces[] = {"a",    "Z",    "0",
                                          " ",    "\"",   "\\",
                                          "/",    "\n",   "\t",
                                          "\x01", "\x1f", "\x7f",
                                          "é",    "€",    "\xe2\x80\xa8",
                                          "😀",    "<",    ">",
                                          "&",    "'",    "\xef\xbf\xbf",
                                          "k"};
    std::string s;
    int n = Below(max_len + 1);
    for (int i = 0; i < n; ++i) s += kPieces[Below(sizeof kPieces / sizeof kPieces[0])];
    return s;
  }
  std::string Bytes() {
    std::string s(static_cast<size_t>(Below(13)), '\0');
    for (char& c : s) c = static_cast<char>(Bits());
    return s;
  }
  int Enum(const pb::EnumDescriptor* e) {
    if (Chance(15)) return Pick<int>({42, -7, 1000000});
    return e->value(Below(e->value_count()))->number();
  }

  // One random value into a singular field (add = false) or appended to a repeated one.
  void Value(pb::Message* m, const FD* f, int depth, bool add) {
    const pb::Reflection* r = m->GetReflection();
    switch (f->cpp_type()) {
      case FD::CPPTYPE_INT32:
        add ? r->AddInt32(m, f, Int32()) : r->SetInt32(m, f, Int32());
        break;
      case FD::CPPTYPE_INT64:
        add ? r->AddInt64(m, f, Int64()) : r->SetInt64(m, f, Int64());
        break;
      case FD::CPPTYPE_UINT32:
        add ? r->AddUInt32(m, f, Uint32()) : r->SetUInt32(m, f, Uint32());
        break;
      case FD::CPPTYPE_UINT64:
        add ? r->AddUInt64(m, f, Uint64()) : r->SetUInt64(m, f, Uint64());
        break;
      case FD::CPPTYPE_DOUBLE:
        add ? r->AddDouble(m, f, Double()) : r->SetDouble(m, f, Double());
        break;
      case FD::CPPTYPE_FLOAT:
        add ? r->AddFloat(m, f, Float()) : r->SetFloat(m, f, Float());
        break;
      case FD::CPPTYPE_BOOL:
        add ? r->AddBool(m, f, Chance(50)) : r->SetBool(m, f, Chance(50));
        break;
      case FD::CPPTYPE_ENUM:
        if (f->enum_type()->full_name() == "google.protobuf.NullValue") {
          add ? r->AddEnumValue(m, f, 0) : r->SetEnumValue(m, f, 0);
        } else {
          add ? r->AddEnumValue(m, f, Enum(f->enum_type()))
              : r->SetEnumValue(m, f, Enum(f->enum_type()));
        }
        break;
      case FD::CPPTYPE_STRING: {
        std::string s = f->type() == FD::TYPE_BYTES ? Bytes() : String();
        add ? r->AddString(m, f, s) : r->SetString(m, f, s);
        break;
      }
      case FD::CPPTYPE_MESSAGE: {
        pb::Message* sub = add ? r->AddMessage(m, f) : r->MutableMessage(m, f);
        Fill(sub, depth + 1);
        break;
      }
    }
  }

  // A map entry key as text, to keep the keys of one map distinct.
  static std::string KeyText(const pb::Message& entry) {
    const FD* k = entry.GetDescriptor()->map_key();
    const pb::Reflection* r = entry.GetReflection();
    switch (k->cpp_type()) {
      case FD::CPPTYPE_INT32:
        return std::to_string(r->GetInt32(entry, k));
      case FD::CPPTYPE_INT64:
        return std::to_string(r->GetInt64(entry, k));
      case FD::CPPTYPE_UINT32:
        return std::to_string(r->GetUInt32(entry, k));
      case FD::CPPTYPE_UINT64:
        return std::to_string(r->GetUInt64(entry, k));
      case FD::CPPTYPE_BOOL:
        return r->GetBool(entry, k) ? "true" : "false";
      default:
        return r->GetString(entry, k);
    }
  }

  void Fill(pb::Message* m, int depth) {
    const pb::Descriptor* d = m->GetDescriptor();
    if (FillWellKnown(m, depth)) return;
    const pb::Reflection* r = m->GetReflection();
    const int percent = depth == 0 ? 60 : depth < 3 ? 35 : 15;
    for (int i = 0; i < d->field_count(); ++i) {
      const FD* f = d->field(i);
      if (f->real_containing_oneof() != nullptr) continue;
      if (!Chance(percent)) continue;
      if (f->message_type() && !f->is_map() &&
          f->message_type()->full_name().starts_with("rosetta.test") && depth >= 3) {
        continue;  // a few levels deep at most
      }
      if (f->is_map()) {
        std::set<std::string> keys;
        int n = Below(4);
        for (int k = 0; k < n; ++k) {
          pb::Message* entry = r->AddMessage(m, f);
          Value(entry, entry->GetDescriptor()->map_key(), depth, false);
          if (!keys.insert(KeyText(*entry)).second) {
            r->RemoveLast(m, f);
            continue;
          }
          Value(entry, entry->GetDescriptor()->map_value(), depth, false);
        }
      } else if (f->is_repeated()) {
        int n = Below(f->message_type() ? 3 : 5);
        for (int k = 0; k < n; ++k) Value(m, f, depth, true);
      } else {
        Value(m, f, depth, false);
      }
    }
    for (int o = 0; o < d->real_oneof_decl_count(); ++o) {
      const pb::OneofDescriptor* oneof = d->oneof_decl(o);
      if (Chance(40)) continue;
      Value(m, oneof->field(Below(oneof->field_count())), depth, false);
    }
  }

  std::string FieldMaskPath() {
    std::string path;
    int segments = 1 + Below(3);
    for (int s = 0; s < segments; ++s) {
      if (s) path += '.';
      int words = 1 + Below(3);
      for (int w = 0; w < words; ++w) {
        if (w) path += '_';
        // A one-letter word after the first would read back differently in libprotobuf
        // 3.21 ("e_w_k" -> "eWK" -> "e_wk": it takes "WK" for one word).
        int letters = (w ? 2 : 1) + Below(4);
        for (int l = 0; l < letters; ++l) path += static_cast<char>('a' + Below(26));
      }
    }
    return path;
  }

  // Well-known types get valid values only: proto3 JSON cannot write the others.
  bool FillWellKnown(pb::Message* m, int depth) {
    const std::string& name = m->GetDescriptor()->full_name();
    if (!name.starts_with("google.protobuf.")) return false;
    const pb::Descriptor* d = m->GetDescriptor();
    const pb::Reflection* r = m->GetReflection();
    auto field = [&](const char* n) { return d->FindFieldByName(n); };
    if (name == "google.protobuf.Timestamp") {
      int64_t seconds =
          Chance(20)
              ? Pick<int64_t>({0, -62135596800, 253402300799, -1, 1714566896})
              : -62135596800 + static_cast<int64_t>(Bits() % (253402300799 + 62135596800 + 1));
      r->SetInt64(m, field("seconds"), seconds);
      r->SetInt32(m, field("nanos"), Nanos());
    } else if (name == "google.protobuf.Duration") {
      int64_t seconds = Chance(20) ? Pick<int64_t>({0, 315576000000, -315576000000, 1, -1})
                                   : static_cast<int64_t>(Bits() % 631152000001) - 315576000000;
      int32_t nanos = Nanos();
      if (seconds < 0 || (seconds == 0 && Chance(50))) nanos = -nanos;
      r->SetInt64(m, field("seconds"), seconds);
      r->SetInt32(m, field("nanos"), nanos);
    } else if (name == "google.protobuf.Struct") {
      int n = depth < 4 ? Below(4) : 0;
      std::set<std::string> keys;
      for (int i = 0; i < n; ++i) {
        std::string key = String(6);
        if (!keys.insert(key).second) continue;
        pb::Message* entry = r->AddMessage(m, field("fields"));
        entry->GetReflection()->SetString(entry, entry->GetDescriptor()->map_key(), key);
        JsonValue(
            entry->GetReflection()->MutableMessage(entry, entry->GetDescriptor()->map_value()),
            depth + 1);
      }
    } else if (name == "google.protobuf.Value") {
      JsonValue(m, depth);
    } else if (name == "google.protobuf.ListValue") {
      int n = depth < 4 ? Below(4) : 0;
      for (int i = 0; i < n; ++i) JsonValue(r->AddMessage(m, field("values")), depth + 1);
    } else if (name == "google.protobuf.FieldMask") {
      int n = Below(4);
      for (int i = 0; i < n; ++i) r->AddString(m, field("paths"), FieldMaskPath());
    } else if (name == "google.protobuf.Any") {
      static const char* const kPacked[] = {
          "rosetta.test.Item",          "rosetta.test.Scalars",        "rosetta.test.Maps",
          "rosetta.test.Test",          "google.protobuf.Timestamp",   "google.protobuf.Duration",
          "google.protobuf.Int64Value", "google.protobuf.StringValue", "google.protobuf.FloatValue",
          "google.protobuf.Struct",     "google.protobuf.Value",       "google.protobuf.FieldMask",
          "google.protobuf.Empty",      "google.protobuf.Any"};
      if (Chance(10)) return true;     // the empty Any
      int limit = depth < 3 ? 14 : 3;  // a Test or an Any only near the top
      std::string type = kPacked[Below(limit)];
      if (depth >= 3 && type.starts_with("rosetta.test.T")) type = "rosetta.test.Item";
      std::unique_ptr<pb::Message> packed = NewMessage(type);
      Fill(packed.get(), depth + 1);
      r->SetString(m, field("type_url"), "type.googleapis.com/" + type);
      r->SetString(m, field("value"), packed->SerializeAsString());
    } else if (name != "google.protobuf.Empty") {
      // Wrappers: {value = 1}, any value (NaN and infinities included).
      const FD* value = field("value");
      if (Chance(80)) Value(m, value, depth, false);
    }
    return true;
  }

  int32_t Nanos() {
    switch (Below(4)) {
      case 0:
        return 0;
      case 1:
        return Below(1000) * 1000000;
      case 2:
        return Below(1000000) * 1000;
      default:
        return Below(1000000000);
    }
  }

  // A google.protobuf.Value with a kind set; numbers finite (JSON has no others).
  void JsonValue(pb::Message* v, int depth) {
    const pb::Descriptor* d = v->GetDescriptor();
    const pb::Reflection* r = v->GetReflection();
    switch (Below(depth < 4 ? 6 : 4)) {
      case 0:
        r->SetEnumValue(v, d->FindFieldByName("null_value"), 0);
        break;
      case 1:
        r->SetDouble(v, d->FindFieldByName("number_value"), Double(true));
        break;
      case 2:
        r->SetString(v, d->FindFieldByName("string_value"), String());
        break;
      case 3:
        r->SetBool(v, d->FindFieldByName("bool_value"), Chance(50));
        break;
      case 4:
        FillWellKnown(r->MutableMessage(v, d->FindFieldByName("struct_value")), depth + 1);
        break;
      default:
        FillWellKnown(r->MutableMessage(v, d->FindFieldByName("list_value")), depth + 1);
        break;
    }
  }

  std::mt19937_64 rng_;
};

// --- comparing JSON texts as values
// ----------------------------------------------------------------

bool IsFloatContext(const std::string& key) {
  static const std::set<std::string> kFloatFields = {"fFloat", "pFloat", "uFloat", "floatValue",
                                                     "uint64Float"};
  return kFloatFields.count(key) > 0;
}

// Empty when equal; else where and how they differ. Numbers compare by value (1 == 1.0);
// in a float field both sides are rounded to float (libprotobuf prints floats with up to 9
// digits, rosetta with the fewest that round-trip).
std::string Diff(const json& a, const json& b, const std::string& path, bool in_float) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      auto wide = [](const json& j) -> __int128 {
        return j.is_number_unsigned() ? static_cast<__int128>(j.get<uint64_t>())
                                      : static_cast<__int128>(j.get<int64_t>());
      };
      if (wide(a) == wide(b)) return {};
    } else {
      double x = a.get<double>(), y = b.get<double>();
      if (x == y || (in_float && static_cast<float>(x) == static_cast<float>(y))) return {};
    }
    return path + ": " + a.dump() + " vs " + b.dump();
  }
  if (a.type() != b.type()) return path + ": " + a.dump() + " vs " + b.dump();
  if (a.is_object()) {
    bool float_any = false;
    if (auto t = a.find("@type"); t != a.end() && t->is_string()) {
      float_any = t->get<std::string>().ends_with("google.protobuf.FloatValue");
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) {
        // A known difference: an Any of a well-known type at its default (empty value
        // bytes) is {"@type": url} in libprotobuf 3.21; rosetta writes the value too
        // ("value": "0s", {}, ...), as the proto3 JSON mapping (and Java's JsonFormat) do.
        static const json kDefaults =
            json::parse(R"([{}, [], "1970-01-01T00:00:00Z", "0s", 0, "0", false, "", null])");
        const bool wkt_default =
            it.key() == "value" && a.contains("@type") &&
            a["@type"].get<std::string>().find("/google.protobuf.") != std::string::npos &&
            std::find(kDefaults.begin(), kDefaults.end(), it.value()) != kDefaults.end();
        if (wkt_default) continue;
        return path + "/" + it.key() + ": only in rosetta's";
      }
      std::string d =
          Diff(it.value(), b.at(it.key()), path + "/" + it.key(),
               in_float || IsFloatContext(it.key()) || (float_any && it.key() == "value"));
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) return path + "/" + it.key() + ": only in libprotobuf's";
    }
    return {};
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
             " elements";
    for (size_t i = 0; i < a.size(); ++i) {
      std::string d = Diff(a[i], b[i], path + "/" + std::to_string(i), in_float);
      if (!d.empty()) return d;
    }
    return {};
  }
  return a == b ? std::string() : path + ": " + a.dump() + " vs " + b.dump();
}

// A known difference in (b): libprotobuf prints -0.0 as -0, which is the integer 0 in
// JSON (rosetta's JSON reader reads it so, json_number.cc), so a -0.0 in a field without
// presence comes back absent. Such fields are cleared in the original before comparing.
void ClearNegativeZeros(pb::Message* m) {
  const pb::Reflection* r = m->GetReflection();
  std::vector<const FD*> fields;
  r->ListFields(*m, &fields);
  for (const FD* f : fields) {
    if (f->cpp_type() == FD::CPPTYPE_MESSAGE) {
      int n = f->is_repeated() ? r->FieldSize(*m, f) : 1;
      for (int i = 0; i < n; ++i)
        ClearNegativeZeros(f->is_repeated() ? r->MutableRepeatedMessage(m, f, i)
                                            : r->MutableMessage(m, f));
      continue;
    }
    if (f->is_repeated() || f->has_presence()) continue;
    if ((f->cpp_type() == FD::CPPTYPE_DOUBLE && std::signbit(r->GetDouble(*m, f)) &&
         r->GetDouble(*m, f) == 0) ||
        (f->cpp_type() == FD::CPPTYPE_FLOAT && std::signbit(r->GetFloat(*m, f)) &&
         r->GetFloat(*m, f) == 0)) {
      r->ClearField(m, f);
    }
  }
  if (m->GetDescriptor()->full_name() == "google.protobuf.Any") {  // its packed message too
    const FD* url = m->GetDescriptor()->FindFieldByName("type_url");
    const FD* value = m->GetDescriptor()->FindFieldByName("value");
    std::string type = r->GetString(*m, url);
    if (type.empty()) return;
    std::unique_ptr<pb::Message> packed = NewMessage(type.substr(type.rfind('/') + 1));
    packed->ParseFromString(r->GetString(*m, value));
    ClearNegativeZeros(packed.get());
    r->SetString(m, value, packed->SerializeAsString());
  }
}

// --- the test ------------------------------------------------------------------------------

class ProtobufDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    comparator_.set_treat_nan_as_equal(true);
    differencer_.set_field_comparator(&comparator_);
    differencer_.ReportDifferencesToString(&differences_);
  }
  // True when m equals the original; else the differences are in differences_.
  bool SameAs(const pb::Message& original, const pb::Message& m) {
    differences_.clear();
    return differencer_.Compare(original, m);
  }
  std::string Parsed(const std::string& wire, bool* ok) {
    std::unique_ptr<pb::Message> m = NewMessage(kTest);
    *ok = m->ParseFromString(wire);
    return *ok ? m->ShortDebugString() : "<unparsable>";
  }

  pb::util::DefaultFieldComparator comparator_;
  pb::util::MessageDifferencer differencer_;
  std::string differences_;
};

TEST_F(ProtobufDifferentialTest, RandomMessagesAgreeWithLibprotobufBothWays) {
  RandomMessages random(kSeed);
  int checked_to_json = 0, checked_from_json = 0, checked_binary = 0, checked_json_back = 0;
  int failures = 0;
  for (int i = 0; i < kMessages && failures < 5; ++i) {
    std::unique_ptr<pb::Message> original = random.Next();
    const std::string wire = original->SerializeAsString();
    std::string their_json;
    ASSERT_TRUE(pb::util::MessageToJsonString(*original, &their_json).ok())
        << original->ShortDebugString();
    const std::string what = "message " + std::to_string(i) + ": " + original->ShortDebugString();

    // (a) binary -> JSON
    Result ours = ToJson(wire);
    if (!ours.status.ok()) {
      ADD_FAILURE() << "(a) rosetta refused: " << ours.status.message << " at " << ours.status.path
                    << "\n"
                    << what;
      ++failures;
      continue;
    }
    json a = json::parse(ours.out, nullptr, false);
    json b = json::parse(their_json);
    if (a.is_discarded()) {
      ADD_FAILURE() << "(a) rosetta wrote invalid JSON: " << ours.out;
      ++failures;
      continue;
    }
    if (std::string d = Diff(a, b, "", false); !d.empty()) {
      ADD_FAILURE() << "(a) " << d << "\nrosetta:     " << ours.out
                    << "\nlibprotobuf: " << their_json << "\n"
                    << what;
      ++failures;
      continue;
    }
    ++checked_to_json;

    // (b) libprotobuf's JSON -> binary
    Result back = FromJson(their_json);
    bool parsed = false;
    std::unique_ptr<pb::Message> m = NewMessage(kTest);
    if (!back.status.ok()) {
      ADD_FAILURE() << "(b) rosetta refused libprotobuf's JSON: " << back.status.message << " at "
                    << back.status.path << "\n"
                    << their_json;
      ++failures;
      continue;
    }
    parsed = m->ParseFromString(back.out);
    std::unique_ptr<pb::Message> expected(original->New());
    expected->CopyFrom(*original);
    ClearNegativeZeros(expected.get());
    if (!parsed || !SameAs(*expected, *m)) {
      ADD_FAILURE() << "(b) " << differences_ << "\nJSON: " << their_json << "\n" << what;
      ++failures;
      continue;
    }
    ++checked_from_json;

    // (c) binary -> binary
    Result again = Convert(Format::kProtobuf, Format::kProtobuf, wire);
    m = NewMessage(kTest);
    if (!again.status.ok() || !m->ParseFromString(again.out) || !SameAs(*original, *m)) {
      ADD_FAILURE() << "(c) " << again.status.message << differences_ << "\n" << what;
      ++failures;
      continue;
    }
    ++checked_binary;

    // (d) rosetta's JSON -> libprotobuf
    m = NewMessage(kTest);
    auto status = pb::util::JsonStringToMessage(ours.out, m.get());
    if (!status.ok() || !SameAs(*original, *m)) {
      ADD_FAILURE() << "(d) libprotobuf: " << status.ToString() << " " << differences_
                    << "\nrosetta: " << ours.out << "\n"
                    << what;
      ++failures;
      continue;
    }
    ++checked_json_back;
  }
  EXPECT_EQ(checked_to_json, kMessages);
  EXPECT_EQ(checked_from_json, kMessages);
  EXPECT_EQ(checked_binary, kMessages);
  EXPECT_EQ(checked_json_back, kMessages);
  std::printf(
      "differential: %d messages checked binary->JSON, %d JSON->binary, %d binary->binary, %d "
      "JSON->libprotobuf\n",
      checked_to_json, checked_from_json, checked_binary, checked_json_back);
}

// The random messages are not trivial: they reach every field of the schema.
TEST_F(ProtobufDifferentialTest, RandomMessagesCoverEveryField) {
  RandomMessages random(kSeed);
  std::set<std::string> seen;
  std::function<void(const pb::Message&)> visit = [&](const pb::Message& m) {
    std::vector<const FD*> fields;
    m.GetReflection()->ListFields(m, &fields);
    for (const FD* f : fields) {
      seen.insert(f->full_name());
      if (f->cpp_type() != FD::CPPTYPE_MESSAGE) continue;
      if (f->is_repeated()) {
        for (int i = 0; i < m.GetReflection()->FieldSize(m, f); ++i)
          visit(m.GetReflection()->GetRepeatedMessage(m, f, i));
      } else {
        visit(m.GetReflection()->GetMessage(m, f));
      }
    }
  };
  for (int i = 0; i < kMessages; ++i) visit(*random.Next());
  for (const char* type : {"rosetta.test.Test", "rosetta.test.Scalars", "rosetta.test.Repeateds",
                           "rosetta.test.Maps", "rosetta.test.WellKnown"}) {
    const pb::Descriptor* d = Pool().FindMessageTypeByName(type);
    for (int i = 0; i < d->field_count(); ++i) {
      if (d->field(i)->name() == "null_value") continue;  // only ever its default: never listed
      EXPECT_TRUE(seen.count(d->field(i)->full_name())) << d->field(i)->full_name();
    }
  }
}

}  // namespace
}  // namespace rosetta::codec
