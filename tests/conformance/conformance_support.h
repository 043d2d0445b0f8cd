#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rosetta/codec/transcode.h"
#include "rosetta_test_data.h"

// Helpers shared by the conformance suites: one-call transcodes through the public API,
// suite file listings, and value comparison on nlohmann/json trees. Expected values always
// come from the suites' own files, never from the codec.
namespace rosetta::conformance {

using codec::ErrorCode;
using codec::Format;
using codec::MappingOptions;
using codec::Status;

struct Outcome {
  Status status;
  std::string out;  // empty unless status.ok()
  bool ok() const { return status.ok(); }
};

// The input is handed over with kInputPadding readable bytes after it, as a server does.
inline Outcome Convert(Format from, Format to, std::string_view input,
                       const MappingOptions& options = {}, const codec::Limits& limits = {}) {
  std::string padded(input);
  padded.append(codec::kInputPadding, '\0');
  codec::TranscodeRequest request;
  request.from = from;
  request.to = to;
  request.input = std::string_view(padded.data(), input.size());
  request.input_padding = codec::kInputPadding;
  request.limits = limits;
  request.options = options;
  codec::OutputBuffer out;
  Outcome r;
  r.status = codec::Transcode(request, out);
  if (r.status.ok()) r.out.assign(out.view());
  return r;
}

inline Status Check(Format from, std::string_view input, const MappingOptions& options = {},
                    const codec::Limits& limits = {}) {
  std::string padded(input);
  padded.append(codec::kInputPadding, '\0');
  codec::TranscodeRequest request;
  request.from = from;
  request.input = std::string_view(padded.data(), input.size());
  request.input_padding = codec::kInputPadding;
  request.limits = limits;
  request.options = options;
  return codec::Validate(request);
}

inline std::filesystem::path DataPath(std::string_view relative) {
  return std::filesystem::path(rosetta::testing::DataDir()) / relative;
}

// Regular files in `dir` whose name starts with `prefix`, sorted by name.
inline std::vector<std::filesystem::path> ListFiles(const std::filesystem::path& dir,
                                                    std::string_view prefix = {}) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().filename().string().starts_with(prefix))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "c4-01-01" or "d8 18" -> bytes (the suites' spellings).
inline std::string Unhex(std::string_view hex) {
  std::string bytes;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int high = -1;
  for (char c : hex) {
    int v = nibble(c);
    if (v < 0) continue;
    if (high < 0) {
      high = v;
    } else {
      bytes.push_back(static_cast<char>(high << 4 | v));
      high = -1;
    }
  }
  return bytes;
}

inline std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

// Parses without exceptions; a discarded value when nlohmann refuses the text.
inline nlohmann::json ParseJson(std::string_view text) {
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// As ParseJson, but an integer past 64 bits (which nlohmann would round to a double) is kept
// as its exact decimal text, held in a binary value so that it equals only the same digits.
class ExactNumbers {
 public:
  using json = nlohmann::json;
  explicit ExactNumbers(json& root) : dom_(root, /*allow_exceptions=*/false) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    if (text.find_first_of(".eE") != std::string::npos) return dom_.number_float(v, text);
    json::binary_t digits(std::vector<uint8_t>(text.begin(), text.end()));
    return dom_.binary(digits);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(json::string_t& k) { return dom_.key(k); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  bool parse_error(std::size_t at, const std::string& token, const nlohmann::detail::exception& e) {
    return dom_.parse_error(at, token, e);
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

inline nlohmann::json ParseJsonExact(std::string_view text) {
  nlohmann::json root;
  ExactNumbers sax(root);
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &sax))
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return root;
}

// Equal as JSON values: numbers numerically (two integers exactly, with their sign; a double
// on either side compares as doubles), object members whatever their order.
inline bool SameValue(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    const bool a_negative =
        a.is_number_integer() && !a.is_number_unsigned() && a.get<int64_t>() < 0;
    const bool b_negative =
        b.is_number_integer() && !b.is_number_unsigned() && b.get<int64_t>() < 0;
    if (a_negative != b_negative) return false;
    return a_negative ? a.get<int64_t>() == b.get<int64_t>()
                      : a.get<uint64_t>() == b.get<uint64_t>();
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameValue(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !SameValue(it.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace rosetta::conformance
