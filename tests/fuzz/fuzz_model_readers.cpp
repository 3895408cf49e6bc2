// libFuzzer target: the GGUF, llama2.c checkpoint, llama2.c tokenizer, safetensors, JSON,
// tokenizer.model, PyTorch checkpoint (ZIP + pickle) and pickle-interpreter parsers must
// never crash, read out of bounds or grow without bound, whatever the bytes (the first
// byte picks the parser).
#include <cstdint>
#include <cstring>
#include <span>

#include "inference/engine/formats/gguf.h"
#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/llama2c.h"
#include "inference/engine/formats/pytorch_checkpoint.h"
#include "inference/engine/formats/safetensors.h"
#include "inference/engine/formats/torch_pickle.h"
#include "inference/engine/tokenizer/sentencepiece_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> bytes(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0: {
      auto g = ts::engine::parseGguf(bytes);
      if (g.ok())  // touch every tensor's bytes: offsets were checked against the size
        for (const auto& t : g->tensors)
          if (t.bytes) (void)*(volatile const uint8_t*)(bytes.data() + t.offset + t.bytes - 1);
      break;
    }
    case 1: {
      auto l = ts::engine::parseLlama2c(bytes);
      if (l.ok()) {  // the last classifier float lies inside the buffer
        float last;
        std::memcpy(&last, l->weights + l->classifier + l->header.vocab_size * l->header.dim - 1,
                    4);
        (void)*(volatile float*)&last;
      }
      break;
    }
    case 2:
      (void)ts::engine::parseLlama2cTokenizer(bytes, 64);
      break;
    case 3: {
      auto st = ts::engine::parseSafetensors(bytes);
      if (st.ok())  // every range was checked against the file
        for (const auto& t : st->tensors)
          if (t.bytes) (void)*(volatile const uint8_t*)(bytes.data() + t.offset + t.bytes - 1);
      break;
    }
    case 4:
      (void)ts::engine::parseJson({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
      break;
    case 6: {
      auto pt = ts::engine::parsePytorchCheckpoint(bytes);
      if (pt.ok())  // every tensor lies inside its record, inside the file
        for (const auto& t : pt->tensors)
          if (t.bytes) (void)*(volatile const uint8_t*)(bytes.data() + t.offset + t.bytes - 1);
      break;
    }
    case 7:
      (void)ts::engine::readTorchStateDict(bytes);
      break;
    default:
      (void)ts::engine::parseSentencePieceModel(bytes);
  }
  return 0;
}
