#include "report/file.h"

#include "report/durable.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace eb::report {

namespace {

std::string temp_pattern(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path p(path);
    fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    return (dir / ("." + p.filename().string() + ".XXXXXX")).string();
}

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
    throw std::runtime_error("cannot write " + path + ": " + what + ": " + std::strerror(err));
}

int make_temp(const std::string& path, std::vector<char>& name) {
    std::string pat = temp_pattern(path);
    name.assign(pat.begin(), pat.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0 && errno == ENOENT) {
        // The temporary file goes next to `path`: a missing directory is what is wrong.
        std::filesystem::path dir = std::filesystem::path(path).parent_path();
        throw std::runtime_error("cannot write " + path + ": directory " + (dir.empty() ? "." : dir.string()) +
                                 " does not exist");
    }
    if (fd < 0) fail(path, "create a temporary file", errno);
    return fd;
}

} // namespace

void check_writable(const std::string& path) {
    if (std::filesystem::is_directory(path)) throw std::runtime_error("cannot write " + path + ": it is a directory");
    std::vector<char> name;
    int fd = make_temp(path, name);
    ::close(fd);
    ::unlink(name.data());
}

void write_file_atomic(const std::string& path, const std::string& content) {
    std::vector<char> name;
    int fd = make_temp(path, name);
    size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            ::unlink(name.data());
            fail(path, "write", e);
        }
        off += static_cast<size_t>(n);
    }
    mode_t mask = ::umask(0);  // mkstemp makes 0600; give the file the usual mode
    ::umask(mask);
    if (::fsync(fd) < 0 || ::fchmod(fd, 0666 & ~mask) < 0) {
        int e = errno;
        ::close(fd);
        ::unlink(name.data());
        fail(path, "fsync", e);
    }
    ::close(fd);
    if (::rename(name.data(), path.c_str()) < 0) {
        int e = errno;
        ::unlink(name.data());
        fail(path, "rename", e);
    }
    if (int e = fsync_parent_dir(path)) fail(path, "fsync its directory", e);
}

} // namespace eb::report
