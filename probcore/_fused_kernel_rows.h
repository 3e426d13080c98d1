/* The row functions of _fused_kernel.c, for one floating type T (accumulator A); included there
   once per type with FN(name) adding the type's suffix. */

INLINE int64_t FN(candidates)(const T* x, int64_t n, T scale, T* m_out, int* bad_out, T* c, int64_t* idx) {
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
INLINE int64_t FN(keep_above)(T* c, int64_t* idx, int64_t k, T tau) {
    int64_t j = 0;
    for (int64_t i = 0; i < k; i++)
        if (c[i] > tau) {
            c[j] = c[i];
            idx[j++] = idx[i];
        }
    return j;
}

INLINE int FN(sparsemax_tau)(T* c, int64_t* idx, int64_t* k, T* tau_out) {
    T tau = -1; /* every candidate lies above tau */
    for (int it = 0; it < MAX_ITER; it++) {
        A sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t i = 0; i < *k; i++) sum += c[i];
        T next = (T)((sum - 1) / *k);
        int64_t before = *k;
        *k = FN(keep_above)(c, idx, *k, next);
        tau = next;
        if (*k == before || *k == 0) { /* S = {c > tau}: tau is its closed form */
            *tau_out = tau;
            return *k == 0;
        }
    }
    *tau_out = tau;
    return 1;
}

INLINE int FN(entmax15_tau)(T* c, int64_t* idx, int64_t* k, T* tau_out, T tol) {
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
        *k = FN(keep_above)(c, idx, *k, tau);
    }
    *tau_out = tau;
    return 1;
}

/* F = sum d^q and sum d^(q - 1) over d = c - tau > 0 */
INLINE void FN(entmax_sums)(const T* c, int64_t k, T tau, T q, A* f, A* slope) {
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

INLINE int FN(entmax_tau)(T* c, int64_t* idx, int64_t* k, int64_t n, double alpha, T* tau_out, T tol) {
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
        *k = FN(keep_above)(c, idx, *k, tau);
    }
    for (int it = 0; it < MAX_ITER; it++) {
        A f, slope;
        FN(entmax_sums)(c, *k, tau, q, &f, &slope);
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
        *k = FN(keep_above)(c, idx, *k, lo);
    }
    *tau_out = tau;
    return 1;
}

/* p, s = p^(2 - alpha) of rows [r0, r1) of x (rows of n), alpha 2, 1.5 or another value > 1;
   c, w, idx: scratch of n entries. Compiled once per instruction set (CLONES), picked at load time. */
CLONES static void FN(forward_rows)(const T* x, T* p, T* s, int* status, int64_t r0, int64_t r1, int64_t n,
                                    double alpha, T* c, T* w, int64_t* idx) {
    T scale = alpha == 2 ? 1 : (T)(alpha - 1);
    T tol = 16 * EPS;
    for (int64_t r = r0; r < r1; r++) {
        const T* xr = x + r * n;
        T *pr = p + r * n, *sr = s + r * n;
        T m, tau;
        int bad;
        int64_t k = FN(candidates)(xr, n, scale, &m, &bad, c, idx);
        memset(pr, 0, n * sizeof(T));
        memset(sr, 0, n * sizeof(T));
        status[r] = 0;
        if (bad) {
            for (int64_t i = 0; i < n; i++) pr[i] = sr[i] = NAN;
            continue;
        }
        if (k == 0) continue; /* fully -inf: p = 0 */
        if (alpha == 2) {
            status[r] = FN(sparsemax_tau)(c, idx, &k, &tau);
            for (int64_t i = 0; i < k; i++) {
                T d = c[i] - tau;
                pr[idx[i]] = d > 0 ? d : 0;
                sr[idx[i]] = d > 0;
            }
        } else if (alpha == 1.5) {
            status[r] = FN(entmax15_tau)(c, idx, &k, &tau, tol);
            for (int64_t i = 0; i < k; i++) {
                T d = c[i] - tau;
                d = d > 0 ? d : 0;
                pr[idx[i]] = d * d;
                sr[idx[i]] = d;
            }
        } else {
            status[r] = FN(entmax_tau)(c, idx, &k, n, alpha, &tau, tol);
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
}

/* p, s (rows, n) from x (rows, n): the rows split evenly between `threads` OpenMP threads. */
void FN(entmax_forward)(const T* x, T* p, T* s, int* status, int64_t rows, int64_t n, double alpha,
                        int threads) {
#pragma omp parallel num_threads(threads)
    {
        int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
        T* c = (T*)malloc(n * sizeof(T));
        T* w = (T*)malloc(n * sizeof(T));
        int64_t* idx = (int64_t*)malloc(n * sizeof(int64_t));
        FN(forward_rows)(x, p, s, status, rows * me / team, rows * (me + 1) / team, n, alpha, c, w, idx);
        free(c);
        free(w);
        free(idx);
    }
}

/* dz = s (g - <g, s> / sum s) on rows [r0, r1) (0 where sum s = 0). */
CLONES static void FN(backward_rows)(const T* g, const T* s, T* dz, int64_t r0, int64_t r1, int64_t n) {
    for (int64_t r = r0; r < r1; r++) {
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

void FN(entmax_backward)(const T* g, const T* s, T* dz, int64_t rows, int64_t n, int threads) {
#pragma omp parallel num_threads(threads)
    {
        int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
        FN(backward_rows)(g, s, dz, rows * me / team, rows * (me + 1) / team, n);
    }
}
