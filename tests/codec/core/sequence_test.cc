// codec/src/sequence.cc (rosetta/codec/sequence.h): records framed and read one at a time
// from a stream in pieces of any size, every pair of sequence formats, refused records with
// and without keep_going, records past max_input_bytes, and streaming output. Expected
// bytes of the framing are written by hand (RFC 8742, the MessagePack spec, RFC 8949);
// each record's own bytes are checked through the single-document path (Transcode),
// which the format tests cover.
#include "rosetta/codec/sequence.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "codec_test_support.h"

namespace rosetta::codec::testing {
namespace {

// An input handed over in the pieces `cuts` makes (offsets where a read ends), then one
// read per `tail` bytes.
struct PieceReader {
  std::string data;
  std::vector<size_t> cuts;
  size_t tail = 1 << 20;
  size_t at = 0;
  size_t reads = 0;
  static ptrdiff_t Read(void* arg, char* p, size_t n) {
    auto* r = static_cast<PieceReader*>(arg);
    ++r->reads;
    size_t end = r->data.size();
    for (size_t c : r->cuts) {
      if (c > r->at) {
        end = std::min(end, c);
        break;
      }
    }
    end = std::min({end, r->at + n, r->at + r->tail});
    const size_t k = end - r->at;
    std::copy_n(r->data.data() + r->at, k, p);
    r->at = end;
    return static_cast<ptrdiff_t>(k);
  }
};

struct SeqRun {
  std::string out;
  std::vector<Status> errors;
  SequenceProgress progress;
};

SeqRun RunSeq(Format from, Format to, PieceReader reader, bool keep_going = false,
              const Limits& limits = {}, size_t read_bytes = 1 << 20, bool validate = false) {
  SeqRun run;
  SequenceRequest r;
  r.record.from = from;
  r.record.to = to;
  r.record.limits = limits;
  r.validate = validate;
  r.keep_going = keep_going;
  r.read = &PieceReader::Read;
  r.read_arg = &reader;
  r.read_bytes = read_bytes;
  r.on_error = [](void* arg, const Status& s) { static_cast<SeqRun*>(arg)->errors.push_back(s); };
  r.error_arg = &run;
  OutputBuffer out;
  RunSequence(r, out, &run.progress);
  run.out = std::string(out.view());
  return run;
}

PieceReader Whole(std::string data) { return PieceReader{std::move(data), {}}; }

// The records every pair is run over: scalars, nesting, long strings, escapes, numbers.
const std::vector<std::string> kRecords = {
    R"({"a":1})",
    "[2]",
    "3",
    R"({"user":{"id":42,"name":"Ada","tags":["x","y"]},"ok":true,"v":null})",
    R"("a string with a \" quote and \\ and é")",
    "-12.5",
    R"([1,[2,[3,[4]]],{"k":[]},{}])",
    "\"" + std::string(300, 'x') + "\"",
    R"({"n":18446744073709551615,"m":-9223372036854775808,"f":1e300})",
};

std::string Encode(Format f, const std::string& json) {
  if (f == Format::kJson) return json;
  Result r = RunTranscode(Format::kJson, f, json);
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  return Hex(r.out);
}

// A sequence of the records in format f, framed as f frames them.
std::string Sequence(Format f, const std::vector<std::string>& records) {
  std::string s;
  for (const std::string& r : records) {
    s += Encode(f, r);
    if (f == Format::kJson) s += '\n';
  }
  return s;
}

constexpr Format kFormats[] = {Format::kJson, Format::kCbor, Format::kMsgpack};

TEST(Sequence, FramingOfEachFormatByHand) {
  // JSON Lines -> CBOR sequence (RFC 8742: items back to back): {"a":1}, [2], 3.
  EXPECT_EQ(ToHex(RunSeq(Format::kJson, Format::kCbor, Whole("{\"a\":1}\n[2]\n3\n")).out),
            "a1616101"
            "8102"
            "03");
  // -> MessagePack values back to back.
  EXPECT_EQ(ToHex(RunSeq(Format::kJson, Format::kMsgpack, Whole("{\"a\":1}\n[2]\n3\n")).out),
            "81a16101"
            "9102"
            "03");
  // CBOR sequence -> JSON Lines: one line each, "\n" after every record.
  EXPECT_EQ(RunSeq(Format::kCbor, Format::kJson, Whole(Hex("a1616101 8102 03"))).out,
            "{\"a\":1}\n[2]\n3\n");
  EXPECT_EQ(RunSeq(Format::kMsgpack, Format::kJson, Whole(Hex("81a16101 9102 03"))).out,
            "{\"a\":1}\n[2]\n3\n");
  // An empty input is an empty sequence.
  SeqRun empty = RunSeq(Format::kCbor, Format::kJson, Whole(""));
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(empty.progress.records, 0u);
}

TEST(Sequence, JsonLinesCrlfBlankLinesAndNoFinalNewline) {
  SeqRun r = RunSeq(Format::kJson, Format::kCbor, Whole("\n{\"a\":1}\r\n\r\n  \t\n[2]\n\n3"));
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(ToHex(r.out),
            "a1616101"
            "8102"
            "03");
  EXPECT_EQ(r.progress.records, 3u);
}

// Every pair, every split point: the output is the same however the input arrives.
TEST(Sequence, EveryPairSplitAtEveryByte) {
  size_t runs = 0;
  for (Format from : kFormats) {
    for (Format to : kFormats) {
      const std::string input = Sequence(from, kRecords);
      std::string want;
      for (const std::string& rec : kRecords) {
        Result one = RunTranscode(from, to, Encode(from, rec));
        ASSERT_TRUE(one.status.ok()) << rec;
        want += to == Format::kJson ? one.out + "\n" : Hex(one.out);
      }
      SeqRun whole = RunSeq(from, to, Whole(input));
      ASSERT_TRUE(whole.errors.empty()) << whole.errors[0].ToString(true);
      ASSERT_EQ(whole.out, want) << FormatName(from) << " -> " << FormatName(to);
      EXPECT_EQ(whole.progress.records, kRecords.size());
      EXPECT_EQ(whole.progress.input_bytes, input.size());
      for (size_t cut = 1; cut < input.size(); ++cut) {
        // One cut, and small reads (7 bytes) after it, with a small read size so the
        // window is compacted and grown many times.
        SeqRun split = RunSeq(from, to, PieceReader{input, {cut}, 7}, false, {}, 16);
        ASSERT_TRUE(split.errors.empty())
            << FormatName(from) << " -> " << FormatName(to) << " cut at " << cut << ": "
            << split.errors[0].ToString(true);
        ASSERT_EQ(split.out, want)
            << FormatName(from) << " -> " << FormatName(to) << " cut " << cut;
        ++runs;
      }
      SeqRun bytewise = RunSeq(from, to, PieceReader{input, {}, 1}, false, {}, 1);
      EXPECT_EQ(bytewise.out, want);
    }
  }
  // 9 pairs, each over every cut of its input.
  EXPECT_GT(runs, 9u * 200);
}

TEST(Sequence, ValidateCountsRecords) {
  for (Format from : kFormats) {
    SeqRun r =
        RunSeq(from, from, PieceReader{Sequence(from, kRecords), {5}, 3}, false, {}, 64, true);
    EXPECT_TRUE(r.errors.empty()) << FormatName(from);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.progress.records, kRecords.size());
  }
}

