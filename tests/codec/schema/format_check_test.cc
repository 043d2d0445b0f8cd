// codec/src/schema/format_check.h against the official JSON Schema Test Suite: every case of
// tests/<draft>/optional/format/*.json, for every draft, through FormatId and CheckFormat
// (a non-string instance is valid without asking, as the validator does), with the number
// that pass asserted per draft. Then FormatId's table of which draft has which format, and a
// few cases the suite does not have.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#ifndef ROSETTA_DEFAULT_DATA_DIR
#define ROSETTA_DEFAULT_DATA_DIR "../shared/data"
#endif
#include "rosetta_test_data.h"
#include "schema/format_check.h"

namespace rosetta::codec::schema {
namespace {

struct SuiteDraft {
  const char* dir;
  Draft draft;
  int cases;   // in optional/format/
  int passed;  // of them, that agree with the suite
};

// Every case passes: the counts are the suite's own.
constexpr SuiteDraft kDrafts[] = {
    {"draft4", Draft::k4, 219, 219},          {"draft6", Draft::k6, 325, 325},
    {"draft7", Draft::k7, 676, 676},          {"draft2019-09", Draft::k2019, 757, 757},
    {"draft2020-12", Draft::k2020, 764, 764},
};

class FormatSuite : public ::testing::TestWithParam<SuiteDraft> {};

TEST_P(FormatSuite, AgreesWithTheSuite) {
  const SuiteDraft& d = GetParam();
  const std::filesystem::path dir = std::filesystem::path(rosetta::testing::DataDir()) /
                                    "conformance/json-schema-test-suite/tests" / d.dir /
                                    "optional/format";
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  ASSERT_FALSE(files.empty()) << "no suite files in " << dir << " (set ROSETTA_DATA_DIR)";
  std::sort(files.begin(), files.end());

  int cases = 0, passed = 0;
  for (const auto& file : files) {
    const auto groups = nlohmann::json::parse(rosetta::testing::ReadFile(file.string()));
    for (const auto& group : groups) {
      const std::string name = group.at("schema").at("format").get<std::string>();
      const uint8_t id = FormatId(name, d.draft);
      // A file named for a format (all but unknown.json) is one the draft asserts.
      if (file.stem() != "unknown") {
        EXPECT_NE(id, 0) << d.dir << ": " << name;
      }
      for (const auto& test : group.at("tests")) {
        ++cases;
        const auto& data = test.at("data");
        const bool valid =
            !data.is_string() || id == 0 || CheckFormat(id, data.get_ref<const std::string&>());
        if (valid == test.at("valid").get<bool>()) {
          ++passed;
        } else {
          ADD_FAILURE() << d.dir << "/" << file.filename().string() << ": "
                        << group.at("description").get<std::string>() << " / "
                        << test.at("description").get<std::string>() << ": " << data.dump()
                        << " is " << (valid ? "valid" : "invalid") << " here";
        }
      }
    }
  }
  EXPECT_EQ(cases, d.cases) << d.dir;
  EXPECT_EQ(passed, d.passed) << d.dir;
}

INSTANTIATE_TEST_SUITE_P(Drafts, FormatSuite, ::testing::ValuesIn(kDrafts), [](const auto& info) {
  std::string name = info.param.dir;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(FormatId, EachDraftHasItsFormats) {
  const std::vector<std::string_view> draft4 = {"date-time", "email", "hostname",
                                                "ipv4",      "ipv6",  "uri"};
  const std::vector<std::string_view> draft6 = {"uri-reference", "uri-template", "json-pointer"};
  const std::vector<std::string_view> draft7 = {
      "date", "time", "idn-email", "idn-hostname", "iri", "iri-reference", "relative-json-pointer",
      "regex"};
  const std::vector<std::string_view> draft2019 = {"duration", "uuid"};
  const std::vector<std::pair<Draft, int>> drafts = {
      {Draft::k4, 0}, {Draft::k6, 1}, {Draft::k7, 2}, {Draft::k2019, 3}, {Draft::k2020, 3}};
  const std::vector<std::string_view>* since[] = {&draft4, &draft6, &draft7, &draft2019};
  std::vector<uint8_t> ids;
  for (const auto& [draft, level] : drafts) {
    for (int s = 0; s < 4; ++s) {
      for (std::string_view name : *since[s]) {
        const uint8_t id = FormatId(name, draft);
        if (s <= level) {
          EXPECT_NE(id, 0) << name << " in draft " << static_cast<int>(draft);
          if (draft == Draft::k2020) ids.push_back(id);
        } else {
          EXPECT_EQ(id, 0) << name << " in draft " << static_cast<int>(draft);
        }
      }
    }
    EXPECT_EQ(FormatId("unknown", draft), 0);
    EXPECT_EQ(FormatId("", draft), 0);
    EXPECT_EQ(FormatId("Date-Time", draft), 0);  // names are case-sensitive
    EXPECT_EQ(FormatId("color", draft), 0);      // draft 3's, gone since
    EXPECT_EQ(FormatId("host-name", draft), 0);
  }
  // One id a format, and the same id in every draft that has it, but for two whose drafts
  // name different specifications: hostname (RFC 1034 in drafts 4 and 6; A-labels from
  // draft 7 on) and relative-json-pointer (index manipulation in 2020-12).
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  EXPECT_EQ(ids.size(), 19u);
  EXPECT_EQ(FormatId("email", Draft::k4), FormatId("email", Draft::k2020));
  EXPECT_EQ(FormatId("hostname", Draft::k4), FormatId("hostname", Draft::k6));
  EXPECT_NE(FormatId("hostname", Draft::k6), FormatId("hostname", Draft::k7));
  EXPECT_EQ(FormatId("hostname", Draft::k7), FormatId("hostname", Draft::k2020));
  EXPECT_EQ(FormatId("relative-json-pointer", Draft::k7),
            FormatId("relative-json-pointer", Draft::k2019));
  EXPECT_NE(FormatId("relative-json-pointer", Draft::k2019),
            FormatId("relative-json-pointer", Draft::k2020));
  for (std::string_view name : {"hostname", "relative-json-pointer"}) {
    EXPECT_EQ(std::count(ids.begin(), ids.end(), FormatId(name, Draft::k2020)), 1) << name;
  }
}

bool ValidIn(Draft draft, std::string_view format, std::string_view value) {
  return CheckFormat(FormatId(format, draft), value);
}

TEST(CheckFormat, DraftsNamingDifferentSpecifications) {
  // Drafts 4 and 6: an "xn--" label is an LDH label like any other.
  for (Draft d : {Draft::k4, Draft::k6}) {
    EXPECT_TRUE(ValidIn(d, "hostname", "xn--X.example"));
    EXPECT_TRUE(ValidIn(d, "hostname", "xn--al-0ea"));
    EXPECT_TRUE(ValidIn(d, "hostname", "1host"));
    EXPECT_TRUE(ValidIn(d, "hostname", "ab--cd.example"));
    EXPECT_FALSE(ValidIn(d, "hostname", "-a.example"));
    EXPECT_FALSE(ValidIn(d, "hostname", "a_b.example"));
  }
  for (Draft d : {Draft::k7, Draft::k2019, Draft::k2020}) {
    EXPECT_FALSE(ValidIn(d, "hostname", "xn--X.example"));
    EXPECT_FALSE(ValidIn(d, "hostname", "xn--al-0ea"));
    EXPECT_TRUE(ValidIn(d, "hostname", "xn--ll-0ea"));
    EXPECT_TRUE(ValidIn(d, "hostname", "ab--cd.example"));
  }
  // 2020-12's Relative JSON Pointer has an index manipulation after the integer.
  for (std::string_view rjp : {"0+1", "0-1", "1+10#", "2-0/a/b", "0+0/"}) {
    EXPECT_FALSE(ValidIn(Draft::k2019, "relative-json-pointer", rjp)) << rjp;
    EXPECT_TRUE(ValidIn(Draft::k2020, "relative-json-pointer", rjp)) << rjp;
  }
  for (std::string_view rjp : {"0+", "0-01", "0+-1", "+1", "0+1+1", "0+a", "0#+1"}) {
    EXPECT_FALSE(ValidIn(Draft::k2020, "relative-json-pointer", rjp)) << rjp;
  }
}

bool Valid(std::string_view format, std::string_view value) {
  return CheckFormat(FormatId(format, Draft::k2020), value);
}

TEST(CheckFormat, BeyondTheSuite) {
  // RFC 3339: leap seconds at 23:59:60 UTC only, whatever the offset; fractions of any length.
  EXPECT_TRUE(Valid("date-time", "2016-12-31T23:59:60Z"));
  EXPECT_TRUE(Valid("date-time", "2017-01-01T00:59:60+01:00"));
  EXPECT_FALSE(Valid("date-time", "2017-01-01T00:59:60+00:59"));
  EXPECT_FALSE(Valid("date-time", "2016-12-31T23:59:59.Z"));
  EXPECT_FALSE(Valid("date-time", "2016-12-31T"));
  EXPECT_FALSE(Valid("date-time", "2016-12-31 23:59:59Z"));
  EXPECT_FALSE(Valid("time", "23:59:59+01:00:00"));
  EXPECT_FALSE(Valid("time", "23:59:59+0100"));
  EXPECT_TRUE(Valid("date", "2000-02-29"));
  // Durations: RFC 3339 appendix A's ABNF, whose strings are case-insensitive.
  EXPECT_TRUE(Valid("duration", "P1Y2M3DT4H5M6S"));
  EXPECT_TRUE(Valid("duration", "p1dt2h"));
  EXPECT_TRUE(Valid("duration", "PT1S"));
  EXPECT_FALSE(Valid("duration", "P1MT"));
  EXPECT_FALSE(Valid("duration", "PT1H1H"));
  EXPECT_FALSE(Valid("duration", "P1M1Y"));
  EXPECT_FALSE(Valid("duration", "P1W1D"));
  EXPECT_FALSE(Valid("duration", "PW"));
  // IPv6: "::" stands for one group or more; the dotted quad is the last two.
  EXPECT_TRUE(Valid("ipv6", "1:2:3:4:5:6:7::"));
  EXPECT_TRUE(Valid("ipv6", "::2:3:4:5:6:7:8"));
  EXPECT_FALSE(Valid("ipv6", "1:2:3:4:5:6:7:8::"));
  EXPECT_FALSE(Valid("ipv6", "1:2:3:4:5:6:7::8"));
  EXPECT_TRUE(Valid("ipv6", "::1.2.3.4"));
  EXPECT_TRUE(Valid("ipv6", "1:2:3:4:5:6:1.2.3.4"));
  EXPECT_FALSE(Valid("ipv6", "1:2:3:4:5:6:7:1.2.3.4"));
  EXPECT_FALSE(Valid("ipv6", "::1.2.3.4:5"));
  EXPECT_FALSE(Valid("ipv6", ":"));
  EXPECT_FALSE(Valid("ipv6", ":::"));
  EXPECT_FALSE(Valid("ipv6", ""));
  EXPECT_TRUE(Valid("ipv4", "1.2.3.4"));
  EXPECT_FALSE(Valid("ipv4", "01.2.3.4"));
  EXPECT_FALSE(Valid("ipv4", "1.2.3.1000"));
  // Host names: upper case is fine, R-LDH labels that are not A-labels are not checked.
  EXPECT_TRUE(Valid("hostname", "WWW.Example.COM"));
  EXPECT_TRUE(Valid("hostname", "XN--9N2BP8Q.xn--9t4b11yi5a"));
  EXPECT_FALSE(Valid("hostname", "xn--"));
  EXPECT_FALSE(Valid("hostname", "a_b.com"));
  EXPECT_FALSE(Valid("hostname", std::string(64, 'a')));
  EXPECT_TRUE(Valid("hostname", std::string(63, 'a')));
  EXPECT_FALSE(Valid("hostname", "실례.테스트"));
  EXPECT_TRUE(Valid("idn-hostname", "실례.xn--9t4b11yi5a"));
  EXPECT_FALSE(Valid("idn-hostname", "Bücher.example"));  // not a U-label: upper case
  EXPECT_TRUE(Valid("idn-hostname", "bücher.example"));
  EXPECT_FALSE(Valid("idn-hostname",
                     "bu\xcc\x88"
                     "cher.example"));                   // not NFC
  EXPECT_FALSE(Valid("idn-hostname", "a\xff.example"));  // not UTF-8
  // E-mail: RFC 5321 Mailbox.
  EXPECT_TRUE(Valid("email", "a!#$%&'*+-/=?^_`{|}~z@example.com"));
  EXPECT_TRUE(Valid("email", "\"a\\\"b\"@example.com"));
  EXPECT_TRUE(Valid("email", "joe@localhost"));
  EXPECT_TRUE(Valid("email", "joe@[ipv6:1::2]"));
  EXPECT_FALSE(Valid("email", "joe@[1::2]"));
  EXPECT_FALSE(Valid("email", "\"a\"b@example.com"));
  EXPECT_FALSE(Valid("email", "joe@example..com"));
  EXPECT_FALSE(Valid("email", std::string(65, 'a') + "@example.com"));
  EXPECT_FALSE(Valid("email", "δοκιμή@example.com"));
  EXPECT_TRUE(Valid("idn-email", "δοκιμή@παράδειγμα.δοκιμή"));
  EXPECT_FALSE(Valid("idn-email", "joe@a。b"));  // only '.' between labels here
  // URIs and IRIs.
  EXPECT_TRUE(Valid("uri", "http:"));
  EXPECT_TRUE(Valid("uri", "http://u:p@[v7.x:y]:/p?q/?#f/?"));
  EXPECT_FALSE(Valid("uri", "http://[v7]/"));
  EXPECT_FALSE(Valid("uri", "http://[::1/"));
  EXPECT_FALSE(Valid("uri", "http://h/#f#g"));
  EXPECT_FALSE(Valid("uri", "http://h/?q=\xf3\xb0\x80\x80"));  // iprivate: an IRI's only
  EXPECT_TRUE(Valid("iri", "http://h/?q=\xf3\xb0\x80\x80"));
  EXPECT_FALSE(Valid("iri", "http://h/\xf3\xb0\x80\x80"));  // ... in its query only
  EXPECT_FALSE(Valid("iri", "http://h/\xc2\x85"));          // a C1 control is no ucschar
  EXPECT_TRUE(Valid("uri-reference", "a/b:c"));
  EXPECT_FALSE(Valid("uri-reference", "a:b:c\\"));
  // URI Templates.
  EXPECT_TRUE(Valid("uri-template", "/{+path}/{x,y*}{?q:3,r}{&s}{=reserved}"));
  EXPECT_FALSE(Valid("uri-template", "{x}}"));
  EXPECT_FALSE(Valid("uri-template", "{x{y}}"));
  EXPECT_FALSE(Valid("uri-template", "{x.}"));
  EXPECT_FALSE(Valid("uri-template", "{x:1*}"));
  EXPECT_FALSE(Valid("uri-template", "%4"));
  // JSON pointers.
  EXPECT_TRUE(Valid("relative-json-pointer", "0"));
  EXPECT_TRUE(Valid("relative-json-pointer", "10#"));
  EXPECT_FALSE(Valid("relative-json-pointer", "#"));
  EXPECT_FALSE(Valid("json-pointer", "/~"));
}

}  // namespace
}  // namespace rosetta::codec::schema
