/* The row functions of _fused_kernel.c, for one floating type T (accumulator A); included there
   once per type with FN(name) adding the type's suffix. */

/* The smallest d whose power d^r (r = q - 1 in the forward, 2 - alpha in the backward) is taken
   as such, as exp(r log max(d, floor)): exp's argument stays within +-EXP_RANGE and log's is a
   normal number. glibc's vector exp and log take a slow scalar path (errno included) for every lane
   outside those ranges or at d <= 0, and gcc computes log(d) on every lane and selects afterwards
   (whatever the source says, when the other operand is a constant), so log's argument is
   max(d, floor), floor a value computed at run time. Only r > 0 can raise it above the smallest
   normal number (float, alpha < 1.5: at most 2.6e-12 at alpha = 1.25); a d below it then enters
   the sums (and p = d^(q - 1) d) as a term of at most exp(-EXP_RANGE), far below the dtype's
   resolution of a sum >= 1. */
INLINE T FN(floor_of)(double power) {
    static __thread double last_power = NAN;
    static __thread T last;
    if (power == last_power) return last; /* (remembered per thread: the same power on every row) */
    double r = fabs(power);
    double low = r > 0 ? exp(-EXP_RANGE / r) : 0;
    last_power = power;
    return last = (T)(low > TINY ? low : TINY); /* (a value gcc cannot fold: log(low) stays a call on the lane) */
}

/* A lower bound of tau from nb entries of the row alone (block maxima, or maxima of groups of
   blocks), b_j = (bmax_j - m) scale: for any set S of entries, mean_S c - |S|^-(alpha - 1) <= tau
   (Hoelder: sum_S (c - tau) <= |S|^(1 - 1/q) (sum_S (c - tau)_+^q)^(1/q) <= |S|^(1 - 1/q)), taken
   on S = {b > bound} while it rises, at most `screens` times (for sparsemax: Michelot on those
   entries); the values above the bound are packed into b (scratch of nb entries) once that at
   least halves them. Other alphas then take `steps` Newton steps towards the threshold of
   the values b alone, which bounds the row's tau from below (sparsemax's Michelot steps already
   reach it); less a margin for the rounding. -1 where nb = 0. */
INLINE T FN(block_bound)(const T* bmax, int64_t nb, T m, T scale, double power, T* b, int screens, int steps) {
    T tau = -1;
    int64_t k = nb;
    const T* from = bmax; /* (b after a first packing) */
    for (int it = 0; it < screens && k > 0; it++) {
        A sum = 0;
        int64_t count = 0;
        T shift = from == bmax ? m : 0, times = from == bmax ? scale : 1;
        SMALL_OR_SIMD(k, "omp simd reduction(+ : sum, count)", {
            T v = (from[j] - shift) * times;
            int in = v > tau;
            sum += in ? (A)v : 0;
            count += in;
        })
        double spread = power == 1 ? 1.0 / count : power == 0.5 ? 1 / sqrt((double)count) : spread_of(count, power);
        T bound = (T)(sum / count - spread);
        if (!(bound > tau)) break;
        if (2 * count <= k) { /* pack the values above tau (at most half of them) into b */
            int64_t kept = 0;
            for (int64_t j = 0; j < k; j++) {
                T v = (from[j] - shift) * times;
                b[kept] = v;
                kept += v > tau;
            }
            from = b;
            k = kept;
        }
        tau = bound;
    }
    if (power == 1 || !(tau > -1)) return tau > -1 ? tau - 4 * EPS : tau; /* (|tau| <= 1: an absolute margin) */
    if (from == bmax) { /* pack the values above tau for the Newton steps */
        int64_t kept = 0;
        for (int64_t j = 0; j < k; j++) {
            T v = (bmax[j] - m) * scale;
            b[kept] = v;
            kept += v > tau;
        }
        k = kept;
    }
    /* Newton's steps towards the threshold of these values alone, on the convex decreasing
       F^(alpha - 1) - 1 (F = sum (b - tau)_+^q: the q-norm of (b - tau)_+, to the power 1): from below they
       stay below its root, which lies below the row's tau (more entries only raise it). */
    T q = (T)(1 / power), low = FN(floor_of)((double)q - 1);
    for (int it = 0; it < steps; it++) {
        A f = 0, slope = 0;
        if (power == 0.5) {
            SMALL_OR_SIMD(k, "omp simd reduction(+ : f, slope)", {
                T d = b[j] - tau;
                d = d > 0 ? d : 0;
                f += (A)d * d;
                slope += d;
            })
        } else {
            int64_t whole = PADDED(k); /* (b padded with -inf to whole vectors, as in entmax_sums) */
            for (int64_t j = k; j < whole; j++) b[j] = -INFINITY;
#pragma omp simd reduction(+ : f, slope)
            for (int64_t j = 0; j < whole; j++) {
                T d = b[j] - tau;
                T t = EXP((q - 1) * LOG(MAX(d, low)));
                t = d > 0 ? t : 0;
                slope += t;
                f += t * (d > 0 ? d : 0);
            }
        }
        if (!(slope > 0)) break;
        T next = (T)(tau + (f - (power == 0.5 ? sqrt(f) : power_of(f, 1 - power))) / slope);
        if (!(next > tau)) break;
        tau = next;
    }
    return tau - 16 * EPS; /* (rounding of the steps) */
}

