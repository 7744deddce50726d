/* What the shim's C files share. */
#ifndef FABRICD_SHIM_H
#define FABRICD_SHIM_H
#include <infiniband/verbs.h>

/* Writes "what: strerror(e)" into err (errlen bytes), when err is given. */
void fabricd_err(char *err, int errlen, const char *what, int e);

/* Opens RDMA device `name`: its context, or NULL with the reason in err (ENODEV: no such device). */
struct ibv_context *fabricd_open_context(const char *name, char *err, int errlen);

#endif
