// Q8_0 / Q4_0 / F16 / BF16 dequantization against straightforward reference code written
// here from the format descriptions, on seeded random blocks.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <vector>
#include "tests/inference/engine/check.h"

#include "inference/engine/core/tensor_types.h"

using ts::testing::check;

using namespace ts::engine;

namespace {
// IEEE half -> float by the textbook formula (not bit tricks).
double halfValue(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0)
    v = std::ldexp(mant / 1024.0, -14);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(1.0 + mant / 1024.0, exp - 15);
  return sign ? -v : v;
}
}  // namespace

int main() {
  std::mt19937 rng(2024);
  // Every finite half converts exactly; f32 -> f16 -> f32 is the identity on halves.
  bool halves_ok = true;
  for (uint32_t h = 0; h < 65536; ++h) {
    const double want = halfValue(static_cast<uint16_t>(h));
    const float got = f16ToF32(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      halves_ok &= std::isnan(got);
      continue;
    }
    halves_ok &= got == static_cast<float>(want);
    if (std::isfinite(want))
      halves_ok &= f32ToF16(got) == h || (h == 0x8000 && f32ToF16(got) == 0x8000);
  }
  check(halves_ok, "all 65,536 halves convert exactly and round-trip");
  check(f32ToF16(1.0f + 1.0f / 2048) == 0x3C00, "f32 -> f16 rounds half to even (down)");
  check(f32ToF16(1.0f + 3.0f / 2048) == 0x3C02, "f32 -> f16 rounds half to even (up)");
  check(bf16ToF32(0x3F80) == 1.0f && bf16ToF32(0xC040) == -3.0f, "bf16 -> f32");

  // Q8_0: 4 blocks of 32.
  const int blocks = 4;
  std::vector<uint8_t> q8(blocks * 34);
  std::vector<double> q8_want(blocks * 32);
  for (int b = 0; b < blocks; ++b) {
    const uint16_t d = f32ToF16(0.01f * (b + 1));
    std::memcpy(&q8[b * 34], &d, 2);
    for (int i = 0; i < 32; ++i) {
      const int8_t q = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      q8[b * 34 + 2 + i] = static_cast<uint8_t>(q);
      q8_want[b * 32 + i] = halfValue(d) * q;
    }
  }
  std::vector<float> out(blocks * 32);
  check(dequantize(TensorType::Q8_0, q8, out.data(), out.size()), "Q8_0 dequantizes");
  double worst = 0;
  for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::abs(out[i] - q8_want[i]));
  check(worst < 1e-6,
        "Q8_0 equals d * q for every element (max error " + std::to_string(worst) + ")");

  // Q4_0: element j < 16 is the low nibble of byte j, element j + 16 its high nibble; q - 8.
  std::vector<uint8_t> q4(blocks * 18);
  std::vector<double> q4_want(blocks * 32);
  for (int b = 0; b < blocks; ++b) {
    const uint16_t d = f32ToF16(-0.125f * (b + 1));
    std::memcpy(&q4[b * 18], &d, 2);
    for (int j = 0; j < 16; ++j) {
      const uint8_t byte = static_cast<uint8_t>(rng());
      q4[b * 18 + 2 + j] = byte;
      q4_want[b * 32 + j] = halfValue(d) * ((byte & 15) - 8);
      q4_want[b * 32 + j + 16] = halfValue(d) * ((byte >> 4) - 8);
    }
  }
  check(dequantize(TensorType::Q4_0, q4, out.data(), out.size()), "Q4_0 dequantizes");
  worst = 0;
  for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::abs(out[i] - q4_want[i]));
  check(worst < 1e-6,
        "Q4_0 equals d * (nibble - 8) in ggml's order (max error " + std::to_string(worst) + ")");

  // Q4_K and Q6_K: random super-blocks against per-element formulas written from the
  // layout (element e -> which byte, which bits, which scale).
  {
    std::vector<uint8_t> blk(2 * 144);
    for (auto& b : blk) b = static_cast<uint8_t>(rng());
    for (int s = 0; s < 2; ++s) {  // sane f16 d and dmin
      const uint16_t d = f32ToF16(0.02f * (s + 1)), dmin = f32ToF16(0.01f);
      std::memcpy(&blk[s * 144], &d, 2);
      std::memcpy(&blk[s * 144 + 2], &dmin, 2);
    }
    std::vector<float> got(512);
    check(dequantize(TensorType::Q4_K, blk, got.data(), got.size()), "Q4_K dequantizes");
    double err = 0;
    for (int e = 0; e < 512; ++e) {
      const uint8_t* B = &blk[(e / 256) * 144];
      const int i = e % 256, sub = i / 32, chunk = i / 64, high = (i % 64) / 32, l = i % 32;
      const uint8_t* sc = B + 4;
      const int scale = sub < 4 ? sc[sub] & 63 : (sc[sub + 4] & 15) | ((sc[sub - 4] >> 6) << 4);
      const int mn = sub < 4 ? sc[sub + 4] & 63 : (sc[sub + 4] >> 4) | ((sc[sub] >> 6) << 4);
      const uint8_t q = B[16 + chunk * 32 + l];
      uint16_t d, dmin;
      std::memcpy(&d, B, 2);
      std::memcpy(&dmin, B + 2, 2);
      const double want = halfValue(d) * scale * (high ? q >> 4 : q & 15) - halfValue(dmin) * mn;
      err = std::max(err, std::abs(got[e] - want));
    }
    check(err < 1e-5,
          "Q4_K equals d*scale*q - dmin*min per element (max error " + std::to_string(err) + ")");

    std::vector<uint8_t> q6(2 * 210);
    for (auto& b : q6) b = static_cast<uint8_t>(rng());
    for (int s = 0; s < 2; ++s) {
      const uint16_t d = f32ToF16(0.003f * (s + 1));
      std::memcpy(&q6[s * 210 + 208], &d, 2);
    }
    check(dequantize(TensorType::Q6_K, q6, got.data(), got.size()), "Q6_K dequantizes");
    err = 0;
    for (int e = 0; e < 512; ++e) {
      const uint8_t* B = &q6[(e / 256) * 210];
      const int i = e % 256, half = i / 128, within = i % 128, quarter = within / 32,
                l = within % 32;
      const uint8_t lo = B[half * 64 + (quarter % 2) * 32 + l];
      const int low4 = quarter < 2 ? lo & 15 : lo >> 4;
      const int high2 = (B[128 + half * 32 + l] >> (2 * quarter)) & 3;
      const int8_t scale = static_cast<int8_t>(B[192 + half * 8 + l / 16 + 2 * quarter]);
      uint16_t d;
      std::memcpy(&d, B + 208, 2);
      const double want = halfValue(d) * scale * ((low4 | (high2 << 4)) - 32);
      err = std::max(err, std::abs(got[e] - want));
    }
    check(err < 1e-5,
          "Q6_K equals d*scale*(q - 32) per element (max error " + std::to_string(err) + ")");
  }
  // The legacy and small K types, on blocks written by hand from the layouts: each value
  // at its documented place.
  {
    const auto decode = [](TensorType t, const auto& block, size_t n) {
      std::vector<float> out(n);
      dequantize(t, {reinterpret_cast<const uint8_t*>(&block), sizeof block}, out.data(), n);
      return out;
    };
    const uint16_t one = 0x3C00, two = 0x4000, minus_two = 0xC000;  // f16 1, 2, -2
    BlockQ4_1 q41{one, minus_two, {}};
    BlockQ5_0 q50{two, {}, {}};
    BlockQ5_1 q51{one, minus_two, {}, {}};
    for (int j = 0; j < 16; ++j)
      q41.qs[j] = q50.qs[j] = q51.qs[j] = static_cast<uint8_t>(j | (15 - j) << 4);
    const uint32_t fifth = 0x0000FFFFu;  // elements 0..15 have the fifth bit, 16..31 not
    std::memcpy(q50.qh, &fifth, 4);
    std::memcpy(q51.qh, &fifth, 4);
    const auto v41 = decode(TensorType::Q4_1, q41, 32), v50 = decode(TensorType::Q5_0, q50, 32),
               v51 = decode(TensorType::Q5_1, q51, 32);
    bool legacy = true;
    for (int j = 0; j < 16; ++j) {
      legacy &= v41[j] == j - 2.f && v41[j + 16] == 13.f - j;
      legacy &= v50[j] == 2.f * (j + 16 - 16) && v50[j + 16] == 2.f * (15 - j - 16);
      legacy &= v51[j] == j + 16 - 2.f && v51[j + 16] == 13.f - j;
    }
    check(legacy, "Q4_1 / Q5_0 / Q5_1: value = d * q (+ m, or - 16), fifth bits from qh");

    // Q2_K: scale nibble 1, min nibble 0, d 1; bytes 0b11100100 hold 0, 1, 2, 3 at shifts
    // 0, 2, 4, 6: each 128-element half reads 32 zeros, 32 ones, 32 twos, 32 threes.
    BlockQ2K q2{};
    std::memset(q2.scales, 0x01, 16);
    std::memset(q2.qs, 0xE4, 64);
    q2.d = one;
    q2.scales[15] = 0x12;  // the last 16 values: scale 2, min 1 (x dmin 2)
    q2.dmin = two;
    const auto v2 = decode(TensorType::Q2_K, q2, 256);
    bool k2 = true;
    for (int e = 0; e < 240; ++e) k2 &= v2[e] == static_cast<float>(e % 128 / 32);
    for (int e = 240; e < 256; ++e) k2 &= v2[e] == 2.f * 3 - 2.f;
    check(k2, "Q2_K: 2-bit values at shifts 0..6, 16 per scale / min pair");

    // Q3_K: every 6-bit scale 33 (value 1), d 1, hmask set (no -4) except for the first 32
    // values; the same 2-bit pattern as above.
    BlockQ3K q3{};
    std::memset(q3.scales, 0x11, 8);      // low nibbles: 1 for scales 0..15
    std::memset(q3.scales + 8, 0xAA, 4);  // top two bits: 2 for every scale
    std::memset(q3.qs, 0xE4, 64);
    std::memset(q3.hmask, 0xFF, 32);
    for (int l = 0; l < 32; ++l) q3.hmask[l] = 0xFE;  // bit 0 clear: elements 0..31 get -4
    q3.d = one;
    const auto v3 = decode(TensorType::Q3_K, q3, 256);
    bool k3 = true;
    for (int e = 0; e < 256; ++e)
      k3 &= v3[e] == static_cast<float>(e % 128 / 32) - (e < 32 ? 4 : 0);
    check(k3, "Q3_K: 6-bit scales (- 32), the high-bit mask's clear bits subtract 4");
  }
  return ts::testing::finish();
}
