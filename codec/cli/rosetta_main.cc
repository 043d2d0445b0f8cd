// rosetta: the command-line transcoder and validator (contract in DESIGN.md "CLI").
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compare.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

namespace {

using rosetta::codec::ErrorCode;
using rosetta::codec::Format;
using rosetta::codec::Status;

constexpr char kUsage[] =
    "usage: rosetta transcode --from FMT --to FMT [LIMIT OPTIONS] [INPUT|-] [-o OUTPUT]\n"
    "       rosetta validate --format FMT [LIMIT OPTIONS] [INPUT|-]\n"
    "       rosetta compare [--format FMT] FILE     format report: sizes, zstd, MB/s (compare --help)\n"
    "FMT: json | cbor | msgpack | protobuf (protobuf adds --descriptor-set FILE --message-type NAME)\n"
    "LIMIT OPTIONS: --max-input-bytes N --max-output-bytes N --max-depth N --max-string-bytes N\n"
    "               --max-items N --max-alloc-bytes N\n"
    "OTHER OPTIONS: --allow-duplicate-keys      accept repeated map keys (refused by default, RFC 7493)\n"
    "               --base64-standard           bytes into JSON as base64 with padding (default base64url)\n"
    "               --nonfinite-as-null         NaN and infinities into JSON as null (default: refused)\n"
    "               --bignum-as-double          bignums into MessagePack as doubles (default: refused)\n"
    "               --reject-unknown-fields     protobuf input: unknown field numbers refused (default: skipped)\n"
    "               --ignore-unknown-fields     protobuf output: unknown member names skipped (default: refused)\n"
    "exit 0: done; 1: input refused (one line on stderr: rosetta: CODE at byte OFFSET (PATH): MESSAGE);\n"
    "2: usage or I/O error\n";

[[noreturn]] void UsageError(const std::string& message) {
  std::fprintf(stderr, "rosetta: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

[[noreturn]] void IoError(const std::string& message) {
  std::fprintf(stderr, "rosetta: %s\n", message.c_str());
  std::exit(2);
}

[[noreturn]] void Refused(const Status& s) {
  std::string line = "rosetta: " + std::string(CodeName(s.code)) + " at byte " + std::to_string(s.offset);
  if (!s.path.empty()) line += " (" + s.path + ")";
  line += ": " + s.message + "\n";
  std::fputs(line.c_str(), stderr);
  std::exit(1);
}

template <class T>
T ParseNumber(std::string_view flag, const char* text) {
  T v{};
  std::string_view s(text);
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v == 0) {
    UsageError(std::string(flag) + " needs a positive integer, got '" + std::string(s) + "'");
  }
  return v;
}

Format ParseFormatFlag(std::string_view flag, const char* text) {
  auto f = rosetta::codec::ParseFormat(text);
  if (!f) UsageError(std::string(flag) + ": unknown format '" + text + "' (json, cbor, msgpack, protobuf)");
  return *f;
}

// Reads all of a file or stdin, refusing more than max bytes; leaves kInputPadding zeroed
// bytes after the data so the JSON reader needs no copy.
std::vector<char> ReadInput(const std::string& path, uint64_t max, size_t* size) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) IoError("cannot open " + path + ": " + std::strerror(errno));
  std::vector<char> buf(64 * 1024);
  size_t n = 0;
  for (;;) {
    if (buf.size() - n < rosetta::codec::kInputPadding + 1) buf.resize(buf.size() * 2);
    size_t want = buf.size() - n - rosetta::codec::kInputPadding;
    size_t got = std::fread(buf.data() + n, 1, want, f);
    n += got;
    if (n > max) {
      Status s;
      s.code = ErrorCode::kInputTooLarge;
      s.offset = max;
      s.message = "input passes max_input_bytes " + std::to_string(max);
      Refused(s);
    }
    if (got < want) {
      if (std::ferror(f)) IoError("cannot read " + path + ": " + std::strerror(errno));
      break;
    }
  }
  if (f != stdin) std::fclose(f);
  std::memset(buf.data() + n, 0, buf.size() - n);
  *size = n;
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) UsageError("missing command");
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "compare") return rosetta::cli::RunCompare(argc - 2, argv + 2);
  const bool transcode = command == "transcode";
  if (!transcode && command != "validate") UsageError("unknown command '" + std::string(command) + "'");

  rosetta::codec::TranscodeRequest request;
  bool have_from = false, have_to = false;
  std::string input_path = "-", output_path;
  bool have_input = false;
  std::vector<std::string> descriptor_sets;
  std::string message_type;
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) UsageError(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (transcode && a == "--from") {
      request.from = ParseFormatFlag(a, value());
      have_from = true;
    } else if (transcode && a == "--to") {
      request.to = ParseFormatFlag(a, value());
      have_to = true;
    } else if (!transcode && a == "--format") {
      request.from = ParseFormatFlag(a, value());
      have_from = true;
    } else if (a == "--max-input-bytes") {
      request.limits.max_input_bytes = ParseNumber<uint64_t>(a, value());
    } else if (a == "--max-output-bytes") {
      request.limits.max_output_bytes = ParseNumber<uint64_t>(a, value());
    } else if (a == "--max-depth") {
      request.limits.max_depth = ParseNumber<uint32_t>(a, value());
    } else if (a == "--max-string-bytes") {
      request.limits.max_string_bytes = ParseNumber<uint64_t>(a, value());
    } else if (a == "--max-items") {
      request.limits.max_items = ParseNumber<uint64_t>(a, value());
    } else if (a == "--max-alloc-bytes") {
      request.limits.max_alloc_bytes = ParseNumber<uint64_t>(a, value());
    } else if (a == "--allow-duplicate-keys") {
      request.options.allow_duplicate_keys = true;
    } else if (a == "--base64-standard") {
      request.options.base64_standard = true;
    } else if (a == "--nonfinite-as-null") {
      request.options.nonfinite_as_null = true;
    } else if (a == "--bignum-as-double") {
      request.options.bignum_as_double = true;
    } else if (transcode && a == "-o") {
      output_path = value();
    } else if (a == "--descriptor-set") {
      descriptor_sets.emplace_back(value());
    } else if (a == "--message-type") {
      message_type = value();
    } else if (a == "--reject-unknown-fields") {
      request.options.reject_unknown_fields = true;
    } else if (a == "--ignore-unknown-fields") {
      request.options.ignore_unknown_fields = true;
    } else if (a == "-" || !a.starts_with("-")) {
      if (have_input) UsageError("more than one input");
      input_path = std::string(a);
      have_input = true;
    } else {
      UsageError("unknown option '" + std::string(a) + "'");
    }
  }
  if (transcode && (!have_from || !have_to)) UsageError("transcode needs --from and --to");
  if (!transcode && !have_from) UsageError("validate needs --format");
  if (request.limits.max_depth > 100000) UsageError("--max-depth above 100000");

  const bool protobuf = request.from == Format::kProtobuf || (transcode && request.to == Format::kProtobuf);
  std::unique_ptr<rosetta::codec::Schema> schema;
  if (protobuf) {
    if (descriptor_sets.empty() || message_type.empty()) UsageError("protobuf needs --descriptor-set FILE and --message-type NAME");
    std::string error;
    schema = rosetta::codec::Schema::Load(descriptor_sets, &error);
    if (!schema) IoError(error);
    rosetta::codec::EnableProtobufFormat();
    request.schema = schema.get();
    request.message_type = message_type;
  }

  size_t size = 0;
  std::vector<char> input = ReadInput(input_path, request.limits.max_input_bytes, &size);
  request.input = std::string_view(input.data(), size);
  request.input_padding = input.size() - size;

  if (!transcode) {
    Status s = rosetta::codec::Validate(request);
    if (!s.ok()) Refused(s);
    return 0;
  }
  rosetta::codec::OutputBuffer out;
  Status s = rosetta::codec::Transcode(request, out);
  if (!s.ok()) Refused(s);
  FILE* f = output_path.empty() || output_path == "-" ? stdout : std::fopen(output_path.c_str(), "wb");
  if (f == nullptr) IoError("cannot open " + output_path + ": " + std::strerror(errno));
  if (std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fflush(f) != 0) {
    IoError("cannot write output: " + std::string(std::strerror(errno)));
  }
  if (f != stdout) std::fclose(f);
  return 0;
}
