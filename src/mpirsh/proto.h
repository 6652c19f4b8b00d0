/* proto.h — what slurmlink-mpi-rsh (agent.c, in an MPIJob Launcher's
 * container) and `slurmlink-shim mpi-serve` (src/shim/mpiserve.c, outside
 * it, in the Slurm job's batch step) say to each other over the unix
 * socket the container sees at /etc/mpi/rsh.sock.
 *
 * The agent sends one request: a 4-byte length L in host byte order with
 * its stdin, stdout and stderr attached (SCM_RIGHTS, 3 descriptors), then
 * L bytes: the host name and the command's words, each ending in '\0'.
 * The server answers with 4 bytes, the exit status (0-255) of the
 * command, once it has ended; a closed connection without them is 255 (as
 * ssh's own failures). The agent going away (its socket closed) ends the
 * command. */
#ifndef SL_MPIRSH_PROTO_H
#define SL_MPIRSH_PROTO_H

#define SL_MPIRSH_SOCKET "/etc/mpi/rsh.sock"            /* in the Launcher's container */
#define SL_MPIRSH_SOCKET_ENV "SLURMLINK_MPI_RSH_SOCKET" /* another path, if set */
#define SL_MPIRSH_MAX (1u << 20)                        /* the longest request */
#define SL_MPIRSH_FAILED 255                            /* ssh's status for its own failures */
/* `slurmlink-mpi-rsh --wait`: a Worker's command in place of sshd (waits
 * until the job's end signals it, then exits 0) */
#define SL_MPIRSH_WAIT "--wait"

#endif
