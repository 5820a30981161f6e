#ifndef GLOSS_CMICROHTTPD_H
#define GLOSS_CMICROHTTPD_H
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

/// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: the daemon
/// Gloss runs, started with its options spelled out here, and the port it listens on.
///
/// The daemon's own thread pool of `threads` threads polls with epoll and calls `handler`;
/// `completed` is told when a request ends, so per-request state can be freed.
static inline struct MHD_Daemon *gloss_mhd_start(unsigned int flags, const struct sockaddr *address, unsigned int threads,
                                                  size_t memory_limit, unsigned int connection_limit, unsigned int timeout,
                                                  MHD_AccessHandlerCallback handler, void *context,
                                                  MHD_RequestCompletedCallback completed) {
    return MHD_start_daemon(flags | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_END);
}

static inline uint16_t gloss_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