/* The candidates of one row, c = (x - max x) scale: returns their number k and *lower_out, a lower
   bound of tau (-1 or block_bound's). The row is cut into
   nb = n / BLOCK blocks, block j holding the entries j, j + nb, ..., j + (BLOCK - 1) nb (the last
   n % BLOCK entries are a tail of their own), so that one vectorised pass over the row takes every
   block's max (bmax) without horizontal reductions, and flags NaN / +inf (bad). The candidates are
   the entries above the bound (c > lower >= -1: tau >= -1, the max entry alone has mass 1 there).
   With AVX2, where more than 1/16 of the blocks hold a candidate (PACK_WHOLE_ROW), the whole row is
   left-packed in one vectorised pass (pack_above). Otherwise, where at most half of the blocks hold
   a candidate, only those are read again and their candidates packed to the left of c / idx by a
   branch-free loop (the store is unconditional, the count moves when the entry is kept): a row
   whose candidates are few is read once. Otherwise (general alpha without AVX2 only: sparsemax and
   entmax-1.5 always pack, their bound leaves few candidates) c is the whole row (*dense = 1, idx
   unset: the column of c[i] is i), entries <= lower included: the passes mask them. */
INLINE int64_t FN(candidates)(const T* x, int64_t n, T scale, double power, T* m_out, int* bad_out, T* c,
                              int64_t* idx, T* bmax, int* dense, T* lower_out) {
    int64_t nb = n / BLOCK, body = nb * BLOCK;
    T m = -INFINITY;
    int bad = 0;
#pragma omp simd reduction(| : bad)
    for (int64_t j = 0; j < nb; j++) { /* (vectorised over j: each entry is loaded once, each max stored once) */
        T b = -INFINITY;
        int flag = 0;
        for (int64_t i = 0; i < BLOCK; i++) {
            T v = x[i * nb + j];
            b = v > b ? v : b;
            flag |= (v != v) | (v == INFINITY);
        }
        bmax[j] = b;
        bad |= flag;
    }
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < nb; j++) m = bmax[j] > m ? bmax[j] : m;
    for (int64_t i = body; i < n; i++) {
        T v = x[i];
        m = v > m ? v : m;
        bad |= (v != v) | (v == INFINITY);
    }
    *m_out = m;
    *bad_out = bad;
    *dense = 0;
    *lower_out = -1;
    if (bad || m == -INFINITY) return 0;
    T lower;
    if (nb >= 4 * BLOCK) { /* the bound from the maxima of groups of BLOCK block maxima (strided, as the blocks) */
        int64_t ng = nb / BLOCK;
        T* gmax = c;
        for (int64_t j = 0; j < ng; j++) gmax[j] = -INFINITY;
        for (int64_t i = 0; i < BLOCK; i++) {
            const T* bi = bmax + i * ng;
#pragma omp simd
            for (int64_t j = 0; j < ng; j++) gmax[j] = bi[j] > gmax[j] ? bi[j] : gmax[j];
        }
        lower = FN(block_bound)(gmax, ng, m, scale, power, c + ng, SCREEN_ITER, BOUND_NEWTON);
    } else {
        lower = FN(block_bound)(bmax, nb, m, scale, power, c, power == 1 || power == 0.5 ? SCREEN_ITER_FEW : SCREEN_ITER,
                                power <= 0.5 ? BOUND_NEWTON_FEW : BOUND_NEWTON);
    }
    *lower_out = lower;
    int64_t live = 0;
