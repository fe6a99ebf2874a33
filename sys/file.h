// Writing an output file so that nothing is half-written or wrongly replaced.
//
// A regular file (or a path that does not exist yet) is written to a
// temporary file beside it, fsync'ed, renamed over it and its directory
// fsync'ed: a reader or a crash sees the old content or the new, never a mix.
// A symlink to a regular file has its target replaced; the link stays.
// A replaced file keeps its mode and group. In a folder others can write to
// (sticky or group-writable), a link or file another user owns is refused:
// it may have been planted to redirect the write.
// A character device or a FIFO (e.g. /dev/null, /dev/tty, a named pipe),
// and an already-open file named through /proc/PID/fd or /dev/stdout, is
// written in place: renaming over it would replace the device node itself.
// Anything else (directory, socket, block device, dangling symlink) is
// refused. Every error is a std::runtime_error "cannot write PATH: reason".
#pragma once
#include <string>
#include <string_view>
#include <sys/types.h>

#include "sys/fd.h"

namespace eb::sys {

enum class OutputKind {
    Replace,  // absent or a regular file: temporary file, then rename
    InPlace,  // character device, FIFO or open descriptor: written where it is
};

struct OutputTarget {
    std::string path;  // what to open or rename over (a symlink to a regular file resolved)
    OutputKind kind;
    int own_fd = -1;   // /dev/stdout, /proc/self/fd/N: this process's fd N, written through a dup (one offset)
};

OutputTarget resolve_output(const std::string& path);

// Fails early, before a long run, if `path` could not be written.
void check_writable(const std::string& path);

// 0666 less the umask: the mode a shell redirection would give.
mode_t default_file_mode();

// Writes `content` to `path` as described above; `mode` is a new file's (a
// replaced one keeps its own, made private too if `mode` is; a device keeps its own).
void write_file(const std::string& path, std::string_view content, mode_t mode = default_file_mode());

// A file written in pieces, possibly out of order (fd() takes pwrite), and
// published only by commit(). Destroyed uncommitted, it leaves `path`
// untouched and no temporary file behind. For in-place targets the content
// is staged in an unlinked file under TMPDIR and copied at commit().
class OutputFile {
public:
    OutputFile(const std::string& path, mode_t mode);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    int fd() const { return fd_.get(); }
    const std::string& path() const { return path_; }
    void commit();
    // Closes and removes the temporary file, then throws "cannot write PATH: what: strerror(err)".
    [[noreturn]] void fail(const char* what, int err);

private:
    void discard() noexcept;

    std::string path_;  // as the caller named it, for messages
    OutputTarget target_;
    std::string temp_;  // the named temporary file beside the target, when replacing
    Fd fd_;
};

// 0, or the errno of fsync'ing the directory holding `path` (filesystems
// that cannot fsync a directory count as success).
int fsync_parent_dir(const std::string& path);

} // namespace eb::sys
