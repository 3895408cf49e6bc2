// Unescaping a JSON string body (\n \t \" \\ \uXXXX with surrogate pairs) for the engine
// tests, which read small reference files without Qt.
#pragma once
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ts::testing {

inline std::string jsonUnescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    if (e == 'n')
      out += '\n';
    else if (e == 't')
      out += '\t';
    else if (e == 'u') {
      unsigned cp = std::stoul(s.substr(i + 1, 4), nullptr, 16);
      i += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && s.compare(i + 1, 2, "\\u") == 0) {
        const unsigned lo = std::stoul(s.substr(i + 3, 4), nullptr, 16);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      }
      if (cp < 0x80)
        out += char(cp);
      else if (cp < 0x800) {
        out += char(0xC0 | cp >> 6);
        out += char(0x80 | (cp & 63));
      } else if (cp < 0x10000) {
        out += char(0xE0 | cp >> 12);
        out += char(0x80 | ((cp >> 6) & 63));
        out += char(0x80 | (cp & 63));
      } else {
        out += char(0xF0 | cp >> 18);
        out += char(0x80 | ((cp >> 12) & 63));
        out += char(0x80 | ((cp >> 6) & 63));
        out += char(0x80 | (cp & 63));
      }
    } else
      out += e;
  }
  return out;
}

// The numbers of a flat array field "key": [1, 2.5, ...] (empty when absent).
inline std::vector<double> jsonNumbers(const std::string& json, const std::string& key) {
  std::smatch m;
  std::vector<double> out;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\"\\s*:\\s*\\[([^\\]]*)\\]")))
    return out;
  std::stringstream ss(m[1].str());
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atof(item.c_str()));
  return out;
}

}  // namespace ts::testing
