#include "rosetta/codec/sequence.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "record.h"
#include "rosetta/codec/format.h"

namespace rosetta::codec {

namespace {

constexpr ptrdiff_t kNeedMore = 0;
constexpr ptrdiff_t kMalformed = -1;

// The length of the one CBOR data item at p, from its heads alone (nothing decoded):
// kNeedMore when the n bytes end inside it, kMalformed when it is not well-formed or nests
// deeper than max_depth. Only used to step over a refused record (keep_going).
ptrdiff_t CborExtent(const uint8_t* p, size_t n, uint32_t max_depth) {
  constexpr uint64_t kIndefinite = ~uint64_t{0};
  std::vector<uint64_t> open{1};  // items still due at each level; kIndefinite until a break
  size_t pos = 0;
  while (!open.empty()) {
    if (open.back() == 0) {
      open.pop_back();
      continue;
    }
    if (pos >= n) return kNeedMore;
    const uint8_t ib = p[pos++];
    if (ib == 0xff) {  // break
      if (open.back() != kIndefinite || open.size() == 1) return kMalformed;
      open.pop_back();
      continue;
    }
    if (open.back() != kIndefinite) --open.back();
    const uint8_t major = ib >> 5, ai = ib & 31;
    uint64_t arg = ai;
    bool indefinite = false;
    if (ai >= 24 && ai <= 27) {
      const size_t w = size_t{1} << (ai - 24);
      if (n - pos < w) return kNeedMore;
      arg = 0;
      for (size_t i = 0; i < w; ++i) arg = arg << 8 | p[pos + i];
      pos += w;
    } else if (ai >= 28 && ai <= 30) {
      return kMalformed;
    } else if (ai == 31) {
      if (major < 2 || major == 6 || major == 7) return kMalformed;
      indefinite = true;
    }
    switch (major) {
      case 2:
      case 3:
        if (indefinite) {
          open.push_back(kIndefinite);
        } else {
          if (arg > n - pos) return kNeedMore;
          pos += arg;
        }
        break;
      case 4:
        open.push_back(indefinite ? kIndefinite : arg);
        break;
      case 5:
        open.push_back(indefinite                  ? kIndefinite
                       : arg > kIndefinite / 2 - 1 ? kIndefinite - 1
                                                   : 2 * arg);
        break;
      case 6:
        open.push_back(1);  // the tagged item
        break;
      default:
        break;
    }
    if (open.size() > size_t{max_depth} + 2) return kMalformed;
  }
  return static_cast<ptrdiff_t>(pos);
}

// The same for one MessagePack value.
ptrdiff_t MsgpackExtent(const uint8_t* p, size_t n, uint32_t max_depth) {
  std::vector<uint64_t> open{1};
  size_t pos = 0;
  auto big = [&](size_t w, uint64_t* v) {
    if (n - pos < w) return false;
    *v = 0;
    for (size_t i = 0; i < w; ++i) *v = *v << 8 | p[pos + i];
    pos += w;
    return true;
  };
  while (!open.empty()) {
    if (open.back() == 0) {
      open.pop_back();
      continue;
    }
    if (pos >= n) return kNeedMore;
    --open.back();
    const uint8_t b = p[pos++];
    uint64_t skip = 0, items = 0;
    bool container = false;
    if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
      // fixint, nil, bool
    } else if (b <= 0x8f) {
      container = true;
      items = 2 * uint64_t{b & 15u};
    } else if (b <= 0x9f) {
      container = true;
      items = b & 15u;
    } else if (b <= 0xbf) {
      skip = b & 31u;
    } else if (b == 0xc1) {
      return kMalformed;
    } else if (b >= 0xc4 && b <= 0xc6) {  // bin 8/16/32
      if (!big(size_t{1} << (b - 0xc4), &skip)) return kNeedMore;
    } else if (b >= 0xc7 && b <= 0xc9) {  // ext 8/16/32: length, then type
      if (!big(size_t{1} << (b - 0xc7), &skip)) return kNeedMore;
      ++skip;
    } else if (b == 0xca || b == 0xcb) {
      skip = b == 0xca ? 4 : 8;
    } else if (b >= 0xcc && b <= 0xd3) {  // uint/int 8..64
      skip = size_t{1} << ((b - 0xcc) & 3);
    } else if (b >= 0xd4 && b <= 0xd8) {  // fixext 1..16, plus the type
      skip = (size_t{1} << (b - 0xd4)) + 1;
    } else if (b >= 0xd9 && b <= 0xdb) {  // str 8/16/32
      if (!big(size_t{1} << (b - 0xd9), &skip)) return kNeedMore;
    } else if (b == 0xdc || b == 0xdd) {
      container = true;
      if (!big(b == 0xdc ? 2 : 4, &items)) return kNeedMore;
    } else {  // 0xde, 0xdf
      container = true;
      if (!big(b == 0xde ? 2 : 4, &items)) return kNeedMore;
      items *= 2;
    }
    if (skip > n - pos) return kNeedMore;
    pos += skip;
    if (container) {
      open.push_back(items);
      if (open.size() > size_t{max_depth} + 2) return kMalformed;
    }
  }
  return static_cast<ptrdiff_t>(pos);
}

// The input window: bytes [b, e) of buf are the unread part of the input, which starts
// at offset base + b; kInputPadding readable bytes always follow e (the JSON reader's).
class Window {
 public:
  Window(const SequenceRequest& r, SequenceProgress* progress) : r_(r), progress_(progress) {}
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  ~Window() { std::free(raw_); }

