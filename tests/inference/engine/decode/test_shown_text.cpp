// What a generation shows as text: with the real Baichuan-7B vocabulary, a model that emits
// a control piece (<reserved_56>), the end-of-sequence piece's neighbours and byte pieces
// shows only the text: the markup pieces keep their ids in the output and show nothing
// (they used to appear in chat as "<reserved_56>"). A scripted session stands in for the
// model: its logits pick the next id of a script.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/pieces.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

// Logits that make greedy sampling pick script[i] at the i-th sampled position.
class ScriptedSession : public DecodeSession {
 public:
  ScriptedSession(int vocab, std::vector<int> script)
      : vocab_(vocab), script_(std::move(script)), logits_(vocab) {}
  std::span<const float> forwardBatch(std::span<const int>, int, bool) override {
    std::fill(logits_.begin(), logits_.end(), 0.f);
    logits_[script_[std::min(next_++, script_.size() - 1)]] = 10.f;
    return logits_;
  }
  void truncate(int) override {}
  int vocab() const override { return vocab_; }
  int maxPositions() const override { return 256; }

 private:
  int vocab_;
  std::vector<int> script_;
  std::vector<float> logits_;
  size_t next_ = 0;
};

int idOf(const Vocabulary& vocab, const std::string& piece) {
  for (size_t i = 0; i < vocab.pieces.size(); ++i)
    if (vocab.pieces[i] == piece) return static_cast<int>(i);
  return -1;
}

}  // namespace

int main() {
  const char* env = std::getenv("TOKENSCOPE_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : "../shared") / "models";
  const auto path = models / "baichuan-vocab" / "ggml-vocab-baichuan.gguf";
  if (!std::filesystem::exists(path)) {
    std::printf("SKIP the shared fixtures are absent (%s)\n", path.c_str());
    return ts::testing::finish();
  }
  auto loaded = loadVocabulary(path.string());
  check(loaded.ok(), "the Baichuan-7B vocabulary loads");
  if (!loaded) return ts::testing::finish();
  const Vocabulary vocab = loaded.value();
  const Tokenizer tokenizer(vocab);

  const int reserved = idOf(vocab, "<reserved_56>");
  check(reserved > 0 && tokenizer.piece(reserved) == "<reserved_56>",
        "the vocabulary has <reserved_56> (its piece bytes are the tag)");
  check(tokenizer.displayPiece(reserved).empty(), "<reserved_56> shows as nothing");
  check(tokenizer.displayPiece(vocab.bos).empty() && tokenizer.displayPiece(vocab.eos).empty(),
        "BOS and EOS show as nothing");
  check(isMarkupPiece("<extra_3>") && isMarkupPiece("<|im_end|>") && isMarkupPiece("<unused12>") &&
            !isMarkupPiece("<div>") && !isMarkupPiece("<reserved_>") && !isMarkupPiece("<0x41>"),
        "named tags are markup; HTML-like text and byte pieces are not");

  // A generation: "Hello" <reserved_56> " world" <0xE4><0xBD><0xA0> ("你" by bytes), then EOS.
  std::vector<int> script;
  for (int id : tokenizer.encode("Hello", false)) script.push_back(id);
  script.push_back(reserved);
  for (int id : tokenizer.encode(" world", false)) script.push_back(id);
  for (const char* byte : {"<0xE4>", "<0xBD>", "<0xA0>"}) script.push_back(idOf(vocab, byte));
  script.push_back(vocab.eos);
  ScriptedSession session(static_cast<int>(vocab.pieces.size()), script);
  GenerateOptions options;
  options.max_tokens = 32;
  options.sampling.temperature = 0;
  std::string streamed;
  const GenerationOutcome out =
      ts::testing::valueOf(generate(session, tokenizer, {vocab.bos, 100}, options,
                                    [&](const GeneratedToken& t) {
                                      streamed += t.text;
                                      return true;
                                    }),
                           "the scripted generation");
  const std::vector<int> without_eos(script.begin(), script.end() - 1);
  check(out.ids == without_eos, "the output keeps every id, the control piece's too");
  check(out.text.find("reserved") == std::string::npos && streamed == out.text,
        "the shown text has no <reserved_56>: '" + out.text + "'");
  check(out.text.find("Hello") != std::string::npos &&
            out.text.find("world") != std::string::npos && out.text.find("你") != std::string::npos,
        "the text around it, and a character made of byte pieces, are shown");
  return ts::testing::finish();
}
