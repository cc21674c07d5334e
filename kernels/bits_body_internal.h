// Bitmap word maps, bool/primitive zip, filter/scatter and byte-bool packing bodies compiled once
// per x86-64 level (kernels layer, internal; level_*.cc only).
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/level_common_internal.h"

namespace rowjit::kernels::ROWJIT_LEVEL_NS {
namespace {

// out word w = op(word w of each input), inputs at any offsets, all of length `length`. Inputs
// all at byte-aligned offsets take one load a word; otherwise two loads and a funnel shift.
// Base pointers and shifts are copied to locals so stores to `out` (a uint8_t*, which may alias
// anything) do not force them to be reloaded every word.
template <typename Op, typename... Spans>
void MapWords(uint8_t* out, int64_t length, Op op, Spans... spans) {
  constexpr size_t kN = sizeof...(Spans);
  const WordReader readers[kN] = {WordReader(spans)...};
  const int64_t words = Words64(length);
  int64_t fast = length / 64;
  bool aligned = true;
  for (const WordReader& r : readers) {
    fast = MinOf(fast, r.fast_words());
    aligned = aligned && r.shift() == 0;
  }
  auto run = [&]<size_t... I>(std::index_sequence<I...>) {
    const uint8_t* const base[kN] = {readers[I].base()...};
    const int shift[kN] = {readers[I].shift()...};
    if (aligned) {
      for (int64_t w = 0; w < fast; ++w) Store64(out + 8 * w, op(Load64(base[I] + 8 * w)...));
    } else {
      for (int64_t w = 0; w < fast; ++w) {
        Store64(out + 8 * w, op(WordReader::Fast(base[I], shift[I], w)...));
      }
    }
    for (int64_t w = fast; w < words; ++w) {
      WriteWord(out, w, op(readers[I].Word(w)...), length - 64 * w);
    }
  };
  run(std::make_index_sequence<kN>{});
}

void BoolZip(BitSpan m, BitSpan t, BitSpan f, uint8_t* out) {
  MapWords(out, m.length, [](uint64_t mw, uint64_t tw, uint64_t fw) { return (tw & mw) | (fw & ~mw); },
           m, t, f);
}
void And(BitSpan a, BitSpan b, uint8_t* out) {
  MapWords(out, a.length, [](uint64_t x, uint64_t y) { return x & y; }, a, b);
}
void Or(BitSpan a, BitSpan b, uint8_t* out) {
  MapWords(out, a.length, [](uint64_t x, uint64_t y) { return x | y; }, a, b);
}
void AndNot(BitSpan a, BitSpan b, uint8_t* out) {
  MapWords(out, a.length, [](uint64_t x, uint64_t y) { return x & ~y; }, a, b);
}
void Not(BitSpan a, uint8_t* out) {
  MapWords(out, a.length, [](uint64_t x) { return ~x; }, a);
}
void Copy(BitSpan a, uint8_t* out) {
  MapWords(out, a.length, [](uint64_t x) { return x; }, a);
}
int64_t CountBits(BitSpan a) {
  const WordReader r(a);
  const int64_t fast = r.fast_words();
  const uint8_t* base = r.base();
  const int shift = r.shift();
  int64_t count = 0;
  for (int64_t w = 0; w < fast; ++w) count += Popcount(WordReader::Fast(base, shift, w));
  for (int64_t w = fast; w < Words64(a.length); ++w) count += Popcount(r.Word(w));
  return count;
}

// ---- Primitive zip: a select per lane against a constant bit, no branch on the mask.
template <typename T>
void Zip(BitSpan mask, const void* if_true, const void* if_false, void* out) {
  const T* t = static_cast<const T*>(if_true);
  const T* f = static_cast<const T*>(if_false);
  T* o = static_cast<T*>(out);
  using M = LaneMask<T>;
  auto half = [&](int64_t row, uint32_t bits, int n) {
    for (int j = 0; j < n; ++j) {
      const bool take = (static_cast<M>(bits) & kLaneBits<M>.bit[j]) != 0;
      o[row + j] = take ? t[row + j] : f[row + j];
    }
  };
  auto full_half = [&](int64_t row, uint32_t bits) {
    const T* tp = t + row;
    const T* fp = f + row;
    T* op = o + row;
    for (int j = 0; j < 32; ++j) {
      const bool take = (static_cast<M>(bits) & kLaneBits<M>.bit[j]) != 0;
      op[j] = take ? tp[j] : fp[j];
    }
  };
  const WordReader reader(mask);
  const int64_t full = mask.length / 64;
  for (int64_t w = 0; w < full; ++w) {
    const uint64_t word = reader.Word(w);
    full_half(64 * w, static_cast<uint32_t>(word));
    full_half(64 * w + 32, static_cast<uint32_t>(word >> 32));
  }
  const int64_t rest = mask.length - 64 * full;
  const uint64_t word = reader.Word(full);
  half(64 * full, static_cast<uint32_t>(word), static_cast<int>(MinOf<int64_t>(rest, 32)));
  if (rest > 32) half(64 * full + 32, static_cast<uint32_t>(word >> 32), static_cast<int>(rest - 32));
}

// ---- Filter and scatter. Full words copy 64 rows at once; sparse words walk their set bits.
template <typename T>
int64_t Filter(const void* values, BitSpan mask, void* out) {
  const T* v = static_cast<const T*>(values);
  T* o = static_cast<T*>(out);
  const WordReader reader(mask);
  int64_t k = 0;
  for (int64_t w = 0; w < Words64(mask.length); ++w) {
    uint64_t word = reader.Word(w);
    const T* p = v + 64 * w;
    if (word == ~uint64_t{0}) {
      __builtin_memcpy(o + k, p, 64 * sizeof(T));
      k += 64;
      continue;
    }
    for (; word != 0; word &= word - 1) o[k++] = p[__builtin_ctzll(word)];
  }
  return k;
}

template <typename T>
void Scatter(const void* values, BitSpan mask, void* out) {
  const T* v = static_cast<const T*>(values);
  T* o = static_cast<T*>(out);
  const WordReader reader(mask);
  int64_t k = 0;
  for (int64_t w = 0; w < Words64(mask.length); ++w) {
    uint64_t word = reader.Word(w);
    T* p = o + 64 * w;
    if (word == ~uint64_t{0}) {
      __builtin_memcpy(p, v + k, 64 * sizeof(T));
      k += 64;
      continue;
    }
    for (; word != 0; word &= word - 1) p[__builtin_ctzll(word)] = v[k++];
  }
}

// ---- Selections: set-bit positions as 32-bit indices, and take by index.

#if !defined(__AVX512F__) && defined(__AVX2__)
// Per byte of a mask, the positions of its set bits, packed to the front.
struct ByteIndexTable {
  uint8_t at[256][8];
};
constexpr ByteIndexTable MakeByteIndexTable() {
  ByteIndexTable t{};
  for (int b = 0; b < 256; ++b) {
    int k = 0;
    for (int i = 0; i < 8; ++i) {
      if ((b >> i) & 1) t.at[b][k++] = static_cast<uint8_t>(i);
    }
  }
  return t;
}
inline constexpr ByteIndexTable kByteIndices = MakeByteIndexTable();
#endif

// The indices of one 64-bit word's set bits (row `base` is bit 0), appended at out[k]; returns
// the new count. Vector forms write whole vectors past it (kIndexSlack).
inline int64_t WordIndices(uint64_t word, uint32_t base, uint32_t* out, int64_t k) {
#if defined(__AVX512F__)
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int q = 0; q < 4 && word != 0; ++q, word >>= 16) {
    const auto m = static_cast<__mmask16>(word & 0xffff);
    const __m512i idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(base + 16 * q)));
    _mm512_storeu_si512(out + k, _mm512_maskz_compress_epi32(m, idx));
    k += __builtin_popcount(m);
  }
  return k;
