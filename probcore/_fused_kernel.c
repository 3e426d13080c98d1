/* probcore's fused sparse mappings on the CPU: one row at a time, in L1 (see probcore/fused.py).

   entmax_alpha(x) = relu(c - tau)^q, c = (alpha - 1) (x - max x) (c = x - max x for sparsemax),
   q = 1 / (alpha - 1), sum = 1. Per row: one pass for the max, one that keeps the candidates
   c > -1 (tau >= -1: the max entry alone has mass 1 there), the threshold iterated on the
   candidates alone (dropping those below a lower bound of tau as it rises), then p and
   s = p^(2 - alpha) on the support written into zeroed rows:
     sparsemax  Michelot tau <- (sum_S c - 1) / |S|, S = {c > tau}, from below; exact once S stops
                shrinking (tau is then the closed form of its own support).
     entmax-1.5 the closed form tau_S = tau + mean_S d - sqrt(1/|S| - var_S d), d = c - tau, when
                no entry of S lies below it (exact), else Newton's step on the convex sqrt(F) - 1,
                F = sum d^2, which stays below the root.
     other      Jensen's lower bounds tau <- mean_S c - |S|^-(alpha-1) (no powers) while they rise,
                then safeguarded Newton on F^(alpha-1) - 1, F = sum d^q, in the bracket [lo, hi]
                (bisection when a step leaves it or stalls), to |F^(alpha-1) - 1| <= 16 eps or a
                bracket at the dtype's resolution, then p renormalised to sum 1.
   A row holding NaN or +inf comes out NaN, a fully -inf row 0. A row whose iteration does not
   end within MAX_ITER gets status 1: the caller recomputes it with the eager path.
   The template below is instantiated for float (suffix f) and double (suffix d) by fused.py. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* declared simd: in `omp simd` loops gcc calls glibc's vector versions (libmvec) */
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
float logf(float);
#pragma omp declare simd notinbranch
double exp(double);
#pragma omp declare simd notinbranch
double log(double);

#define MAX_ITER 100
#define SCREEN_ITER 8 /* cheap lower bounds of tau before Newton (general alpha) */

/* @TEMPLATE@ */
static int64_t candidates_S(const T* x, int64_t n, T scale, T* m_out, int* bad_out, T* c, int64_t* idx) {
    T m = -INFINITY;
    int bad = 0;
#pragma omp simd reduction(max : m) reduction(| : bad)
    for (int64_t i = 0; i < n; i++) {
        T v = x[i];
        m = v > m ? v : m;
        bad |= (v != v) | (v == INFINITY);
    }
    *m_out = m;
    *bad_out = bad;
    int64_t k = 0;
    if (bad || m == -INFINITY) return 0;
    for (int64_t i = 0; i < n; i++) {
        T v = (x[i] - m) * scale;
        if (v > -1) {
            c[k] = v;
            idx[k++] = i;
        }
    }
    return k;
}

/* Drops the candidates at or below tau (they stay out of the support as tau rises). */
static int64_t keep_above_S(T* c, int64_t* idx, int64_t k, T tau) {
    int64_t j = 0;
    for (int64_t i = 0; i < k; i++)
        if (c[i] > tau) {
            c[j] = c[i];
            idx[j++] = idx[i];
        }
    return j;
}

static int sparsemax_tau_S(T* c, int64_t* idx, int64_t* k, T* tau_out) {
    T tau = -1; /* every candidate lies above tau */
    for (int it = 0; it < MAX_ITER; it++) {
        A sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t i = 0; i < *k; i++) sum += c[i];
        T next = (T)((sum - 1) / *k);
        int64_t before = *k;
        *k = keep_above_S(c, idx, *k, next);
        tau = next;
        if (*k == before || *k == 0) { /* S = {c > tau}: tau is its closed form */
            *tau_out = tau;
            return *k == 0;
        }
    }
    *tau_out = tau;
    return 1;
}

static int entmax15_tau_S(T* c, int64_t* idx, int64_t* k, T* tau_out, T tol) {
    T tau = -1;
    for (int it = 0; it < MAX_ITER; it++) {
        A s1 = 0, s2 = 0;
        T dmin = INFINITY;
        int64_t count = 0;
#pragma omp simd reduction(+ : s1, s2, count) reduction(min : dmin)
        for (int64_t i = 0; i < *k; i++) {
            T d = c[i] - tau;
            int in = d > 0;
            s1 += in ? (A)d : 0;
            s2 += in ? (A)d * d : 0;
            count += in;
            dmin = in && d < dmin ? d : dmin;
        }
        A mean = s1 / count, gap = (A)1 / count - (s2 / count - mean * mean);
        A closed = mean - sqrt(gap > 0 ? gap : 0);
        if (gap >= 0 && closed >= 0 && closed <= dmin + tol) {
            *tau_out = (T)(tau + closed);
            return 0;
        }
        T next = (T)(tau + (s2 - sqrt(s2)) / s1);
        if (!(next > tau)) {
            *tau_out = tau;
            return 1;
        }
        tau = next;
        *k = keep_above_S(c, idx, *k, tau);
    }
    *tau_out = tau;
    return 1;
}