#pragma omp simd reduction(+ : live)
    for (int64_t j = 0; j < nb; j++) live += (bmax[j] - m) * scale > lower;
    if (2 * live > nb && nb > 0 && power != 1 && power != 0.5 && !cpu_avx2()) { /* (with AVX2: packed below) */
        *dense = 1;
#pragma omp simd
        for (int64_t i = 0; i < n; i++) c[i] = (x[i] - m) * scale;
        return n;
    }
    if (PACK_WHOLE_ROW(live, nb) && cpu_avx2()) /* many blocks to read: one vectorised pass over the row */
        return FN(pack_above)(x, NULL, n, m, scale, lower, c, idx);
    int64_t k = 0;
    for (int64_t j = 0; j < nb; j++) {
        if (!((bmax[j] - m) * scale > lower)) continue;
        for (int64_t i = j; i < body; i += nb) {
            T v = (x[i] - m) * scale;
            c[k] = v;
            idx[k] = i;
            k += v > lower;
        }
    }
    for (int64_t i = body; i < n; i++) {
        T v = (x[i] - m) * scale;
        c[k] = v;
        idx[k] = i;
        k += v > lower;
    }
    return k;
}

/* Drops the candidates at or below tau (they stay out of the support as tau rises), branch-free
   (with AVX2: pack_above in place); a dense c gets its columns here. The passes mask the entries at or below tau, so this is only
   done when it at least halves the candidates (see shrink), or, before a pass that takes powers
   on every lane (general alpha), drops an eighth of them. */
INLINE int64_t FN(keep_above)(T* c, int64_t* idx, int64_t k, T tau, int* dense) {
    int64_t j = 0;
    if (cpu_avx2()) {
        j = FN(pack_above)(c, *dense ? NULL : idx, k, 0, 1, tau, c, idx); /* ((c - 0) 1 = c) */
        *dense = 0;
        return j;
    }
    if (*dense) {
        for (int64_t i = 0; i < k; i++) {
            T v = c[i];
            c[j] = v;
            idx[j] = i;
            j += v > tau;
        }
        *dense = 0;
        return j;
    }
    for (int64_t i = 0; i < k; i++) {
        T v = c[i];
        int64_t column = idx[i];
        c[j] = v;
        idx[j] = column;
        j += v > tau;
    }
    return j;
}

/* keep_above(tau) when the count entries above tau are at most half of the k candidates. */
INLINE void FN(shrink)(T* c, int64_t* idx, int64_t* k, int64_t count, T tau, int* dense) {
    if (2 * count <= *k) *k = FN(keep_above)(c, idx, *k, tau, dense);
}

INLINE int FN(sparsemax_tau)(T* c, int64_t* idx, int64_t* k, int* dense, T lower, T* tau_out) {
    T tau = lower; /* every candidate lies above tau */
    int64_t before = -1;
    for (int it = 0; it <= MAX_ITER; it++) {
        A sum = 0;
        int64_t count = 0;
        SMALL_OR_SIMD(*k, "omp simd reduction(+ : sum, count)", {
            int in = c[j] > tau;
            sum += in ? (A)c[j] : 0;
            count += in;
        })
        if (count == before || count == 0) { /* S = {c > tau}: tau is its closed form */
            *tau_out = tau;
            return count == 0;
        }
        before = count;
        tau = (T)((sum - 1) / count);
        FN(shrink)(c, idx, k, count, tau, dense);
    }
    *tau_out = tau;
    return 1;
}