// A bad record in the middle: without keep_going the sequence ends there (the records
// before it are written); with it, the record is reported and skipped.
TEST(Sequence, BadRecordInTheMiddleJsonLines) {
  const std::string in = "[1]\n{\"a\":}\n[3]\n";
  SeqRun stop = RunSeq(Format::kJson, Format::kMsgpack, Whole(in));
  EXPECT_EQ(ToHex(stop.out), "9101");
  ASSERT_EQ(stop.errors.size(), 1u);
  EXPECT_EQ(stop.errors[0].code, ErrorCode::kSyntax);
  EXPECT_EQ(stop.errors[0].offset, 9u);  // the '}' in the whole input
  EXPECT_EQ(stop.errors[0].path, "/1/a");
  EXPECT_TRUE(stop.progress.stopped);

  SeqRun on = RunSeq(Format::kJson, Format::kMsgpack, Whole(in), true);
  EXPECT_EQ(ToHex(on.out),
            "9101"
            "9103");
  ASSERT_EQ(on.errors.size(), 1u);
  EXPECT_EQ(on.errors[0].path, "/1/a");
  EXPECT_EQ(on.progress.records, 3u);
  EXPECT_EQ(on.progress.refused, 1u);
  EXPECT_FALSE(on.progress.stopped);
}