#elif defined(__AVX2__)
  for (int q = 0; q < 8 && word != 0; ++q, word >>= 8) {
    const auto byte = static_cast<uint8_t>(word);
    const __m128i at = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kByteIndices.at[byte]));
    const __m256i idx = _mm256_add_epi32(_mm256_cvtepu8_epi32(at), _mm256_set1_epi32(static_cast<int>(base + 8 * q)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), idx);
    k += __builtin_popcount(byte);
  }
  return k;
#else
  for (; word != 0; word &= word - 1) out[k++] = base + static_cast<uint32_t>(__builtin_ctzll(word));
  return k;
#endif
}

int64_t SetBitIndices(BitSpan mask, uint32_t first, uint32_t* out) {
  const WordReader reader(mask);
  int64_t k = 0;
  for (int64_t w = 0; w < Words64(mask.length); ++w) {
    k = WordIndices(reader.Word(w), first + static_cast<uint32_t>(64 * w), out, k);
  }
  return k;
}

// Take by index: hardware gathers for 4- and 8-byte values where the level has them (AVX-512:
// 16 or 8 lanes, AVX2: 8 or 4), loads otherwise and for the rest. Gathers sign-extend their
// 32-bit indices, so a block holding an index from 2^31 on (batches up to 2^32 rows) is loaded
// element by element.
template <typename T>
void Gather(const void* values, const uint32_t* indices, int64_t n, void* out) {
  const T* v = static_cast<const T*>(values);
  T* o = static_cast<T*>(out);
  int64_t i = 0;
#if defined(__AVX512F__)
  if constexpr (sizeof(T) == 4) {
    for (; i + 16 <= n; i += 16) {
      const __m512i idx = _mm512_loadu_si512(indices + i);
      if (_mm512_movepi32_mask(idx) != 0) {
        for (int j = 0; j < 16; ++j) o[i + j] = v[indices[i + j]];
        continue;
      }
      _mm512_storeu_si512(o + i, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xffff, idx, v, 4));
    }
  } else if constexpr (sizeof(T) == 8) {
    for (; i + 8 <= n; i += 8) {
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(indices + i));
      if (_mm256_movemask_ps(_mm256_castsi256_ps(idx)) != 0) {
        for (int j = 0; j < 8; ++j) o[i + j] = v[indices[i + j]];
        continue;
      }
      _mm512_storeu_si512(o + i, _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), 0xff, idx, v, 8));
    }
  }
