#include "sys/io.h"

#include "sys/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace eb::sys {

Fd open_regular(const std::string& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    // A name the user gave that does not lead to a readable file is bad
    // input; a failure of the file system once it is open is the host's.
    if (!fd.valid())
        throw InputError(errno == ENOENT ? "cannot read " + path + ": no such file"
                                         : "cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) < 0) throw HostError("cannot read " + path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file");
    ::fcntl(fd.get(), F_SETFL, O_RDONLY);  // blocking reads again: a regular file never waits anyway
    return fd;
}

std::string read_regular(const std::string& path) {
    Fd fd = open_regular(path);
    std::string out;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw HostError("cannot read " + path + ": " + std::strerror(errno));
        if (n == 0) return out;
        out.append(buf, static_cast<size_t>(n));
    }
}

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
