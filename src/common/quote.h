/* quote.h — quoting: the one audited function for generated shell scripts,
 * and Go's %q for the texts of Kubernetes messages.
 *
 * Every user-supplied value that reaches a generated batch script passes
 * through sl_shell_quote(). The result is a single POSIX-sh word that expands
 * to exactly the input bytes: plain words [A-Za-z0-9_@%+=:,./-] stay bare,
 * anything else is wrapped in single quotes with each ' written as '\''.
 * NUL cannot be represented in a C string and so never reaches a script.
 * Newlines, $, `, \, ", globs and non-UTF-8 bytes are all safe inside '...'.
 * Fuzzed by t/fuzz (round trip through /bin/sh).
 */
#ifndef SL_QUOTE_H
#define SL_QUOTE_H

/* Caller frees. Never NULL (aborts on OOM). "" becomes ''. */
char *sl_shell_quote(const char *s);

/* Go's strconv.Quote of s (what %q prints, as kube-apiserver's messages
 * quote values). Caller frees. */
char *sl_go_quote(const char *s);

#endif