#elif defined(__AVX2__)
  if constexpr (sizeof(T) == 4) {
    for (; i + 8 <= n; i += 8) {
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(indices + i));
      if (_mm256_movemask_ps(_mm256_castsi256_ps(idx)) != 0) {
        for (int j = 0; j < 8; ++j) o[i + j] = v[indices[i + j]];
        continue;
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i),
                          _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), reinterpret_cast<const int*>(v), idx,
                                                      _mm256_set1_epi32(-1), 4));
    }
  } else if constexpr (sizeof(T) == 8) {
    for (; i + 4 <= n; i += 4) {
      const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i*>(indices + i));
      if (_mm_movemask_ps(_mm_castsi128_ps(idx)) != 0) {
        for (int j = 0; j < 4; ++j) o[i + j] = v[indices[i + j]];
        continue;
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i),
                          _mm256_mask_i32gather_epi64(_mm256_setzero_si256(), reinterpret_cast<const long long*>(v), idx,
                                                      _mm256_set1_epi64x(-1), 8));
    }
  }
#endif
  for (; i < n; ++i) o[i] = v[indices[i]];
}

void GatherBits(BitSpan bits, const uint32_t* indices, int64_t n, uint8_t* out) {
  for (int64_t w = 0; w < Words64(n); ++w) {
    uint64_t word = 0;
    const int64_t rows = MinOf<int64_t>(64, n - 64 * w);
    for (int64_t i = 0; i < rows; ++i) {
      const uint64_t at = static_cast<uint64_t>(bits.offset) + indices[64 * w + i];
      word |= static_cast<uint64_t>((bits.data[at >> 3] >> (at & 7)) & 1) << i;
    }
    WriteWord(out, w, word, n - 64 * w);
  }
}

inline uint64_t Pext(uint64_t x, uint64_t m) {
#if defined(__BMI2__)
  return _pext_u64(x, m);
#else
  uint64_t r = 0;
  for (int k = 0; m != 0; m &= m - 1, ++k) r |= ((x >> __builtin_ctzll(m)) & 1) << k;
  return r;
#endif
}
inline uint64_t Pdep(uint64_t x, uint64_t m) {
#if defined(__BMI2__)
  return _pdep_u64(x, m);
#else
  uint64_t r = 0;
  for (; m != 0; m &= m - 1, x >>= 1) r |= (m & (~m + 1)) & (uint64_t{0} - (x & 1));
  return r;
#endif
}

int64_t FilterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  const WordReader vr(values), mr(mask);
  uint64_t cur = 0;  // pending output bits
  int fill = 0;      // how many
  int64_t out_words = 0;
  for (int64_t w = 0; w < Words64(mask.length); ++w) {
    const uint64_t m = mr.Word(w);
    const uint64_t sel = Pext(vr.Word(w), m);
    const int n = Popcount(m);
    cur |= sel << fill;  // fill < 64
    fill += n;
    if (fill >= 64) {
      Store64(out + 8 * out_words++, cur);
      fill -= 64;
      cur = fill > 0 ? sel >> (n - fill) : 0;
    }
  }
  if (fill > 0) __builtin_memcpy(out + 8 * out_words, &cur, static_cast<size_t>(Bytes(fill)));
  return 64 * out_words + fill;
}

void ScatterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  const WordReader vr(values), mr(mask);
  int64_t k = 0;  // values bits consumed
  for (int64_t w = 0; w < Words64(mask.length); ++w) {
    const uint64_t m = mr.Word(w);
    const int64_t bits = MinOf<int64_t>(64, mask.length - 64 * w);
    const int s = static_cast<int>(k & 63);
    const uint64_t src = (vr.Word(k >> 6) >> s) | ((vr.Word((k >> 6) + 1) << 1) << (63 - s));
    k += Popcount(m);
    uint64_t old = 0;
    __builtin_memcpy(&old, out + 8 * w, static_cast<size_t>(Bytes(bits)));
    WriteWord(out, w, (old & ~m) | Pdep(src, m), bits);
  }
}

