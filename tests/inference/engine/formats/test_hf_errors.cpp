// Malformed JSON, safetensors, Hugging Face folders and tokenizer.model files: each gives
// an error naming what was expected and what was found.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/formats/safetensors.h"
#include "inference/engine/model/random_model.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::errorOf;
using ts::testing::expectError;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> safetensors(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8 + header.size() + data_bytes, 0);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(header.size() >> (8 * i));
  for (size_t i = 0; i < header.size(); ++i) out[8 + i] = static_cast<uint8_t>(header[i]);
  return out;
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

int main() {
  // JSON
  {
    // nlohmann-json parses; the errors name the byte (from 1) and what was expected.
    auto ok = parseJson(R"({"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00\n"], "b": {}})");
    const Json* a = ok ? jsonFind(ok.value(), "a") : nullptr;
    check(a && a->size() == 5 && (*a)[4].get<std::string>() == "x\xC3\xA9\xF0\x9F\x98\x80\n" &&
              jsonNumber((*a)[1]) == -2500.0,
          "JSON: arrays, numbers, literals, escapes and surrogate pairs");
    check(jsonInt(parseJson("9007199254740993").value()) == 9007199254740993ll,
          "JSON: integers stay exact past 2^53");
    check(jsonInt(parseJson("1e3").value()) == 1000 && !jsonInt(parseJson("1.5").value()),
          "JSON: a float without a fraction is an integer");
    auto ordered = parseJson(R"({"z": 1, "a": 2})");
    check(ordered && ordered->begin().key() == "z", "JSON: objects keep the file's order");
    expectError(errorOf(parseJson(R"({"a" 1})")),
                "at byte 6: syntax error while parsing object "
                "separator - unexpected number literal; expected ':'",
                "JSON: missing colon");
    expectError(errorOf(parseJson("[1, 2")),
                "at byte 6: syntax error while parsing array - "
                "unexpected end of input; expected ']'",
                "JSON: unclosed array");
    expectError(errorOf(parseJson("{} x")), "expected end of input", "JSON: trailing text");
    expectError(errorOf(parseJson(R"("\ud800")")), "must be followed by U+DC00..U+DFFF",
                "JSON: lone surrogate");
    expectError(errorOf(parseJson("012")), "at byte 3", "JSON: leading zero");
    expectError(errorOf(parseJson(std::string(100, '['))), "at most 64 nested levels",
                "JSON: nesting too deep (no stack overflow)");
    expectError(errorOf(parseJson("tru")),
                "at byte 4: syntax error while parsing value - invalid "
                "literal",
                "JSON: cut literal");
  }
  // safetensors
  {
    const std::string good = R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
    auto ok = parseSafetensors(safetensors(good, 24));
    check(ok.ok() && ok->tensors.size() == 1 && ok->tensors[0].offset == 8 + good.size() &&
              ok->tensors[0].shape == std::vector<uint64_t>{2, 3},
          "safetensors: a 2x3 F32 tensor right after the header");
    expectError(errorOf(parseSafetensors(std::vector<uint8_t>(5))),
                "expected an 8-byte header length, found a 5-byte file", "safetensors: too short");
    auto past = safetensors(good, 24);
    past[0] = 0xFF;
    past[3] = 0x7F;
    expectError(errorOf(parseSafetensors(past)), "is past the end of the",
                "safetensors: header length past the end");
    expectError(errorOf(parseSafetensors(safetensors(good, 10))),
                "data_offsets [0, 24] outside the 10 data bytes", "safetensors: truncated data");
    expectError(errorOf(parseSafetensors(safetensors(
                    R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 24))),
                "expected 24 bytes for F32 shape of 6 elements, found 20",
                "safetensors: shape mismatch");
    expectError(errorOf(parseSafetensors(
                    safetensors(R"({"w":{"dtype":"Q9","shape":[1],"data_offsets":[0,1]}})", 1))),
                "unknown dtype 'Q9'", "safetensors: unknown dtype");
    expectError(errorOf(parseSafetensors(safetensors(R"({"w":{"dtype":"F32"}})", 0))),
                "expected an array \"shape\"", "safetensors: no shape");
    expectError(errorOf(parseSafetensors(safetensors("[1]", 0))),
                "expected a JSON object, found array", "safetensors: header not an object");
    expectError(errorOf(parseSafetensors(safetensors("{\"w\":", 0))),
                "safetensors header: expected valid JSON, found an error at byte 6",
                "safetensors: broken header JSON");
  }
  // Hugging Face folders
  ts::testing::TempDir dir("tokenscope-hf-errors");
  auto config = shapeConfig("llama-tiny", 1);
  auto model = randomModel(config.value(), WeightFormat::F32, 3);
  {
    fs::create_directories(dir / "empty");
    expectError(errorOf(loadModel(dir / "empty")),
                "expected a Hugging Face model folder with config.json, found none",
                "HF: folder without config.json");
    check(writeHfFolder(*model, dir / "good").ok(), "HF: a llama-tiny folder is written");
    check(loadModel(dir / "good").ok(), "HF: and it loads");
    // Wrong architecture.
    fs::copy(dir / "good", dir / "arch", fs::copy_options::recursive);
    writeFile(dir / "arch/config.json", R"({"architectures": ["GPT2LMHeadModel"]})");
    expectError(errorOf(loadModel(dir / "arch")),
                "expected BaichuanForCausalLM, BaiChuanForCausalLM or LlamaForCausalLM, found "
                "'GPT2LMHeadModel'",
                "HF: unsupported architecture");
    // A missing field.
    fs::copy(dir / "good", dir / "field", fs::copy_options::recursive);
    writeFile(dir / "field/config.json",
              R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 256})");
    expectError(errorOf(loadModel(dir / "field")), "config.json: missing \"num_hidden_layers\"",
                "HF: missing config field");
    // A wrong shape in config.json against the tensors.
    fs::copy(dir / "good", dir / "shape", fs::copy_options::recursive);
    std::ifstream in(dir / "shape/config.json");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    text.replace(text.find("\"intermediate_size\": 688"), 24, "\"intermediate_size\": 700");
    writeFile(dir / "shape/config.json", text);
    expectError(errorOf(loadModel(dir / "shape")),
                "tensor 'model.layers.0.mlp.gate_proj.weight': expected shape [700, 256], found "
                "[688, 256]",
                "HF: tensor shape against config.json");
    // PyTorch weights only.
    fs::create_directories(dir / "torch");
    fs::copy(dir / "good/config.json", dir / "torch/config.json");
    writeFile(dir / "torch/pytorch_model.bin", "x");
    expectError(
        errorOf(loadModel(dir / "torch")),
        "pytorch_model.bin: expected a PyTorch checkpoint (a ZIP archive), found other bytes",
        "HF: pytorch_model.bin only");
    // A shard named by the index is missing.
    HfWriteOptions two;
    two.shards = 2;
    check(writeHfFolder(*model, dir / "sharded", two).ok(), "HF: two shards written");
    fs::remove(dir / "sharded/model-00002-of-00002.safetensors");
    expectError(errorOf(loadModel(dir / "sharded")),
                "shard model-00002-of-00002.safetensors named by model.safetensors.index.json is "
                "missing",
                "HF: missing shard");
    // A tensor missing from the weights.
    check(writeHfFolder(*model, dir / "missing", two).ok(), "HF: two more shards written");
    writeFile(
        dir / "missing/model.safetensors.index.json",
        R"({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors"}})");
    expectError(errorOf(loadModel(dir / "missing")), "missing tensor",
                "HF: tensor absent from the shards the index names");
    // Path traversal in the index.
    writeFile(dir / "missing/model.safetensors.index.json",
              R"({"weight_map": {"x": "../../etc/passwd"}})");
    expectError(errorOf(loadModel(dir / "missing")), "expected a file name in the folder",
                "HF: index naming a file outside the folder");
  }
  // tokenizer.model
  {
    Vocabulary v;
    v.pieces = {"<unk>", "<s>", "</s>", "▁a"};
    v.scores = {0, 0, 0, -1.5f};
    v.types = {2, 3, 3, 1};
    v.eos = -1;
    const std::string bytes = serializeSentencePieceModel(v);
    auto back =
        parseSentencePieceModel({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    check(back.ok() && back->pieces == v.pieces && back->scores == v.scores &&
              back->types == v.types && back->eos == -1 && back->bos == 1,
          "tokenizer.model: pieces, scores, types and special ids (eos -1 = none) round-trip");
    expectError(errorOf(parseSentencePieceModel(
                    {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size() / 2})),
                "tokenizer.model: expected", "tokenizer.model: truncated");
    const uint8_t empty[] = {0x10, 0x01};  // one unknown varint field, no pieces
    expectError(errorOf(parseSentencePieceModel(empty)), "expected pieces, found none",
                "tokenizer.model: no pieces");
  }
  return ts::testing::finish();
}