TEST(Sequence, BadRecordInTheMiddleCborAndMsgpack) {
  // CBOR: [1], {"a": 0xff-as-text-byte} (a text string holding invalid UTF-8: well-formed,
  // so its end is found and keep_going steps over it), [3].
  const std::string cbor = Hex("8101 a1616161ff 8103");
  SeqRun stop = RunSeq(Format::kCbor, Format::kJson, Whole(cbor));
  EXPECT_EQ(stop.out, "[1]\n");
  ASSERT_EQ(stop.errors.size(), 1u);
  EXPECT_EQ(stop.errors[0].path, "/1/a");
  EXPECT_EQ(stop.errors[0].offset, 2u + 3u);  // the text item, from the input's start
  SeqRun on = RunSeq(Format::kCbor, Format::kJson, Whole(cbor), true);
  EXPECT_EQ(on.out, "[1]\n[3]\n");
  EXPECT_EQ(on.progress.refused, 1u);

  // MessagePack: [1], {"a": str8 0xff}, [3].
  const std::string mp = Hex("9101 81a161d901ff 9103");
  SeqRun mstop = RunSeq(Format::kMsgpack, Format::kCbor, Whole(mp));
  EXPECT_EQ(ToHex(mstop.out), "8101");
  ASSERT_EQ(mstop.errors.size(), 1u);
  EXPECT_EQ(mstop.errors[0].path, "/1/a");
  SeqRun mon = RunSeq(Format::kMsgpack, Format::kCbor, Whole(mp), true);
  EXPECT_EQ(ToHex(mon.out),
            "8101"
            "8103");

  // A duplicate key (well-formed): stepped over too.
  SeqRun dup = RunSeq(Format::kCbor, Format::kJson, Whole(Hex("8101 a2616101616102 8103")), true);
  EXPECT_EQ(dup.out, "[1]\n[3]\n");
  ASSERT_EQ(dup.errors.size(), 1u);
  EXPECT_EQ(dup.errors[0].code, ErrorCode::kDuplicateKey);
}

TEST(Sequence, MalformedBinaryRecordEndsTheSequenceEvenWithKeepGoing) {
  // 0x1c: reserved additional information; where the record ends cannot be known.
  SeqRun r = RunSeq(Format::kCbor, Format::kJson, Whole(Hex("8101 1c 8103")), true);
  EXPECT_EQ(r.out, "[1]\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].offset, 2u);
  EXPECT_EQ(r.errors[0].path.substr(0, 2), "/1");
  EXPECT_TRUE(r.progress.stopped);
  // A record cut short at the end of the input: truncated, located in the whole input.
  SeqRun cut = RunSeq(Format::kMsgpack, Format::kJson, Whole(Hex("9101 92 01")));
  EXPECT_EQ(cut.out, "[1]\n");
  ASSERT_EQ(cut.errors.size(), 1u);
  EXPECT_EQ(cut.errors[0].code, ErrorCode::kTruncated);
}

// A record longer than max_input_bytes is refused alone: JSON Lines go on after it
// (keep_going) without the line ever being held whole.
TEST(Sequence, RecordPastMaxInputBytes) {
  Limits l;
  l.max_input_bytes = 64;
  const std::string big = "[\"" + std::string(10000, 'z') + "\"]";
  const std::string in = "[1]\n" + big + "\n[3]\n";
  SeqRun r = RunSeq(Format::kJson, Format::kCbor, PieceReader{in, {}, 100}, true, l, 128);
  EXPECT_EQ(ToHex(r.out),
            "8101"
            "8103");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, ErrorCode::kInputTooLarge);
  EXPECT_EQ(r.errors[0].path, "/1");
  EXPECT_EQ(r.errors[0].offset, 4u + 64u);
  EXPECT_EQ(r.progress.records, 3u);
  SeqRun stop = RunSeq(Format::kJson, Format::kCbor, PieceReader{in, {}, 100}, false, l, 128);
  EXPECT_EQ(ToHex(stop.out), "8101");
  EXPECT_TRUE(stop.progress.stopped);

  // A CBOR record that goes on past max_input_bytes: refused, and the sequence ends (its
  // end is found only by reading all of it).
  const std::string cbor = Hex("8101") + Encode(Format::kCbor, big) + Hex("8103");
  SeqRun c = RunSeq(Format::kCbor, Format::kJson, PieceReader{cbor, {}, 100}, true, l, 128);
  EXPECT_EQ(c.out, "[1]\n");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].code, ErrorCode::kInputTooLarge);
  EXPECT_EQ(c.errors[0].path, "/1");
  EXPECT_TRUE(c.progress.stopped);
}

