// The tokenizer against references made by an independent implementation: the real
// Baichuan-7B vocabulary (Chinese, English, code, byte fallback) and aidreams260K's prompts.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "inference/engine/gguf.h"
#include "inference/engine/mapped_file.h"
#include "inference/engine/model.h"
#include "inference/engine/tokenizer.h"

using namespace ts::engine;

namespace {
int g_passed = 0, g_failed = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}
std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}
std::string unescape(const std::string& s) {  // JSON string body: \n \t \" \\ \uXXXX (+ pairs)
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
}  // namespace

int main() {
  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : "../shared") / "models";

  // Streaming detokenization never splits a character.
  Utf8Stream stream;
  const std::string ni = "你";  // 3 bytes
  const std::string a = stream.push(ni.substr(0, 1)), b = stream.push(ni.substr(1, 1)),
                    c = stream.push(ni.substr(2) + "!");
  check(a.empty() && b.empty() && c == ni + "!",
        "UTF-8 split across three tokens is emitted whole");

  if (!std::filesystem::exists(models / "baichuan-vocab")) {
    std::printf("SKIP: %s is absent (the shared test fixtures are not laid out here)\n",
                models.c_str());
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
  }
  auto file = MappedFile::open((models / "baichuan-vocab" / "ggml-vocab-baichuan.gguf").string());
  auto gguf = parseGguf(file.value()->bytes());
  check(gguf.ok(), "Baichuan vocabulary GGUF parses");
  Vocabulary vocab;
  for (const auto& t : *gguf->find("tokenizer.ggml.tokens")->asArray())
    vocab.pieces.push_back(*t.asString());
  for (const auto& s : *gguf->find("tokenizer.ggml.scores")->asArray())
    vocab.scores.push_back(float(*s.asFloat()));
  Tokenizer baichuan(vocab);
  std::ifstream in(models / "baichuan-vocab" / "tokenization-reference.json");
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex entry(
      "\"text\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,\\s*\"ids_with_bos\"\\s*:\\s*\\[([^\\]]*)"
      "\\]");
  int cases = 0;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), entry);
       it != std::sregex_iterator(); ++it) {
    const std::string text = unescape((*it)[1].str());
    std::string want = std::regex_replace((*it)[2].str(), std::regex("\\s"), "");
    const auto got = baichuan.encode(text, true);
    check(join(got) == want, "Baichuan: \"" + text.substr(0, 40) + "\" -> " + join(got) +
                                 (join(got) == want ? "" : " (want " + want + ")"));
    std::string round;
    for (size_t i = 1; i < got.size(); ++i) round += baichuan.piece(got[i]);
    check(round == " " + text, "Baichuan: decode(encode(text)) gives the text back");
    ++cases;
  }
  check(cases >= 5, "read " + std::to_string(cases) + " reference tokenizations");

  auto aidreams = loadModel((models / "aidreams260K" / "aidreams260K.gguf").string());
  Tokenizer t(aidreams.value()->vocab);
  check(join(t.encode("I dreamed", true)) == "1,303,281,269,435,447,328",
        "aidreams260K: \"I dreamed\"");
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
