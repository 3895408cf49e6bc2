// The AVX2 kernels against the portable ones (same arithmetic, so only f32 rounding may
// differ), over lengths with and without tails; and activation quantization's contract.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/cpu/kernels/gguf_kernels.h"
#include "inference/engine/cpu/kernels/kernels.h"
#include "tests/inference/engine/check.h"

using namespace ts::engine;
using ts::testing::check;

namespace {

bool close(double got, double want, double scale) {
  return std::abs(got - want) <= 1e-5 * scale + 1e-6;
}

}  // namespace

int main() {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_int_distribution<int> byte(0, 255), int8(-127, 127);

  // Quantized activations: |q| <= 127, q = 0 past n, scale * q within half a step of x.
  {
    std::vector<float> x(70);
    for (float& v : x) v = normal(rng);
    x[5] = 40.f;  // an outlier sets its block's scale
    Activations a;
    std::vector<float> wide(128, 9.f);  // a reused object's bytes past n must not show through
    a.set(wide.data(), 1, 128, true);
    a.set(x.data(), 1, 70, true);
    bool bounded = a.blocks == 4 && a.q.size() == 128, exact = true;
    for (int i = 0; i < 128; ++i) {
      bounded = bounded && std::abs(a.q[i]) <= 127 && (i < 70 || a.q[i] == 0);
      if (i < 70)
        exact = exact && std::abs(a.scale[i / 32] * a.q[i] - x[i]) <= a.scale[i / 32] / 2 * 1.0001f;
    }
    check(bounded,
          "activations: n = 70 pads to 4 blocks of 32 (whole pairs), |q| <= 127, zeros past n");
    check(exact, "activations: every value within half a quantization step");
    check(a.q[5] == 127 && std::abs(a.scale[0] - 40.f / 127) < 1e-6,
          "activations: the block maximum maps to 127");
    Activations zero;
    std::vector<float> zeros(32, 0.f);
    zero.set(zeros.data(), 1, 32, true);
    check(zero.scale[0] == 0.f && zero.q[0] == 0, "activations: an all-zero block has scale 0");
  }

  const Kernels& portable = portableKernels();
  std::printf("active kernels: %s\n", activeKernels().name);
  std::vector<const Kernels*> fast_sets;
  for (const Kernels* k : {avx2Kernels(), vnniKernels(), avx512Kernels()})
    if (k)
      fast_sets.push_back(k);
    else
      std::printf(
          "SKIP a vector kernel set this CPU lacks (AVX2/FMA/F16C, AVX-VNNI or AVX-512 VNNI)\n");
  for (const Kernels* fast : fast_sets) {
    const std::string name = fast->name;
    bool f32_ok = true, f16_ok = true, q8_ok = true, q4_ok = true, sum_ok = true, x4_ok = true,
         axpy_ok = true, f16_f16_ok = true, f16_rows_ok = true;
    // 1064: two chunks of 512 (dot_f16_rows), a partial one and an eight-value step
    for (int n : {1, 7, 8, 31, 32, 33, 64, 100, 300, 1064, 4096}) {
      // Four activation vectors of n floats and their int8 blocks.
      std::vector<float> w(n), x(4 * n);
      std::vector<uint16_t> h(n);
      for (int i = 0; i < n; ++i) {
        w[i] = normal(rng);
        h[i] = f32ToF16(w[i]);
      }
      for (float& v : x) v = normal(rng);
      const double scale = std::sqrt(static_cast<double>(n)) * 4;
      f32_ok = f32_ok && close(fast->dot_f32(w.data(), x.data(), n),
                               portable.dot_f32(w.data(), x.data(), n), scale);
      f16_ok = f16_ok && close(fast->dot_f16(h.data(), x.data(), n),
                               portable.dot_f16(h.data(), x.data(), n), scale);
      sum_ok = sum_ok && close(fast->sum_f32(x.data(), n), portable.sum_f32(x.data(), n), scale);
      // f16 activations: the same values as f32, the same sum to the bit (decode reads the
      // halves, prefill the f32 form).
      std::vector<uint16_t> x16(n);
      std::vector<float> x16f(n);
      for (int i = 0; i < n; ++i) x16f[i] = f16ToF32(x16[i] = f32ToF16(x[i]));
      for (const Kernels* k : {fast, &portable})
        f16_f16_ok = f16_f16_ok && k->dot_f16_f16(h.data(), x16.data(), n) ==
                                       k->dot_f16(h.data(), x16f.data(), n);
      // F16 rows times 1 .. kHalfTokens tokens (verification, prefill): each (row, token)
      // is dot_f16 of that pair to the bit; 19 rows: a group of 16 and a ragged 3.
      {
        const int rows = 19;
        std::vector<uint16_t> hr(static_cast<size_t>(rows) * n);
        for (auto& v : hr) v = f32ToF16(normal(rng));
        std::vector<float> x6(static_cast<size_t>(Kernels::kHalfTokens) * n);
        for (float& v : x6) v = normal(rng);
        std::vector<float> out(Kernels::kHalfTokens * rows);
        for (const Kernels* k : {fast, &portable})
          for (int tokens = 1; tokens <= Kernels::kHalfTokens; ++tokens) {
            k->dot_f16_rows(hr.data(), n, rows, x6.data(), n, n, tokens, out.data(), rows);
            for (int t = 0; t < tokens; ++t)
              for (int r = 0; r < rows; ++r)
                f16_rows_ok = f16_rows_ok && out[t * rows + r] == k->dot_f16(hr.data() + r * n,
                                                                             x6.data() + t * n, n);
          }
      }
      // y += a x: FMA rounds once where the portable code rounds twice.
      std::vector<float> y1(x.begin(), x.begin() + n), y2 = y1, y3 = y1, y4 = y1;
      fast->axpy_f32(y1.data(), 0.7f, w.data(), n);
      portable.axpy_f32(y2.data(), 0.7f, w.data(), n);
      fast->axpy_f16(y3.data(), -1.3f, h.data(), n);
      portable.axpy_f16(y4.data(), -1.3f, h.data(), n);
      std::vector<int8_t> k8(n);
      for (auto& v : k8) v = static_cast<int8_t>(int8(rng));
      std::vector<float> y5(x.begin(), x.begin() + n), y6 = y5;
      fast->axpy_i8(y5.data(), 0.01f, k8.data(), n);
      portable.axpy_i8(y6.data(), 0.01f, k8.data(), n);
      for (int i = 0; i < n; ++i)
        axpy_ok =
            axpy_ok && close(y1[i], y2[i], 4) && close(y3[i], y4[i], 4) && close(y5[i], y6[i], 4);
      axpy_ok = axpy_ok && close(fast->dot_i8_f32(k8.data(), x.data(), n),
                                 portable.dot_i8_f32(k8.data(), x.data(), n), scale * 127);
      const int blocks = (n + 63) / 64 * 2;  // integer formats: whole pairs of 32-blocks
      std::vector<int8_t> wq(blocks * 32), xq(4 * blocks * 32);
      std::vector<uint8_t> w4(blocks * 16);
      std::vector<float> xs(4 * blocks), xo(4 * blocks), ws(blocks);
      for (auto& v : wq) v = static_cast<int8_t>(int8(rng));
      for (auto& v : xq) v = static_cast<int8_t>(int8(rng));
      for (auto& v : w4) v = static_cast<uint8_t>(byte(rng));
      for (int b = 0; b < 4 * blocks; ++b) {
        xs[b] = std::abs(normal(rng)) / 127;
        xo[b] = normal(rng);
      }
      for (float& v : ws) v = std::abs(normal(rng)) / 7;
      const double qscale = scale * 127;
      q8_ok = q8_ok && close(fast->dot_q8(wq.data(), xq.data(), xs.data(), blocks),
                             portable.dot_q8(wq.data(), xq.data(), xs.data(), blocks), qscale);
      for (int per_group : {1, 2, 4})
        q4_ok = q4_ok && close(fast->dot_q4(w4.data(), ws.data(), per_group, xq.data(), xs.data(),
                                            xo.data(), blocks),
                               portable.dot_q4(w4.data(), ws.data(), per_group, xq.data(),
                                               xs.data(), xo.data(), blocks),
                               qscale);
      // Four tokens at once give bit for bit the four single products of the same set:
      // batched prefill and speculative verification must match one-token decoding.
      for (const Kernels* k : {fast, &portable}) {
        float got[4];
        k->dot_f32_x4(w.data(), x.data(), n, n, got);
        for (int t = 0; t < 4; ++t)
          x4_ok = x4_ok && got[t] == k->dot_f32(w.data(), x.data() + t * n, n);
        k->dot_f16_rows(h.data(), n, 1, x.data(), n, n, 4, got, 1);  // one row, four tokens
        for (int t = 0; t < 4; ++t)
          x4_ok = x4_ok && got[t] == k->dot_f16(h.data(), x.data() + t * n, n);
        k->dot_q8_x4(wq.data(), xq.data(), xs.data(), blocks, got);
        for (int t = 0; t < 4; ++t)
          x4_ok = x4_ok && got[t] == k->dot_q8(wq.data(), xq.data() + t * blocks * 32,
                                               xs.data() + t * blocks, blocks);
        for (int per_group : {1, 2, 4}) {
          k->dot_q4_x4(w4.data(), ws.data(), per_group, xq.data(), xs.data(), xo.data(), blocks,
                       got);
          for (int t = 0; t < 4; ++t)
            x4_ok =
                x4_ok &&
                got[t] == k->dot_q4(w4.data(), ws.data(), per_group, xq.data() + t * blocks * 32,
                                    xs.data() + t * blocks, xo.data() + t * blocks, blocks);
        }
      }
    }
    check(f32_ok, name + " dot_f32 equals portable (10 lengths, 1..4096)");
    check(f16_ok, name + " dot_f16 equals portable");
    check(q8_ok, name + " dot_q8 equals portable");
    check(q4_ok, name + " dot_q4 equals portable (1, 2 and 4 blocks per group)");
    check(x4_ok, name +
                     " four-token products are bit-identical to four single ones (every format, "
                     "and portable)");
    check(f16_f16_ok, name + " dot_f16_f16 equals dot_f16 of the same values to the bit");
    check(f16_rows_ok, name +
                           " dot_f16_rows of 19 rows and 1..6 tokens equals dot_f16 of each "
                           "row and token to the bit (and portable's)");
    check(sum_ok, name + " sum_f32 equals portable");
    check(axpy_ok, name + " axpy_f32 / f16 / i8 and dot_i8_f32 (the KV cache's) equal portable");
    // Activation quantization: the same bytes, scales and sums as the portable loops, on
    // random blocks and on the edges: all zero, values landing on .5 steps (ties round to
    // even), a negative extreme first, +a and -a tied for the largest magnitude.
    {
      std::vector<std::vector<float>> blocks;
      for (int i = 0; i < 20; ++i) {
        std::vector<float> b(256);
        for (float& v : b) v = normal(rng) * (i % 3 == 0 ? 100.f : 1.f);
        blocks.push_back(b);
      }
      blocks.push_back(std::vector<float>(256, 0.f));
      std::vector<float> ties(256);
      for (int i = 0; i < 256; ++i) ties[i] = (i % 64 - 32) + 0.5f;  // x * 127 / amax hits .5s
      ties[0] = 127.f;
      blocks.push_back(ties);
      std::vector<float> tied = blocks[1];
      tied[3] = -50.f;
      tied[9] = 50.f;
      blocks.push_back(tied);
      tied[3] = 50.f;
      tied[9] = -50.f;
      blocks.push_back(tied);
      bool q8_same = true, q8k_same = true;
      for (const auto& b : blocks) {
        for (int at = 0; at < 256; at += 32) {
          int8_t q1[32], q2[32];
          int32_t s1 = 0, s2 = 0;
          const float a1 = fast->quantize_block_q8(b.data() + at, q1, &s1),
                      a2 = portable.quantize_block_q8(b.data() + at, q2, &s2);
          q8_same = q8_same && a1 == a2 && s1 == s2 && std::memcmp(q1, q2, 32) == 0;
        }
        int8_t k1[256], k2[256];
        int16_t b1[16], b2[16];
        const float d1 = fast->quantize_block_q8k(b.data(), k1, b1),
                    d2 = portable.quantize_block_q8k(b.data(), k2, b2);
        q8k_same = q8k_same && d1 == d2 && std::memcmp(k1, k2, 256) == 0 &&
                   std::memcmp(b1, b2, sizeof b1) == 0;
      }
      // Whole rows (Activations::setRows): the same bytes, and the scales of each block the
      // portable set computes (amax / 127, its f16 rounding, the zero points, the sums),
      // with blocks over f16's range (scales that round to subnormals, that tie) and
      // rows of 1, 8, 13, 16 and 37 blocks (tails past the eight or sixteen converted together).
      bool row_same = true;
      for (const int row_blocks : {1, 8, 13, 16, 37}) {
        for (int trial = 0; trial < 8; ++trial) {
          std::vector<float> row(row_blocks * 32);
          for (int b = 0; b < row_blocks; ++b)
            for (int i = 0; i < 32; ++i)
              row[b * 32 + i] = trial == 0
                                    ? blocks[(b + 21) % blocks.size()][i]
                                    : normal(rng) * std::ldexp(1.f, (b * 7 + trial * 5) % 48 - 30);
          std::vector<int8_t> q1(row.size()), q2(row.size());
          std::vector<float> f1(5 * row_blocks), f2(5 * row_blocks);
          std::vector<int32_t> s1(row_blocks), s2(row_blocks);
          const auto run = [&](const Kernels& k, int8_t* q, float* f, int32_t* sums) {
            k.quantize_row_q8(row.data(), row_blocks, q, f, f + row_blocks, f + 2 * row_blocks,
                              f + 3 * row_blocks, sums);
          };
          run(*fast, q1.data(), f1.data(), s1.data());
          run(portable, q2.data(), f2.data(), s2.data());
          row_same = row_same && q1 == q2 && s1 == s2 &&
                     std::memcmp(f1.data(), f2.data(), 4 * row_blocks * sizeof(float)) == 0;
        }
      }
      check(row_same, name +
                          " quantize_row_q8 gives the portable bytes, sums, scales, zero points "
                          "and f16-rounded scales (1 to 37 blocks; scales over f16's range)");
      // f16 rounding: random values over f16's whole range, subnormals, ties, overflow.
      std::vector<float> values;
      for (int i = 0; i < 3000; ++i)
        values.push_back(normal(rng) * std::ldexp(1.f, i % 48 - 30));  // 2^-30 .. 2^17
      for (float v : {0.f, -0.f, 65504.f, 65519.f, 65520.f, -1e9f, 5.9604645e-8f, 2.9802322e-8f,
                      2.9802326e-8f, 1.f + 1.f / 2048, 1.f + 3.f / 2048, INFINITY, -INFINITY})
        values.push_back(v);
      std::vector<uint16_t> h1(values.size()), h2(values.size());
      fast->to_f16(values.data(), h1.data(), values.size());
      portable.to_f16(values.data(), h2.data(), values.size());
      const float nan = NAN;
      uint16_t nan_half = 0;
      fast->to_f16(&nan, &nan_half, 1);
      check(h1 == h2 && std::isnan(f16ToF32(nan_half)),
            name + " to_f16 rounds as f32ToF16 (3,013 values: subnormals, ties, overflow)");
      check(q8_same, name +
                         " quantize_block_q8 gives the portable bytes, amax and sum (ties, "
                         "zeros, outliers)");
      check(q8k_same, name +
                          " quantize_block_q8k gives the portable bytes, block sums and "
                          "scale (tied extremes of either sign first)");
    }
    // e^x and SwiGLU against std::exp in double: within 1 ulp (exp) and 3 ulp (swiglu, whose
    // division rounds on its own) of the exact value over the whole range, subnormal results,
    // overflow to infinity, NaN, and lengths with and without an eight-value tail.
    {
      std::vector<float> xs;
      for (int i = 0; i < 20000; ++i) xs.push_back(-110.f + 200.f * i / 20000);
      for (float v : {0.f, -0.f, 88.72f, 88.7228f, 88.73f, -87.5f, -103.f, -104.5f, 1e-8f, -1e-8f,
                      INFINITY, -INFINITY})
        xs.push_back(v);
      const auto ulps = [](float got, double exact) {  // |got - exact| in ulps of exact
        const float near = static_cast<float>(exact);
        if (std::isinf(near)) return std::isinf(got) && got > 0 ? 0.0 : 1e9;
        const double ulp = std::max(std::abs(std::nextafter(near, INFINITY) - near), 1.4e-45f);
        return std::abs(got - exact) / ulp;
      };
      bool exp_ok = true, silu_ok = true;
      for (size_t n : {xs.size(), xs.size() - 3}) {
        std::vector<float> e(n), g(xs.begin(), xs.begin() + n), up(n, 1.f);
        fast->exp(xs.data(), e.data(), n);
        fast->swiglu(g.data(), up.data(), n);
        for (size_t i = 0; i < n; ++i) {
          const double x = xs[i], exact_exp = std::exp(x), exact_silu = x / (1 + std::exp(-x));
          exp_ok = exp_ok && ulps(e[i], exact_exp) <= 1.0;
          // silu's result is subnormal below x = -87: compare there absolutely
          // (infinities: +inf / 1 and -inf / inf, as the std::exp form gives)
          const bool near = std::isinf(x) ? (x > 0 ? g[i] == x : std::isnan(g[i]))
                            : x < -87     ? std::abs(g[i] - exact_silu) < 1e-36
                                          : ulps(g[i], exact_silu) <= 3.0;
          silu_ok = silu_ok && near;
        }
      }
      float nan = NAN, nan_exp = 0, nan_gate = NAN, one = 1.f;
      fast->exp(&nan, &nan_exp, 1);
      fast->swiglu(&nan_gate, &one, 1);
      check(exp_ok && std::isnan(nan_exp),
            name +
                " exp within 1 ulp of e^x from -110 to 90 (0 and infinity past the range, "
                "subnormals, NaN stays NaN)");
      check(silu_ok && std::isnan(nan_gate), name + " swiglu within 3 ulp of x / (1 + e^-x)");
    }
    // A known value, so both cannot be wrong the same way: block 0 all nibble 15 (value
    // 7), block 1 all nibble 8 (value 0), one weight group of both; x = 0.5 everywhere
    // (q = 1, scale 0.5, offset 8 x 0.5 x 32 per block); weight scale 2.
    std::vector<uint8_t> w4(32, 0x8F);
    std::vector<int8_t> xq(64, 1);
    const float ws = 2.f, xs[2] = {0.5f, 0.5f}, xo[2] = {8 * 0.5f * 32, 8 * 0.5f * 32};
    const float want = 2.f * 7 * 0.5f * 32;
    check(std::abs(fast->dot_q4(w4.data(), &ws, 2, xq.data(), xs, xo, 2) - want) < 1e-4 &&
              std::abs(portable.dot_q4(w4.data(), &ws, 2, xq.data(), xs, xo, 2) - want) < 1e-4,
          name + " and portable dot_q4 of a block of 7s and a block of 0s with x = 0.5: 224");
  }
  // GGUF kernels: every set this CPU has against the portable one, on random bytes (valid
  // blocks of every type: the scales are f16, set small) and activations of 2 x 256.
  {
    const int n = 512;
    std::vector<float> xv(n);
    for (float& v : xv) v = normal(rng);
    Activations a;
    a.set(xv.data(), 1, n, true);
    a.quantizeK();
    const auto random_bytes = [&](size_t count) {
      std::vector<uint8_t> b(count);
      for (auto& v : b) v = static_cast<uint8_t>(byte(rng));
      return b;
    };
    const auto set_half = [](std::vector<uint8_t>& b, size_t at, float v) {
      const uint16_t h = f32ToF16(v);
      std::memcpy(b.data() + at, &h, 2);
    };
    std::vector<uint8_t> q4_0 = random_bytes(n / 32 * 18), q8_0 = random_bytes(n / 32 * 34),
                         q4k = random_bytes(n / 256 * 144), q5k = random_bytes(n / 256 * 176),
                         q6k = random_bytes(n / 256 * 210);
    for (int b = 0; b < n / 32; ++b) {
      set_half(q4_0, 18 * b, 0.01f * (b + 1));
      set_half(q8_0, 34 * b, 0.001f * (b + 1));
    }
    for (int s = 0; s < n / 256; ++s) {
      set_half(q4k, 144 * s, 0.01f), set_half(q4k, 144 * s + 2, 0.02f);
      set_half(q5k, 176 * s, 0.01f), set_half(q5k, 176 * s + 2, 0.02f);
      set_half(q6k, 210 * s + 208, 0.001f);
    }
    // The dequantized rows times the dequantized activations: what every set must give.
    const auto reference = [&](TensorType t, const std::vector<uint8_t>& w, bool k_form,
                               int count) {
      std::vector<float> wf(n);
      dequantize(t, w, wf.data(), n);
      double sum = 0;
      for (int i = 0; i < count; ++i) {
        const double xq = k_form ? a.kscale[i / 256] * a.qk[i] : a.scale16[i / 32] * a.q[i];
        sum += wf[i] * xq;
      }
      return sum;
    };
    // The AVX-512 Q4_0 decode kernel reads the activations regrouped (Activations::q_grouped)
    // and gives dot_q4_0's value to the bit: tails past runs of 8 blocks, widths that pad,
    // several positions, and a set() after a regrouping (which must not leave it stale).
    for (const GgufKernels* k : {&portableGgufKernels(), avx2GgufKernels(), vnniGgufKernels()}) {
      if (!k || !k->dot_q4_0_grouped) continue;
      bool same = true, cleared = true;
      for (int blocks : {3, 13, 16, 131, 344}) {
        const int cols = blocks * 32, tokens = 3;
        std::vector<float> xs(static_cast<size_t>(tokens) * cols);
        for (float& v : xs) v = normal(rng);
        Activations act;
        act.set(xs.data(), tokens, cols, true);
        act.groupForQ4_0();
        const size_t row_bytes = blocks * 18;
        std::vector<uint8_t> row = random_bytes(row_bytes);
        for (int b = 0; b < blocks; ++b) set_half(row, b * 18, 0.01f * (1 + b % 5));
        for (int t = 0; t < tokens; ++t) {
          const float natural = k->dot_q4_0(row.data(), act.qRow(t), act.scale16Row(t),
                                            act.offset16Row(t), blocks),
                      grouped = k->dot_q4_0_grouped(row.data(), act.qGroupedRow(t),
                                                    act.scale16Row(t), act.offset16Row(t), blocks);
          same = same && natural == grouped && natural != 0;
        }
        act.set(xs.data(), tokens, cols, true);
        cleared = cleared && !act.grouped;
      }
      check(same, std::string(k->name) +
                      " GGUF Q4_0 with regrouped activations equals dot_q4_0 to the bit (3, 13, "
                      "16, 131 and 344 blocks, 3 positions)");
      check(cleared, "Activations::set drops the regrouped form of the previous values");
    }
    // A pass kernel over `tile` rows (gemm8 / gemm16) against the one-row products. `run`
    // multiplies the rows (Q4_0 or Q8_0) with act's positions into out[t * stride + r].
    using Run = std::function<void(bool q4, const uint8_t* rows, size_t row_bytes,
                                   const Activations& act, int blocks, float* out, int stride)>;
    const auto passes_match = [&](const GgufKernels& k, int tile, const Run& run) {
      bool same = true;
      for (int blocks : {3, 13, 16})
        for (int tokens : {1, 5, 37}) {
          const int cols = blocks * 32, stride = tile + 3;  // outputs with a gap per token
          std::vector<float> xs(static_cast<size_t>(tokens) * cols);
          for (float& v : xs) v = normal(rng);
          Activations act;
          act.set(xs.data(), tokens, cols, true);
          act.tileForPasses();  // the 16-row passes' order
          for (bool q4 : {true, false}) {
            const size_t block_bytes = q4 ? 18 : 34, row_bytes = blocks * block_bytes;
            std::vector<uint8_t> rows = random_bytes(tile * row_bytes);
            for (int r = 0; r < tile; ++r)
              for (int b = 0; b < blocks; ++b)
                set_half(rows, r * row_bytes + b * block_bytes, 0.01f * (1 + (r + b) % 7));
            std::vector<float> out(static_cast<size_t>(tokens) * stride);
            run(q4, rows.data(), row_bytes, act, blocks, out.data(), stride);
            for (int t = 0; t < tokens; ++t)
              for (int r = 0; r < tile; ++r)
                same = same && out[t * stride + r] ==
                                   (q4 ? k.dot_q4_0 : k.dot_q8_0)(rows.data() + r * row_bytes,
                                                                  act.qRow(t), act.scale16Row(t),
                                                                  act.offset16Row(t), blocks);
          }
        }
      return same;
    };
    // Passes over several positions (eight or sixteen rows in lanes) give every position's
    // value to the bit of the one-row product: a conversation's next turn and speculative
    // verification must match plain decoding. Block counts with and without a tail past
    // groups of 8, token counts across the 32-token chunks; the 16-row kernels over three
    // slabs of rows.
    for (const GgufKernels* k : {&portableGgufKernels(), avx2GgufKernels(), vnniGgufKernels()}) {
      if (!k) continue;
      const auto eight = [&](bool q4, const uint8_t* rows, size_t row_bytes, const Activations& a,
                             int blocks, float* out, int stride) {
        (q4 ? k->gemm8_q4_0 : k->gemm8_q8_0)(rows, row_bytes, a.q.data(), a.blocks * 32,
                                             a.scale16.data(), a.offset16.data(), a.blocks, blocks,
                                             a.count, out, stride);
      };
      check(passes_match(*k, 8, eight),
            std::string(k->name) +
                " GGUF Q4_0 / Q8_0 passes of 1, 5 and 37 positions equal the one-row "
                "products to the bit (3, 13 and 16 blocks)");
      if (!k->gemm16_q4_0 || !k->gemm16_q8_0) continue;
      const auto slabs = [&](bool q4, const uint8_t* rows, size_t row_bytes, const Activations& a,
                             int blocks, float* out, int stride) {
        (q4 ? k->gemm16_q4_0 : k->gemm16_q8_0)(rows, row_bytes, 48, a, blocks, out, stride);
      };
      check(passes_match(*k, 48, slabs),
            std::string(k->name) +
                " GGUF Q4_0 / Q8_0 passes over 48 rows, sixteen at a time, equal the one-row "
                "products to the bit (3, 13 and 16 blocks; 1, 5 and 37 positions)");
    }
    for (const GgufKernels* k : {&portableGgufKernels(), avx2GgufKernels(), vnniGgufKernels()}) {
      if (!k) continue;
      const std::string name = k->name;
      const double r40 = reference(TensorType::Q4_0, q4_0, false, n),
                   r80 = reference(TensorType::Q8_0, q8_0, false, n),
                   r4k = reference(TensorType::Q4_K, q4k, true, n),
                   r5k = reference(TensorType::Q5_K, q5k, true, n),
                   r6k = reference(TensorType::Q6_K, q6k, true, n);
      const double g40 = k->dot_q4_0(q4_0.data(), a.q.data(), a.scale16.data(), a.offset16.data(),
                                     n / 32),
                   g80 = k->dot_q8_0(q8_0.data(), a.q.data(), a.scale16.data(), a.offset16.data(),
                                     n / 32),
                   g4k = k->dot_q4_k(q4k.data(), a.qk.data(), a.kscale.data(), a.bsums.data(), 2),
                   g5k = k->dot_q5_k(q5k.data(), a.qk.data(), a.kscale.data(), a.bsums.data(), 2),
                   g6k = k->dot_q6_k(q6k.data(), a.qk.data(), a.kscale.data(), a.bsums.data(), 2);
      const auto near = [](double got, double want) {
        return std::abs(got - want) <= 1e-4 * (1 + std::abs(want));
      };
      // 13 blocks: one group of eight and a tail of five
      const double r40_tail = reference(TensorType::Q4_0, q4_0, false, 13 * 32),
                   g40_tail = k->dot_q4_0(q4_0.data(), a.q.data(), a.scale16.data(),
                                          a.offset16.data(), 13);
      check(near(g40_tail, r40_tail),
            name + " GGUF Q4_0 over 13 blocks (a group of 8, a tail of 5)");
      check(near(g40, r40) && near(g80, r80),
            name + " GGUF Q4_0 / Q8_0 products equal the dequantized ones (" + std::to_string(g40) +
                " / " + std::to_string(r40) + ", " + std::to_string(g80) + " / " +
                std::to_string(r80) + ")");
      std::vector<uint16_t> bf16(n + 5);
      for (auto& v : bf16) v = static_cast<uint16_t>(0x3C00 + byte(rng));  // ~0.008 .. 0.03
      double rbf = 0;
      for (int i = 0; i < n + 5; ++i) rbf += bf16ToF32(bf16[i]) * xv[i % n];
      std::vector<float> xb(n + 5);
      for (int i = 0; i < n + 5; ++i) xb[i] = xv[i % n];
      check(near(k->dot_bf16(bf16.data(), xb.data(), n + 5), rbf),
            name + " BF16 rows (with a tail of 5) equal the f64 sum");
      check(near(g4k, r4k) && near(g5k, r5k) && near(g6k, r6k),
            name + " GGUF Q4_K / Q5_K / Q6_K products equal the dequantized ones (" +
                std::to_string(g4k) + " / " + std::to_string(r4k) + ", " + std::to_string(g5k) +
                " / " + std::to_string(r5k) + ", " + std::to_string(g6k) + " / " +
                std::to_string(r6k) + ")");
      // 1 .. 6 tokens in one call (four tokens through one unpacking of the row, and six
      // where the set holds them): each token's product to the bit.
      constexpr int kMost = GgufKernels::kKTokens;
      std::vector<float> xs6(kMost * n);
      for (float& v : xs6) v = normal(rng);
      Activations six;
      six.set(xs6.data(), kMost, n, true);
      six.quantizeK();
      using One = float (*)(const uint8_t*, const int8_t*, const float*, const int16_t*, int);
      const std::vector<std::tuple<const std::vector<uint8_t>*, GgufKernels::KTokens, One>> kinds =
          {{&q4k, k->dot_q4_k_tokens, k->dot_q4_k},
           {&q5k, k->dot_q5_k_tokens, k->dot_q5_k},
           {&q6k, k->dot_q6_k_tokens, k->dot_q6_k}};
      bool four = true, equal = true;
      int compared = 0;
      for (const auto& [w, pass, one] : kinds)
        for (int tokens = 1; tokens <= kMost; ++tokens) {
          float out[kMost];
          pass(w->data(), six.qk.data(), n, six.kscale.data(), n / 256, six.bsums.data(), n / 16,
               n / 256, tokens, out);
          for (int t = 0; t < tokens; ++t, ++compared) {
            const bool same =
                out[t] == one(w->data(), six.qkRow(t), six.kscaleRow(t), six.bsumsRow(t), n / 256);
            equal = equal && same;
            if (tokens == 4) four = four && same;
          }
        }
      check(four, name +
                      " GGUF Q4_K / Q5_K / Q6_K rows times four tokens equal the one-token "
                      "products to the bit");
      check(equal && compared == 3 * 21,
            name +
                " GGUF Q4_K / Q5_K / Q6_K rows times 1 .. 6 tokens in one call equal the "
                "one-token products to the bit (" +
                std::to_string(compared) + " products)");
    }
  }
  return ts::testing::finish();
}
