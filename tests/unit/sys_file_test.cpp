// sys/file.h: an output path is replaced only when it is a regular file (or
// absent); devices and FIFOs are written in place; the rest is refused.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <cstring>
#include <filesystem>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "sys/file.h"
#include "sys/io.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using namespace eb;

namespace {

class SysFile : public test::TempDirTest {};

std::string read_all(int fd) {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
    return s;
}

std::string read_file(const std::string& path) {
    sys::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    return fd.valid() ? read_all(fd.get()) : "";
}

size_t entries(const fs::path& dir) {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

// A reader already on the FIFO, as `cat fifo &` would be.
sys::Fd fifo_reader(const std::string& path) {
    sys::Fd r(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    int fl = ::fcntl(r.get(), F_GETFL);
    ::fcntl(r.get(), F_SETFL, fl & ~O_NONBLOCK);
    return r;
}

} // namespace

TEST_F(SysFile, FifoWithAReaderIsWrittenInPlace) {
    auto fifo = temp_path("p");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    sys::Fd r = fifo_reader(fifo);
    ASSERT_TRUE(r.valid());
    sys::write_file(fifo, "{\"x\": 1}\n");
    EXPECT_EQ(read_all(r.get()), "{\"x\": 1}\n");
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(entries(dir()), 1u);  // no temporary file left beside it
}

TEST_F(SysFile, FifoWithoutAReaderIsRefusedNotWaitedOn) {
    auto fifo = temp_path("p");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    sys::check_writable(fifo);  // its reader may come later
    try {
        sys::write_file(fifo, "x");
        FAIL() << "wrote to a FIFO nobody reads";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write " + fifo + ": it is a FIFO that no process is reading");
    }
    EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(SysFile, DevNullStaysACharacterDevice) {
    sys::check_writable("/dev/null");
    sys::write_file("/dev/null", "results");
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(st.st_rdev, makedev(1, 3));
}

// A null device of the test's own (root only): replacing it, as renaming over
// it did, harms nothing here, and the test sees it.
TEST_F(SysFile, PrivateCharacterDeviceIsWrittenNotReplaced) {
    auto node = temp_path("null");
    if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) < 0)
        GTEST_SKIP() << "mknod needs root (and a filesystem without nodev): " << std::strerror(errno);
    sys::write_file(node, "results");
    EXPECT_TRUE(fs::is_character_file(node));
    EXPECT_EQ(entries(dir()), 1u);
}

TEST_F(SysFile, SymlinkToARegularFileStaysASymlink) {
    auto real = temp_path("real.json"), link = temp_path("link.json");
    sys::write_file(real, "old");
    fs::create_symlink("real.json", link);
    sys::write_file(link, "new");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(read_file(real), "new");
    EXPECT_EQ(entries(dir()), 2u);
}

TEST_F(SysFile, DescriptorLinksAreWrittenInPlace) {
    // /dev/stdout is a link to /proc/self/fd/1: a pipe there gets the bytes.
    sys::Pipe p = sys::make_pipe();
    auto link = temp_path("stdout");
    fs::create_symlink("/proc/self/fd/" + std::to_string(p.write.get()), link);
    sys::write_file(link, "through the pipe");
    p.write.reset();
    EXPECT_EQ(read_all(p.read.get()), "through the pipe");
    // A regular file held open that way is appended to, not replaced.
    auto out = temp_path("out.txt");
    sys::write_file(out, "table\n");
    sys::Fd held(::open(out.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    struct stat before {}, after {};
    ::fstat(held.get(), &before);
    sys::write_file("/proc/self/fd/" + std::to_string(held.get()), "json\n");
    ASSERT_EQ(::stat(out.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino);
    EXPECT_EQ(read_file(out), "table\njson\n");
    // `run --json /dev/stdout > out.txt`: the export, then the table after it
    // through the same descriptor, neither over the other.
    auto shell = temp_path("shell.txt");
    sys::Fd redirected(::open(shell.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    sys::write_file("/dev/fd/" + std::to_string(redirected.get()), "json\n");
    ASSERT_EQ(sys::write_all(redirected.get(), "table\n"), 0);
    EXPECT_EQ(read_file(shell), "json\ntable\n");
}

TEST_F(SysFile, DirectoriesSocketsAndDanglingLinksAreRefused) {
    auto sock = temp_path("s");
    sys::Fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    ASSERT_EQ(::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    auto dangling = temp_path("dangling");
    fs::create_symlink("missing", dangling);
    const std::pair<std::string, std::string> cases[] = {
        {dir().string(), "it is a directory"}, {sock, "it is a socket"},
        {dangling, "it is a symlink to a missing file"}, {"/dev/loop0", "it is a block device"}};
    for (const auto& [path, why] : cases) {
        if (path == "/dev/loop0" && !fs::is_block_file(path)) continue;
        for (auto write : {+[](const std::string& p) { sys::check_writable(p); },
                           +[](const std::string& p) { sys::write_file(p, "x"); }}) {
            try {
                write(path);
                ADD_FAILURE() << path;
            } catch (const std::runtime_error& e) {
                EXPECT_EQ(std::string(e.what()), "cannot write " + path + ": " + why);
            }
        }
    }
    EXPECT_TRUE(fs::is_socket(sock));
    EXPECT_TRUE(fs::is_symlink(dangling));
    EXPECT_FALSE(fs::exists(temp_path("missing")));
}

TEST_F(SysFile, UncommittedOutputLeavesNothing) {
    auto out = temp_path("t.bin");
    sys::write_file(out, "kept");
    {
        sys::OutputFile f(out, 0600);
        ASSERT_EQ(sys::write_all(f.fd(), "partial"), 0);
    }
    EXPECT_EQ(read_file(out), "kept");
    EXPECT_EQ(entries(dir()), 1u);
}

TEST(SysIo, PwriteAllPatchesInPlace) {
    test::TempDir d;
    sys::OutputFile f(d.path("x"), 0600);
    ASSERT_EQ(sys::write_all(f.fd(), "hello world"), 0);
    ASSERT_EQ(sys::pwrite_all(f.fd(), "W", 1, 6), 0);
    f.commit();
    EXPECT_EQ(read_file(d.path("x")), "hello World");
    EXPECT_EQ(sys::write_all(-1, "x"), EBADF);
}
