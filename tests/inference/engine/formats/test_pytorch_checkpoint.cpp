// PyTorch checkpoints read safely: our writer's files (single and sharded, ZIP64 fields)
// read back tensor for tensor and load as the same model as safetensors; a pickle naming a
// global outside the allow-list is refused before anything runs (its command would have
// created a file: none appears); truncated files, storages past their records, missing
// records, non-contiguous strides, unknown opcodes, the legacy format, compressed records,
// and every interpreter bound give errors that say what was expected and what was found.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/formats/pytorch_checkpoint.h"
#include "inference/engine/formats/pytorch_writer.h"
#include "inference/engine/formats/torch_pickle.h"
#include "inference/engine/formats/zip_archive.h"
#include "inference/engine/formats/zip_writer.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"
#include "tests/inference/engine/expect_error.h"
#include "tests/inference/engine/temp_dir.h"

using namespace ts::engine;
using ts::testing::check;
using ts::testing::errorOf;
using ts::testing::expectError;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::span<const uint8_t> bytesOf(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A checkpoint whose data.pkl is `pickle` and whose records data/<key> hold `storages`.
std::vector<uint8_t> archive(
    const std::string& dir, const std::string& pickle,
    const std::vector<std::pair<std::string, std::string>>& storages = {}) {
  const std::string path = dir + "/crafted.bin";
  {
    AtomicFileWriter file(path);
    ZipWriter zip(file);
    zip.add("crafted/data.pkl", bytesOf(pickle));
    for (const auto& [key, bytes] : storages) zip.add("crafted/data/" + key, bytesOf(bytes));
    zip.add("crafted/version", bytesOf("3\n"));
    zip.finish();
    (void)file.commit();
  }
  return readAll(path);
}

// Pickle pieces, protocol 2.
std::string text(const std::string& s) {  // BINUNICODE
  std::string out = "X";
  for (int i = 0; i < 4; ++i) out += static_cast<char>(s.size() >> (8 * i) & 0xFF);
  return out + s;
}
std::string byte(int v) {
  return std::string("K") + static_cast<char>(v);
}

// {name: _rebuild_tensor_v2(storage(type, key, numel), offset, size, stride, False, {})}
std::string tensorPickle(const std::string& storage_type, const std::string& key, int numel,
                         int offset, std::vector<int> size, std::vector<int> stride) {
  std::string p = "\x80\x02}(" + text("w") + "ctorch._utils\n_rebuild_tensor_v2\n((" +
                  text("storage") + "ctorch\n" + storage_type + "\n" + text(key) + text("cpu") +
                  byte(numel) + "tQ" + byte(offset) + "(";
  for (int s : size) p += byte(s);
  p += "t(";
  for (int s : stride) p += byte(s);
  p += "t\x89}tRu.";
  return p;
}

// A literal with NUL bytes kept.
#define BYTES(literal) std::string(literal, sizeof(literal) - 1)

std::string pickleError(const std::string& pickle, const TorchPickleLimits& limits = {}) {
  return errorOf(readTorchStateDict(bytesOf(pickle), limits));
}

std::vector<float> logitsOf(const std::shared_ptr<Model>& m) {
  CpuSession s(m, 16, KvFormat::F32, 1);
  auto l = s.forwardBatch(std::vector<int>{1, 5, 9, 3}, 0);
  return {l.begin(), l.end()};
}

}  // namespace