// A CBOR string that claims 4 GiB in a record, with more input behind it: the window
// never grows past about twice max_input_bytes, and the record is refused.
TEST(Sequence, HostileLengthPrefixInARecord) {
  Limits l;
  l.max_input_bytes = 4096;
  const std::string in = Hex("8101 5affffffff") + std::string(100000, '\0');
  SeqRun r = RunSeq(Format::kCbor, Format::kJson, PieceReader{in, {}, 1024}, true, l, 1024);
  EXPECT_EQ(r.out, "[1]\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].code, ErrorCode::kInputTooLarge);
  EXPECT_EQ(r.errors[0].path, "/1");
  EXPECT_TRUE(r.progress.stopped);
  EXPECT_LT(r.progress.input_bytes, 3u * 4096 + 1024);
  // At the end of the input the same claim is a truncated record.
  SeqRun end = RunSeq(Format::kCbor, Format::kJson, Whole(Hex("8101 5affffffff00")));
  ASSERT_EQ(end.errors.size(), 1u);
  EXPECT_EQ(end.errors[0].code, ErrorCode::kTruncated);
}

// Streaming output: records are handed to the flush function between records, in
// chunks, and a refused record's bytes never reach it.
TEST(Sequence, StreamingOutputAndRefusedRecordsNeverFlushed) {
  std::string input;
  for (int i = 0; i < 60000; ++i) input += "{\"i\":" + std::to_string(i) + ",\"s\":\"abcdefgh\"}\n";
  input += "{\"bad\":}\n";
  struct Sink {
    std::string got;
    size_t calls = 0;
  } sink;
  SequenceRequest r;
  r.record.from = Format::kJson;
  r.record.to = Format::kJson;
  r.keep_going = true;
  PieceReader reader = Whole(input + "[0]\n");
  r.read = &PieceReader::Read;
  r.read_arg = &reader;
  r.read_bytes = 4096;
  OutputBuffer out;
  out.SetFlush(
      [](void* arg, const char* p, size_t n) {
        auto* s = static_cast<Sink*>(arg);
        s->got.append(p, n);
        ++s->calls;
        return true;
      },
      &sink);
  SequenceProgress progress;
  RunSequence(r, out, &progress);
  EXPECT_EQ(out.size(), 0u);  // all of it handed over at the end
  EXPECT_EQ(sink.got, input.substr(0, input.size() - 9) + "[0]\n");
  EXPECT_GE(sink.calls, 2u);  // about 1.5 MB: at least one chunk before the end
  EXPECT_EQ(progress.refused, 1u);
  EXPECT_EQ(progress.records, 60002u);
}

// Every read lands in the window at the place its bytes have in the input modulo 64 (the
// copy is then aligned alike on both sides), however the reads are cut and however far
// the window has moved, and the records come out whole.
TEST(Sequence, ReadsLandAlignedAsTheirInputOffset) {
  std::string input;
  for (int i = 0; i < 4000; ++i)
    input += "{\"i\":" + std::to_string(i) + ",\"s\":\"" + std::string(i % 97, 'x') + "\"}\n";
  for (size_t tail : {size_t{1}, size_t{7}, size_t{1000}, size_t{1} << 20}) {
    struct Aligned {
      PieceReader reader;
      size_t reads = 0, misaligned = 0;
      static ptrdiff_t Read(void* arg, char* p, size_t n) {
        auto* a = static_cast<Aligned*>(arg);
        ++a->reads;
        if ((reinterpret_cast<uintptr_t>(p) - a->reader.at) % 64 != 0) ++a->misaligned;
        return PieceReader::Read(&a->reader, p, n);
      }
    } a{PieceReader{input, {}, tail}};
    SequenceRequest r;
    r.record.from = Format::kJson;
    r.record.to = Format::kJson;
    r.read = &Aligned::Read;
    r.read_arg = &a;
    r.read_bytes = 4096;
    OutputBuffer out;
    SequenceProgress progress;
    RunSequence(r, out, &progress);
    EXPECT_EQ(out.view(), input) << "tail " << tail;
    EXPECT_EQ(progress.records, 4000u);
    EXPECT_GT(a.reads, input.size() / 4096);
    EXPECT_EQ(a.misaligned, 0u) << "tail " << tail;
  }
}

// One document into a streaming OutputBuffer: what reaches the flush function is exactly
// the output of the same transcode into a buffer that keeps it all, also when the
// binary-to-JSON fast path hands megabytes over and then gives up (a tag, a bin at the
// very end: the general path writes it all again and the bytes handed over are dropped),
// and when long strings go straight from the input (AppendBlob).
TEST(StreamingOutput, SameBytesAsTheWholeBuffer) {
  std::string cbor_tail, mp_tail, cbor_blob;
  {
    // [ "item 0", ..., "item 199999", 1(0) ]: the tag comes last.
    std::string items;
    for (int i = 0; i < 200000; ++i) {
      std::string s = "item ";
      s += std::to_string(i);
      items += static_cast<char>(0x60 + s.size());
      items += s;
    }
    cbor_tail = Hex("9a00030d41") + items + Hex("c100");
    std::string mp_items;
    for (int i = 0; i < 200000; ++i) {
      std::string s = "item ";
      s += std::to_string(i);
      mp_items += static_cast<char>(0xa0 + s.size());
      mp_items += s;
    }
    mp_tail = Hex("dd00030d41") + mp_items + Hex("c40100");  // ..., bin8 of one byte
    cbor_blob = Hex("82 5a00200000") + std::string(2 << 20, 'b') + Hex("7a00100000") +
                std::string(1 << 20, 't');
  }
  struct Case {
    Format from, to;
    const std::string* input;
  };
  const Case cases[] = {{Format::kCbor, Format::kJson, &cbor_tail},
                        {Format::kMsgpack, Format::kJson, &mp_tail},
                        {Format::kCbor, Format::kMsgpack, &cbor_blob},
                        {Format::kCbor, Format::kCbor, &cbor_blob}};
  Limits big;
  big.max_input_bytes = big.max_output_bytes = 64 << 20;
  big.max_string_bytes = 8 << 20;
  big.max_items = 1 << 20;
  big.max_alloc_bytes = 256 << 20;
  for (const Case& c : cases) {
    TranscodeRequest r;
    r.from = c.from;
    r.to = c.to;
    r.input = *c.input;
    r.limits = big;
    OutputBuffer whole;
    ASSERT_TRUE(Transcode(r, whole).ok());
    std::string got;
    OutputBuffer streaming;
    streaming.SetFlush(
        [](void* arg, const char* p, size_t n) {
          static_cast<std::string*>(arg)->append(p, n);
          return true;
        },
        &got);
    Status s = Transcode(r, streaming);
    ASSERT_TRUE(s.ok()) << s.ToString(true);
    ASSERT_TRUE(streaming.Flush());
    EXPECT_GT(got.size(), size_t{2} << 20);
    EXPECT_LT(streaming.capacity(), size_t{2} << 20)
        << FormatName(c.from) << " -> " << FormatName(c.to);
    ASSERT_EQ(got.size(), whole.size()) << FormatName(c.from) << " -> " << FormatName(c.to);
    EXPECT_TRUE(got == whole.view()) << FormatName(c.from) << " -> " << FormatName(c.to);
  }
}

}  // namespace
}  // namespace rosetta::codec::testing
