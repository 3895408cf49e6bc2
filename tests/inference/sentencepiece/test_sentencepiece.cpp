// The engine's tokenizer against the sentencepiece library itself, on the same
// vocabulary (rebuilt as a tokenizer.model): the real Baichuan-7B vocabulary over the
// reference texts and harder ones (spaces, tabs, newlines, rare CJK, emoji, code), and
// aidreams260K's llama2.c vocabulary. Same ids, and decode gives the text back.
#include <filesystem>
#include <string>
#include <vector>

#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "inference/sentencepiece/sentencepiece_tokenizer.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::join;

namespace {

void compare(const std::string& name, const Vocabulary& vocab,
             const std::vector<std::string>& texts) {
  auto library = ts::SentencePieceTokenizer::fromVocabulary(vocab);
  if (!library) return check(false, name + ": " + library.error());
  const Tokenizer ours(vocab);
  for (const auto& text : texts) {
    const auto want = library.value()->encode(text, true), got = ours.encode(text, true);
    check(got == want,
          name + ": \"" + text.substr(0, 30) + "\" -> " + join(got) +
              (got == want ? " as sentencepiece" : " (sentencepiece: " + join(want) + ")"));
    const std::vector<int> body(want.begin() + 1, want.end());
    check(library.value()->decode(body) == text, name + ": sentencepiece decodes it back");
  }
}

}  // namespace

int main() {
  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : "../shared") / "models";
  std::printf("sentencepiece %s\n", ts::SentencePieceTokenizer::version().c_str());
  if (!std::filesystem::exists(models / "baichuan-vocab")) {
    std::printf("SKIP: %s is absent (the shared test fixtures are not laid out here)\n",
                models.c_str());
    return ts::testing::finish();
  }
  auto baichuan = loadVocabulary((models / "baichuan-vocab" / "ggml-vocab-baichuan.gguf").string());
  check(baichuan.ok() && baichuan->pieces.size() == 64000, "Baichuan vocabulary: 64,000 pieces");
  compare("Baichuan", baichuan.value(),
          {"你好，世界", "Hello world", "def f(x):\n\treturn x * 2", "  two leading spaces",
           "数字 12345 和 3.14", "\xF0\xA0\x80\x80\xE9\xBE\x98 rare CJK",
           "emoji \xF0\x9F\x98\x80\xF0\x9F\xA6\x80", "mixed 中文 and English, 标点！？",
           "multiple   spaces\n\nnew lines"});
  auto aidreams = loadVocabulary((models / "aidreams260K" / "aidreams260K.bin").string());
  check(aidreams.ok(), "aidreams260K vocabulary (llama2.c tok512.bin)");
  compare("aidreams260K", aidreams.value(), {"I dreamed", "In my dream, a gentle hum"});

  // A tokenizer.model file on disk loads through the library the same way.
  ts::testing::TempDir dir("tokenscope-sentencepiece");
  const std::string path = dir / "tokenizer.model";
  const std::string proto = serializeSentencePieceModel(baichuan.value());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(proto.data(), 1, proto.size(), f);
  std::fclose(f);
  auto file = ts::SentencePieceTokenizer::fromFile(path);
  check(file.ok() &&
            file.value()->encode("你好", true) == Tokenizer(baichuan.value()).encode("你好", true),
        "a tokenizer.model file: the library and the engine agree");
  auto missing = ts::SentencePieceTokenizer::fromFile(dir / "none.model");
  check(!missing.ok() && missing.error().find("none.model") != std::string::npos,
        "a missing tokenizer.model names the file: " + (missing.ok() ? "" : missing.error()));
  return ts::testing::finish();
}