  const char* begin() const { return buf_ + b_; }
  size_t size() const { return e_ - b_; }
  uint64_t offset() const { return base_ + b_; }  // of begin() in the input
  bool eof() const { return eof_; }
  // Readable bytes after begin() + n (n <= size()).
  size_t padding_after(size_t n) const { return cap_ - (b_ + n); }
  void Consume(size_t n) { b_ += n; }

  // Reads until at least `want` bytes are in the window, or the input ends. False on a
  // read error (progress->read_failed).
  bool Fill(size_t want) {
    if (b_ >= kAlign &&
        (e_ == b_ || cap_ - e_ < want - size() + kInputPadding + r_.read_bytes / 2)) {
      // The unread bytes move to the front, to the place they have in the input modulo
      // kAlign (base_ stays a multiple of it).
      const size_t s = (base_ + b_) % kAlign;
      std::memmove(buf_ + s, buf_ + b_, e_ - b_);
      base_ += b_ - s;
      e_ = s + (e_ - b_);
      b_ = s;
    }
    while (!eof_ && size() < want) {
      const size_t free_bytes = cap_ < e_ + kInputPadding ? 0 : cap_ - e_ - kInputPadding;
      if (free_bytes < r_.read_bytes / 2 || free_bytes < want - size()) {
        size_t cap = cap_ * 2;
        const size_t need = e_ + (want - size()) + r_.read_bytes + kInputPadding;
        if (cap < need) cap = need;
        // (malloc and an aligned start: std::aligned_alloc's blocks, made and freed at
        // each record sequence, grew rosetta-schema-warm's peak RSS from 6.7 to 21 MiB.)
        char* raw = static_cast<char*>(std::malloc(cap + kAlign));
        if (raw == nullptr) throw std::bad_alloc();
        char* p = raw + (kAlign - reinterpret_cast<uintptr_t>(raw) % kAlign) % kAlign;
        if (buf_ != nullptr) std::memcpy(p + b_, buf_ + b_, e_ - b_);
        std::free(raw_);
        raw_ = raw;
        buf_ = p;
        cap_ = cap;
        continue;
      }
      const size_t ask = free_bytes < r_.read_bytes ? free_bytes : r_.read_bytes;
      const ptrdiff_t got = r_.read(r_.read_arg, buf_ + e_, ask);
      if (got < 0) {
        progress_->read_failed = true;
        eof_ = true;
        return false;
      }
      if (got == 0) eof_ = true;
      e_ += static_cast<size_t>(got);
      progress_->input_bytes += static_cast<uint64_t>(got);
    }
    if (cap_ >= e_ + kInputPadding) std::memset(buf_ + e_, 0, kInputPadding);
    return true;
  }
  // Reads one more chunk (at least a byte more, unless the input ends).
  bool More() { return Fill(size() + 1); }
  // Drops the window's bytes and what the input has left up to n bytes in all.
  bool Skip(uint64_t n) {
    for (;;) {
      const size_t take = n < size() ? static_cast<size_t>(n) : size();
      b_ += take;
      n -= take;
      if (n == 0 || eof_) return true;
      if (!More()) return false;
    }
  }

