// rosetta: the command-line transcoder and validator (contract in DESIGN.md "CLI" and
// "Second wave"; the input and output paths are docs/cli.md's).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rosetta/codec/json_schema.h"
#include "rosetta/codec/schema.h"
#include "rosetta/codec/sequence.h"
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
      "       rosetta validate --format FMT [--schema FILE] [LIMIT OPTIONS] [INPUT|-]\n"
      "       rosetta help\n"
      "FMT: json | cbor | msgpack | protobuf | fixed (protobuf and fixed add --descriptor-set "
      "FILE\n"
      "     --message-type NAME; fixed: records of a message type whose fields all have a "
      "fixed size)\n"
      "SEQUENCES: --seq                    the input (and output) is a sequence of records: JSON "
      "Lines,\n"
      "                                    CBOR sequence, MessagePack values back to back, "
      "protobuf\n"
      "                                    messages each after its varint length, fixed records "
      "back\n"
      "                                    to back; read one at a time\n"
      "           --keep-going             --seq: a refused record is reported and skipped "
      "(exit 1)\n"
      "JSON SCHEMA: --schema FILE          validate the payload against it in the same pass "
      "(transcode:\n"
      "                                    output only for a valid payload); drafts 4 to 2020-12\n"
      "           --schema-dir DIR         more schemas its $refs may name (every *.json in DIR)\n"
      "           --all-errors             every violation, one line each (max_violations, 16)\n"
      "           --max-violations N       at most N violations with --all-errors\n"
      "-o OUTPUT: written as a temporary file beside it, renamed to OUTPUT when done (a refused "
      "input\n"
      "           leaves no file); without it the output streams to stdout\n";
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

// Set while there is something to undo before an early exit (a temporary output file)
// or to take off the terminal (a progress line).
void (*g_cleanup)() = nullptr;

[[noreturn]] void IoError(const std::string& message) {
  if (g_cleanup) g_cleanup();
  std::fprintf(stderr, "rosetta: %s\n", message.c_str());
  std::exit(2);
}

[[noreturn]] void Refused(const Status& s, const std::vector<Status>* all = nullptr) {
  if (g_cleanup) g_cleanup();
  if (all != nullptr && !all->empty() && s.code == rosetta::codec::ErrorCode::kSchemaViolation) {
    for (const Status& v : *all) {
      const std::string line = "rosetta: " + v.ToString(true) + "\n";
      std::fputs(line.c_str(), stderr);
    }
  } else {
    const std::string line = "rosetta: " + s.ToString(true) + "\n";
    std::fputs(line.c_str(), stderr);
  }
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
    UsageError(std::string(flag) + ": unknown format '" + text + "' (" +
               rosetta::codec::FormatList() + ")");
  return *f;
}

// A progress line on stderr (bytes, records, MB/s) once a run has taken two seconds, and
// only when stderr is a terminal; redrawn at most four times a second.
class Progress {
 public:
  Progress() : on_(isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {}
  void Update(uint64_t bytes, uint64_t records) {
    if (!on_) return;
    const Clock::time_point now = Clock::now();
    if (now - start_ < std::chrono::seconds(2) || now - last_ < std::chrono::milliseconds(250))
      return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    char line[160];
    const int n =
        std::snprintf(line, sizeof line, "\rrosetta: %.1f MB, %llu records, %.1f MB/s ",
                      bytes / 1e6, static_cast<unsigned long long>(records), bytes / 1e6 / s);
    if (n > 0 && ::write(STDERR_FILENO, line, static_cast<size_t>(n)) < 0) on_ = false;
    shown_ = true;
  }
  // Takes the line away before anything else is printed.
  void Clear() {
    if (shown_ && ::write(STDERR_FILENO, "\r\033[K", 4) < 0) on_ = false;
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};
Progress* g_progress = nullptr;

// Where the output goes: stdout, or (-o FILE) a temporary file in FILE's directory that
// is renamed to FILE once the run has succeeded, and removed otherwise.
class Output {
 public:
  explicit Output(const std::string& path) : path_(path) {
    if (path.empty() || path == "-") return;
    const size_t slash = path.rfind('/');
    temp_ = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + "." +
            path.substr(slash == std::string::npos ? 0 : slash + 1) + ".rosetta-XXXXXX";
    fd_ = mkstemp(temp_.data());
    if (fd_ < 0) IoError("cannot create " + path + ": " + std::strerror(errno));
    // mkstemp makes it 0600: give the file the mode a plain open would have.
    const mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd_, 0666 & ~mask) != 0)
      IoError("cannot create " + path + ": " + std::strerror(errno));
  }
  ~Output() { Discard(); }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // The input file's bytes are mapped at `data` (n of them, from offset `at` of fd): a
  // piece of output that is a run of them (a blob of 64 KiB or more, which OutputBuffer
  // hands over straight from the input) is copied file to file in the kernel.
  void SetSource(const char* data, size_t n, int fd, uint64_t at) {
    source_ = data;
    source_size_ = n;
    source_fd_ = fd;
    source_at_ = at;
  }

