// engine-bench --backend cuda: decode speed at several contexts, prefill time, the
// device-to-device copy bandwidth of the same run and decode's effective bandwidth as a
// share of it, and the cost of a speculative verify pass, on one CUDA device.
#pragma once
#include <string>
#include <vector>

namespace ts::bench {

struct CudaBenchArgs {
  std::string model_path, shape;  // one of them
  int layers = 0;
  std::string weights = "int4", kv = "f16";
  int device = 0;
  std::vector<int> contexts = {128, 2048};  // decode measured after a prompt of this length
  std::vector<int> prefills = {512, 2048};  // prompt lengths timed
  int gen_tokens = 64;
  int repeat = 3;
  bool graph = true;
  bool json = false;
};

// Prints the result (JSON with args.json); returns the process exit code (1 when CUDA is
// not usable, with the reason on stderr).
int runCudaBench(const CudaBenchArgs& args);

}  // namespace ts::bench