INLINE int FN(entmax15_tau)(T* c, int64_t* idx, int64_t* k, int* dense, T lower, T* tau_out, T tol) {
    T tau = lower;
    for (int it = 0; it < MAX_ITER; it++) {
        A s1 = 0, s2 = 0;
        T dmin = INFINITY;
        int64_t count = 0;
        SMALL_OR_SIMD(*k, "omp simd reduction(+ : s1, s2, count) reduction(min : dmin)", {
            T d = c[j] - tau;
            int in = d > 0;
            s1 += in ? (A)d : 0;
            s2 += in ? (A)d * d : 0;
            count += in;
            dmin = in && d < dmin ? d : dmin;
        })
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
        FN(shrink)(c, idx, k, count, tau, dense);
    }
    *tau_out = tau;
    return 1;
}

/* F = sum d^q, sum d^(q - 1) and |S| over d = c - tau > 0; w = d^(q - 1) (0 off the support).
   The power is taken on every lane as exp((q - 1) log max(d, low)), low = floor_of(q - 1) (see there),
   then the lanes off the support are zeroed; c is padded with -inf to whole vectors (PAD entries;
   the scratch holds them), so that no partial vector takes the powers through the narrower
   vector or scalar exp / log. */
INLINE int64_t FN(entmax_sums)(T* c, int64_t k, T tau, T q, T low, A* f, A* slope, T* w) {
    A f_sum = 0, s_sum = 0;
    int64_t count = 0, whole = PADDED(k);
    for (int64_t i = k; i < whole; i++) c[i] = -INFINITY;
#pragma omp simd
    for (int64_t i = 0; i < whole; i++) { /* the powers first: no accumulator lives across the vector calls */
        T d = c[i] - tau;
        T t = EXP((q - 1) * LOG(MAX(d, low)));
        w[i] = d > 0 ? t : 0;
    }
#pragma omp simd reduction(+ : f_sum, s_sum, count)
    for (int64_t i = 0; i < whole; i++) { /* (a padding lane adds 0) */
        T d = c[i] - tau, t = w[i];
        int in = d > 0;
        s_sum += t;
        f_sum += in ? t * d : 0; /* (d = -inf on a masked entry of a dense row) */
        count += in;
    }
    *f = f_sum;
    *slope = s_sum;
    return count;
}

/* tau for a general alpha; *fresh_out: whether w holds d^(q - 1) at the returned tau for the
   candidates as they are (the last pass evaluated there), so p needs no further powers. */
INLINE int FN(entmax_tau)(T* c, int64_t* idx, int64_t* k, int* dense, int64_t n, double alpha, T lower, T* tau_out,
                          T tol, T* w, int* fresh_out) {
    T q = (T)(1 / (alpha - 1)), low = FN(floor_of)((double)q - 1);
    T lo = lower, hi = -(T)pow_once(1.0 / n, alpha - 1), tau = lower;
    double power = alpha - 1 < 1 ? alpha - 1 : 1;
    *fresh_out = 0;
    for (int it = 0; it < SCREEN_ITER; it++) { /* lower bounds without powers of d (Jensen) */
        A sum = 0;
        int64_t count = 0;
#pragma omp simd reduction(+ : sum, count)
        for (int64_t i = 0; i < *k; i++) {
            int in = c[i] > tau;
            sum += in ? (A)c[i] : 0;
            count += in;
        }
        FN(shrink)(c, idx, k, count, tau, dense);
        T bound = (T)(sum / count - spread_of(count, power));
        if (!(bound > tau)) break;
        lo = tau = bound;
    }
    A last_tau = 0, last_dphi = 0; /* (the previous pass's tau and phi'; last_dphi = 0: none) */
    for (int it = 0; it < MAX_ITER; it++) {
        A f, slope;
        int64_t count = FN(entmax_sums)(c, *k, tau, q, low, &f, &slope, w);
        A g = power_of(f, alpha - 1) - 1;
        if (fabs(g) <= tol) {
            *tau_out = tau;
            *fresh_out = 1;
            return 0;
        }
        if (g >= 0) lo = tau;
        else hi = tau;
        A dphi = -(g + 1) / f * slope, step = -g / dphi; /* (phi = F^(alpha - 1) - 1: Newton's step) */
        if (alpha < HALLEY_BELOW && last_dphi != 0 && tau != last_tau) {
            /* Halley's step, phi'' from the last two passes' phi' (no further powers) */
            A curve = (dphi - last_dphi) / (tau - last_tau), shrink = 1 - g * curve / (2 * dphi * dphi);
            if (shrink > 0.5) step /= shrink;
        }
        last_tau = tau;
        last_dphi = dphi;
        T next = (T)(tau + step);
        if (!(next >= lo && next <= hi) || next == tau) next = (lo + hi) / 2; /* (a stalled step: bisect) */
        if (next == tau || hi - lo <= tol * (T)0.0625) { /* the bracket is down to the dtype's resolution */
            *tau_out = next;
            return 0;
        }
        if (g >= 0 && 8 * count <= 7 * *k) /* (count: the entries above tau = lo; each pass takes powers on every lane) */
            *k = FN(keep_above)(c, idx, *k, tau, dense);
        tau = next;
    }
    *tau_out = tau;
    return 1;
}

