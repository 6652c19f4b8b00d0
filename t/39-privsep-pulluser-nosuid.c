/* 39-privsep-pulluser-nosuid.c — run a program as systemd's RestrictSUIDSGID=yes
 * does (t/39-privsep-pulluser.t): chmod, fchmod and fchmodat that would set
 * S_ISUID or S_ISGID fail with EPERM (a seccomp filter, inherited by children) */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#define ARG(n) offsetof(struct seccomp_data, args[n])
#define CHECK(call, arg)                                                                           \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),                         \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (call), 0, 4),                                         \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(arg)),                                              \
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID, 0, 1),                             \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),                                      \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
int main(int argc, char **argv)
{
    (void)argc;
    struct sock_filter f[] = {
        CHECK(SYS_chmod, 1),
        CHECK(SYS_fchmod, 1),
        CHECK(SYS_fchmodat, 2),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog p = {sizeof(f) / sizeof(*f), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) < 0) {
        perror("seccomp");
        return 125;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
