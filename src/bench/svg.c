/* svg.c — the bench's chart as a standalone SVG document (our own output
 * format: written as text, nothing is parsed). */
#include "bench/report.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <math.h>
#include <string.h>

static const char *colour[SL_BENCH_NPHASES] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52"};

char *sl_bench_xml_escape(const char *s)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "");
    for (; s && *s; s++) {
        switch (*s) {
        case '&': sl_buf_puts(&b, "&amp;"); break;
        case '<': sl_buf_puts(&b, "&lt;"); break;
        case '>': sl_buf_puts(&b, "&gt;"); break;
        case '"': sl_buf_puts(&b, "&quot;"); break;
        case '\'': sl_buf_puts(&b, "&apos;"); break;
        default:
            /* control characters are not allowed in XML 1.0 */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                sl_buf_putc(&b, ' ');
            else
                sl_buf_putc(&b, *s);
        }
    }
    return sl_buf_steal(&b);
}

static double nice_step(double max, int ticks)
{
    if (max <= 0)
        return 1;
    double raw = max / ticks;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

enum { W = 960, LEFT = 120, RIGHT = 190, BAR = 26, GAP = 14 };

static void axis(sl_buf_t *b, double axis_max, double step, double scale, int y0, int y1)
{
    for (double t = 0; t <= axis_max + step / 2; t += step) {
        double x = LEFT + t * scale;
        sl_buf_printf(b,
                      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n"
                      "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%g</text>\n",
                      x, y0, x, y1, x, y1 + 14, t);
    }
    sl_buf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"tick\">s</text>\n",
                  LEFT + (int)lround(axis_max * scale) + 12, y1 + 14);
}

/* latency section starting at y; returns the next free y */
static int latency(sl_buf_t *b, const sl_bench_summary_t *s, size_t ns, int y)
{
    double max = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].ok && s[i].e2e.max > max)
            max = s[i].e2e.max;
    sl_buf_printf(b,
                  "<text x=\"%d\" y=\"%d\" class=\"h\">End to end, warm runs "
                  "(bar: mean, stacked by phase; whisker: min to max)</text>\n",
                  LEFT, y);
    y += 14;
    int lx = LEFT;
    for (int ph = 0; ph < SL_BENCH_NPHASES; ph++) {
        sl_buf_printf(b,
                      "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                      "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n",
                      lx, y, colour[ph], lx + 16, y + 10, sl_bench_phase_label(ph));
        lx += 16 + 8 * (int)strlen(sl_bench_phase_label(ph)) + 18;
    }
    y += 26;
    if (max <= 0) {
        sl_buf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"l\">no path has a good warm run</text>\n",
                      LEFT, y + 12);
        return y + 30;
    }
    double step = nice_step(max, 5);
    double axis_max = ceil(max / step) * step;
    double scale = (W - LEFT - RIGHT) / axis_max;
    int top = y;
    sl_buf_t *out = b, bars = SL_BUF_INIT;
    b = &bars; /* bars go over the grid: drawn after it */
    for (size_t i = 0; i < ns; i++) {
        const sl_bench_summary_t *p = &s[i];
        char *name = sl_bench_xml_escape(p->path);
        sl_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"p\">%s</text>\n",
                      LEFT - 8, y + BAR / 2 + 5, name);
        free(name);
        if (!p->ok) {
            sl_buf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"bad\">no good warm run</text>\n",
                          LEFT + 4, y + BAR / 2 + 5);
            y += BAR + GAP;
            continue;
        }
        double x = LEFT;
        for (int ph = 0; ph < SL_BENCH_NPHASES; ph++) {
            double w = p->phase[ph].mean > 0 ? p->phase[ph].mean * scale : 0;
            sl_buf_printf(b,
                          "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                          "<title>%s %s: %.3f s</title></rect>\n",
                          x, y, w, BAR, colour[ph], p->path, sl_bench_phase_label(ph),
                          p->phase[ph].mean);
            x += w;
        }
        double x0 = LEFT + p->e2e.min * scale, x1 = LEFT + p->e2e.max * scale;
        int ym = y + BAR / 2;
        sl_buf_printf(b,
                      "<g stroke=\"#222\" stroke-width=\"1.2\"><line x1=\"%.2f\" y1=\"%d\" "
                      "x2=\"%.2f\" y2=\"%d\"/><line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
                      "y2=\"%d\"/><line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/></g>\n",
                      x0, ym, x1, ym, x0, ym - 5, x0, ym + 5, x1, ym - 5, x1, ym + 5);
        char ratio[48] = "";
        if (p->has_ratio)
            snprintf(ratio, sizeof(ratio), "  \u00d7%.2f vs sbatch", p->ratio_mean);
        sl_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"v\">%.3f s%s</text>\n",
                      (x1 > x ? x1 : x) + 8, y + BAR / 2 + 5, p->e2e.mean, ratio);
        y += BAR + GAP;
    }
    axis(out, axis_max, step, scale, top - 4, y - GAP + 4);
    sl_buf_append(out, bars.data ? bars.data : "", bars.len);
    sl_buf_free(&bars);
    return y + 30;
}

