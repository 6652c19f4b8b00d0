#ifndef SL_VERSION_H
#define SL_VERSION_H
#define SLURMLINK_VERSION "0.1.0"
#endif
