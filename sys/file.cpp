#include "sys/error.h"
#include "sys/file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "sys/io.h"

namespace eb::sys {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw HostError("cannot write " + path + ": " + why);
}

[[noreturn]] void fail_errno(const std::string& path, const char* what, int err) {
    refuse(path, std::string(what) + ": " + std::strerror(err));
}

fs::path parent_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// /proc/PID/fd/N (also reached as /dev/fd/N or /dev/stdout) names a
// descriptor some process already holds open: its file must not be replaced.
// Canonical, so: /proc/PID/fd or /proc/PID/task/TID/fd.
bool is_fd_dir(const fs::path& dir) {
    std::vector<std::string> parts;
    for (const auto& part : dir.relative_path()) parts.push_back(part.string());
    bool task = parts.size() == 5 && parts[2] == "task";
    return dir.is_absolute() && (parts.size() == 3 || task) && parts.front() == "proc" && parts.back() == "fd";
}

bool is_fd_link(const fs::path& p) {
    std::error_code ec;
    fs::path dir = fs::canonical(parent_of(p), ec);
    return !ec && is_fd_dir(dir);
}

// The descriptor an fd link of this very process names, else -1.
int own_fd(const fs::path& p) {
    std::error_code ec;
    fs::path dir = fs::canonical(parent_of(p), ec);
    if (ec || dir != fs::path("/proc/" + std::to_string(::getpid()) + "/fd")) return -1;
    std::string n = p.filename().string();
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(n);
}

// Follows a chain of symlinks to the fd link it passes through, if any.
std::optional<fs::path> through_fd_link(fs::path p) {
    for (int hop = 0; hop < 40; ++hop) {
        std::error_code ec;
        if (is_fd_link(p)) return p;
        if (!fs::is_symlink(fs::symlink_status(p, ec))) return std::nullopt;
        fs::path t = fs::read_symlink(p, ec);
        if (ec) return std::nullopt;
        p = t.is_absolute() ? t : parent_of(p) / t;
    }
    return std::nullopt;
}

std::string fmt_planted(bool link, uid_t owner, const std::string& folder) {
    return std::string(link ? "a symlink" : "a file") + " of another user (uid " + std::to_string(owner) + ") in " +
           folder + ", a folder others can write to; not " + (link ? "following" : "replacing") + " it";
}

const char* kind_name(fs::file_type t) {
    switch (t) {
    case fs::file_type::directory: return "it is a directory";
    case fs::file_type::socket: return "it is a socket";
    case fs::file_type::block: return "it is a block device";
    default: return "it is not a regular file, character device or FIFO";
    }
}

bool streamable(fs::file_type t) { return t == fs::file_type::character || t == fs::file_type::fifo; }

// A name in a folder others can write to (a sticky /tmp, a group's share)
// may have been planted there: a link or file another user owns is neither
// followed nor replaced, or root's export would land where that user points
// it (whatever fs.protected_symlinks says). An absent name is safe: the
// temporary file and the rename make it ours.
void refuse_planted(const std::string& path) {
    struct stat name {}, dir {};
    if (::lstat(path.c_str(), &name) < 0 || name.st_uid == ::geteuid()) return;
    std::string folder = parent_of(path).string();
    if (::stat(folder.c_str(), &dir) < 0 || !(dir.st_mode & (S_IWGRP | S_IWOTH))) return;
    refuse(path, fmt_planted(S_ISLNK(name.st_mode), name.st_uid, folder));
}

} // namespace

OutputTarget resolve_output(const std::string& path) {
    if (path.empty()) refuse(path, "empty path");
    refuse_planted(path);
    std::error_code ec;
    fs::file_status link = fs::symlink_status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) refuse(path, ec.message());
    if (!fs::exists(link)) return {path, OutputKind::Replace};
    fs::file_status st = fs::status(path, ec);  // follows symlinks
    bool symlink = fs::is_symlink(link);
    if (symlink && !fs::exists(st)) refuse(path, "it is a symlink to a missing file");
    if (fs::is_directory(st)) refuse(path, kind_name(st.type()));
    if (auto link = symlink ? through_fd_link(path) : std::nullopt)
        return {path, OutputKind::InPlace, own_fd(*link)};
    if (streamable(st.type())) return {path, OutputKind::InPlace};
    if (!fs::is_regular_file(st)) refuse(path, kind_name(st.type()));
    if (!symlink) return {path, OutputKind::Replace};
    fs::path real = fs::canonical(path, ec);
    if (ec) refuse(path, ec.message());
    return {real.string(), OutputKind::Replace};
}

