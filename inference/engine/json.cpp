#include "inference/engine/json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ts::engine {

std::optional<int64_t> JsonValue::asInt() const {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v))
    if (std::isfinite(*d) && std::floor(*d) == *d && std::abs(*d) < 9.2e18)
      return static_cast<int64_t>(*d);
  return std::nullopt;
}
std::optional<double> JsonValue::asNumber() const {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}
std::optional<bool> JsonValue::asBool() const {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  return std::nullopt;
}
const std::string* JsonValue::asString() const {
  return std::get_if<std::string>(&v);
}
const JsonArray* JsonValue::asArray() const {
  const auto* a = std::get_if<std::shared_ptr<JsonArray>>(&v);
  return a ? a->get() : nullptr;
}
const JsonObject* JsonValue::asObject() const {
  const auto* o = std::get_if<std::shared_ptr<JsonObject>>(&v);
  return o ? o->get() : nullptr;
}
const JsonValue* JsonValue::find(std::string_view key) const {
  if (const JsonObject* o = asObject())
    for (const auto& [k, value] : *o)
      if (k == key) return &value;
  return nullptr;
}
std::string JsonValue::typeName() const {
  static const char* names[] = {"null",   "boolean", "integer", "number",
                                "string", "array",   "object"};
  return names[v.index()];
}

namespace {

constexpr int kMaxDepth = 64;  // deeper nesting is not a model file: refuse, don't recurse

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<JsonValue> document() {
    JsonValue value;
    if (!parseValue(value, 0)) return fail(error_);
    skipSpace();
    if (i_ != s_.size()) return fail(at("end of input"));
    return value;
  }

 private:
  std::string found() const {
    if (i_ >= s_.size()) return "end of input";
    const unsigned char c = s_[i_];
    if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    return "byte " + std::to_string(c);
  }
  std::string at(const std::string& expected) const {
    return "JSON: expected " + expected + " at byte " + std::to_string(i_) + ", found " + found();
  }
  bool error(const std::string& expected) {
    error_ = at(expected);
    return false;
  }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) == word) {
      i_ += word.size();
      return true;
    }
    std::string expected(1, '\'');
    expected.append(word);
    expected.push_back('\'');
    return error(expected);
  }

  bool parseValue(JsonValue& out, int depth) {
    if (depth > kMaxDepth) return error("at most " + std::to_string(kMaxDepth) + " nested levels");
    skipSpace();
    if (i_ >= s_.size()) return error("a value");
    switch (s_[i_]) {
      case '{':
        return parseObject(out, depth);
      case '[':
        return parseArray(out, depth);
      case '"': {
        std::string text;
        if (!parseString(text)) return false;
        out.v = std::move(text);
        return true;
      }
      case 't':
        out.v = true;
        return literal("true");
      case 'f':
        out.v = false;
        return literal("false");
      case 'n':
        out.v = nullptr;
        return literal("null");
      default:
        return parseNumber(out);
    }
  }

  bool parseObject(JsonValue& out, int depth) {
    auto object = std::make_shared<JsonObject>();
    ++i_;  // '{'
    skipSpace();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      out.v = object;
      return true;
    }
    while (true) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != '"') return error("a string key");
      std::string key;
      if (!parseString(key)) return false;
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != ':') return error("':'");
      ++i_;
      JsonValue value;
      if (!parseValue(value, depth + 1)) return false;
      object->emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        out.v = object;
        return true;
      }
      return error("',' or '}'");
    }
  }

  bool parseArray(JsonValue& out, int depth) {
    auto array = std::make_shared<JsonArray>();
    ++i_;  // '['
    skipSpace();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      out.v = array;
      return true;
    }
    while (true) {
      JsonValue value;
      if (!parseValue(value, depth + 1)) return false;
      array->push_back(std::move(value));
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        out.v = array;
        return true;
      }
      return error("',' or ']'");
    }
  }

  bool hex4(uint32_t& out) {
    out = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      if (i_ >= s_.size()) return error("4 hex digits after \\u");
      const char c = s_[i_];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return error("4 hex digits after \\u");
      out = out * 16 + d;
    }
    return true;
  }

  static void appendUtf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | cp >> 6);
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | cp >> 12);
      s += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | cp >> 18);
      s += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
      s += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string& out) {
    ++i_;  // opening quote
    while (true) {
      if (i_ >= s_.size()) return error("a closing '\"'");
      const unsigned char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return error("no raw control characters in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++i_;
        continue;
      }
      ++i_;
      if (i_ >= s_.size()) return error("an escape after '\\'");
      const char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate needs its low half
            uint32_t low;
            if (s_.substr(i_, 2) != "\\u") return error("a low surrogate \\uDC00..\\uDFFF");
            i_ += 2;
            if (!hex4(low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return error("a low surrogate \\uDC00..\\uDFFF");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return error("a high surrogate before a low one");
          }
          appendUtf8(out, cp);
          break;
        }
        default:
          --i_;
          return error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }

  bool parseNumber(JsonValue& out) {
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    const auto digits = [&] {
      const size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - from;
    };
    const size_t int_start = i_;
    if (digits() == 0) {
      i_ = start;
      return error("a value");
    }
    if (s_[int_start] == '0' && i_ - int_start > 1) {
      i_ = int_start;
      return error("no leading zeros in a number");
    }
    bool integer = true;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      integer = false;
      if (digits() == 0) return error("digits after '.'");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      integer = false;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) return error("exponent digits");
    }
    const std::string text(s_.substr(start, i_ - start));
    if (integer) {
      errno = 0;
      char* end = nullptr;
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (errno == 0) {
        out.v = static_cast<int64_t>(value);
        return true;
      }
    }
    out.v = std::strtod(text.c_str(), nullptr);  // too large for int64: a double
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

}  // namespace

Result<JsonValue> parseJson(std::string_view text) {
  return Parser(text).document();
}

}  // namespace ts::engine
