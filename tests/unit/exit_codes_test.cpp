// Exit codes by error type: every error is typed where it arises.
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "history/store.h"
#include "kvm/error.h"
#include "profile/trace_file.h"
#include "result/json.h"
#include "sys/error.h"
#include "sys/io.h"
#include "tests/temp_dir.h"

using namespace eb;

// Errors are typed where they arise; the command line maps the types, and
// anything untyped is a bug, not the user's input or the host.
TEST(ExitCodes, ErrorsMapByTheirType) {
    auto rc = [](auto thrown) { return cli::run_guarded([&]() -> int { throw thrown; }); };
    EXPECT_EQ(rc(cli::UsageError("x")), cli::kUsage);
    EXPECT_EQ(rc(InputError("x")), cli::kUsage);
    EXPECT_EQ(rc(HostError("x")), cli::kHost);
    EXPECT_EQ(rc(kvm::Error("KVM_RUN", EINTR)), cli::kHost);
    EXPECT_EQ(rc(history::StoreError("x")), cli::kHost);
    EXPECT_EQ(rc(std::bad_alloc()), cli::kHost);
    EXPECT_EQ(rc(std::runtime_error("an untyped error")), cli::kInternal);
    EXPECT_EQ(rc(std::logic_error("a broken precondition")), cli::kInternal);
    EXPECT_EQ(cli::run_guarded([] { return 4; }), 4);
}

// The readers say what is wrong with their input as InputError (exit 2), and
// a failing read of the host as HostError (exit 3).
TEST(ExitCodes, ReadersThrowTheInputError) {
    test::TempDir tmp;
    std::ofstream(tmp.path("bad.json")) << "{\"schema\": \"exitbench-run\", \"schema_version\": 999}";
    std::ofstream(tmp.path("bad.ebt")) << "not a trace";
    EXPECT_THROW(sys::read_regular(tmp.path("missing")), InputError);
    EXPECT_THROW(sys::read_regular(tmp.dir().string()), InputError);
    EXPECT_THROW(cli::load_result(tmp.path("bad.json"), ""), InputError);
    EXPECT_THROW(profile::read_trace(tmp.path("bad.ebt")), InputError);
    std::istringstream broken("{");
    EXPECT_THROW(result::parse_document(broken, "x.json"), InputError);
}
