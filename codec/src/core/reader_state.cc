#include "core/reader_state.h"

#include <bit>
#include <charconv>

namespace rosetta::codec {
namespace {

void AppendEscaped(std::string& out, std::string_view token) {
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
}

void AppendKey(std::string& out, const Frame& f) {
  switch (Untagged(f.key_kind)) {
    case KeyKind::kText:
    case KeyKind::kBytes:
      AppendEscaped(out, {f.key, f.key_size});
      break;
    case KeyKind::kUint:
      out += std::to_string(f.key_num);
      break;
    case KeyKind::kNegInt:
      out += '-';
      out += f.key_num == ~uint64_t{0} ? std::string("18446744073709551616")
                                       : std::to_string(f.key_num + 1);
      break;
    case KeyKind::kFloat: {
      char text[32];
      const double d = std::bit_cast<double>(f.key_num);
      out.append(text, std::to_chars(text, text + sizeof text, d).ptr);
      break;
    }
    case KeyKind::kSimple:
      switch (f.key_num) {
        case 20:
          out += "false";
          break;
        case 21:
          out += "true";
          break;
        case 22:
          out += "null";
          break;
        case 23:
          out += "undefined";
          break;
        default:
          out += "simple(" + std::to_string(f.key_num) + ")";
      }
      break;
    default:
      out += "?";
  }
}

}  // namespace

std::string ReaderState::Path() const {
  std::string path;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const Frame& f = frames_[i];
    if (!f.is_map) {
      path += '/';
      path += std::to_string(f.index);
    } else if (f.index & 1) {
      path += '/';
      AppendKey(path, f);
    }
  }
  return path;
}

bool ReaderState::DuplicateKey(uint64_t offset) {
  std::string key;
  AppendKey(key, frames_.back());
  return FailAt(ErrorCode::kDuplicateKey, offset, "duplicate map key \"" + key + "\"");
}

bool ReaderState::TaggedKey(KeyKind content, std::string_view bytes, uint64_t num, uint64_t tag,
                            int tags, uint64_t offset) {
  KeyKind kind = content;  // the identity: the content's, unless a rule below keeps the tag
  uint64_t kept_tag = 0;
  Timestamp ts{0, 0};
  const bool bytes_content = content == KeyKind::kBytes;
  if (content == KeyKind::kOther || content == KeyKind::kNone) {
    kind = KeyKind::kOther;
  } else if (tags_kept_) {
    const bool scalar = content == KeyKind::kFloat || content == KeyKind::kSimple;
    kind = tags == 1 && !scalar ? Tagged(content) : KeyKind::kOther;
    kept_tag = tag;
  } else if ((tag == kTagPositiveBignum || tag == kTagNegativeBignum) && bytes_content) {
    const bool negative = tag == kTagNegativeBignum;
    if (BignumToUint64(bytes, &num)) {
      kind = negative ? KeyKind::kNegInt : KeyKind::kUint;
    } else if (ctx_.options.bignum_as_double && !json_member_names_) {
      kind = KeyKind::kFloat;
      num = FloatKey(BignumToDouble(bytes, negative));
    } else {
      kind = KeyKind::kTaggedBytes;
      bytes = BignumMagnitude(bytes);
      num = 0;
      kept_tag = tag;
    }
  } else if (json_member_names_) {
    // JSON drops the tags: the content.
  } else if (tag == kTagEpochTime && (content == KeyKind::kUint || content == KeyKind::kNegInt)) {
    kind = Tagged(content);
    kept_tag = tag;
  } else if (tag == kTagEpochTime && content == KeyKind::kFloat) {
    kind = KeyKind::kOther;
    if (EpochDoubleToTimestamp(std::bit_cast<double>(num), &ts)) return TimestampKey(ts, offset);
  } else if (tag == kTagMsgpackExtBase + 0xff && bytes_content) {
    kind = KeyKind::kOther;  // data that is no timestamp: refused by the writer
    if (ParseMsgpackTimestamp(bytes, &ts)) return TimestampKey(ts, offset);
  } else if (tag >= kTagMsgpackExtBase && tag < kTagMsgpackExtBase + 0xff && bytes_content) {
    kind = KeyKind::kTaggedBytes;
    kept_tag = tag;
  }
  return ColdKey(kind, bytes, num, offset, kept_tag);
}

bool ReaderState::TimestampKeyAhead(const Timestamp& ts, uint64_t offset) {
  Frame& f = frames_.back();
  ++f.index;  // the key is the item being read
  const bool ok = TimestampKey(ts, offset);
  --f.index;
  return ok;
}

bool ReaderState::TimestampKey(const Timestamp& ts, uint64_t offset) {
  KeyKind kind = KeyKind::kOther;
  uint64_t num = 0;
  TimestampKey(ts, &kind, &num);
  if (kind != KeyKind::kOther) kind = Tagged(kind);
  return ColdKey(kind, {}, num, offset, kTagEpochTime);
}

bool ReaderState::ColdKey(KeyKind kind, std::string_view bytes, uint64_t num, uint64_t offset,
                          uint64_t tag) {
  return Key(kind, bytes, num, offset, tag);
}

}  // namespace rosetta::codec