/* p of one row x (n entries), alpha 2, 1.5 or another value > 1, written whole (zeros off the
   support); c, w, bmax, idx: scratch of n entries. *status = 1 where the iteration did not end
   (the caller recomputes those rows). stats (NULL, or 2 entries): (m, tau) of a general alpha's row
   whose tau the kernel found (the backward's s = p / d, d = (x - m) scale - tau), NaN on the other
   rows (bad, fully -inf, status 1, or a tau not certified by |total^(alpha - 1) - 1| <= tol, the
   iteration having ended on its bracket instead), NaN for alpha 2 and 1.5 (fused.forward passes NULL there). Compiled once per instruction set
   (CLONES), picked at load time. */
CLONES static void FN(forward_row)(const T* xr, T* pr, int* status, T* stats, int64_t n, double alpha, T* c, T* w,
                                   T* bmax, int64_t* idx) {
    T scale = alpha == 2 ? 1 : (T)(alpha - 1);
    T tol = 16 * EPS;
    T m, tau, lower;
    int bad, dense;
    int64_t k = FN(candidates)(xr, n, scale, alpha - 1, &m, &bad, c, idx, bmax, &dense, &lower);
    *status = 0;
    if (stats) stats[0] = stats[1] = NAN;
    if (bad) {
        for (int64_t i = 0; i < n; i++) pr[i] = NAN;
        return;
    }
    if (k == 0) { /* fully -inf: p = 0 */
        memset(pr, 0, n * sizeof(T));
        return;
    }
    if (alpha == 2) {
        *status = FN(sparsemax_tau)(c, idx, &k, &dense, lower, &tau);
        for (int64_t i = 0; i < k; i++) {
            T d = c[i] - tau;
            c[i] = d > 0 ? d : 0;
        }
    } else if (alpha == 1.5) {
        *status = FN(entmax15_tau)(c, idx, &k, &dense, lower, &tau, tol);
        for (int64_t i = 0; i < k; i++) {
            T d = c[i] - tau;
            d = d > 0 ? d : 0;
            c[i] = d * d;
        }
    } else {
        int fresh;
        *status = FN(entmax_tau)(c, idx, &k, &dense, n, alpha, lower, &tau, tol, w, &fresh);
        A total = 0;
        if (fresh) { /* w = d^(q - 1) at tau from the pass that certified it */
#pragma omp simd reduction(+ : total)
            for (int64_t i = 0; i < k; i++) {
                T d = c[i] - tau;
                c[i] = w[i] * (d > 0 ? d : 0); /* p before renormalisation */
                total += c[i];
            }
        } else {
            T q = (T)(1 / (alpha - 1)), low = FN(floor_of)((double)q - 1);
#pragma omp simd reduction(+ : total)
            for (int64_t i = 0; i < k; i++) {
                T d = c[i] - tau;
                int in = d > 0;
                T t = EXP((q - 1) * LOG(MAX(d, low)));
                c[i] = in ? t * d : 0;
                total += c[i];
            }
        }
        T inv = (T)(1 / total);
#pragma omp simd
        for (int64_t i = 0; i < k; i++) c[i] *= inv;
        if (stats && fresh && !*status) { /* (certified: total^(alpha - 1) within tol of 1, see weights) */
            stats[0] = m;
            stats[1] = tau;
        }
    }
    if (dense) { /* c is the whole row */
        memcpy(pr, c, n * sizeof(T));
    } else {
        memset(pr, 0, n * sizeof(T));
        for (int64_t i = 0; i < k; i++) pr[idx[i]] = c[i];
    }
}

