/* probcore's fused sparse mappings on the CPU: one row at a time, in L1 (see probcore/fused.py).

   entmax_alpha(x) = relu(c - tau)^q, c = (alpha - 1) (x - max x) (c = x - max x for sparsemax),
   q = 1 / (alpha - 1), sum = 1. Forward, per row: one pass for the max of every block of BLOCK
   entries and the row's, then a lower bound of tau from those maxima alone (block_bound: the
   threshold of any set of entries bounds tau from below, approached from below by Hoelder's bound
   and Newton's steps; rows of 4 BLOCK blocks or more take the maxima of groups of
   BLOCK blocks, a few passes over n / BLOCK^2 values), then, in the blocks whose max lies above
   it, a branch-free packing of the candidates c > bound (>= -1: the max entry alone has mass 1
   there; where more than 1/16 of the blocks hold one and the CPU has AVX2, one left-packing pass
   over the whole row instead, pack_above_f / _d); the threshold is iterated on the candidates
   alone from the bound (dropping those below a lower bound of tau as it rises), then p is written
   into the zeroed row:
     sparsemax  Michelot tau <- (sum_S c - 1) / |S|, S = {c > tau}, from below; exact once S stops
                shrinking (tau is then the closed form of its own support).
     entmax-1.5 the closed form tau_S = tau + mean_S d - sqrt(1/|S| - var_S d), d = c - tau, when
                no entry of S lies below it (exact), else Newton's step on the convex sqrt(F) - 1,
                F = sum d^2, which stays below the root.
     other      Jensen's lower bounds tau <- mean_S c - |S|^-(alpha-1) (no powers) while they rise,
                then safeguarded Newton on F^(alpha-1) - 1, F = sum d^q, in the bracket [lo, hi]
                (Halley's step from the second pass on for alpha < HALLEY_BELOW, the second
                derivative from the last two passes; bisection when a step leaves it or stalls), to |F^(alpha-1) - 1| <= 16 eps or a
                bracket at the dtype's resolution, then p renormalised to sum 1 (from the powers
                d^(q - 1) of the pass that certified tau: no further exp / log).
   Backward, per row, from p (and, for a general alpha, x and the forward's per-row (max, tau) where
   the caller kept them): the support p > 0 is packed (blocks of BLOCK zeros skipped after one
   vectorised test), s = p^(2 - alpha) taken on it, and dz = s (g - <g, s> / sum s) written into the
   zeroed row; rows of at most DENSE_BELOW blocks are taken whole (two vectorised passes) for
   sparsemax and entmax-1.5 (and without AVX2), and packed in one AVX2 pass for other alphas (s takes
   exp and log: on the support alone). Rows taken whole with the forward's (m, tau) (short rows at
   alpha < QUOTIENT_BELOW, wide rows whose support spans most blocks) take s = p / d,
   d = (x - m) scale - tau, the forward's own d: no exp / log (see weights).
   A row holding NaN or +inf comes out NaN (p and dz), a fully -inf row 0. A row whose iteration
   does not end within MAX_ITER gets status 1: the caller recomputes it with the eager path.
   The row functions (_fused_kernel_rows.h) are included twice below: for float (suffix f) and double
   (suffix d).

   Built by setup.py as the extension probcore._fused_kernel (a plain shared library, loaded by
   fused.py through ctypes) for a baseline instruction set of the target (x86-64: SSE2). On x86-64
   with GCC >= 11 the per-row functions are also compiled for x86-64-v3 (AVX2 + FMA) and the loader
   picks the clone the running CPU supports (target_clones: an ifunc resolved by cpuid), so the
   same binary is safe on any x86-64 CPU. OpenMP: the library links libgomp.so.1; torch (imported
   first) has already loaded its own libgomp under that name, so the kernel shares torch's runtime.
   Rows are handed out in chunks (schedule dynamic), so a thread the OS holds back does not hold up
   the call. Each thread keeps its row scratch between calls (thread-local, up to SCRATCH_KEEP
   bytes): fresh memory would cost page faults on every call. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#if defined(__GLIBC__) && defined(__x86_64__)
/* declared simd: in `omp simd` loops gcc calls glibc's vector versions (libmvec, linked by setup.py) */
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
float logf(float);
#pragma omp declare simd notinbranch
double exp(double);
#pragma omp declare simd notinbranch
double log(double);
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif
#define INLINE static inline __attribute__((always_inline))
#define MAX(a, b) ((a) > (b) ? (a) : (b)) /* (a select that gcc keeps in vector loops; fmax is a call) */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#include <immintrin.h>
#define PACK_AVX2 __attribute__((target("avx2,popcnt"))) static inline
/* Left-packing tables: for a mask of 8 (4) lanes, the lanes set, in order, as 4-bit indices of
   32-bit lanes (a double lane l being the 32-bit lanes 2l, 2l + 1), and for 4 lanes also as bytes. */