  bool Write(const char* p, size_t n) {
    if (n >= rosetta::codec::OutputBuffer::kBlobBytes && source_fd_ >= 0 && p >= source_ &&
        n <= source_size_ && static_cast<size_t>(p - source_) <= source_size_ - n) {
      const size_t done = CopyFromSource(source_at_ + static_cast<uint64_t>(p - source_), n);
      p += done;
      n -= done;
    }
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
      written_ += static_cast<uint64_t>(w);
    }
    return true;
  }
  // n bytes of the input file from offset `from`, appended to the output by the kernel,
  // page cache to page cache: copy_file_range(2) between regular files, else sendfile(2)
  // (the output may be a pipe). A 256 MiB byte string goes 2.7x as fast as by write(2)
  // from the mapping (docs/cli.md). Returns how many bytes it moved: the caller writes the
  // rest (the kernel cannot for these files, e.g. an output opened O_APPEND).
  size_t CopyFromSource(uint64_t from, size_t n) {
    size_t done = 0;
    while (done < n && copy_ != kCopyNone) {
      ssize_t w;
      if (copy_ == kCopyRange) {
        loff_t off = static_cast<loff_t>(from + done);
        w = copy_file_range(source_fd_, &off, fd_, nullptr, n - done, 0);
      } else {
        off_t off = static_cast<off_t>(from + done);
        w = sendfile(fd_, source_fd_, &off, n - done);
      }
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {  // not for these files: the next way, or write(2)
        copy_ = copy_ == kCopyRange ? kCopySendfile : kCopyNone;
        continue;
      }
      done += static_cast<size_t>(w);
      written_ += static_cast<uint64_t>(w);
    }
    return done;
  }
  static bool FlushTo(void* self, const char* p, size_t n) {
    Output* o = static_cast<Output*>(self);
    const bool ok = o->Write(p, n);
    if (g_progress) g_progress->Update(o->written_, o->records_);
    return ok;
  }
  [[noreturn]] void WriteFailed() {
    IoError("cannot write " + (temp_.empty() ? std::string("output") : path_) + ": " +
            std::strerror(error_));
  }
  // Keeps the output: the temporary file becomes OUTPUT.
  void Commit() {
    if (temp_.empty()) return;
    if (::close(fd_) != 0) {
      error_ = errno;
      WriteFailed();
    }
    fd_ = -1;
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
      IoError("cannot rename " + temp_ + " to " + path_ + ": " + std::strerror(errno));
    temp_.clear();
  }
  // Removes the temporary file (a refused input leaves no file).
  void Discard() {
    if (temp_.empty()) return;
    ::close(fd_);
    ::unlink(temp_.c_str());
    temp_.clear();
  }
  uint64_t* records() { return &records_; }

 private:
  std::string path_, temp_;
  int fd_ = STDOUT_FILENO;
  int error_ = 0;
  uint64_t written_ = 0, records_ = 0;
  const char* source_ = nullptr;
  size_t source_size_ = 0;
  int source_fd_ = -1;
  uint64_t source_at_ = 0;
  enum { kCopyRange, kCopySendfile, kCopyNone } copy_ = kCopyRange;
};
Output* g_output = nullptr;

void Cleanup() {
  if (g_progress) g_progress->Clear();
  if (g_output) g_output->Discard();
}