 private:
  const SequenceRequest& r_;
  SequenceProgress* progress_;
  // The window's bytes keep the alignment they have in the input, modulo kAlign: a read
  // lands at buf_ + e_, input offset base_ + e_, so the copy into the window (the kernel's
  // from a file's page cache, or a memcpy from memory) moves lines aligned alike on both
  // sides, wherever the heap puts the window. (With the window where the heap had put it,
  // moving rosetta-schema-warm's records by 16 bytes took its copy of twitter's records
  // from 2.8-3.6% of a pass to 6.9%; aligned alike it is 2.4-3.5%.)
  static constexpr size_t kAlign = 64;
  char* raw_ = nullptr;  // from malloc: buf_ is its first byte aligned to kAlign
  char* buf_ = nullptr;
  size_t cap_ = 0, b_ = 0, e_ = 0;
  uint64_t base_ = 0;  // a multiple of kAlign
  bool eof_ = false;
};

class Runner {
 public:
  Runner(const SequenceRequest& r, OutputBuffer& out, SequenceProgress* progress)
      : r_(r),
        out_(out),
        progress_(progress),
        in_(r, progress),
        via_scratch_(Info(r.record.from).needs_schema ||
                     (!r.validate && Info(r.record.to).needs_schema)) {}

  void Run() {
    out_.Begin(~uint64_t{0}, nullptr);
    switch (r_.record.from) {
      case Format::kJson:
        JsonLines();
        break;
      case Format::kProtobuf:
        Delimited();
        break;
      case Format::kFixed:
        FixedRecords();
        break;
      default:
        Items();
        break;
    }
    if (!r_.validate) out_.Flush();
  }

 private:
  uint64_t max_input() const { return r_.record.limits.max_input_bytes; }

  // One record: n bytes at the window's start (JSON Lines, protobuf) or the window
  // itself with item_end (CBOR, MessagePack). Returns its status; its output is kept only
  // when it is ok.
  Status Record(const char* p, size_t n, size_t padding, uint64_t* item_end) {
    TranscodeRequest rq = r_.record;
    rq.input = std::string_view(p, n);
    rq.input_padding = padding;
    rq.item_end = item_end;
    if (r_.validate) return Validate(rq);
    const size_t start = out_.size();
    const uint32_t holds = out_.holds();
    out_.Hold();  // a refused record's bytes are cut off again: none may be flushed
    Status s;
    if (via_scratch_) {
      s = TranscodeRecord(rq, scratch_);
      if (s.ok()) {
        out_.Continue(~uint64_t{0}, nullptr);
        if (!Frame(scratch_.view())) s = OutputError();
      }
    } else {
      s = TranscodeRecord(rq, out_);
      out_.Continue(~uint64_t{0}, nullptr);  // the record's budget is gone
      if (s.ok() && !Frame({})) s = OutputError();
    }
    if (!s.ok()) out_.Resize(start);
    out_.ResetHolds(holds);
    if (out_.size() >= kStreamChunkBytes) out_.Flush();
    return s;
  }
  // A record's framing, around `body` when it was written elsewhere (a scratch buffer).
  bool Frame(std::string_view body) {
    if (r_.record.to == Format::kProtobuf) {
      if (!out_.Ensure(10 + body.size())) return false;
      uint64_t v = body.size();
      while (v >= 0x80) {
        out_.Put(static_cast<char>(v | 0x80));
        v >>= 7;
      }
      out_.Put(static_cast<char>(v));
    } else if (!body.empty() && !out_.Ensure(body.size())) {
      return false;
    }
    out_.Append(body.data(), body.size());
    // Fixed records into JSON come one line each already (several records a call).
    if (r_.record.to == Format::kJson && r_.record.from != Format::kFixed) {
      if (!out_.Ensure(1)) return false;
      out_.Put('\n');
    }
    return true;
  }
  Status OutputError() {
    Status s;
    s.code = ErrorCode::kOutputTooLarge;
    s.message = out_.flush_failed() ? "the output could not be written" : "output buffer full";
    return s;
  }
  // Reports the record that starts at input offset `at`; false when the sequence ends.
  // With TranscodeRequest::violations (JSON Schema, every violation), each is reported.
  bool Refused(Status s, uint64_t at) {
    auto locate = [&](Status& v) {
      v.offset += at;
      std::string path = "/";
      path += std::to_string(progress_->records);
      path += v.path;
      v.path = std::move(path);
    };
    std::vector<Status>* all = r_.record.violations;
    if (all != nullptr && !all->empty() && s.code == ErrorCode::kSchemaViolation) {
      for (Status& v : *all) {
        locate(v);
        if (r_.on_error != nullptr) r_.on_error(r_.error_arg, v);
      }
    } else {
      locate(s);
      if (r_.on_error != nullptr) r_.on_error(r_.error_arg, s);
    }
    if (all != nullptr) all->clear();
    ++progress_->records;
    ++progress_->refused;
    if (!r_.keep_going) progress_->stopped = true;
    return r_.keep_going;
  }
  Status TooLarge(uint64_t size_at_least) {
    Status s;
    s.code = ErrorCode::kInputTooLarge;
    s.offset = max_input();
    s.message = size_at_least > max_input() ? "record of more than " : "record of ";
    s.message += std::to_string(size_at_least > max_input() ? max_input() : size_at_least);
    s.message += " bytes passes max_input_bytes ";
    s.message += std::to_string(max_input());
    return s;
  }