// ---- Byte-bool pack: a compare and movemask per vector, no per-row branch.
inline uint8_t PackEight(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  const uint64_t nonzero = (((x & kLow7) + kLow7) | x) & ~kLow7;  // 0x80 in each nonzero byte
  return static_cast<uint8_t>(((nonzero >> 7) * 0x0102040810204080ULL) >> 56);
}

// Bits to bytes (0x00 or 0xff): AVX-512BW moves a word into a mask register and expands it
// (vpmovm2b); AVX2 broadcasts 32 bits, moves byte j / 8 of them into byte j
// with a shuffle and tests bit j % 8; other levels spread eight bits with a multiply (SWAR).
inline uint64_t SpreadEight(uint64_t eight) {
  constexpr uint64_t kBitPerByte = 0x8040201008040201ULL;
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  const uint64_t kept = (eight * 0x0101010101010101ULL) & kBitPerByte;
  return ((kept + kLow7) >> 7) & 0x0101010101010101ULL;  // carries stay inside each byte
}

int64_t UnpackBits(BitSpan bits, uint8_t* out) {
  const WordReader r(bits);
  const int64_t fast = r.fast_words();
  const uint8_t* base = r.base();
  const int shift = r.shift();
  int64_t count = 0;
  int64_t w = 0;
#if defined(__AVX512BW__)
  // AVX-512: a word of bits is a mask register; one vpmovm2b writes its 64 bytes.
  for (; w < fast; ++w) {
    const uint64_t word = WordReader::Fast(base, shift, w);
    count += Popcount(word);
    _mm512_storeu_si512(out + 64 * w, _mm512_movm_epi8(static_cast<__mmask64>(word)));
  }
#elif defined(__AVX2__)
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
  for (; w < fast; ++w) {
    const uint64_t word = WordReader::Fast(base, shift, w);
    count += Popcount(word);
    for (int h = 0; h < 2; ++h) {
      const __m256i x = _mm256_set1_epi32(static_cast<int32_t>(word >> (32 * h)));
      const __m256i b = _mm256_and_si256(_mm256_shuffle_epi8(x, spread), bit);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 64 * w + 32 * h), _mm256_cmpeq_epi8(b, bit));
    }
  }
#else
  for (; w < fast; ++w) {
    const uint64_t word = WordReader::Fast(base, shift, w);
    count += Popcount(word);
    for (int k = 0; k < 8; ++k) Store64(out + 64 * w + 8 * k, SpreadEight((word >> (8 * k)) & 0xff) * 0xff);
  }
#endif
  for (; w < Words64(bits.length); ++w) {
    const uint64_t word = r.Word(w);  // zero past the end
    count += Popcount(word);
    const int64_t n = MinOf<int64_t>(64, bits.length - 64 * w);
    for (int64_t i = 0; i < n; ++i) out[64 * w + i] = static_cast<uint8_t>(0 - ((word >> i) & 1));
  }
  return count;
}

void PackByteBools(const uint8_t* bytes, int64_t length, uint8_t* out) {
  int64_t i = 0;
#if defined(__AVX512BW__)
  for (; i + 64 <= length; i += 64) {
    const __m512i x = _mm512_loadu_si512(bytes + i);
    Store64(out + i / 8, _mm512_test_epi8_mask(x, x));
  }
#elif defined(__AVX2__)
  const __m256i zero = _mm256_setzero_si256();
  for (; i + 64 <= length; i += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + i + 32));
    const uint32_t za = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)));
    const uint32_t zb = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero)));
    Store64(out + i / 8, ~(uint64_t{za} | (uint64_t{zb} << 32)));
  }
#elif defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  for (; i + 64 <= length; i += 64) {
    uint64_t zeros = 0;
    for (int q = 0; q < 4; ++q) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i + 16 * q));
      zeros |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, zero)))} << (16 * q);
    }
    Store64(out + i / 8, ~zeros);
  }
#endif
  for (; i + 8 <= length; i += 8) out[i / 8] = PackEight(Load64(bytes + i));
  if (i < length) {
    uint64_t x = 0;
    __builtin_memcpy(&x, bytes + i, static_cast<size_t>(length - i));
    out[i / 8] = PackEight(x);
  }
}

}  // namespace
}  // namespace rowjit::kernels::ROWJIT_LEVEL_NS
