/* log.h — leveled logging to stderr (daemons redirect stderr to their log). */
#ifndef SL_LOG_H
#define SL_LOG_H

enum { SL_LOG_ERR = 0, SL_LOG_WARN, SL_LOG_INFO, SL_LOG_DEBUG };

void sl_log_init(const char *ident, int level);
void sl_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define sl_err(...) sl_log(SL_LOG_ERR, __VA_ARGS__)
#define sl_warn(...) sl_log(SL_LOG_WARN, __VA_ARGS__)
#define sl_info(...) sl_log(SL_LOG_INFO, __VA_ARGS__)
#define sl_debug(...) sl_log(SL_LOG_DEBUG, __VA_ARGS__)

#endif
