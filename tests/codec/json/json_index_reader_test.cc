// codec/src/json/json_reader.h (a walk over simdjson's stage-1 structural index) against
// codec/src/json/json_scalar_reader.h (byte by byte, written separately): on every corpus
// document, and on tens of thousands of mutations of pieces of them, the two must give
// the same CBOR and the same JSON, or the same error code, offset and path. Also under
// low limits, where the refusals come from the limits, and with digits in the padding
// after the input, which a number at the end must not run into.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "json_readers.h"
#include "rosetta_test_data.h"

namespace rosetta::codec {
namespace {

template <class Writer>
testing::ReaderOutcome Run(bool indexed, const std::string& json, const Limits& limits,
                           const MappingOptions& options) {
  // The input is followed by kInputPadding readable bytes, here digits.
  const std::string buffer = json + std::string(kInputPadding, '7');
  return testing::ReadJsonInto<Writer>(indexed, std::string_view(buffer.data(), json.size()),
                                       limits, options);
}

// True when the two agree, into CBOR and into JSON (where the indexed reader hands the
// writer escape-free strings and integers as their input text: JsonWriter::VerbatimText);
// counts what was accepted.
::testing::AssertionResult Agree(const std::string& json, const Limits& limits,
                                 const MappingOptions& options, int* accepted) {
  for (int to_json = 0; to_json < 2; ++to_json) {
    const auto a = to_json ? Run<JsonWriter>(true, json, limits, options)
                           : Run<CborWriter>(true, json, limits, options);
    const auto b = to_json ? Run<JsonWriter>(false, json, limits, options)
                           : Run<CborWriter>(false, json, limits, options);
    if (!testing::SameOutcome(a, b)) {
      return ::testing::AssertionFailure()
             << (to_json ? "to JSON" : "to CBOR")
             << "\nindexed: " << (a.ok ? "ok" : a.status.ToString() + " path " + a.status.path)
             << "\nscalar:  " << (b.ok ? "ok" : b.status.ToString() + " path " + b.status.path)
             << "\noutputs equal: " << (a.output == b.output) << "\ninput: " << json.substr(0, 300);
    }
    if (a.ok && !to_json) ++*accepted;
  }
  return ::testing::AssertionSuccess();
}

const char* const kCorpus[] = {"apache_builds", "canada",      "citm_catalog", "github_events",
                               "gsoc-2018",     "instruments", "marine_ik",    "mesh",
                               "numbers",       "random",      "twitter",      "twitterescaped",
                               "update-center"};

std::string Corpus(const char* name) {
  return testing::ReadFile(testing::DataDir() + "/corpus/" + name + ".json");
}

TEST(JsonIndexReader, EveryCorpusDocumentReadsAsTheScalarReaderReadsIt) {
  int accepted = 0, documents = 0;
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  for (const char* name : kCorpus) {
    const std::string json = Corpus(name);
    ASSERT_GT(json.size(), 1000u) << name;
    EXPECT_TRUE(Agree(json, {}, allow, &accepted)) << name;
    ++documents;
  }
  EXPECT_EQ(documents, 13);
  EXPECT_EQ(accepted, 13);
}

// The container that starts at the first '{' or '[' at or after `from` (outside strings
// as far as a forward scan can tell: the piece is checked by both readers anyway), up to
// its matching close; empty if there is none.
std::string ContainerAt(const std::string& json, size_t from) {
  size_t start = json.find_first_of("{[", from);
  if (start == std::string::npos) return "";
  int depth = 0;
  bool in_string = false;
  for (size_t i = start; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return json.substr(start, i + 1 - start);
    }
  }
  return "";
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  static const std::string kAlphabet = "{}[],:\"\\ \n0123456789.eE+-tfnrulas/\x01\t\xc3\xa9\xff";
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    const char c = kAlphabet[rng() % kAlphabet.size()];
    switch (rng() % 4) {
      case 0:
        s[at] = c;
        break;
      case 1:
        s.erase(at, 1);
        break;
      case 2:
        s.insert(at, 1, c);
        break;
      default:
        s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 12));
        break;
    }
  }
  return s;
}

// Pieces of the corpus (their first bytes, closed or not) and hand-written documents,
// mutated; under default limits, low limits, and a small output limit.
TEST(JsonIndexReader, MutatedDocumentsReadAsTheScalarReaderReadsThem) {
  std::vector<std::string> seeds = {
      R"({"a":[1,-2,3.5e-3,"x\u00e9\n",true,false,null,{}],"b":{"c":[]}})",
      R"([{"id":138586341,"name":"Orchestre","prices":[{"amount":90250,"seat":338937295}]},[],{}])",
      R"([-0,0.0,1e308,-1e-308,123456789012345678901234567890,18446744073709551615,-9223372036854775809])",
      R"({"k\"ey":"v\\al\/ue","\ud83d\ude00":"\u0000","":""})",
  };
  std::mt19937_64 pick(7);
  int pieces = 0;
  for (const char* name : kCorpus) {
    const std::string json = Corpus(name);
    seeds.push_back(json.substr(0, 1500));  // cut short
    // Whole containers from inside the document (valid JSON themselves), 20..3000 bytes.
    int taken = 0;
    for (int attempt = 0; attempt < 2000 && taken < 8; ++attempt) {
      const std::string piece = ContainerAt(json, pick() % json.size());
      if (piece.size() >= 20 && piece.size() <= 3000) {
        seeds.push_back(piece);
        ++taken;
      }
    }
    pieces += taken;
  }
  EXPECT_GT(pieces, 60);
  Limits low;
  low.max_depth = 4;
  low.max_items = 6;
  low.max_string_bytes = 10;
  Limits small_output;
  small_output.max_output_bytes = 100;
  MappingOptions strict, allow;
  allow.allow_duplicate_keys = true;
  std::mt19937_64 rng(20261130);
  int compared = 0, accepted = 0;
  for (int i = 0; i < 60000; ++i) {
    const std::string& seed = seeds[i % seeds.size()];
    const std::string json = i < static_cast<int>(seeds.size()) ? seed : Mutate(seed, rng);
    const Limits& limits = i % 5 == 3 ? low : i % 5 == 4 ? small_output : Limits{};
    ASSERT_TRUE(Agree(json, limits, i % 2 ? allow : strict, &accepted)) << "case " << i;
    ++compared;
  }
  EXPECT_EQ(compared, 60000);
  EXPECT_GT(accepted, 3000) << accepted;  // both readers accept a good share
  EXPECT_LT(accepted, compared / 2);      // and refuse most mutations
}

