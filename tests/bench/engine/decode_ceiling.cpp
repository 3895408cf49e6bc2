#include "tests/bench/engine/decode_ceiling.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "inference/engine/core/thread_pool.h"
#include "tests/bench/engine/bench_clock.h"

namespace ts::bench {

using namespace ts::engine;

double measureDecodeCompute(const Model& model, int threads) {
  if (model.layers.empty()) return 0;
  const LayerWeights& l = model.layers[0];
  constexpr size_t kSliceBytes = 192 << 10;  // per thread: in L2 with its activations
  struct Slice {
    const QuantMatrix* w;
    size_t row_bytes;
    int rows;    // per thread
    int passes;  // per timed run: the matrix's bytes four times over, as decode weighs it
    Activations act;
  };
  std::vector<Slice> slices;
  int max_rows = 0;
  for (const QuantMatrix* w : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
    const size_t row_bytes = std::max<size_t>(1, w->bytes() / w->rows());
    // whole units of the threads' split (panelled products start at a panel's first row)
    const size_t unit = w->splitRows();
    const int rows =
        static_cast<int>(std::clamp<size_t>(std::max(unit, kSliceBytes / row_bytes / unit * unit),
                                            1, w->rows() / std::max(1, threads)));
    std::vector<float> x(w->cols());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 201) / 100.f - 1;
    const size_t slice = static_cast<size_t>(rows) * row_bytes * std::max(1, threads);
    const int passes = static_cast<int>(std::max<size_t>(4, 4 * w->bytes() / slice));
    slices.push_back({w, row_bytes, rows, passes, w->activationsFor(x.data(), 1)});
    max_rows = std::max(max_rows, w->rows());
  }
  ThreadPool pool(threads);
  std::vector<float> out(max_rows);
  std::vector<double> rates;
  for (int r = 0; r < 3; ++r) {
    double bytes = 0;
    const double t0 = now();
    for (const Slice& s : slices) {
      pool.parallelFor(threads, [&](int b, int e) {
        for (int t = b; t < e; ++t)
          for (int p = 0; p < s.passes; ++p)
            s.w->multiplyRows(out.data(), s.w->rows(), s.act, t * s.rows, (t + 1) * s.rows);
      });
      bytes += static_cast<double>(s.row_bytes) * s.rows * threads * s.passes;
    }
    rates.push_back(bytes / (now() - t0) / 1e9);
  }
  if (out[0] == 1.2345f) std::printf("impossible\n");  // keeps the products alive
  return median(rates);
}

}  // namespace ts::bench
