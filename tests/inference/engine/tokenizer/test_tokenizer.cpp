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

#include "inference/engine/formats/generation_config.h"
#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/json_reader.h"
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

  // User-defined pieces are matched whole; a types array shorter than the pieces (a GGUF
  // that says less) leaves the rest ordinary, read within bounds.
  {
    Vocabulary v;
    v.pieces = {"<unk>", "a", "<x>", "c", "<y>", "<", "x", ">", "y"};
    v.types = {2, 1, 4};
    v.add_dummy_prefix = false;
    Tokenizer t(v);
    check(t.encode("a<x>c<y>", false) == std::vector<int>({1, 2, 3, 5, 8, 7}),
          "user-defined <x> matched whole; <y> past the types array split into characters: " +
              join(t.encode("a<x>c<y>", false)));
  }

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

  // Baichuan2 (baichuan2-tiny's tokenizer.model, 125,696 pieces, no dummy prefix): the
  // reference tokenizations, and its chat format with the role ids of generation_config.json.
  if (const auto b2 = models / "baichuan2-tiny" / "7b-bf16"; std::filesystem::exists(b2)) {
    auto vocab2 = loadVocabulary(b2.string());
    check(vocab2.ok() && vocab2->pieces.size() == 125696 && !vocab2->add_dummy_prefix,
          "Baichuan2: tokenizer.model read (125,696 pieces, no dummy prefix)");
    Tokenizer b2t(vocab2.value());
    auto ref = readJsonFile((models / "baichuan2-tiny" / "reference" / "tokenizer.json").string());
    int cases2 = 0, equal2 = 0;
    for (const Json& c : ref.ok() ? ref.value()["cases"] : Json::array()) {
      ++cases2;
      const std::string t2 = c["text"].get<std::string>();
      const std::vector<int> want = c["ids"].get<std::vector<int>>();
      const auto ids = b2t.encode(t2, false);
      std::string back;
      for (int id : ids) back += b2t.piece(id);
      if (ids == want && back == t2)
        ++equal2;
      else
        std::printf("  differs: '%s': %s vs %s ('%s')\n", t2.c_str(), join(ids).c_str(),
                    join(want).c_str(), back.c_str());
    }
    check(cases2 == 12 && equal2 == cases2, "Baichuan2: " + std::to_string(equal2) + " of " +
                                                std::to_string(cases2) +
                                                " reference tokenizations equal, and decode back");
    // Two turns as build_chat_input gives them: user_token_id (195), the text, then
    // assistant_token_id (196) before each answer, no BOS; ids written out from tokenizer.json.
    auto defaults = readGenerationConfig(b2.string());
    check(defaults.ok() && defaults->user_token == 195 && defaults->assistant_token == 196 &&
              defaults->temperature == 0.3 && defaults->top_k == 5 && defaults->top_p == 0.85 &&
              defaults->repetition_penalty == 1.05 && defaults->max_new_tokens == 2048,
          "Baichuan2: generation_config.json's roles and suggested settings");
    const std::vector<ChatMessage> two = {{"user", "Hello 你好 世界"},
                                          {"assistant", "百川智能大模型推理性能优化"},
                                          {"user", "Hello 你好 世界"}};
    const std::vector<int> expected = {195,   19254, 9875,  31213, 31106, 2781,  196,   31745,
                                       32213, 6358,  31175, 14830, 31502, 31240, 11098, 9784,
                                       195,   19254, 9875,  31213, 31106, 2781,  196};
    const auto built = baichuanChatPrompt(b2t, two, 0, defaults->roles());
    check(built == expected,
          "Baichuan2 chat: a two-turn conversation's ids are the template's: " + join(built));
    // The ids come from the file: other role ids give other prompts.
    GenerationDefaults other;
    other.user_token = 5;
    other.assistant_token = 6;
    const auto moved = baichuanChatPrompt(b2t, two, 0, other.roles());
    check(moved.front() == 5 && moved[6] == 6 && moved.back() == 6,
          "Baichuan2 chat: the role ids are the configured ones (5 / 6): " + join(moved));
    // Trimming drops whole old rounds, never the current turn: with room for 8 tokens the
    // current turn (7) stays whole; with room for 3 it is still kept whole.
    const std::vector<int> current(expected.end() - 7, expected.end());
    check(baichuanChatPrompt(b2t, two, 8, defaults->roles()) == current &&
              baichuanChatPrompt(b2t, two, 3, defaults->roles()) == current,
          "Baichuan2 chat: history trimming keeps the current turn whole");
  }

  auto aidreams = loadModel((models / "aidreams260K" / "aidreams260K.gguf").string());
  Tokenizer t(aidreams.value()->vocab);
  check(join(t.encode("I dreamed", true)) == "1,303,281,269,435,447,328",
        "aidreams260K: \"I dreamed\"");
  return ts::testing::finish();
}