static uint32_t pack_lanes_f[256], pack_lanes_d[16], pack_bytes_d[16];

__attribute__((constructor)) static void pack_tables(void) {
    for (unsigned mask = 0; mask < 256; mask++) {
        uint32_t lanes = 0;
        int j = 0;
        for (int b = 0; b < 8; b++)
            if (mask >> b & 1) lanes |= (uint32_t)b << (4 * j++);
        pack_lanes_f[mask] = lanes;
        if (mask < 16) {
            uint32_t pairs = 0, bytes = 0;
            j = 0;
            for (int b = 0; b < 4; b++)
                if (mask >> b & 1) {
                    pairs |= (uint32_t)(2 * b) << (8 * j) | (uint32_t)(2 * b + 1) << (8 * j + 4);
                    bytes |= (uint32_t)b << (8 * j++);
                }
            pack_lanes_d[mask] = pairs;
            pack_bytes_d[mask] = bytes;
        }
    }
}

/* The entries of a row x (n of them) whose c = (x - m) scale lies above lower, packed into c and
   their columns (i, or columns[i] where columns is not NULL) into idx, in order; returns their
   number. One vectorised pass, branch-free: per 8 (4) entries a compare, a movemask, and the lanes
   kept moved to the left by a permutation from a table (their columns by the same permutation, as
   32-bit lanes: columns and n lie below 2^31; no gathers: they were about a tenth of forward_row's
   samples at alpha = 1.3, and without them the forward took 0.96x the time), stored whole (the lanes past the count
   are overwritten by the next store; c and idx hold n entries: a store never passes the entry read,
   so it stays within n). In place (c = x, idx = columns) too: each entry is written at or before
   where it was read. AVX2 (and popcnt) only: called where the CPU has them (cpu_avx2). */