/* w[i] = s = p^(2 - alpha) from v[i] = p (1 for sparsemax, sqrt p for entmax-1.5), 0 where p = 0,
   for i < k; the power is taken on every lane, as exp((2 - alpha) log max(p, low)) (see floor_of).
   Where x is not NULL (a general alpha, the forward's st = (m, tau) of the row), s = p / d instead,
   no exp / log: d = (x - m) scale - tau, the same float operations as the forward's, so the same d;
   p = d^q / total there, so p / d = d^(q - 1) / total = p^(2 - alpha) total^(1 - alpha), and the
   forward gives st only where it certified |total^(alpha - 1) - 1| <= 16 eps: s within about 16 eps
   of p^(2 - alpha) (dz is linear in s). Returns (sum g s, sum s) with g (and x) read at idx[i], or at i where
   idx is NULL. */
INLINE void FN(weights)(const T* v, T* w, const T* g, const int64_t* idx, int64_t k, double alpha, const T* x,
                        const T* st, A* gs_out, A* ss_out) {
    A gs = 0, ss = 0;
    T power = (T)(2 - alpha), low = FN(floor_of)(2 - alpha);
#define WEIGHTS(expr)                                         \
    _Pragma("omp simd reduction(+ : gs, ss)")                 \
    for (int64_t i = 0; i < k; i++) {                         \
        T p = v[i], s = (expr);                               \
        s = p > 0 ? s : 0;                                    \
        w[i] = s;                                             \
        gs += (A)(idx ? g[idx[i]] : g[i]) * s;                \
        ss += s;                                              \
    }
    if (alpha == 2) {
        WEIGHTS(1)
    } else if (alpha == 1.5) {
        WEIGHTS(SQRT(MAX(p, 0)))
    } else if (x) {
        T m = st[0], scale = (T)(alpha - 1), tau = st[1];
        WEIGHTS(p / (((idx ? x[idx[i]] : x[i]) - m) * scale - tau)) /* (d > 0 wherever p > 0) */
    } else {
#pragma omp simd
        for (int64_t i = 0; i < k; i++) { /* the powers first: no accumulator lives across the vector calls */
            T p = v[i], s = EXP(power * LOG(MAX(p, low)));
            w[i] = p > 0 ? s : 0;
        }
        WEIGHTS(w[i])
    }
#undef WEIGHTS
    *gs_out = gs;
    *ss_out = ss;
}

/* dz = s (g - <g, s> / sum s) of one row from p, s = p^(2 - alpha) on the support, 0 off it; 0
   where sum s = 0, NaN on a NaN row (the forward makes such rows NaN throughout). Blocks as in
   candidates: one vectorised pass marks the blocks that hold support (p > 0); where they are at
   most half, the support is packed from them (idx, w), s and the reads of g are taken on it alone
   and dz is written into the zeroed row; otherwise two vectorised passes over the whole row.
   xr, st: the row's x and the forward's (m, tau), or NULL: where st holds a finite tau (general alpha),
   the rows read whole take s = p / d (see weights), no powers; rows of at most DENSE_BELOW blocks are
   then read whole for alpha < QUOTIENT_BELOW (there the support is a large part of the row), while
   packed rows keep s = p^(2 - alpha) (gathering x at the support cost more than exp / log there).
   live: scratch of n / BLOCK entries. */