  void JsonLines() {
    size_t scanned = 0;  // bytes of the window known to hold no newline
    for (;;) {
      const char* p = in_.begin();
      // (no memchr of an empty window: its buffer may not exist yet)
      const char* nl =
          in_.size() > scanned
              ? static_cast<const char*>(std::memchr(p + scanned, '\n', in_.size() - scanned))
              : nullptr;
      if (nl == nullptr) {
        if (in_.size() > max_input() + 1) {  // "+ 1": a CR before the LF is not the record's
          const uint64_t at = in_.offset();
          if (!Refused(TooLarge(in_.size()), at)) return;
          if (!SkipLine()) return;
          scanned = 0;
          continue;
        }
        if (!in_.eof()) {
          scanned = in_.size();
          if (!in_.More()) return;
          continue;
        }
        if (in_.size() == 0) return;
        nl = p + in_.size();  // the last line has no newline
      }
      const size_t next = static_cast<size_t>(nl - p) + (nl < p + in_.size() ? 1 : 0);
      size_t n = static_cast<size_t>(nl - p);
      if (n > 0 && p[n - 1] == '\r') --n;
      bool blank = true;
      for (size_t i = 0; i < n && blank; ++i) blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
      if (!blank) {
        const uint64_t at = in_.offset();
        Status s = Record(p, n, in_.padding_after(n), nullptr);
        if (s.ok()) {
          ++progress_->records;
        } else if (!Refused(std::move(s), at)) {
          return;
        }
      }
      in_.Consume(next);
      scanned = 0;
    }
  }
  // Drops the input up to and including the next newline.
  bool SkipLine() {
    for (;;) {
      const char* nl = in_.size() == 0
                           ? nullptr
                           : static_cast<const char*>(std::memchr(in_.begin(), '\n', in_.size()));
      if (nl != nullptr) {
        in_.Consume(static_cast<size_t>(nl - in_.begin()) + 1);
        return true;
      }
      in_.Consume(in_.size());
      if (in_.eof()) return false;
      if (!in_.More()) return false;
    }
  }

  // CBOR and MessagePack: the reader finds each record's end.
  void Items() {
    for (;;) {
      if (in_.size() == 0) {
        if (in_.eof() || !in_.More() || in_.size() == 0) return;
      }
      const size_t window =
          in_.size() < max_input() ? in_.size() : static_cast<size_t>(max_input());
      uint64_t end = 0;
      const uint64_t at = in_.offset();
      Status s = Record(in_.begin(), window, in_.padding_after(window), &end);
      if (s.ok()) {
        ++progress_->records;
        in_.Consume(static_cast<size_t>(end));
        continue;
      }
      if (s.code == ErrorCode::kTruncated && !in_.eof()) {
        if (window >= max_input()) {  // the record goes on past max_input_bytes
          Refused(TooLarge(max_input() + 1), at);
          progress_->stopped = true;  // its end cannot be found without reading it
          return;
        }
        // Twice the window: a long record is read again only a few times.
        if (!in_.Fill(in_.size() * 2 > in_.size() + 4096 ? in_.size() * 2 : in_.size() + 4096))
          return;
        continue;
      }
      if (!Refused(std::move(s), at)) return;
      if (!StepOver()) {
        progress_->stopped = true;
        return;
      }
    }
  }
  // Steps over the refused record at the window's start: false when its end cannot be
  // found (it is malformed, or longer than max_input_bytes).
  bool StepOver() {
    const uint32_t depth = r_.record.limits.max_depth;
    for (;;) {
      const auto* p = reinterpret_cast<const uint8_t*>(in_.begin());
      const ptrdiff_t n = r_.record.from == Format::kCbor ? CborExtent(p, in_.size(), depth)
                                                          : MsgpackExtent(p, in_.size(), depth);
      if (n > 0) {
        in_.Consume(static_cast<size_t>(n));
        return true;
      }
      if (n == kMalformed || in_.eof() || in_.size() > max_input()) return false;
      if (!in_.Fill(in_.size() * 2 > in_.size() + 4096 ? in_.size() * 2 : in_.size() + 4096))
        return false;
    }
  }

