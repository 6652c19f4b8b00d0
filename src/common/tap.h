/* tap.h — a minimal TAP producer for unit tests (header-only).
 *
 *     int main(void) { ok(1 + 1 == 2, "adds"); is_str(a, "x", "name"); return tap_done(); }
 */
#ifndef SL_TAP_H
#define SL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                                            \
    do {                                                                                  \
        long long g_ = (long long)(got), w_ = (long long)(want);                          \
        if (!ok(g_ == w_, __VA_ARGS__))                                                   \
            printf("#   got %lld, want %lld\n", g_, w_);                                  \
    } while (0)
#define is_str(got, want, ...)                                                            \
    do {                                                                                  \
        const char *g_ = (got), *w_ = (want);                                             \
        if (!ok(g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_, __VA_ARGS__))                  \
            printf("#   got  [%s]\n#   want [%s]\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)
#define has_str(hay, needle, ...)                                                         \
    do {                                                                                  \
        const char *h_ = (hay), *n_ = (needle);                                           \
        if (!ok(h_ && strstr(h_, n_), __VA_ARGS__))                                       \
            printf("#   [%s] does not contain [%s]\n", h_ ? h_ : "(null)", n_);           \
    } while (0)

/* A fixed plan: tap_done() fails when another number of tests ran. */
static int tap_planned = -1;
static inline void tap_plan(int n)
{
    tap_planned = n;
    printf("1..%d\n", n);
}

static inline int tap_done(void)
{
    if (tap_planned < 0) {
        printf("1..%d\n", tap_n);
    } else if (tap_n != tap_planned) {
        printf("# planned %d tests, ran %d\n", tap_planned, tap_n);
        return 1;
    }
    return tap_failed ? 1 : 0;
}

#endif
