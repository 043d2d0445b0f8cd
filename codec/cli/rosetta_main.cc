// rosetta: the command-line transcoder and validator (contract in DESIGN.md "CLI").
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/schema.h"
#include "rosetta/codec/transcode.h"

namespace {

// "max_input_bytes" -> "--max-input-bytes"
std::string Flag(std::string_view name) {
  std::string f = "--";
  for (char c : name) f += c == '_' ? '-' : c;
  return f;
}

using rosetta::codec::ErrorCode;
using rosetta::codec::Format;
using rosetta::codec::Status;

// Usage, with the limit and option flags made from their tables (limits.h, options.h).
std::string Usage() {
  std::string u =
      "usage: rosetta transcode --from FMT --to FMT [LIMIT OPTIONS] [INPUT|-] [-o OUTPUT]\n"
      "       rosetta validate --format FMT [LIMIT OPTIONS] [INPUT|-]\n"
      "FMT: json | cbor | msgpack | protobuf (protobuf adds --descriptor-set FILE --message-type "
      "NAME)\n";
  auto row = [&u](std::string_view head, std::string flag, std::string_view meaning) {
    u += head;
    u += flag;
    u.append(flag.size() < 26 ? 26 - flag.size() : 1, ' ');
    u += meaning;
    u += '\n';
  };
  bool first = true;
  for (const rosetta::codec::LimitInfo& l : rosetta::codec::kLimitTable) {
    row(first ? "LIMIT OPTIONS: " : "               ", Flag(l.name) + " N", l.meaning);
    first = false;
  }
  first = true;
  for (const rosetta::codec::OptionInfo& o : rosetta::codec::kOptionTable) {
    if (!o.available) continue;
    row(first ? "OTHER OPTIONS: " : "               ", Flag(o.name), o.meaning);
    first = false;
  }
  u += "exit 0: done; 1: input refused (one line on stderr: rosetta: CODE at byte OFFSET (PATH): "
       "MESSAGE);\n"
       "2: usage or I/O error\n";
  return u;
}

[[noreturn]] void UsageError(const std::string& message) {
  std::fprintf(stderr, "rosetta: %s\n%s", message.c_str(), Usage().c_str());
  std::exit(2);
}

[[noreturn]] void IoError(const std::string& message) {
  std::fprintf(stderr, "rosetta: %s\n", message.c_str());
  std::exit(2);
}

[[noreturn]] void Refused(const Status& s) {
  const std::string line = "rosetta: " + s.ToString(true) + "\n";
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

const rosetta::codec::LimitInfo* LimitFlag(std::string_view a) {
  for (const rosetta::codec::LimitInfo& l : rosetta::codec::kLimitTable) {
    if (a == Flag(l.name)) return &l;
  }
  return nullptr;
}

// Only the options this build has are flags: the others are not offered.
const rosetta::codec::OptionInfo* OptionFlag(std::string_view a) {
  for (const rosetta::codec::OptionInfo& o : rosetta::codec::kOptionTable) {
    if (o.available && a == Flag(o.name)) return &o;
  }
  return nullptr;
}

Format ParseFormatFlag(std::string_view flag, const char* text) {
  auto f = rosetta::codec::ParseFormat(text);
  if (!f)
    UsageError(std::string(flag) + ": unknown format '" + text +
               "' (json, cbor, msgpack, protobuf)");
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
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  const bool transcode = command == "transcode";
  if (!transcode && command != "validate")
    UsageError("unknown command '" + std::string(command) + "'");

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
    if (a == "--help" || a == "-h") {  // rosetta transcode --help, rosetta validate --help
      std::fputs(Usage().c_str(), stdout);
      return 0;
    }
    if (transcode && a == "--from") {
      request.from = ParseFormatFlag(a, value());
      have_from = true;
    } else if (transcode && a == "--to") {
      request.to = ParseFormatFlag(a, value());
      have_to = true;
    } else if (!transcode && a == "--format") {
      request.from = ParseFormatFlag(a, value());
      have_from = true;
    } else if (const rosetta::codec::LimitInfo* limit = LimitFlag(a)) {
      const uint64_t n = ParseNumber<uint64_t>(a, value());
      if (n > limit->hard_cap)
        UsageError(std::string(a) + " above " + std::to_string(limit->hard_cap));
      limit->set(request.limits, n);
    } else if (const rosetta::codec::OptionInfo* option = OptionFlag(a)) {
      request.options.*option->field = true;
    } else if (transcode && a == "-o") {
      output_path = value();
    } else if (a == "--descriptor-set") {
      descriptor_sets.emplace_back(value());
    } else if (a == "--message-type") {
      message_type = value();
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

  const bool protobuf =
      request.from == Format::kProtobuf || (transcode && request.to == Format::kProtobuf);
  std::unique_ptr<rosetta::codec::Schema> schema;
  if (protobuf) {
    if (descriptor_sets.empty() || message_type.empty())
      UsageError("protobuf needs --descriptor-set FILE and --message-type NAME");
    std::string error;
    schema = rosetta::codec::Schema::Load(descriptor_sets, &error);
    if (!schema) IoError(error);
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
  FILE* f =
      output_path.empty() || output_path == "-" ? stdout : std::fopen(output_path.c_str(), "wb");
  if (f == nullptr) IoError("cannot open " + output_path + ": " + std::strerror(errno));
  if (std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fflush(f) != 0) {
    IoError("cannot write output: " + std::string(std::strerror(errno)));
  }
  if (f != stdout) std::fclose(f);
  return 0;
}