CLONES static void FN(backward_row)(const T* gr, const T* pr, T* out, int64_t n, double alpha, const T* xr,
                                    const T* st, T* w, int64_t* idx, T* live) {
    if (pr[0] != pr[0]) {
        for (int64_t i = 0; i < n; i++) out[i] = NAN;
        return;
    }
    int64_t nb = n / BLOCK, body = nb * BLOCK, k = 0;
    if (!(xr && st && st[1] == st[1]) || (nb <= DENSE_BELOW && !(alpha < QUOTIENT_BELOW))) xr = NULL; /* (s from p) */
    A gs, ss;
    if (nb <= DENSE_BELOW && alpha != 2 && alpha != 1.5 && !xr && cpu_avx2()) {
        /* short rows, s = exp((2 - alpha) log p): the support packed in one pass, exp / log on it alone */
        k = FN(pack_above)(pr, NULL, n, 0, 1, 0, w, idx);
    } else {
        int64_t blocks = nb;
        if (nb > DENSE_BELOW) { /* (shorter rows: dense; their g is read whole at the speed of memory, not entry by entry) */
#pragma omp simd
            for (int64_t j = 0; j < nb; j++) {
                T b = 0;
                for (int64_t i = 0; i < BLOCK; i++) b = pr[i * nb + j] > b ? pr[i * nb + j] : b;
                live[j] = b;
            }
            blocks = 0;
#pragma omp simd reduction(+ : blocks)
            for (int64_t j = 0; j < nb; j++) blocks += live[j] > 0;
        }
        if (nb > 0 ? 2 * blocks > nb : xr != NULL) { /* dense (rows under BLOCK entries: with x, for s = p / d) */
            FN(weights)(pr, w, gr, NULL, n, alpha, xr, st, &gs, &ss);
            T v = (T)(ss > 0 ? gs / ss : 0);
#pragma omp simd
            for (int64_t i = 0; i < n; i++) out[i] = w[i] * (gr[i] - v);
            return;
        }
        for (int64_t j = 0; j < nb; j++) {
            if (!(live[j] > 0)) continue;
            for (int64_t i = j; i < body; i += nb) {
                T v = pr[i];
                w[k] = v;
                idx[k] = i;
                k += v > 0;
            }
        }
        for (int64_t i = body; i < n; i++) {
            T v = pr[i];
            w[k] = v;
            idx[k] = i;
            k += v > 0;
        }
    }
    memset(out, 0, n * sizeof(T));
    if (k == 0) return;
    FN(weights)(w, w, gr, idx, k, alpha, NULL, NULL, &gs, &ss);
    T v = (T)(ss > 0 ? gs / ss : 0);
    for (int64_t i = 0; i < k; i++) out[idx[i]] = w[i] * (gr[idx[i]] - v);
}

/* p (rows, n) from x (rows, n); rows handed out to `threads` OpenMP threads in chunks (dynamic:
   a thread the OS holds back does not hold up the others); returns the number of rows left to
   the caller (status 1). stats: NULL or (rows, 2), see forward_row. */
int64_t FN(entmax_forward)(const T* x, T* p, int* status, T* stats, int64_t rows, int64_t n, double alpha,
                           int threads) {
    int64_t left = 0, chunk = chunk_rows(rows, threads);
#pragma omp parallel num_threads(threads) reduction(+ : left)
    {
        int64_t stride = n + PAD; /* (c and w padded to whole vectors) */
        struct scratch* work = scratch_for(stride * (3 * sizeof(T) + sizeof(int64_t)));
        T* c = (T*)work->data;
        T* w = c + stride;
        T* bmax = w + stride;
        int64_t* idx = (int64_t*)(bmax + stride);
#pragma omp for schedule(dynamic, chunk) nowait
        for (int64_t r = 0; r < rows; r++) {
            FN(forward_row)(x + r * n, p + r * n, status + r, stats ? stats + 2 * r : NULL, n, alpha, c, w, bmax, idx);
            left += status[r];
        }
        scratch_done(work);
    }
    return left;
}

/* dz (rows, n) from g and p; x and stats: NULL, or the forward's input and stats (see backward_row). */
void FN(entmax_backward)(const T* g, const T* p, T* dz, const T* x, const T* stats, int64_t rows, int64_t n,
                         double alpha, int threads) {
    int64_t chunk = chunk_rows(rows, threads);
#pragma omp parallel num_threads(threads)
    {
        struct scratch* work = scratch_for(n * (2 * sizeof(T) + sizeof(int64_t)));
        T* w = (T*)work->data;
        T* live = w + n;
        int64_t* idx = (int64_t*)(live + n);
#pragma omp for schedule(dynamic, chunk) nowait
        for (int64_t r = 0; r < rows; r++)
            FN(backward_row)(g + r * n, p + r * n, dz + r * n, n, alpha, x ? x + r * n : NULL,
                             stats ? stats + 2 * r : NULL, w, idx, live);
        scratch_done(work);
    }
}