// A pipe's buffer is 64 KiB: with 1 MiB the writer and rosetta take turns far less often.
void WidenPipe(int fd) {
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

// The whole input of one document, with kInputPadding readable zero bytes after it so the
// JSON reader needs no copy. A regular file is mapped: its pages, then zeroed ones after
// it; nothing is copied. A pipe is read in large chunks into a buffer that grows by
// realloc (which moves large blocks by remapping, not copying).
class Input {
 public:
  Input(const std::string& path, uint64_t max) {
    fd_ = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) IoError("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      const off_t at = path == "-" ? lseek(fd_, 0, SEEK_CUR) : 0;
      if (at >= 0 && st.st_size >= at) {
        Map(path, static_cast<uint64_t>(st.st_size - at), static_cast<uint64_t>(at), max);
        return;
      }
    }
    WidenPipe(fd_);
    ReadAll(path, max);
  }
  ~Input() {
    if (map_ != nullptr) munmap(map_, map_size_);
    std::free(buf_);
    if (fd_ > STDERR_FILENO) ::close(fd_);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  std::string_view data() const { return {data_, size_}; }
  size_t padding() const { return padding_; }
  // A mapped file: its descriptor and the file offset of data()'s first byte (-1: read
  // from a pipe).
  int file_fd() const { return map_ != nullptr ? fd_ : -1; }
  uint64_t file_offset() const { return file_offset_; }

 private:
  [[noreturn]] static void TooLarge(uint64_t max) {
    Status s;
    s.code = ErrorCode::kInputTooLarge;
    s.offset = max;
    s.message = "input passes max_input_bytes " + std::to_string(max);
    Refused(s);
  }
  void Map(const std::string& path, uint64_t size, uint64_t at, uint64_t max) {
    if (size > max) TooLarge(max);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t skip = static_cast<size_t>(at % page);  // the map starts on a page
    map_size_ = (skip + size + rosetta::codec::kInputPadding + page - 1) / page * page;
    // Zeroed pages for the whole span, then the file over their start.
    void* span = mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (span == MAP_FAILED) IoError("cannot map " + path + ": " + std::strerror(errno));
    map_ = static_cast<char*>(span);
    if (size > 0 && mmap(span, skip + size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd_,
                         static_cast<off_t>(at - skip)) == MAP_FAILED) {
      IoError("cannot map " + path + ": " + std::strerror(errno));
    }
    data_ = map_ + skip;
    size_ = static_cast<size_t>(size);
    file_offset_ = at;
    padding_ = map_size_ - skip - size_;
  }
  void ReadAll(const std::string& path, uint64_t max) {
    size_t cap = size_t{1} << 20, n = 0;
    const size_t pad = rosetta::codec::kInputPadding;
    for (;;) {
      if (cap - n < pad + (size_t{1} << 16)) {
        cap *= 2;
        char* p = static_cast<char*>(std::realloc(buf_, cap));
        if (p == nullptr) IoError("out of memory reading " + path);
        buf_ = p;
      } else if (buf_ == nullptr) {
        buf_ = static_cast<char*>(std::malloc(cap));
        if (buf_ == nullptr) IoError("out of memory reading " + path);
      }
      const ssize_t got = ::read(fd_, buf_ + n, cap - n - pad);
      if (got < 0) {
        if (errno == EINTR) continue;
        IoError("cannot read " + path + ": " + std::strerror(errno));
      }
      if (got == 0) break;
      n += static_cast<size_t>(got);
      if (n > max) TooLarge(max);
      if (g_progress) g_progress->Update(n, 0);
    }
    std::memset(buf_ + n, 0, pad);
    data_ = buf_;
    size_ = n;
    padding_ = cap - n;
  }

  int fd_ = -1;
  char* map_ = nullptr;
  size_t map_size_ = 0;
  char* buf_ = nullptr;
  const char* data_ = "";
  size_t size_ = 0, padding_ = 0;
  uint64_t file_offset_ = 0;
};

// --seq: records read from the input a chunk at a time.
struct SequenceInput {
  int fd;
  const rosetta::codec::SequenceProgress* progress;
  static ptrdiff_t Read(void* arg, char* p, size_t n) {
    auto* in = static_cast<SequenceInput*>(arg);
    for (;;) {
      const ssize_t got = ::read(in->fd, p, n);
      if (got < 0 && errno == EINTR) continue;
      if (g_progress && got > 0)
        g_progress->Update(in->progress->input_bytes + static_cast<uint64_t>(got),
                           in->progress->records);
      return got;
    }
  }
};

void PrintRefused(void*, const Status& s) {
  if (g_progress) g_progress->Clear();
  const std::string line = "rosetta: " + s.ToString(true) + "\n";
  std::fputs(line.c_str(), stderr);
}

int RunSeq(rosetta::codec::SequenceRequest& sr, const std::string& input_path, Output* out) {
  const int fd =
      input_path == "-" ? STDIN_FILENO : ::open(input_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) IoError("cannot open " + input_path + ": " + std::strerror(errno));
  WidenPipe(fd);
  rosetta::codec::SequenceProgress progress;
  SequenceInput in{fd, &progress};
  sr.read = &SequenceInput::Read;
  sr.read_arg = &in;
  sr.on_error = &PrintRefused;
  rosetta::codec::OutputBuffer buffer;
  if (out != nullptr) buffer.SetFlush(&Output::FlushTo, out);
  rosetta::codec::RunSequence(sr, buffer, &progress);
  if (fd > STDERR_FILENO) ::close(fd);
  if (buffer.flush_failed()) out->WriteFailed();
  if (progress.read_failed) IoError("cannot read " + input_path + ": " + std::strerror(errno));
  if (out != nullptr) {
    // Without --keep-going a refused record leaves no file; with it, the file has every
    // good record.
    if (progress.refused > 0 && !sr.keep_going) {
      out->Discard();
    } else {
      out->Commit();
    }
  }
  if (g_progress) g_progress->Clear();
  return progress.refused > 0 ? 1 : 0;
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
  bool have_input = false, seq = false, keep_going = false;
  std::vector<std::string> descriptor_sets;
  std::string message_type;
  std::string schema_file, schema_dir;
  bool all_errors = false;
  std::vector<Status> violations;
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
    } else if (a == "--seq") {
      seq = true;
    } else if (a == "--keep-going") {
      keep_going = true;
    } else if (transcode && a == "-o") {
      output_path = value();
    } else if (a == "--descriptor-set") {
      descriptor_sets.emplace_back(value());
    } else if (a == "--message-type") {
      message_type = value();
    } else if (a == "--schema") {
      schema_file = value();
    } else if (a == "--schema-dir") {
      schema_dir = value();
    } else if (a == "--all-errors") {
      all_errors = true;
    } else if (a == "--max-violations") {
      request.max_violations = ParseNumber<uint32_t>(a, value());
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
  if (keep_going && !seq) UsageError("--keep-going needs --seq");
  if (seq && transcode && request.to == Format::kJson && request.options.pretty)
    UsageError("--pretty writes JSON over several lines: not a JSON Lines sequence (--seq)");

  // protobuf and fixed are read and written through descriptors.
  const bool needs_schema = rosetta::codec::Info(request.from).needs_schema ||
                            (transcode && rosetta::codec::Info(request.to).needs_schema);
  std::unique_ptr<rosetta::codec::Schema> schema;
  if (needs_schema) {
    if (descriptor_sets.empty() || message_type.empty())
      UsageError("protobuf and fixed need --descriptor-set FILE and --message-type NAME");
    std::string error;
    schema = rosetta::codec::Schema::Load(descriptor_sets, &error);
    if (!schema) IoError(error);
    request.schema = schema.get();
    request.message_type = message_type;
  }

  // JSON Schema: compiled once, before any input is read.
  std::shared_ptr<const rosetta::codec::JsonSchemaSet> json_schemas;
  if (!schema_dir.empty() && schema_file.empty()) UsageError("--schema-dir needs --schema FILE");
  if (all_errors && schema_file.empty()) UsageError("--all-errors needs --schema FILE");
  if (!schema_file.empty()) {
    std::string error;
    json_schemas = rosetta::codec::JsonSchemaSet::LoadFile(schema_file, schema_dir, &error);
    if (!json_schemas) IoError(error);
    std::string name = schema_file;
    if (const size_t slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
    if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
    request.json_schema = json_schemas->Find(name);
    if (request.json_schema == nullptr) IoError(schema_file + ": not loaded");
    if (all_errors) request.violations = &violations;
  }

  Progress progress;
  g_progress = &progress;
  g_cleanup = &Cleanup;
  std::unique_ptr<Output> out;
  if (transcode) {
    out = std::make_unique<Output>(output_path);
    g_output = out.get();
  }
  if (seq) {
    rosetta::codec::SequenceRequest sr;
    sr.record = request;
    sr.validate = !transcode;
    sr.keep_going = keep_going;
    return RunSeq(sr, input_path, out.get());
  }

  Input input(input_path, request.limits.max_input_bytes);
  request.input = input.data();
  request.input_padding = input.padding();
  if (!transcode) {
    Status s = rosetta::codec::Validate(request);
    progress.Clear();
    if (!s.ok()) Refused(s, &violations);
    return 0;
  }
  // The output streams to its file as it is written, a chunk at a time.
  if (input.file_fd() >= 0)
    out->SetSource(input.data().data(), input.data().size(), input.file_fd(), input.file_offset());
  rosetta::codec::OutputBuffer buffer;
  // With a JSON Schema, stdout gets nothing before the payload is known to be valid (a
  // file under -o is a temporary until then, so it may stream).
  if (request.json_schema == nullptr || !output_path.empty())
    buffer.SetFlush(&Output::FlushTo, out.get());
  Status s = rosetta::codec::Transcode(request, buffer);
  if (buffer.flush_failed()) out->WriteFailed();
  if (!s.ok()) Refused(s, &violations);
  // What is left (all of it when a writer held it, or when it needed a schema).
  if (!buffer.Flush() || (buffer.size() > 0 && !out->Write(buffer.data(), buffer.size())))
    out->WriteFailed();
  out->Commit();
  progress.Clear();
  return 0;
}
