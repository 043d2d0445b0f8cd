#include "common/reader_state.h"

#include <bit>
#include <charconv>

namespace rosetta::codec {
namespace {

void AppendEscaped(std::string& out, std::string_view token) {
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
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
      out += f.key_num == ~uint64_t{0} ? std::string("18446744073709551616") : std::to_string(f.key_num + 1);
      break;
    case KeyKind::kFloat: {
      char text[32];
      const double d = std::bit_cast<double>(f.key_num);
      out.append(text, std::to_chars(text, text + sizeof text, d).ptr);
      break;
    }
    case KeyKind::kSimple:
      switch (f.key_num) {
        case 20: out += "false"; break;
        case 21: out += "true"; break;
        case 22: out += "null"; break;
        case 23: out += "undefined"; break;
        default: out += "simple(" + std::to_string(f.key_num) + ")";
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

}  // namespace rosetta::codec