mode_t default_file_mode() {
    mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

namespace {

// A temporary file beside `target`, 0600 as mkstemp makes it.
Fd make_temp(const std::string& path, const std::string& target, std::string& name) {
    fs::path p(target);
    fs::path dir = parent_of(p);
    name = (dir / ("." + p.filename().string() + ".XXXXXX")).string();
    Fd fd(::mkstemp(name.data()));
    if (!fd.valid() && errno == ENOENT) refuse(path, "directory " + dir.string() + " does not exist");
    if (!fd.valid()) fail_errno(path, "create a temporary file", errno);
    return fd;
}

// Opens a device, FIFO or open descriptor for writing where it is. A FIFO
// nobody reads is refused rather than waited on forever. One of this
// process's own descriptors is dup'ed: what is written next to it (stdout's
// table after the export) follows in the same file, at the same offset.
Fd open_in_place(const std::string& path, const OutputTarget& t) {
    if (t.own_fd >= 0) {
        Fd fd(::fcntl(t.own_fd, F_DUPFD_CLOEXEC, 0));
        if (!fd.valid()) fail_errno(path, "dup", errno);
        return fd;
    }
    const std::string& target = t.path;
    // A device named directly is opened as it was checked: a link swapped in meanwhile is not followed.
    int nofollow = fs::is_symlink(fs::symlink_status(path)) ? 0 : O_NOFOLLOW;
    Fd fd(::open(target.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | nofollow));
    if (!fd.valid() && errno == ENXIO && fs::is_fifo(target)) refuse(path, "it is a FIFO that no process is reading");
    if (!fd.valid()) fail_errno(path, "open", errno);
    int fl = ::fcntl(fd.get(), F_GETFL);
    if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK) < 0) fail_errno(path, "fcntl", errno);
    return fd;
}

// A replaced file keeps its mode and group (a 0640 root:adm report stays
// readable by adm only); the new file's group is set here, its mode returned.
// A private `mode` (no group or other bits, a trace's 0600) keeps it private.
mode_t keep_existing(int fd, const std::string& target, mode_t mode) {
    struct stat st {};
    if (::stat(target.c_str(), &st) < 0 || !S_ISREG(st.st_mode)) return mode;
    if (st.st_gid != ::getegid() && ::fchown(fd, static_cast<uid_t>(-1), st.st_gid) < 0) return mode;
    mode_t kept = st.st_mode & 07777;
    return (mode & 077) == 0 ? kept & ~mode_t(077) : kept;
}

} // namespace

void check_writable(const std::string& path) {
    OutputTarget t = resolve_output(path);
    if (t.kind == OutputKind::InPlace) {
        if (::access(t.path.c_str(), W_OK) < 0) fail_errno(path, "access", errno);
        return;
    }
    std::string name;
    Fd fd = make_temp(path, t.path, name);
    ::unlink(name.c_str());
}

void write_file(const std::string& path, std::string_view content, mode_t mode) {
    OutputTarget t = resolve_output(path);
    if (t.kind == OutputKind::InPlace) {
        Fd fd = open_in_place(path, t);
        if (int e = write_all(fd.get(), content)) fail_errno(path, "write", e);
        if (::close(fd.release()) < 0) fail_errno(path, "close", errno);
        return;
    }
    OutputFile f(path, mode);
    if (int e = write_all(f.fd(), content)) f.fail("write", e);
    f.commit();
}

OutputFile::OutputFile(const std::string& path, mode_t mode) : path_(path), target_(resolve_output(path)) {
    if (target_.kind == OutputKind::Replace) {
        fd_ = make_temp(path, target_.path, temp_);
        if (::fchmod(fd_.get(), keep_existing(fd_.get(), target_.path, mode)) < 0) fail("fchmod", errno);
        return;
    }
    // Staged where a partial result harms nobody: an unlinked temporary file.
    std::string name = (fs::temp_directory_path() / "exitbench-out.XXXXXX").string();
    fd_.reset(::mkstemp(name.data()));
    if (!fd_.valid()) fail_errno(path, "create a staging file", errno);
    ::unlink(name.c_str());
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
    fd_.reset();
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
}

void OutputFile::fail(const char* what, int err) {
    discard();
    fail_errno(path_, what, err);
}

namespace {

// Copies a staged file into the in-place target.
int copy_from_start(int from, int to) {
    char buf[64 * 1024];
    for (off_t off = 0;;) {
        ssize_t n = ::pread(from, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return 0;
        if (int e = write_all(to, buf, static_cast<size_t>(n))) return e;
        off += n;
    }
}

} // namespace

void OutputFile::commit() {
    if (!fd_.valid()) refuse(path_, "already committed or failed");
    if (target_.kind == OutputKind::InPlace) {
        Fd out = open_in_place(path_, target_);
        if (int e = copy_from_start(fd_.get(), out.get())) fail("write", e);
        if (::close(out.release()) < 0) fail("close", errno);
        discard();
        return;
    }
    if (::fsync(fd_.get()) < 0) fail("fsync", errno);
    if (::close(fd_.release()) < 0) fail("close", errno);
    if (::rename(temp_.c_str(), target_.path.c_str()) < 0) fail("rename", errno);
    temp_.clear();
    if (int e = fsync_parent_dir(target_.path)) fail_errno(path_, "fsync its directory", e);
}

int fsync_parent_dir(const std::string& path) {
    Fd fd(::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return errno;
    return ::fsync(fd.get()) < 0 && errno != EINVAL ? errno : 0;
}

} // namespace eb::sys