/* throughput section: per path, the times until all acked / started / finished / seen */
static int throughput(sl_buf_t *b, const sl_bench_tput_t *t, size_t nt, int y)
{
    static const char *lab[] = {"all acknowledged", "all started", "all finished", "all seen"};
    static const char *col[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52"};
    double max = 0;
    for (size_t i = 0; i < nt; i++)
        if (t[i].all_seen_s > max)
            max = t[i].all_seen_s;
    sl_buf_printf(b,
                  "<text x=\"%d\" y=\"%d\" class=\"h\">Throughput: pods submitted at once, "
                  "time until every pod reached each point</text>\n",
                  LEFT, y);
    y += 14;
    int lx = LEFT;
    for (int k = 0; k < 4; k++) {
        sl_buf_printf(b,
                      "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                      "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n",
                      lx, y, col[k], lx + 16, y + 10, lab[k]);
        lx += 16 + 8 * (int)strlen(lab[k]) + 18;
    }
    y += 26;
    if (max <= 0)
        max = 1;
    double step = nice_step(max, 5);
    double axis_max = ceil(max / step) * step;
    double scale = (W - LEFT - RIGHT) / axis_max;
    int top = y;
    sl_buf_t *out = b, bars = SL_BUF_INIT;
    b = &bars;
    for (size_t i = 0; i < nt; i++) {
        const sl_bench_tput_t *p = &t[i];
        char *name = sl_bench_xml_escape(p->path);
        sl_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"p\">%s</text>\n",
                      LEFT - 8, y + 2 * BAR / 2 + 3, name);
        free(name);
        double v[] = {p->all_acked_s, p->all_started_s, p->all_finished_s, p->all_seen_s};
        int h = BAR / 2;
        for (int k = 0; k < 4; k++)
            sl_buf_printf(b,
                          "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                          "<title>%s: %.3f s</title></rect>\n",
                          LEFT, y + k * h, v[k] * scale, h - 1, col[k], lab[k], v[k]);
        sl_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"v\">%zu pods, %.1f jobs/s%s</text>\n",
                      LEFT + p->all_seen_s * scale + 8, y + 2 * h + 3, p->pods, p->jobs_per_s,
                      p->failed ? " (failures)" : "");
        y += 4 * h + GAP;
    }
    axis(out, axis_max, step, scale, top - 4, y - GAP + 4);
    sl_buf_append(out, bars.data ? bars.data : "", bars.len);
    sl_buf_free(&bars);
    return y + 30;
}

char *sl_bench_svg(const char *title, const char *subtitle, const sl_bench_summary_t *s, size_t ns,
                   const sl_bench_tput_t *t, size_t nt)
{
    sl_buf_t body = SL_BUF_INIT;
    int y = 70;
    if (ns)
        y = latency(&body, s, ns, y);
    if (nt)
        y = throughput(&body, t, nt, y);
    sl_buf_t b = SL_BUF_INIT;
    char *et = sl_bench_xml_escape(title ? title : "slurmlink bench");
    char *es = sl_bench_xml_escape(subtitle ? subtitle : "");
    sl_buf_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                  "<style>.t{font-size:18px;font-weight:bold}.s{font-size:12px;fill:#555}"
                  ".h{font-size:14px;font-weight:bold}.l{font-size:12px}.p{font-size:14px}"
                  ".v{font-size:13px}.tick{font-size:11px;fill:#555}"
                  ".bad{font-size:13px;fill:#c00}</style>\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                  "<text x=\"20\" y=\"28\" class=\"t\">%s</text>\n"
                  "<text x=\"20\" y=\"48\" class=\"s\">%s</text>\n",
                  W, y, W, y, et, es);
    free(et);
    free(es);
    sl_buf_append(&b, body.data ? body.data : "", body.len);
    sl_buf_puts(&b, "</svg>\n");
    sl_buf_free(&body);
    return sl_buf_steal(&b);
}
