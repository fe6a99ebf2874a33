// sys/process.h: the one way a process is started. A held child runs only
// once released and reports a failed exec by errno; fd 3, the program and the
// stdio are what the caller asked for; every end reaps it.
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <sys/mman.h>
#include <unistd.h>

#include "sys/fd.h"
#include "sys/io.h"
#include "sys/process.h"
#include "tests/temp_dir.h"

using namespace eb;

TEST(Process, AHeldChildRunsOnlyOnceReleased) {
    test::TempDir tmp;
    sys::Spawn s{{"sh", "-c", "echo ran > " + tmp.path("ran")}};
    s.held = true;
    sys::Process p(s);
    EXPECT_GT(p.pid(), 0);
    EXPECT_FALSE(p.poll().has_value());  // blocked on its go byte: it cannot have run
    EXPECT_FALSE(std::filesystem::exists(tmp.path("ran")));
    EXPECT_EQ(p.release(), 0);
    auto end = p.wait(60, nullptr);
    EXPECT_TRUE(end.ok()) << end.code;
    EXPECT_EQ(sys::read_regular(tmp.path("ran")), "ran\n");
}

TEST(Process, AHeldChildsFailedExecIsItsErrno) {
    sys::Spawn s{{"/nonexistent-program"}};
    s.held = true;
    sys::Process p(s);
    EXPECT_EQ(p.release(), ENOENT);
    EXPECT_EQ(p.wait(60, nullptr).code, 127);
}

TEST(Process, Fd3AndTheProgramAreWhatTheCallerGave) {
    test::TempDir tmp;
    sys::Fd memfd(::memfd_create("sys-process-test", MFD_CLOEXEC));
    ASSERT_TRUE(memfd.valid());
    sys::Spawn s{{"a-name", "-c", "echo \"$0\" >&3; echo out; echo err >&2"}, "/dev/null", tmp.path("out"),
                 tmp.path("err")};
    s.program = "sh";
    s.fd3 = memfd.get();
    EXPECT_TRUE(sys::run_process(s, 60, nullptr).ok());
    char buf[64] = {};
    ASSERT_GT(::pread(memfd.get(), buf, sizeof buf - 1, 0), 0);
    EXPECT_STREQ(buf, "a-name\n");
    EXPECT_EQ(sys::read_regular(tmp.path("out")), "out\n");
    EXPECT_EQ(sys::read_regular(tmp.path("err")), "err\n");
}

TEST(Process, TerminateAndInterruptEndIt) {
    sys::Process p(sys::Spawn{{"sleep", "30"}});
    auto end = p.terminate();
    EXPECT_EQ(end.signal, SIGTERM);
    EXPECT_FALSE(end.ok());
    std::atomic<bool> stop{true};
    auto e2 = sys::run_process({{"sleep", "30"}}, 0, &stop);
    EXPECT_TRUE(e2.interrupted);
    EXPECT_FALSE(e2.timed_out);
}

TEST(Process, AnUnreleasedChildIsReapedWithItsHandle) {
    pid_t pid;
    {
        sys::Spawn s{{"sleep", "30"}};
        s.held = true;
        s.own_group = false;
        sys::Process p(s);
        pid = p.pid();
    }
    // Reaped by the destructor: no zombie of ours is left to collect.
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);
}

namespace {

// A shell that, on SIGTERM, cleans up for 0.3 s and exits 7; returned once
// its trap is set (the trap comes before the file it makes; a shell that
// died first fails its test, not hangs it).
sys::Spawn trapping_shell(const std::string& ready) {
    return sys::Spawn{{"sh", "-c", "trap 'sleep 0.3; exit 7' TERM; : > " + ready + "; while :; do sleep 0.05; done"}};
}
void await_trap(sys::Process& p, const std::string& ready) {
    while (!std::filesystem::exists(ready) && !p.poll()) usleep(10000);
}

} // namespace

TEST(Process, ASignalLetsTheChildEndItsOwnWay) {
    // Its trap's exit status, not a kill: signal() does not escalate.
    test::TempDir tmp;
    std::string ready = tmp.path("ready");
    sys::Process p(trapping_shell(ready));
    await_trap(p, ready);
    p.signal(SIGTERM);
    auto end = p.wait(60, nullptr);
    EXPECT_EQ(end.code, 7);
    EXPECT_EQ(end.signal, 0);
}

TEST(Process, WaitOutPassesTheStopOnOnceAndWaitsForTheEnd) {
    test::TempDir tmp;
    std::string ready = tmp.path("ready");
    sys::Process p(trapping_shell(ready));
    await_trap(p, ready);
    std::atomic<bool> stop{true};
    auto end = p.wait_out(stop);
    EXPECT_EQ(end.status(), 7);  // its own exit, after its trap's cleanup: no SIGKILL
}