// A document of kCountItemsFrom bytes or more has its containers counted ahead
// (JsonIndex::CountItems) for writers that head a container with its count, and its output
// streams; the scalar reader gives no counts, so those writers hold the output until each
// container closes and fill its count in then. Both must give the same bytes, or the same
// error. Large corpus documents, a made-up one with containers of every head size (0, 23,
// 24, 255, 256, 65,535 and 65,536 items), empty ones and deep nesting, and mutations of
// both at random places (the counts of a malformed document are wrong past the damage).
template <class Writer>
::testing::AssertionResult LargeAgree(const std::string& json, const Limits& limits,
                                      const MappingOptions& options, bool* accepted) {
  const std::string buffer = json + std::string(kInputPadding, ' ');
  const std::string_view input(buffer.data(), json.size());
  const auto a = testing::ReadJsonInto<Writer>(true, input, limits, options, true);
  const auto b = testing::ReadJsonInto<Writer>(false, input, limits, options, true);
  if (!testing::SameOutcome(a, b)) {
    return ::testing::AssertionFailure()
           << "indexed: " << (a.ok ? "ok" : a.status.ToString() + " path " + a.status.path)
           << "\nscalar:  " << (b.ok ? "ok" : b.status.ToString() + " path " + b.status.path)
           << "\noutputs equal: " << (a.output == b.output);
  }
  // Counted ahead, the output streamed through a small buffer; the scalar reader's
  // buffer held the whole of it.
  if (a.ok && a.buffer_capacity > 64 * 1024) {
    return ::testing::AssertionFailure() << "the output buffer grew to " << a.buffer_capacity;
  }
  *accepted = a.ok;
  return ::testing::AssertionSuccess();
}

std::string ContainersOfEveryHeadSize() {
  std::string doc = "{\"empty\":[[],{},[[]],{\"a\":{}}],\"deep\":";
  for (int i = 0; i < 100; ++i) doc += i % 2 ? "{\"d\":" : "[";
  doc += "0";
  for (int i = 99; i >= 0; --i) doc += i % 2 ? "}" : "]";
  for (const int n : {0, 1, 23, 24, 255, 256, 65535, 65536}) {
    doc += ",\"a" + std::to_string(n) + "\":[";
    for (int i = 0; i < n; ++i) doc += (i ? ",[" : "[") + std::to_string(i % 7) + "]";
    doc += "],\"m" + std::to_string(n) + "\":{";
    for (int i = 0; i < n; ++i)
      doc += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":{\"v\":[" + std::to_string(i) + "]}";
    doc += "}";
  }
  return doc + "}";
}

TEST(JsonIndexReader, LargeDocumentsCountedAheadReadAsTheScalarReaderReadsThem) {
  std::vector<std::string> docs = {ContainersOfEveryHeadSize(), Corpus("citm_catalog"),
                                   Corpus("canada"), Corpus("gsoc-2018")};
  for (const std::string& doc : docs) ASSERT_GE(doc.size(), kCountItemsFrom);
  MappingOptions allow;
  allow.allow_duplicate_keys = true;
  Limits shallow;
  shallow.max_depth = 20;  // the made-up document nests 100 deep
  std::mt19937_64 rng(20261202);
  int compared = 0, accepted = 0;
  for (int i = 0; i < 48; ++i) {
    const std::string& seed = docs[i % docs.size()];
    const std::string json = i < 4 ? seed : Mutate(seed, rng);
    const Limits limits = i % 6 == 5 ? shallow : Limits{};
    bool ok_cbor = false, ok_msgpack = false;
    ASSERT_TRUE(LargeAgree<CborWriter>(json, limits, allow, &ok_cbor)) << "case " << i;
    ASSERT_TRUE(LargeAgree<MsgpackWriter>(json, limits, allow, &ok_msgpack)) << "case " << i;
    EXPECT_EQ(ok_cbor, ok_msgpack) << "case " << i;
    ++compared;
    accepted += ok_cbor;
  }
  EXPECT_EQ(compared, 48);
  EXPECT_GE(accepted, 4);  // every seed, and whichever mutations stay valid
  EXPECT_LT(accepted, 40);
}

}  // namespace
}  // namespace rosetta::codec
