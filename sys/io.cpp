#include "sys/io.h"

#include <cerrno>
#include <fcntl.h>
#include <system_error>

namespace eb::sys {

int write_all(int fd, const void* data, size_t n) {
    auto* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return 0;
}

int pwrite_all(int fd, const void* data, size_t n, uint64_t off) {
    auto* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(off));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w;
        n -= static_cast<size_t>(w);
        off += static_cast<uint64_t>(w);
    }
    return 0;
}

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) < 0) throw std::system_error(errno, std::generic_category(), "pipe");
    return {Fd(fds[0]), Fd(fds[1])};
}

} // namespace eb::sys