PACK_AVX2 int64_t pack_above_f(const float* x, const int64_t* columns, int64_t n, float m, float scale, float lower,
                               float* c, int64_t* idx) {
    __m256 vm = _mm256_set1_ps(m), vs = _mm256_set1_ps(scale), vl = _mm256_set1_ps(lower);
    __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), seven = _mm256_set1_epi32(7);
    __m256i evens = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    int64_t k = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vs);
        unsigned mask = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, vl, _CMP_GT_OQ));
        __m256i lanes = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_lanes_f[mask]), shifts), seven);
        __m256i at = _mm256_add_epi32(lanes, _mm256_set1_epi32((int)i));
        if (columns) { /* the 8 columns' low halves in one vector, moved as c (read before the stores: in place,
                          they may overwrite these columns) */
            __m256i lo = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i*)(columns + i)), evens);
            __m256i hi = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i*)(columns + i + 4)), evens);
            at = _mm256_permutevar8x32_epi32(_mm256_permute2x128_si256(lo, hi, 0x20), lanes);
        }
        _mm256_storeu_ps(c + k, _mm256_permutevar8x32_ps(v, lanes));
        _mm256_storeu_si256((__m256i*)(idx + k), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
        _mm256_storeu_si256((__m256i*)(idx + k + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
        k += __builtin_popcount(mask);
    }
    for (; i < n; i++) {
        float v = (x[i] - m) * scale;
        int64_t column = columns ? columns[i] : i;
        c[k] = v;
        idx[k] = column;
        k += v > lower;
    }
    return k;
}

PACK_AVX2 int64_t pack_above_d(const double* x, const int64_t* columns, int64_t n, double m, double scale,
                               double lower, double* c, int64_t* idx) {
    __m256d vm = _mm256_set1_pd(m), vs = _mm256_set1_pd(scale), vl = _mm256_set1_pd(lower);
    __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), seven = _mm256_set1_epi32(7);
    int64_t k = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d v = _mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(x + i), vm), vs);
        unsigned mask = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(v, vl, _CMP_GT_OQ));
        __m256i pairs = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)pack_lanes_d[mask]), shifts), seven);
        __m256i lanes = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)pack_bytes_d[mask]));
        __m256i at = _mm256_add_epi64(lanes, _mm256_set1_epi64x(i));
        __m256i column = columns ? _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i*)(columns + i)), pairs) : at;
        _mm256_storeu_pd(c + k, _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), pairs)));
        _mm256_storeu_si256((__m256i*)(idx + k), column);
        k += __builtin_popcount(mask);
    }
    for (; i < n; i++) {
        double v = (x[i] - m) * scale;
        int64_t column = columns ? columns[i] : i;
        c[k] = v;
        idx[k] = column;
        k += v > lower;
    }
    return k;
}
#define cpu_avx2() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
#else
#define cpu_avx2() 0
#define pack_above_f(...) 0
#define pack_above_d(...) 0
#endif

/* x^y for x >= 0 as exp(y ln x) (0 at x = 0, y > 0): the scalar power of every Newton step, F^(alpha - 1)
   (alpha = 1.3, 4096 x 256: 7.7 % of the forward's samples in glibc's pow, 6.0 % in exp + log);
   within a few ulp of pow, far inside the 16 eps of the steps' tolerance. */
static inline double power_of(double x, double y) {
    return exp(y * log(x));
}

/* x^y, remembered per thread for the last (x, y): the powers that depend on alpha and n alone come
   back on every row of a call. */
static double pow_once(double x, double y) {
    static __thread double last_x = NAN, last_y = NAN, last = NAN;
    if (x != last_x || y != last_y) {
        last = pow(x, y);
        last_x = x;
        last_y = y;
    }
    return last;
}

/* count^-power, remembered per thread for counts below SPREAD_MEMO (the Hoelder / Jensen bounds'
   |S|^-(alpha - 1): the same counts recur from row to row); the table is reset when power changes. */
#define SPREAD_MEMO 1024
static double spread_of(int64_t count, double power) {
    static __thread double memo_power = NAN, memo[SPREAD_MEMO];
    if (count >= SPREAD_MEMO) return pow((double)count, -power);
    if (power != memo_power) {
        for (int i = 0; i < SPREAD_MEMO; i++) memo[i] = -1;
        memo_power = power;
    }
    if (memo[count] < 0) memo[count] = pow((double)count, -power);
    return memo[count];
}

#define PAD 8 /* entries of the widest vector (8 floats): loops that take powers run over whole vectors */
#define PADDED(k) (((k) + PAD - 1) / PAD * PAD)
#define MAX_ITER 100
#define BLOCK 16 /* entries per screening block */
#define SCRATCH_KEEP ((size_t)16 << 20)

/* A thread's row scratch, kept between calls up to SCRATCH_KEEP bytes. */
struct scratch {
    void* data;
    size_t size;
};
static __thread struct scratch thread_scratch;

static struct scratch* scratch_for(size_t bytes) {
    struct scratch* s = &thread_scratch;
    if (s->size < bytes) {
        free(s->data);
        s->data = malloc(bytes);
        s->size = s->data ? bytes : 0;
    }
    return s;
}