/* F = sum d^q and sum d^(q - 1) over d = c - tau > 0 */
static void entmax_sums_S(const T* c, int64_t k, T tau, T q, A* f, A* slope) {
    A f_sum = 0, s_sum = 0;
#pragma omp simd reduction(+ : f_sum, s_sum)
    for (int64_t i = 0; i < k; i++) {
        T d = c[i] - tau;
        int in = d > 0;
        T t = EXP((q - 1) * LOG(in ? d : (T)1));
        s_sum += in ? (A)t : 0;
        f_sum += in ? (A)(t * d) : 0;
    }
    *f = f_sum;
    *slope = s_sum;
}

static int entmax_tau_S(T* c, int64_t* idx, int64_t* k, int64_t n, double alpha, T* tau_out, T tol) {
    T q = (T)(1 / (alpha - 1));
    T lo = -1, hi = -(T)pow(1.0 / n, alpha - 1), tau = -1;
    double power = alpha - 1 < 1 ? alpha - 1 : 1;
    for (int it = 0; it < SCREEN_ITER; it++) { /* lower bounds without powers of d (Jensen) */
        A sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t i = 0; i < *k; i++) sum += c[i];
        T bound = (T)(sum / *k - pow((double)*k, -power));
        if (!(bound > tau)) break;
        lo = tau = bound;
        *k = keep_above_S(c, idx, *k, tau);
    }
    for (int it = 0; it < MAX_ITER; it++) {
        A f, slope;
        entmax_sums_S(c, *k, tau, q, &f, &slope);
        A g = pow(f, alpha - 1) - 1;
        if (fabs(g) <= tol) {
            *tau_out = tau;
            return 0;
        }
        if (g >= 0) lo = tau;
        else hi = tau;
        T next = (T)(tau + (f - f / (g + 1)) / slope);
        if (!(next >= lo && next <= hi) || next == tau) next = (lo + hi) / 2; /* (a stalled step: bisect) */
        if (next == tau || hi - lo <= tol * (T)0.0625) { /* the bracket is down to the dtype's resolution */
            *tau_out = next;
            return 0;
        }
        tau = next;
        *k = keep_above_S(c, idx, *k, lo);
    }
    *tau_out = tau;
    return 1;
}

/* p, s = p^(2 - alpha) (rows, n) from x (rows, n), alpha 2, 1.5 or another value > 1. */
void entmax_forward_S(const T* x, T* p, T* s, int* status, int64_t rows, int64_t n, double alpha,
                      int threads) {
    T scale = alpha == 2 ? 1 : (T)(alpha - 1);
    T tol = 16 * EPS;
#pragma omp parallel num_threads(threads)
    {
        T* c = (T*)malloc(n * sizeof(T));
        T* w = (T*)malloc(n * sizeof(T));
        int64_t* idx = (int64_t*)malloc(n * sizeof(int64_t));
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; r++) {
            const T* xr = x + r * n;
            T *pr = p + r * n, *sr = s + r * n;
            T m, tau;
            int bad;
            int64_t k = candidates_S(xr, n, scale, &m, &bad, c, idx);
            memset(pr, 0, n * sizeof(T));
            memset(sr, 0, n * sizeof(T));
            status[r] = 0;
            if (bad) {
                for (int64_t i = 0; i < n; i++) pr[i] = sr[i] = NAN;
                continue;
            }
            if (k == 0) continue; /* fully -inf: p = 0 */
            if (alpha == 2) {
                status[r] = sparsemax_tau_S(c, idx, &k, &tau);
                for (int64_t i = 0; i < k; i++) {
                    T d = c[i] - tau;
                    pr[idx[i]] = d > 0 ? d : 0;
                    sr[idx[i]] = d > 0;
                }
            } else if (alpha == 1.5) {
                status[r] = entmax15_tau_S(c, idx, &k, &tau, tol);
                for (int64_t i = 0; i < k; i++) {
                    T d = c[i] - tau;
                    d = d > 0 ? d : 0;
                    pr[idx[i]] = d * d;
                    sr[idx[i]] = d;
                }
            } else {
                status[r] = entmax_tau_S(c, idx, &k, n, alpha, &tau, tol);
                T q = (T)(1 / (alpha - 1));
                A total = 0;
#pragma omp simd reduction(+ : total)
                for (int64_t i = 0; i < k; i++) {
                    T d = c[i] - tau;
                    int in = d > 0;
                    T t = EXP((q - 1) * LOG(in ? d : (T)1));
                    t = in ? t : 0;
                    w[i] = t;
                    c[i] = t * d; /* p before renormalisation */
                    total += c[i];
                }
                T inv = (T)(1 / total), s_scale = (T)pow(total, alpha - 2); /* s of the renormalised p */
                for (int64_t i = 0; i < k; i++) {
                    pr[idx[i]] = c[i] * inv;
                    sr[idx[i]] = w[i] * s_scale;
                }
            }
        }
        free(c);
        free(w);
        free(idx);
    }
}

/* dz = s (g - <g, s> / sum s) per row (0 where sum s = 0). */
void entmax_backward_S(const T* g, const T* s, T* dz, int64_t rows, int64_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        const T *gr = g + r * n, *sr = s + r * n;
        T* out = dz + r * n;
        A gs = 0, ss = 0;
#pragma omp simd reduction(+ : gs, ss)
        for (int64_t i = 0; i < n; i++) {
            gs += (A)gr[i] * sr[i];
            ss += sr[i];
        }
        T v = (T)(ss > 0 ? gs / ss : 0);
#pragma omp simd
        for (int64_t i = 0; i < n; i++) out[i] = sr[i] * (gr[i] - v);
    }
}
