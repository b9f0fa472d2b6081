/*
 * movfn.c — OpenSearch's MovingFunctions, the functions the moving_fn
 * pipeline's scripts call (the moving-function script context's class):
 * max, min, sum, unweightedAvg, stdDev, linearWeightedAvg, ewma, holt,
 * holtWinters over a window of doubles.
 *
 * They follow MovingFunctions' arithmetic operation by operation (Java
 * doubles are IEEE doubles; no fused multiply-add): sum is
 * DoubleStream.sum, a Kahan-compensated sum with a plain sum kept for
 * infinities (Collectors.sumWithCompensation / computeFinalSum); holt's
 * forecast is s + 0 * b (MovingFunctions returns the first of its
 * forecasts, i = 0); holtWinters needs 2 * period values. The aggregations
 * layer calls them directly for a script that is one such call, the
 * interpreter (eval.c) for any other.
 */
#include <math.h>
#include <stdio.h>

#include "script/script.h"

double tv_movfn_max(const double *v, size_t n) {
    /* DoubleStream.max: Math.max, NaN wins */
    if (!n) return NAN;
    double m = v[0];
    for (size_t i = 1; i < n; i++) m = (m != m || v[i] != v[i]) ? NAN : (v[i] > m || (v[i] == 0 && m == 0 && !signbit(v[i]))) ? v[i] : m;
    return m;
}

double tv_movfn_min(const double *v, size_t n) {
    if (!n) return NAN;
    double m = v[0];
    for (size_t i = 1; i < n; i++) m = (m != m || v[i] != v[i]) ? NAN : (v[i] < m || (v[i] == 0 && m == 0 && signbit(v[i]))) ? v[i] : m;
    return m;
}

double tv_movfn_sum(const double *v, size_t n) {
    if (!n) return 0.0;
    double sum = 0, comp = 0, simple = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i] != v[i] ? 0.0 : v[i];
        double t = x - comp;
        double velvel = sum + t;
        comp = (velvel - sum) - t;
        sum = velvel;
        simple += x;
    }
    double r = sum - comp;
    if (r != r && isinf(simple)) return simple;
    return r;
}

double tv_movfn_unweighted_avg(const double *v, size_t n) {
    double avg = 0.0;
    int64_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i]) { avg += v[i]; count++; }
    return count == 0 ? NAN : avg / (double)count;
}

double tv_movfn_std_dev(const double *v, size_t n, double avg) {
    if (avg != avg) return NAN;
    int64_t count = 0;
    double sq = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i]) { sq += (v[i] - avg) * (v[i] - avg); count++; }
    return sqrt(sq / (double)count);
}

double tv_movfn_linear_weighted_avg(const double *v, size_t n) {
    double avg = 0;
    int64_t total = 1, cur = 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i]) { avg += v[i] * (double)cur; total += cur; cur++; }
    return total == 1 ? NAN : avg / (double)total;
}

double tv_movfn_ewma(const double *v, size_t n, double alpha) {
    double avg = NAN;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != v[i]) continue;
        if (first) { avg = v[i]; first = false; }
        else avg = (v[i] * alpha) + (avg * (1 - alpha));
    }
    return avg;
}

double tv_movfn_holt(const double *v, size_t n, double alpha, double beta) {
    if (!n) return NAN;
    double s = 0, last_s = 0, b = 0, last_b = 0;
    int counter = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != v[i]) continue;
        if (counter == 0) { s = v[i]; b = 0; }
        else {
            s = alpha * v[i] + (1.0 - alpha) * (last_s + last_b);
            b = beta * (s - last_s) + (1 - beta) * last_b;
        }
        counter++;
        last_s = s;
        last_b = b;
    }
    if (!counter) return NAN;
    return s + (0 * b);
}

tv_status tv_movfn_holt_winters(const double *v, size_t n, double alpha, double beta, double gamma, int period,
                                bool mult, double *out, tv_error *err) {
    *out = NAN;
    if (!n) return TROVE_OK;
    if ((int64_t)n < 2 * (int64_t)period)
        return tv_error_set(err, TROVE_EARG,
                            "Holt-Winters aggregation requires at least (2 * period == 2 * %d == %d) data-points to function.  Only [%zu] were provided.",
                            period, 2 * period, n);
    if (period <= 0) return tv_error_set(err, TROVE_EARG, "Holt-Winters aggregation requires a positive period");
    double padding = mult ? 0.0000000001 : 0.0;
    double *vs = tv_calloc(n, sizeof *vs), *seasonal = tv_calloc(n, sizeof *seasonal);
    if (!vs || !seasonal) { tv_free(vs); tv_free(seasonal); return tv_error_oom(err); }
    size_t counter = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] == v[i]) vs[counter++] = v[i] + padding;
    if (!counter) { tv_free(vs); tv_free(seasonal); return TROVE_OK; }
    double s = 0, last_s, b = 0, last_b = 0;
    for (int i = 0; i < period; i++) {
        s += vs[i];
        b += (vs[i + period] - vs[i]) / period;
    }
    s /= period;
    b /= period;
    last_s = s;
    if (s != 0.0) /* Double.compare with 0.0 and -0.0: both zeros fill 0 */
        for (int i = 0; i < period; i++) seasonal[i] = vs[i] / s;
    for (size_t i = (size_t)period; i < n; i++) {
        if (mult) s = alpha * (vs[i] / seasonal[i - period]) + (1.0 - alpha) * (last_s + last_b);
        else s = alpha * (vs[i] - seasonal[i - period]) + (1.0 - alpha) * (last_s + last_b);
        b = beta * (s - last_s) + (1 - beta) * last_b;
        if (mult) seasonal[i] = gamma * (vs[i] / (last_s + last_b)) + (1 - gamma) * seasonal[i - period];
        else seasonal[i] = gamma * (vs[i] - (last_s - last_b)) + (1 - gamma) * seasonal[i - period];
        last_s = s;
        last_b = b;
    }
    size_t idx = n - (size_t)period;
    *out = mult ? (s + (1 * b)) * seasonal[idx] : s + (1 * b) + seasonal[idx];
    tv_free(vs);
    tv_free(seasonal);
    return TROVE_OK;
}