static void scratch_done(struct scratch* s) {
    if (s->size > SCRATCH_KEEP) {
        free(s->data);
        s->data = NULL;
        s->size = 0;
    }
}

/* rows per chunk of the dynamic schedule: about 8 chunks per thread */
static int64_t chunk_rows(int64_t rows, int threads) {
    int64_t chunk = rows / (8 * (int64_t)(threads > 0 ? threads : 1));
    return chunk > 0 ? chunk : 1;
}
#define PACK_WHOLE_ROW(live, nb) (16 * (live) > (nb)) /* live blocks from which the row is packed in one pass (AVX2) */
#define DENSE_BELOW 16 /* blocks of a row (n / BLOCK) up to which the backward reads the row whole */
/* alpha below which the backward reads rows of at most DENSE_BELOW blocks whole with s = p / d where it has
   the forward's stats (4096 x 256, kernel backward against s = p^(2 - alpha) on the packed support:
   0.46x at alpha 1.25, 0.63x at 1.3, 1.04x at 1.75) */
#define QUOTIENT_BELOW 1.5
#define SMALL_LOOP 8
/* for (j < k) body: a plain loop for k <= SMALL_LOOP, else vectorised (omp simd, with the
   reduction clause given): for a few entries the vector loop's set-up and its horizontal
   reductions (gcc keeps the lanes of each accumulator on the stack) cost more than the loop. */
#define SMALL_OR_SIMD(k, clause, body)           \
    if ((k) <= SMALL_LOOP) {                     \
        for (int64_t j = 0; j < (k); j++) body   \
    } else {                                     \
        _Pragma(clause) for (int64_t j = 0; j < (k); j++) body \
    }
#define SCREEN_ITER 8 /* cheap lower bounds of tau before Newton (general alpha; block_bound's) */
#define SCREEN_ITER_FEW 1 /* block_bound's on rows of fewer than 4 BLOCK blocks, sparsemax and entmax-1.5 */
/* Newton steps on the block maxima's own threshold (block_bound): on rows of 4 BLOCK blocks or more
   (the bound taken on groups of blocks, where its candidates are many) and for alpha > 1.5,
   BOUND_NEWTON_FEW on shorter rows at alpha <= 1.5 (few candidates: each step costs more than the
   candidates it drops). Not for alpha > 1.5: the other start moves tau within the certification's
   16 eps, and s = p^(2 - alpha) of a p near 1e-9 (float32) turns that into 3.5e-4 on dz (alpha 1.75,
   tests/test_functional.py allows 2e-4 against the reference's). */
#define BOUND_NEWTON 3
/* alpha below which a general alpha's Newton passes from the second on take Halley's step with phi''
   taken from the last two passes' phi' (no further powers): on N(0, 1) rows of 256 (a float64
   model of the iteration) 3.45 -> 3.00 passes per row at alpha 1.3, 3.35 -> 3.04 at 1.45. Not above
   1.5: the other certified tau would move s = p^(2 - alpha) of tiny p (see BOUND_NEWTON_FEW). */
#define HALLEY_BELOW 1.5
#define BOUND_NEWTON_FEW 1

#define T float
#define A double
#define EXP expf
#define LOG logf
#define SQRT sqrtf /* (correctly rounded: the float of the double sqrt, in half the time) */
#define EXP_RANGE 80 /* |x| below which expf(x) is normal */
#define EPS FLT_EPSILON
#define TINY FLT_MIN
#define FN(name) name##_f
#include "_fused_kernel_rows.h"
#undef T
#undef A
#undef EXP
#undef LOG
#undef SQRT
#undef EXP_RANGE
#undef EPS
#undef TINY
#undef FN

#define T double
#define A double
#define EXP exp
#define LOG log
#define SQRT sqrt
#define EXP_RANGE 700
#define EPS DBL_EPSILON
#define TINY DBL_MIN
#define FN(name) name##_d
#include "_fused_kernel_rows.h"
