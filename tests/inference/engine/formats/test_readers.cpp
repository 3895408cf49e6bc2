// Every class of malformed input to the GGUF and llama2.c readers gets an error naming
// what was expected and what was found; valid files built in code load and run.
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/inference/engine/check.h"

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/llama2c.h"
#include "inference/engine/formats/model_loader.h"
#include "tests/inference/engine/gguf_writer.h"

using ts::testing::check;

using namespace ts::engine;
using ts::testing::GgufWriter;

namespace {
bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
template <class R>
void expectError(const R& r, const std::string& part, const std::string& what) {
  const std::string msg = r.ok() ? "(no error)" : r.error();
  check(!r.ok() && has(msg, part), what + ": " + msg);
}
std::string writeTemp(const std::vector<uint8_t>& bytes, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path.string();
}
}  // namespace

int main() {
  const auto good = ts::testing::tinyLlamaGguf();
  auto parsed = parseGguf(good);
  check(parsed.ok() && parsed->tensors.size() == 11 && parsed->version == 3, "a valid GGUF parses");

  // Truncation at every length must fail cleanly, never read past the end.
  bool all_truncations_fail = true;
  for (size_t n = 0; n < good.size(); n += 7)
    all_truncations_fail &= !parseGguf(std::span(good.data(), n)).ok();
  check(all_truncations_fail, "every truncation of a GGUF is an error");
  expectError(parseGguf(std::span(good.data(), 100)), "truncated file: expected",
              "truncated header");

  auto bad_magic = good;
  std::memcpy(bad_magic.data(), "GGML", 4);
  expectError(parseGguf(bad_magic), "expected magic 'GGUF', found 'GGML'", "wrong magic");
  auto v1 = good;
  v1[4] = 1;
  expectError(parseGguf(v1), "expected 2 or 3, found 1", "old version");

  GgufWriter absurd;
  absurd.u32(0x46554747);
  absurd.u32(3);
  absurd.u64(1ull << 40);
  absurd.u64(1ull << 40);
  expectError(parseGguf(absurd.bytes), "absurd counts", "absurd counts");

  GgufWriter bad_type;
  bad_type.u32(0x46554747);
  bad_type.u32(3);
  bad_type.u64(1);
  bad_type.u64(0);
  bad_type.tensorInfo("blk.0.attn_q.weight", {32, 4}, 16, 0);
  expectError(parseGguf(bad_type.bytes),
              "unsupported tensor type IQ2_XXS in tensor 'blk.0.attn_q.weight' (supported: F32, "
              "F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K)",
              "unsupported tensor type");

  GgufWriter past_end;
  past_end.u32(0x46554747);
  past_end.u32(3);
  past_end.u64(1);
  past_end.u64(0);
  past_end.tensorInfo("w", {64, 64}, 0, 0);
  past_end.alignTo(32);
  expectError(parseGguf(past_end.bytes), "runs past the end", "tensor data past the end");

  GgufWriter rank;
  rank.u32(0x46554747);
  rank.u32(3);
  rank.u64(1);
  rank.u64(0);
  rank.str("w");
  rank.u32(9);
  expectError(parseGguf(rank.bytes), "expected 1 to 4 dimensions, found 9", "absurd rank");

  GgufWriter badbool;
  badbool.u32(0x46554747);
  badbool.u32(3);
  badbool.u64(0);
  badbool.u64(1);
  badbool.str("flag");
  badbool.u32(7);
  badbool.bytes.push_back(5);
  expectError(parseGguf(badbool.bytes), "expected a bool (0 or 1), found 5", "bad bool");

  GgufWriter longstr;
  longstr.u32(0x46554747);
  longstr.u32(3);
  longstr.u64(0);
  longstr.u64(1);
  longstr.u64(1ull << 50);
  expectError(parseGguf(longstr.bytes), "but only", "string longer than the file");

  // Model-level checks: missing tensors and wrong shapes name the tensor.
  expectError(
      loadModel(writeTemp(ts::testing::tinyLlamaGguf("blk.0.attn_k.weight"), "ts_missing.gguf")),
      "missing tensor 'blk.0.attn_k.weight'", "missing tensor");
  expectError(
      loadModel(writeTemp(ts::testing::tinyLlamaGguf({}, "blk.0.ffn_up.weight"), "ts_shape.gguf")),
      "tensor 'blk.0.ffn_up.weight': expected shape [8, 16], found [9, 16]", "shape mismatch");
  expectError(loadModel("/nonexistent/model.gguf"), "cannot open /nonexistent/model.gguf",
              "missing file");

  auto tiny = loadModel(writeTemp(good, "ts_tiny.gguf"));
  check(tiny.ok() && tiny.value()->config.n_kv_heads == 1, "a valid tiny GQA GGUF loads");
  if (tiny.ok()) {
    CpuSession s(tiny.value(), 4);
    auto logits = s.forward(3, 0);
    bool finite = logits.size() == 32;
    for (float x : logits) finite &= std::isfinite(x);
    check(finite, "its forward pass gives 32 finite logits");
  }

  // llama2.c checkpoints.
  std::vector<uint8_t> short_header(10);
  expectError(parseLlama2c(short_header), "expected a 28-byte header, found 10 bytes",
              "short llama2.c header");
  int32_t header[7] = {64, 172, 4, 5, 5, 512, 128};  // 5 heads do not divide 64
  std::vector<uint8_t> bad_heads(reinterpret_cast<uint8_t*>(header),
                                 reinterpret_cast<uint8_t*>(header) + 28);
  expectError(parseLlama2c(bad_heads), "expected n_heads dividing dim, found 5",
              "heads not dividing dim");
  header[3] = 4;
  header[4] = 4;
  std::vector<uint8_t> no_weights(reinterpret_cast<uint8_t*>(header),
                                  reinterpret_cast<uint8_t*>(header) + 28);
  expectError(parseLlama2c(no_weights), "truncated llama2.c checkpoint", "weights missing");
  int32_t min_vocab[7] = {64, 172, 4, 4, 4, INT32_MIN, 128};  // found by the fuzzer: -INT32_MIN
  std::vector<uint8_t> min_vocab_bytes(reinterpret_cast<uint8_t*>(min_vocab),
                                       reinterpret_cast<uint8_t*>(min_vocab) + 28);
  expectError(parseLlama2c(min_vocab_bytes), "expected vocab_size in 1..4194304, found 0",
              "vocab_size INT32_MIN");
  std::vector<uint8_t> tok = {16, 0, 0, 0};
  expectError(parseLlama2cTokenizer(tok, 3), "expected 3 pieces, found 0", "truncated tokenizer");

  return ts::testing::finish();
}