int main() {
  ts::testing::TempDir tmp("tokenscope-pytorch");
  const std::string dir = tmp.path().string();

  // Our writer, read back: names, types, shapes, bytes where they lie, 64-byte alignment.
  for (bool zip64 : {false, true}) {
    const std::string path = tmp / (zip64 ? "z64.bin" : "plain.bin");
    const std::vector<TorchTensorSpec> specs = {{"a.weight", TensorType::BF16, {3, 40}},
                                                {"b", TensorType::F32, {5}},
                                                {"c.weight", TensorType::F16, {70000, 2}}};
    auto ok = writePytorchCheckpoint(
        path, specs,
        [&](size_t i) -> Result<std::vector<uint8_t>> {
          uint64_t n = 1;
          for (uint64_t d : specs[i].shape) n *= d;
          std::vector<uint8_t> b(rowBytes(specs[i].type, n));
          for (size_t k = 0; k < b.size(); ++k) b[k] = static_cast<uint8_t>(k * 7 + i);
          return b;
        },
        zip64);
    const std::vector<uint8_t> bytes = readAll(path);
    auto parsed = parsePytorchCheckpoint(bytes);
    bool same = ok.ok() && parsed.ok() && parsed->tensors.size() == 3;
    for (size_t i = 0; same && i < 3; ++i) {
      const CheckpointTensor& t = parsed->tensors[i];
      same = t.name == specs[i].name && t.shape == specs[i].shape && t.offset % 64 == 0 &&
             bytes[t.offset + 1] == static_cast<uint8_t>(7 + i) &&
             t.dtype == (i == 0   ? "BF16"
                         : i == 1 ? "F32"
                                  : "F16");
    }
    check(same, std::string("writer: read back tensor for tensor, 64-byte aligned") +
                    (zip64 ? " (ZIP64 records)" : "") + " " + errorOf(parsed) + errorOf(ok));
    auto zip = parseZip(bytes);
    bool crcs = zip.ok();
    for (const ZipRecord& r : zip.ok() ? zip->records : std::vector<ZipRecord>{})
      crcs = crcs && r.method == 0;
    check(crcs && zip->records.size() == 5 &&
              zip->records[0].name == (zip64 ? "z64/data.pkl" : "plain/data.pkl"),
          "writer: records data.pkl, data/0..2 and version in the archive named after the file");

    // Truncated anywhere: an error, never a crash.
    std::string last;
    bool all_refused = true;
    for (size_t cut :
         {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 30, bytes.size() - 1}) {
      const std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
      auto r = parsePytorchCheckpoint(part);
      all_refused = all_refused && !r.ok();
      if (cut == bytes.size() - 1) last = errorOf(r);
    }
    check(all_refused, "truncated copies are refused");
    expectError(last, "expected a ZIP end-of-central-directory record at the end of the",
                "truncated file: what was expected");
    expectError(last, "a truncated file", "truncated file: says so");
  }

  // A model as pytorch_model.bin (bf16) and as two shards with an index (f32): the same
  // logits as the safetensors folder of the same weights.
  {
    auto config = shapeConfig("baichuan2-7b", 2);
    ModelConfig c = config.value();
    c.dim = 64, c.n_heads = 4, c.n_kv_heads = 4, c.head_dim = c.rope_dim = 16, c.ffn_dim = 96;
    auto model = randomModel(c, WeightFormat::F32, 5);
    HfWriteOptions st, st32, single, sharded;
    st.dtype = single.dtype = "BF16";
    single.format = sharded.format = "pytorch";
    sharded.shards = 2;
    check(writeHfFolder(*model, tmp / "st", st).ok() &&
              writeHfFolder(*model, tmp / "pt", single).ok() &&
              writeHfFolder(*model, tmp / "pt2", sharded).ok() &&
              writeHfFolder(*model, tmp / "st32", st32).ok(),
          "folders written: safetensors, pytorch_model.bin, two .bin shards");
    check(fs::exists(tmp / "pt2/pytorch_model.bin.index.json") &&
              fs::exists(tmp / "pt2/pytorch_model-00002-of-00002.bin"),
          "shards named as Hugging Face names them, with pytorch_model.bin.index.json");
    auto a = loadModel(tmp / "st"), b = loadModel(tmp / "pt");
    LoadOptions f32;
    f32.weights = WeightFormat::F32;
    auto c2 = loadModel(tmp / "pt2", f32), d = loadModel(tmp / "st32", f32);
    check(
        a.ok() && b.ok() && b.value()->config.source_format == "pytorch" &&
            logitsOf(a.value()) == logitsOf(b.value()),
        "pytorch_model.bin (bf16) gives the safetensors folder's logits to the bit " + errorOf(b));
    check(c2.ok() && d.ok() && logitsOf(c2.value()) == logitsOf(d.value()),
          "two .bin shards give the same logits as safetensors with --weights f32 " + errorOf(c2));
    // Progress over the shards while they are mapped, then the layers; cancelling while
    // mapping stops the load.
    std::vector<double> seen;
    LoadOptions traced;
    traced.progress = [&](double f) {
      seen.push_back(f);
      return true;
    };
    auto p = loadModel(tmp / "pt2", traced);
    bool rising = p.ok() && !seen.empty() && seen.back() == 1.0;
    for (size_t i = 1; i < seen.size(); ++i) rising = rising && seen[i] >= seen[i - 1];
    const bool mapping_step = std::any_of(seen.begin(), seen.end(), [](double f) {
      return f > 0.3 && f < 0.4;  // the first of two equal shards: 0.8 x 0.5 of the reading
    });
    check(rising && mapping_step,
          "loading two shards reports rising progress, the first shard "
          "mapped at about 0.36, ending at 1 (" +
              std::to_string(seen.size()) + " reports)");
    LoadOptions stop;
    stop.progress = [](double) { return false; };
    check(errorOf(loadModel(tmp / "pt2", stop)) == kLoadCancelled,
          "a load cancelled while its shards are mapped fails with kLoadCancelled");
    // pytorch_model.bin named directly is its folder.
    auto e = loadModel(tmp / "pt/pytorch_model.bin");
    check(e.ok() && e.value()->config.source_format == "pytorch",
          "a path to pytorch_model.bin opens its folder " + errorOf(e));
    // A folder's shard missing.
    fs::remove(tmp / "pt2/pytorch_model-00002-of-00002.bin");
    expectError(errorOf(loadModel(tmp / "pt2")),
                "shard pytorch_model-00002-of-00002.bin named by pytorch_model.bin.index.json is "
                "missing",
                "a missing shard");
    // bitsandbytes 4-bit, as Baichuan2-*-4bits ships: refused by its config.
    fs::create_directories(tmp / "nf4");
    fs::copy(tmp / "pt/pytorch_model.bin", tmp / "nf4/pytorch_model.bin");
    std::ifstream in(tmp / "pt/config.json");
    std::string cfg((std::istreambuf_iterator<char>(in)), {});
    cfg.insert(cfg.rfind('}'),
               ",\n  \"quantization_config\": {\"load_in_4bit\": true, "
               "\"bnb_4bit_quant_type\": \"nf4\"}\n");
    std::ofstream(tmp / "nf4/config.json") << cfg;
    const std::string nf4 = errorOf(loadModel(tmp / "nf4"));
    expectError(nf4, "this checkpoint is bitsandbytes nf4 4-bit", "NF4: names the format");
    expectError(nf4, "convert --to gguf --type q4_k", "NF4: names the convert route");
  }

  // A pickle naming a global outside the allow-list: refused, and its command never ran.
  {
    const std::string marker = tmp / "pwned";
    const std::string evil =
        "\x80\x02"
        "cposix\nsystem\n(" +
        text("touch " + marker) + "tR.";
    const std::vector<uint8_t> bytes = archive(dir, evil);
    const std::string e = errorOf(parsePytorchCheckpoint(bytes));
    expectError(e, "refused pickle global 'posix.system' (only tensor-rebuilding globals are read)",
                "posix.system refused");
    fs::create_directories(tmp / "evil");
    std::ofstream(tmp / "evil/pytorch_model.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    fs::copy(tmp / "pt/config.json", tmp / "evil/config.json");
    expectError(errorOf(loadModel(tmp / "evil")),
                "pytorch_model.bin: data.pkl byte 2: refused "
                "pickle global 'posix.system'",
                "the loader says which file and where");
    check(!fs::exists(marker), "the refused pickle created nothing (no " + marker + ")");
    // The same through STACK_GLOBAL (protocol 4), and builtins.eval.
    expectError(pickleError("\x80\x04\x8c\x08"
                            "builtins\x8c\x04"
                            "eval\x93."),
                "refused pickle global 'builtins.eval'", "STACK_GLOBAL builtins.eval refused");
    expectError(pickleError("\x80\x02"
                            "ctorch\nload\n."),
                "refused pickle global 'torch.load'", "a torch global outside the list refused");
    // Allowed names cannot be called unless they rebuild tensors.
    expectError(pickleError("\x80\x02"
                            "ctorch\nHalfStorage\n)R."),
                "refused pickle call of 'torch.HalfStorage'",
                "an inert allowed name is not called");
  }

  // Structure errors, each naming what was expected.
  {
    const std::string good = tensorPickle("HalfStorage", "0", 6, 0, {2, 3}, {3, 1});
    auto ok = parsePytorchCheckpoint(archive(dir, good, {{"0", std::string(12, 'a')}}));
    check(ok.ok() && ok->tensors.size() == 1 && ok->tensors[0].bytes == 12,
          "a hand-made pickle reads " + errorOf(ok));
    expectError(errorOf(parsePytorchCheckpoint(archive(dir, good, {{"0", std::string(10, 'a')}}))),
                "tensor 'w': its storage of 6 F16 elements passes the end of its record "
                "'crafted/data/0' (10 bytes)",
                "storage extent past its record");
    expectError(errorOf(parsePytorchCheckpoint(archive(dir, good, {{"1", std::string(12, 'a')}}))),
                "tensor 'w': expected its storage in the record 'crafted/data/0', found no such "
                "record",
                "missing record");
    expectError(errorOf(parsePytorchCheckpoint(
                    archive(dir, tensorPickle("HalfStorage", "0", 6, 0, {2, 3}, {1, 2}),
                            {{"0", std::string(12, 'a')}}))),
                "tensor 'w': expected a contiguous tensor (row-major strides), found shape [2, 3]",
                "non-contiguous stride");
    expectError(errorOf(parsePytorchCheckpoint(
                    archive(dir, tensorPickle("HalfStorage", "0", 6, 2, {2, 3}, {3, 1}),
                            {{"0", std::string(12, 'a')}}))),
                "tensor 'w': elements [2, +6) pass the end of its storage of 6 elements",
                "tensor past its storage");
    expectError(errorOf(parsePytorchCheckpoint(
                    archive(dir, tensorPickle("ComplexFloatStorage", "0", 6, 0, {6}, {1}),
                            {{"0", std::string(48, 'a')}}))),
                "refused pickle global 'torch.ComplexFloatStorage'", "a storage type off the list");
    auto f64 = parsePytorchCheckpoint(archive(
        dir, tensorPickle("DoubleStorage", "0", 6, 0, {6}, {1}), {{"0", std::string(48, 'a')}}));
    check(f64.ok() && f64->tensors[0].dtype == "F64" && !f64->tensors[0].type(),
          "a float64 tensor is read as F64 (the loader refuses it by name if a model needs it)");
    expectError(pickleError("\x80\x02}(" + text("w") + "i__main__\nX\n.", {}),
                "data.pkl byte 10: unknown or refused pickle opcode 0x69 'i'", "INST refused");
    expectError(pickleError("\x80\x02}"), "the pickle ends without STOP (a truncated file?)",
                "pickle without STOP");
    expectError(pickleError(BYTES("\x80\x02"
                                  "X\xff\xff\x00\x00"
                                  "ab")),
                "data.pkl byte 2: a string passes the end of the pickle",
                "string past the pickle's end");
    expectError(pickleError("\x80\x02h\x05."), "memo entry 5 was never stored", "memo miss");
    expectError(pickleError("\x80\x02]."),
                "expected a state dict (a dict of tensors), found a list", "not a dict");
    expectError(pickleError("\x80\x02}."), "found no tensors", "an empty dict");
    // The bounds.
    TorchPickleLimits small;
    small.memo_entries = 2;
    small.nesting = 3;
    small.string_bytes = 4;
    small.stack = 8;
    expectError(pickleError(BYTES("\x80\x02Nq\x00q\x01q\x02."), small), "more than 2 memo entries",
                "memo bound");
    expectError(pickleError("\x80\x02)\x85\x85\x85\x85.", small), "containers nested deeper than 3",
                "nesting bound");
    expectError(pickleError("\x80\x02" + text("hello") + ".", small),
                "a string of 5 bytes (at most 4)", "string bound");
    expectError(pickleError("\x80\x02" + std::string(9, 'N') + ".", small),
                "the stack passes 8 entries", "stack bound");
    // A tensor listed twice under one (memoized) name, a storage key far longer than
    // torch's numbers, a torch.Size of many entries: refused at once (bounded memory and
    // time whatever the pickle repeats).
    const std::string rebuilt = "ctorch._utils\n_rebuild_tensor_v2\n((" + text("storage") +
                                "ctorch\nHalfStorage\n" + text("0") + text("cpu") + byte(6) + "tQ" +
                                byte(0) + "(" + byte(6) + "t(" + byte(1) + "t\x89}tR";
    expectError(pickleError("\x80\x02}(" + text("w") + BYTES("q\x00") + rebuilt +
                            BYTES("q\x01h\x00h\x01u.")),
                "the state dict names the tensor 'w' twice", "a name listed twice");
    expectError(pickleError("\x80\x02((" + text("storage") + "ctorch\nHalfStorage\n" +
                            text(std::string(100, '7')) + text("cpu") + byte(6) + "tQ."),
                "expected a storage key of at most 64 bytes, found one of 100",
                "a long storage key");
    std::string sizes =
        "\x80\x02"
        "ctorch\nSize\n(";
    for (int i = 0; i < 1000; ++i) sizes += byte(1);
    expectError(pickleError(sizes + "t\x85R."), "torch.Size: expected one tuple of at most 8 sizes",
                "torch.Size of 1,000 entries");
    // Deep nesting within the default bound runs without recursion (no stack overflow).
    std::string deep = "\x80\x02)";
    for (int i = 0; i < 100000; ++i) deep += "\x85";
    expectError(pickleError(deep + "."), "containers nested deeper than 200",
                "100,000 nested tuples refused at depth 200");
  }

  // The legacy (pre-1.6) format and compressed records.
  {
    expectError(errorOf(parsePytorchCheckpoint(bytesOf("\x80\x02\x8a\x0a"
                                                       "abcdefghij"))),
                "expected torch.save's zip format (PyTorch 1.6 or later), found the legacy pickle "
                "format",
                "legacy format");
    std::vector<uint8_t> zipped = archive(dir, tensorPickle("HalfStorage", "0", 6, 0, {6}, {1}),
                                          {{"0", std::string(12, 'a')}});
    zipped[8] = 8;  // the local header's method: deflate
    auto z = parseZip(zipped);
    check(z.ok(), "a record marked compressed still lists");
    // the central directory's method decides: mark every record deflated
    for (size_t at = 0; at + 4 < zipped.size(); ++at)
      if (zipped[at] == 0x50 && zipped[at + 1] == 0x4b && zipped[at + 2] == 1 &&
          zipped[at + 3] == 2)
        zipped[at + 10] = 8;
    expectError(errorOf(parsePytorchCheckpoint(zipped)),
                "expected it stored uncompressed, found compression method 8", "compressed record");
    expectError(errorOf(parsePytorchCheckpoint(bytesOf("PK\x03\x04 not really"))),
                "expected a ZIP end-of-central-directory record", "a cut ZIP");
  }
  return ts::testing::finish();
}