  // Protobuf: each message after its length (a base-128 varint).
  void Delimited() {
    for (;;) {
      if (in_.size() < 10 && !in_.eof() && !in_.Fill(10)) return;
      if (in_.size() == 0) return;
      const auto* p = reinterpret_cast<const uint8_t*>(in_.begin());
      uint64_t len = 0;
      size_t head = 0;
      bool done = false;
      for (; head < in_.size() && head < 10; ++head) {
        len |= uint64_t{p[head] & 0x7fu} << (7 * head);
        if ((p[head] & 0x80) == 0) {
          done = true;
          ++head;
          break;
        }
      }
      const uint64_t at = in_.offset();
      if (!done) {
        Status s;
        s.code = head >= 10 ? ErrorCode::kSyntax : ErrorCode::kTruncated;
        s.message = head >= 10 ? "record length is not a varint" : "record length cut short";
        Refused(std::move(s), at);
        progress_->stopped = true;
        return;
      }
      if (len > max_input()) {
        if (!Refused(TooLarge(len), at + head) || !in_.Skip(head + len)) return;
        continue;
      }
      if (in_.size() < head + len && !in_.Fill(head + len)) return;
      if (in_.size() < head + len) {
        Status s;
        s.code = ErrorCode::kTruncated;
        s.offset = in_.size() - head;
        s.message = "record claims " + std::to_string(len) + " bytes but " +
                    std::to_string(in_.size() - head) + " remain";
        Refused(std::move(s), at + head);
        progress_->stopped = true;
        return;
      }
      const size_t n = static_cast<size_t>(len);
      Status s = Record(in_.begin() + head, n, in_.padding_after(head + n), nullptr);
      if (s.ok()) {
        ++progress_->records;
      } else if (!Refused(std::move(s), at + head)) {
        return;
      }
      in_.Consume(head + n);
    }
  }

  // Fixed: records of one size back to back, read many at a time (a batch is one call;
  // when it is refused, its records are read again one by one to find the bad ones).
  void FixedRecords() {
    const FormatSchema* schema = r_.record.schema;
    const uint32_t size = schema ? schema->FixedRecordSize(r_.record.message_type) : 0;
    if (size == 0 || size > max_input()) {
      // No layout (or no schema): one record's refusal says why; too long: refused.
      Status s = size == 0 ? Record(in_.begin(), 0, in_.padding_after(0), nullptr) : TooLarge(size);
      if (s.ok()) s = TooLarge(size);
      Refused(std::move(s), 0);
      progress_->stopped = true;
      return;
    }
    const size_t batch = r_.record.to == Format::kProtobuf ? 1 : (size_t{256} << 10) / size + 1;
    for (;;) {
      if (in_.size() < size) {
        if (!in_.eof() && in_.Fill(size) && in_.size() >= size) continue;
        if (in_.size() != 0) {
          Status s;
          s.code = ErrorCode::kTruncated;
          s.offset = in_.size();
          s.message = "a record is " + std::to_string(size) + " bytes; the input ends after " +
                      std::to_string(in_.size());
          Refused(std::move(s), in_.offset());
          progress_->stopped = true;
        }
        return;
      }
      const size_t k = in_.size() / size < batch ? in_.size() / size : batch;
      uint64_t end = 0;
      const uint64_t at = in_.offset();
      Status s = Record(in_.begin(), k * size, in_.padding_after(k * size), &end);
      if (s.ok()) {
        progress_->records += k;
      } else {
        for (size_t j = 0; j < k; ++j) {
          const char* p = in_.begin() + j * size;
          Status one = Record(p, size, in_.padding_after((j + 1) * size), &end);
          if (one.ok()) {
            ++progress_->records;
          } else if (!Refused(std::move(one), at + j * size)) {
            return;
          }
        }
      }
      in_.Consume(k * size);
    }
  }

  const SequenceRequest& r_;
  OutputBuffer& out_;
  SequenceProgress* progress_;
  Window in_;
  OutputBuffer scratch_;
  const bool via_scratch_;
};

}  // namespace

void RunSequence(const SequenceRequest& request, OutputBuffer& out, SequenceProgress* progress) {
  Runner(request, out, progress).Run();
}

}  // namespace rosetta::codec
