// The tokenizer against references made by an independent implementation: the real
// Baichuan-7B vocabulary (Chinese, English, code, byte fallback) and aidreams260K's prompts.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/inference/engine/check.h"
#include "tests/inference/engine/json_text.h"

#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/chat_template.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"
#include "inference/engine/tokenizer/tokenizer.h"

using ts::testing::check;
using ts::testing::join;

using namespace ts::engine;

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
    return ts::testing::finish();
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
    const std::string text = ts::testing::jsonUnescape((*it)[1].str());
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

  // Rare CJK outside the vocabulary goes through byte fallback and comes back whole.
  for (const std::string text :
       {"\xF0\xA0\x80\x80\xE9\xBE\x98", "\xE4\xB9\x82 emoji \xF0\x9F\xA6\x80"}) {
    const auto ids = baichuan.encode(text, false);
    std::string round;
    for (int id : ids) round += baichuan.piece(id);
    check(round == " " + text, "Baichuan: rare CJK / emoji round-trip through byte pieces (" +
                                   std::to_string(ids.size()) + " tokens)");
  }

  // The same vocabulary as a sentencepiece tokenizer.model (what Hugging Face folders
  // carry): rebuilt from the GGUF, read back, it tokenizes every reference the same way.
  {
    Vocabulary full = vocab;
    for (const auto& t : *gguf->find("tokenizer.ggml.token_type")->asArray())
      full.types.push_back(static_cast<int32_t>(*t.asInt()));
    const std::string proto = serializeSentencePieceModel(full);
    auto back =
        parseSentencePieceModel({reinterpret_cast<const uint8_t*>(proto.data()), proto.size()});
    check(back.ok() && back->pieces == full.pieces && back->scores == full.scores &&
              back->types == full.types,
          "Baichuan: 64,000 pieces, scores and types survive tokenizer.model (" +
              std::to_string(proto.size()) + " bytes)");
    Tokenizer from_model(back.value());
    bool same = true;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), entry);
         it != std::sregex_iterator(); ++it) {
      const std::string text = ts::testing::jsonUnescape((*it)[1].str());
      same = same && from_model.encode(text, true) == baichuan.encode(text, true);
    }
    check(same, "Baichuan: the tokenizer.model route gives every reference tokenization");
  }

  // The Baichuan chat template: 195 before user text, 196 before the answer, no BOS.
  {
    const auto hello = baichuan.encode("你好", false);
    std::vector<int> want = {kBaichuanUserToken};
    want.insert(want.end(), hello.begin(), hello.end());
    want.push_back(kBaichuanAssistantToken);
    check(baichuanChatPrompt(baichuan, {{"user", "你好"}}) == want,
          "chat: one user turn is 195 + text + 196: " + join(want));
    const auto sys = baichuan.encode("Be brief.", false), hi = baichuan.encode("Hi!", false);
    std::vector<int> turns = sys;
    turns.push_back(kBaichuanUserToken);
    turns.insert(turns.end(), hello.begin(), hello.end());
    turns.push_back(kBaichuanAssistantToken);
    turns.insert(turns.end(), hi.begin(), hi.end());
    turns.insert(turns.end(), want.begin(), want.end());
    const std::vector<ChatMessage> chat = {
        {"system", "Be brief."}, {"user", "你好"}, {"assistant", "Hi!"}, {"user", "你好"}};
    check(baichuanChatPrompt(baichuan, chat) == turns,
          "chat: system text, then user / assistant turns, ending with 196");
    std::vector<int> cut = sys;
    cut.insert(cut.end(), want.begin(), want.end());
    check(baichuanChatPrompt(baichuan, chat, static_cast<int>(cut.size())) == cut,
          "chat: the oldest round is dropped when the prompt must fit " +
              std::to_string(cut.size()) + " tokens");
    check(completionPrompt(baichuan, "你好").front() == 1,
          "completion: the plain prompt starts with BOS");
  }

  auto aidreams = loadModel((models / "aidreams260K" / "aidreams260K.gguf").string());
  Tokenizer t(aidreams.value()->vocab);
  check(join(t.encode("I dreamed", true)) == "1,303,281,269,435,447,328",
        "aidreams260K: \"I dreamed\"");
  return ts::testing::finish();
}
