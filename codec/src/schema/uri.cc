#include "schema/uri.h"

#include <vector>

namespace rosetta::codec::schema {
namespace {

struct Parts {
  std::string_view scheme, authority, path, query, fragment;
  bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

bool IsSchemeChar(char c, bool first) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (first) return alpha;
  return alpha || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

Parts Parse(std::string_view s) {
  Parts p;
  size_t i = 0;
  while (i < s.size() && IsSchemeChar(s[i], i == 0)) ++i;
  if (i > 0 && i < s.size() && s[i] == ':') {
    p.scheme = s.substr(0, i);
    p.has_scheme = true;
    s.remove_prefix(i + 1);
  }
  if (size_t h = s.find('#'); h != std::string_view::npos) {
    p.fragment = s.substr(h + 1);
    p.has_fragment = true;
    s = s.substr(0, h);
  }
  if (size_t q = s.find('?'); q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    p.has_query = true;
    s = s.substr(0, q);
  }
  if (s.substr(0, 2) == "//") {
    s.remove_prefix(2);
    const size_t e = s.find('/');
    p.authority = s.substr(0, e);
    p.has_authority = true;
    s = e == std::string_view::npos ? std::string_view() : s.substr(e);
  }
  p.path = s;
  return p;
}

// RFC 3986 5.2.4.
std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const size_t slash = out.rfind('/');
      out.resize(slash == std::string::npos ? 0 : slash);
      if (in == "/") {
        out += '/';
        break;
      }
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      size_t start = in[0] == '/' ? 1 : 0;
      size_t e = in.find('/', start);
      if (e == std::string_view::npos) e = in.size();
      out.append(in.substr(0, e));
      in.remove_prefix(e);
    }
  }
  return out;
}

}  // namespace

std::string ResolveUri(std::string_view base, std::string_view ref) {
  const Parts r = Parse(ref);
  const Parts b = Parse(base);
  std::string scheme, authority, path, query;
  bool has_authority = false, has_query = false;
  if (r.has_scheme) {
    scheme = r.scheme;
    has_authority = r.has_authority;
    authority = r.authority;
    path = RemoveDotSegments(r.path);
    has_query = r.has_query;
    query = r.query;
  } else {
    scheme = b.scheme;
    if (r.has_authority) {
      has_authority = true;
      authority = r.authority;
      path = RemoveDotSegments(r.path);
      has_query = r.has_query;
      query = r.query;
    } else {
      has_authority = b.has_authority;
      authority = b.authority;
      if (r.path.empty()) {
        path = b.path;
        has_query = r.has_query || b.has_query;
        query = r.has_query ? r.query : b.query;
      } else {
        if (r.path[0] == '/') {
          path = RemoveDotSegments(r.path);
        } else {
          std::string merged;
          if (b.has_authority && b.path.empty()) {
            merged = "/";
            merged += r.path;
          } else {
            const size_t slash = b.path.rfind('/');
            if (slash != std::string_view::npos) merged = b.path.substr(0, slash + 1);
            merged += r.path;
          }
          path = RemoveDotSegments(merged);
        }
        has_query = r.has_query;
        query = r.query;
      }
    }
  }
  std::string out;
  if (!scheme.empty()) {
    out += scheme;
    out += ':';
  }
  if (has_authority) {
    out += "//";
    out += authority;
  }
  out += path;
  if (has_query) {
    out += '?';
    out += query;
  }
  if (r.has_fragment) {
    out += '#';
    out += r.fragment;
  }
  return out;
}

std::string_view WithoutFragment(std::string_view uri) {
  const size_t h = uri.find('#');
  return h == std::string_view::npos ? uri : uri.substr(0, h);
}

std::string_view FragmentOf(std::string_view uri, bool* has_fragment) {
  const size_t h = uri.find('#');
  if (has_fragment) *has_fragment = h != std::string_view::npos;
  return h == std::string_view::npos ? std::string_view() : uri.substr(h + 1);
}

bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    auto hex = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    const int h = hex(in[i + 1]), l = hex(in[i + 2]);
    if (h < 0 || l < 0) return false;
    out->push_back(static_cast<char>(h * 16 + l));
    i += 2;
  }
  return true;
}

bool SplitPointer(std::string_view pointer, std::vector<std::string>* tokens) {
  tokens->clear();
  if (pointer.empty()) return true;
  if (pointer[0] != '/') return false;
  pointer.remove_prefix(1);
  while (true) {
    const size_t e = pointer.find('/');
    std::string_view raw = pointer.substr(0, e);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token.push_back(raw[i]);
        continue;
      }
      if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) return false;
      token.push_back(raw[i + 1] == '0' ? '~' : '/');
      ++i;
    }
    tokens->push_back(std::move(token));
    if (e == std::string_view::npos) break;
    pointer.remove_prefix(e + 1);
  }
  return true;
}

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out.push_back(c);
  }
  return out;
}

}  // namespace rosetta::codec::schema
