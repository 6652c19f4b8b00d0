/* token file: CSV forms, errors with line numbers, lookups, expiry, reload,
 * append under a lock, file modes. */
#include "auth/tokens.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void parse_fails(const char *text, const char *want, const char *desc)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_auth_tokens_t *t = sl_auth_tokens_parse(text, "tokens.csv", &err);
    ok(t == NULL, "refused: %s", desc);
    has_str(err.text, want, "  message for %s", desc);
    sl_auth_tokens_destroy(t);
}

static int user_is(sl_auth_user_t *u, const char *name, const char *uid, const char *groups)
{
    if (!u)
        return 0;
    char buf[256] = "";
    for (size_t i = 0; i < u->ngroups; i++) {
        if (i)
            strcat(buf, "|");
        strcat(buf, u->groups[i]);
    }
    int r = !strcmp(u->name, name) && !strcmp(u->uid, uid) && !strcmp(buf, groups);
    if (!r)
        printf("#   got name=%s uid=%s groups=%s\n", u->name, u->uid, buf);
    return r;
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    const char *text = "# tokens for the test cluster\n"
                       "\n"
                       "   \n"
                       "tok-alice,alice,1001,\"devs,gpu-users\"\n"
                       "tok-bob,bob,1002\r\n"
                       "  tok-carol,  \"carol, the admin\",1003,\"system:masters\"\n"
                       "tok-dave,dave,1004,\"devs, ops ,,\"\n"
                       "tok-old,old,1005,\"\",2001-01-01T00:00:00Z\n"
                       "tok-later,later,1006,devs,2999-01-01T00:00:00Z\n"
                       "tok-q,\"q\"\"uote\",1007,\"\"\n"
                       "tok-last,last,1008"; /* no final newline */
    sl_auth_tokens_t *t = sl_auth_tokens_parse(text, "tokens.csv", &err);
    ok(t != NULL, "token file parses (%s)", err.text);
    is_int(sl_auth_tokens_count(t), 8, "8 tokens");

    sl_auth_user_t *u = sl_auth_tokens_lookup(t, "tok-alice", 0);
    ok(user_is(u, "alice", "1001", "devs|gpu-users"), "alice with two groups");
    sl_auth_user_destroy(u);
    u = sl_auth_tokens_lookup(t, "tok-bob", 0);
    ok(user_is(u, "bob", "1002", ""), "bob without groups column (CRLF line)");
    sl_auth_user_destroy(u);
    u = sl_auth_tokens_lookup(t, "tok-carol", 0);
    ok(user_is(u, "carol, the admin", "1003", "system:masters"),
       "leading spaces trimmed, quoted field keeps its comma");
    sl_auth_user_destroy(u);
    u = sl_auth_tokens_lookup(t, "tok-dave", 0);
    ok(user_is(u, "dave", "1004", "devs|ops"), "group list: spaces trimmed, empties dropped");
    sl_auth_user_destroy(u);
    u = sl_auth_tokens_lookup(t, "tok-q", 0);
    ok(user_is(u, "q\"uote", "1007", ""), "doubled quote inside a quoted field");
    sl_auth_user_destroy(u);
    u = sl_auth_tokens_lookup(t, "tok-last", 0);
    ok(user_is(u, "last", "1008", ""), "last line without newline");
    sl_auth_user_destroy(u);

    errno = 0;
    ok(sl_auth_tokens_lookup(t, "tok-old", 0) == NULL && errno == EKEYEXPIRED,
       "expired token refused with EKEYEXPIRED");
    u = sl_auth_tokens_lookup(t, "tok-later", 0);
    ok(user_is(u, "later", "1006", "devs"), "token with a future expiry works");
    sl_auth_user_destroy(u);
    errno = 0;
    ok(sl_auth_tokens_lookup(t, "tok-later", 32503680000LL + 1) == NULL && errno == EKEYEXPIRED,
       "... and stops at its expiry");
    errno = 0;
    ok(sl_auth_tokens_lookup(t, "tok-alicE", 0) == NULL && errno == ENOENT,
       "unknown token: ENOENT");
    ok(sl_auth_tokens_lookup(t, "tok-alice ", 0) == NULL, "token with a trailing space unknown");
    ok(sl_auth_tokens_lookup(t, "", 0) == NULL, "empty token unknown");
    ok(sl_auth_tokens_lookup(t, NULL, 0) == NULL, "NULL token unknown");
    sl_auth_tokens_destroy(t);

    /* errors name the line */
    parse_fails("a,b,c\n\n# x\nt1,u\n", "tokens.csv:4: must have at least 3 columns",
                "two columns");
    parse_fails("t1,alice,1\nt2,bob,2\nt1,carol,3\n",
                "tokens.csv:3: duplicate token (first on line 1)", "duplicate token");
    parse_fails(",alice,1\n", "tokens.csv:1: empty token", "empty token");
    parse_fails("t1,,1\n", "tokens.csv:1: empty user name", "empty user");
    parse_fails("t 1,alice,1\n", "tokens.csv:1: token must be visible ASCII", "token with a space");
    parse_fails("t1,\"alice,1\n", "tokens.csv:1: unterminated quoted field", "open quote");
    parse_fails("t1,al\"ice,1\n", "tokens.csv:1: bare \"", "bare quote");
    parse_fails("t1,\"alice\"x,1\n", "tokens.csv:1: extraneous text", "text after quote");
    parse_fails("t1,a,1,g,2020-01-01T00:00:00Z,x,y,z,w\n", "tokens.csv:1: too many columns",
                "nine columns");
    parse_fails("t1,a,1,g,yesterday\n", "tokens.csv:1: expiry \"yesterday\" is not RFC 3339",
                "bad expiry");
    parse_fails("ok1,a,1\nt1,a\x01x,1\n", "tokens.csv:2: control character", "control char");

    t = sl_auth_tokens_parse("# only comments\n\n", "empty", &err);
    ok(t && sl_auth_tokens_count(t) == 0, "a file of comments holds no tokens");
    ok(sl_auth_tokens_lookup(t, "x", 0) == NULL, "... and accepts none");
    sl_auth_tokens_destroy(t);

    /* generated tokens */
    char *g1 = sl_auth_token_generate(), *g2 = sl_auth_token_generate();
    ok(g1 && strlen(g1) == 64 && strspn(g1, "0123456789abcdef") == 64, "token: 64 hex digits");
    ok(g1 && g2 && strcmp(g1, g2) != 0, "two tokens differ");

    /* files: append, reload, modes */
    char dir[] = "/tmp/toktest.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp folder");
    char *path = sl_xasprintf("%s/tokens.csv", dir);
    const char *gr[] = {"devs", "a\"q", NULL};
    is_int(sl_auth_tokens_append(path, g1, "alice", "alice", gr, 0, &err), 0,
           "append creates the file (%s)", err.text);
    struct stat sb;
    ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "token file is 0600");
    t = sl_auth_tokens_load(path, &err);
    ok(t != NULL, "file loads (%s)", err.text);
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(user_is(u, "alice", "alice", "devs|a\"q"), "appended line reads back");
    sl_auth_user_destroy(u);
    ok(sl_auth_tokens_lookup(t, g2, 0) == NULL, "second token not there yet");
    long long exp = (long long)time(NULL) + 3600;
    is_int(sl_auth_tokens_append(path, g2, "bob, jr", "", NULL, exp, &err), 0, "append another");
    u = sl_auth_tokens_lookup(t, g2, 0);
    ok(user_is(u, "bob, jr", "", ""), "loaded table sees the new token at once");
    sl_auth_user_destroy(u);
    ok(sl_auth_tokens_lookup(t, g2, exp) == NULL && errno == EKEYEXPIRED,
       "appended expiry is kept");
    ok(sl_auth_tokens_append(path, g1, "eve", "eve", NULL, 0, &err) < 0 && errno == EEXIST,
       "appending a token already there fails");
    ok(sl_auth_tokens_append(path, "x y", "eve", "eve", NULL, 0, &err) < 0, "bad token refused");
    const char *badg[] = {"a,b", NULL};
    ok(sl_auth_tokens_append(path, "tok9", "eve", "eve", badg, 0, &err) < 0,
       "group with a comma refused");
    ok(sl_auth_tokens_append(path, "tok9", "e\nve", "eve", NULL, 0, &err) < 0,
       "newline in a user refused");

    /* a broken edit fails closed; fixing it restores service */
    char *text2 = sl_read_file(path, NULL, NULL);
    char *broken = sl_xasprintf("%sgarbage-line-without-columns\n", text2);
    sleep(1); /* a new mtime even on coarse-timestamp filesystems */
    sl_write_file(path, broken, strlen(broken), 0600, NULL);
    ok(sl_auth_tokens_lookup(t, g1, 0) == NULL && errno == EACCES,
       "invalid file: every token refused (fail closed)");
    ok(sl_auth_tokens_refresh(t, &err) < 0, "refresh reports the invalid file");
    has_str(err.text, ":3: must have at least 3 columns", "... naming the line");
    ok(sl_auth_tokens_append(path, "tok9", "eve", "eve", NULL, 0, &err) < 0,
       "no append to an invalid file");
    sl_write_file(path, text2, strlen(text2), 0600, NULL);
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "fixed file: tokens work again");
    sl_auth_user_destroy(u);

    /* revocation: remove bob's line */
    char *nl = strchr(text2, '\n');
    sl_write_file(path, text2, (size_t)(nl - text2 + 1), 0600, NULL);
    ok(sl_auth_tokens_lookup(t, g2, 0) == NULL, "removed token stops working at once");
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "the other still works");
    sl_auth_user_destroy(u);
    free(text2);
    free(broken);

    chmod(path, 0644);
    ok(sl_auth_tokens_load(path, &err) == NULL, "world-readable token file refused");
    has_str(err.text, "chmod 600", "... saying how to fix it");
    ok(sl_auth_tokens_lookup(t, g1, 0) == NULL, "loaded table refuses once the file is 0644");
    ok(sl_auth_tokens_append(path, "tok9", "eve", "eve", NULL, 0, &err) < 0,
       "no append to a world-readable file");
    chmod(path, 0600);

    /* owned by neither root nor the daemon, or writable by group or others:
     * its content is untrusted; refused at load, and a loaded table keeps
     * what it had and takes nothing from it */
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "mode 0600 again: the tokens work");
    sl_auth_user_destroy(u);
    char *cur = sl_read_file(path, NULL, NULL);
    char *evil = sl_xasprintf("%sevil-token,mallory,mallory,system:masters\n", cur);
    sl_write_file(path, evil, strlen(evil), 0600, NULL);
    ok(chown(path, 54321, 54321) == 0, "token file given to uid 54321");
    ok(sl_auth_tokens_load(path, &err) == NULL, "a token file owned by another uid is refused");
    has_str(err.text, "owned by uid 54321, not by root or slurmlinkd", "... naming its owner");
    ok(sl_auth_tokens_lookup(t, "evil-token", 0) == NULL,
       "a loaded table takes no token from a file another uid owns");
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "... and keeps the tokens it had");
    sl_auth_user_destroy(u);
    ok(chown(path, 0, 0) == 0 && chmod(path, 0620) == 0, "back to root, mode 0620");
    ok(sl_auth_tokens_load(path, &err) == NULL, "a group-writable token file is refused");
    has_str(err.text, "mode 0620 lets group or others change the tokens", "... saying why");
    ok(sl_auth_tokens_lookup(t, "evil-token", 0) == NULL,
       "a loaded table takes no token from a group-writable file");
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "... and keeps the tokens it had");
    sl_auth_user_destroy(u);
    sl_write_file(path, cur, strlen(cur), 0600, NULL);
    u = sl_auth_tokens_lookup(t, g1, 0);
    ok(u != NULL, "a trusted file again: read as before");
    sl_auth_user_destroy(u);
    free(cur);
    free(evil);
    sl_auth_tokens_destroy(t);

    /* concurrent appends from several processes all land, intact */
    int nproc = 6;
    for (int i = 0; i < nproc; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            char tok[32], name[32];
            snprintf(tok, sizeof(tok), "conc-%d", i);
            snprintf(name, sizeof(name), "user%d", i);
            _exit(sl_auth_tokens_append(path, tok, name, name, NULL, 0, NULL) == 0 ? 0 : 1);
        }
    }
    int good = 0, st;
    for (int i = 0; i < nproc; i++)
        if (wait(&st) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            good++;
    is_int(good, nproc, "concurrent appends succeed");
    t = sl_auth_tokens_load(path, &err);
    ok(t && sl_auth_tokens_count(t) == (size_t)nproc + 1, "all lines intact (%s)", err.text);
    sl_auth_tokens_destroy(t);

    ok(sl_auth_tokens_load("/nonexistent/tokens.csv", &err) == NULL, "missing file fails");
    has_str(err.text, "/nonexistent/tokens.csv", "... naming it");

    unlink(path);
    rmdir(dir);
    free(path);
    free(g1);
    free(g2);
    sl_auth_tokens_destroy(NULL);
    return tap_done();
}
