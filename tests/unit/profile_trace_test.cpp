#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "profile/trace_file.h"
#include "tests/temp_dir.h"
#include "sys/error.h"

using namespace eb::profile;
namespace fs = std::filesystem;

namespace {

// Each test writes its traces into a fresh directory of its own.
class TraceFileTest : public eb::test::TempDirTest {};

TraceHeader sample_header() {
    TraceHeader h;
    h.isa = "vmx";
    h.backend = "kvm_intel";
    h.cpu_model = "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz";
    h.tracepoints = {"kvm_exit", "kvm_entry", "kvm_mmio", "kvm_pio", "kvm_msr"};
    h.pids = {1234, 5678};
    return h;
}

std::vector<Event> sample_events() {
    std::vector<Event> ev;
    uint64_t ts = 1000;
    for (uint8_t t = kFirstEventType; t <= kLastEventType; ++t)
        for (uint32_t i = 0; i < 3; ++i)
            ev.push_back(Event{ts += 17, 100 + i, i, uint16_t(i % 2), EventType(t), uint8_t(i), 0, 0x1000u + t, i});
    return ev;
}

std::string write_sample(const std::string& p) {
    TraceWriter w(p, sample_header());
    for (const Event& e : sample_events()) w.add(e);
    w.finish();
    return p;
}

std::vector<uint8_t> slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void spit(const std::string& p, const std::vector<uint8_t>& b) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void put32(std::vector<uint8_t>& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put64(std::vector<uint8_t>& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

// Expects read_trace and read_trace_bytes both to reject b with a message
// containing `what`.
void expect_rejected(const std::string& p, const std::vector<uint8_t>& b, const std::string& what) {
    spit(p, b);
    try {
        read_trace(p);
        ADD_FAILURE() << "accepted a file that should fail with: " << what;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    }
    EXPECT_THROW(read_trace_bytes(b), std::runtime_error) << what;
}

bool same(const Event& a, const Event& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

TEST_F(TraceFileTest, RoundTrip) {
    std::string p = write_sample(temp_path("t.ebt"));
    TraceFile t = read_trace(p);
    TraceHeader h = sample_header();
    EXPECT_EQ(t.header.isa, h.isa);
    EXPECT_EQ(t.header.backend, h.backend);
    EXPECT_EQ(t.header.cpu_model, h.cpu_model);
    EXPECT_EQ(t.header.tracepoints, h.tracepoints);
    EXPECT_EQ(t.header.pids, h.pids);
    auto ev = sample_events();
    EXPECT_EQ(t.header.record_count, ev.size());
    ASSERT_EQ(t.events.size(), ev.size());
    for (size_t i = 0; i < ev.size(); ++i) EXPECT_TRUE(same(t.events[i], ev[i])) << i;
    // Lost records carry a = 0x1008 each, three of them.
    EXPECT_EQ(t.header.lost_events, 3u * 0x1008);

    TraceFile u = read_trace_bytes(slurp(p));
    ASSERT_EQ(u.events.size(), ev.size());
    EXPECT_TRUE(same(u.events.back(), ev.back()));
    EXPECT_EQ(u.header.pids, h.pids);
}

TEST_F(TraceFileTest, EmptyTraceAndManyEvents) {
    TraceHeader h;
    {
        TraceWriter w(temp_path("empty.ebt"), h);
        w.finish();
    }
    TraceFile t = read_trace(temp_path("empty.ebt"));
    EXPECT_TRUE(t.events.empty());
    EXPECT_EQ(t.header.isa, "unknown");

    // More than one write buffer's worth.
    TraceWriter w(temp_path("big.ebt"), sample_header());
    for (uint32_t i = 0; i < 200000; ++i) w.add(Event{i, i % 7, 0, 0, EventType(1 + i % 2), 0, 0, i, 0});
    EXPECT_EQ(w.count(), 200000u);
    w.finish();
    TraceFile b = read_trace(temp_path("big.ebt"));
    ASSERT_EQ(b.events.size(), 200000u);
    EXPECT_EQ(b.events[123456].a, 123456u);
    EXPECT_EQ(b.events[199999].tid, 199999u % 7);
}

TEST_F(TraceFileTest, LostCountIsTheLargerOfHeaderAndRecords) {
    TraceHeader h = sample_header();
    h.lost_events = 5;
    {
        TraceWriter w(temp_path("a.ebt"), h);
        w.add(Event{1, 1, 0, 0, EventType::Lost, 0, 0, 3, 0});
        w.finish();
    }
    EXPECT_EQ(read_trace(temp_path("a.ebt")).header.lost_events, 5u);
    {
        TraceWriter w(temp_path("b.ebt"), h);
        w.add(Event{1, 1, 0, 0, EventType::Lost, 0, 0, 30, 0});
        w.finish();
    }
    EXPECT_EQ(read_trace(temp_path("b.ebt")).header.lost_events, 30u);
    {
        TraceWriter w(temp_path("c.ebt"), h);
        w.set_lost_events(99);
        w.finish();
    }
    EXPECT_EQ(read_trace(temp_path("c.ebt")).header.lost_events, 99u);
}

TEST_F(TraceFileTest, UnfinishedWriterLeavesNothing) {
    spit(temp_path("keep.ebt"), {1, 2, 3});
    {
        TraceWriter w(temp_path("keep.ebt"), sample_header());
        w.add(sample_events()[0]);
    }
    EXPECT_EQ(slurp(temp_path("keep.ebt")), (std::vector<uint8_t>{1, 2, 3}));
    {
        TraceWriter w(temp_path("new.ebt"), sample_header());
    }
    EXPECT_FALSE(fs::exists(temp_path("new.ebt")));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir()), fs::directory_iterator()), 1);  // no temp files left
}

TEST_F(TraceFileTest, WriterRejectsWhatNoReaderWouldAccept) {
    TraceHeader h = sample_header();
    h.isa = "arm";
    EXPECT_THROW(TraceWriter(temp_path("x.ebt"), h), eb::InputError);
    h = sample_header();
    h.cpu_model.assign(kMaxTraceString + 1, 'x');
    EXPECT_THROW(TraceWriter(temp_path("x.ebt"), h), eb::InputError);
    h = sample_header();
    h.backend = "kvm\n";
    EXPECT_THROW(TraceWriter(temp_path("x.ebt"), h), eb::InputError);
    TraceWriter w(temp_path("x.ebt"), sample_header());
    Event e = sample_events()[0];
    e.type = EventType(0);
    EXPECT_THROW(w.add(e), eb::InputError);
    e.type = EventType(kLastEventType + 1);
    EXPECT_THROW(w.add(e), eb::InputError);
    w.finish();
    EXPECT_THROW(w.finish(), std::runtime_error);
    EXPECT_THROW(TraceWriter(temp_path("no/such/dir/x.ebt"), sample_header()), std::runtime_error);
}

TEST_F(TraceFileTest, RejectsBadFiles) {
    const std::vector<uint8_t> good = slurp(write_sample(temp_path("good.ebt")));
    std::string p = temp_path("bad.ebt");
    uint32_t header_bytes;
    std::memcpy(&header_bytes, good.data() + 12, 4);

    auto b = good;
    b[0] = 'X';
    expect_rejected(p, b, "bad magic");
    expect_rejected(p, {}, "empty file");
    expect_rejected(p, {'E', 'L', 'F'}, "bad magic");
    expect_rejected(p, {good.begin(), good.begin() + 20}, "truncated header");

    b = good;
    put32(b, 8, 2);
    expect_rejected(p, b, "unsupported trace version 2");
    b = good;
    put32(b, 16, 48);
    expect_rejected(p, b, "record size 48");
    b = good;
    put32(b, 20, 1);
    expect_rejected(p, b, "reserved");
    b = good;
    put32(b, 12, 12);
    expect_rejected(p, b, "bad header size");
    b = good;
    put32(b, 12, 1u << 30);
    expect_rejected(p, b, "bad header size");
    b = good;
    put32(b, 12, header_bytes + 8);
    expect_rejected(p, b, "does not match its fields");
    expect_rejected(p, {good.begin(), good.begin() + header_bytes - 8}, "truncated header");

    // Strings: the isa length field sits at offset 40.
    b = good;
    put32(b, 40, 0x7fffffff);
    expect_rejected(p, b, "isa length 2147483647 exceeds 4096");
    b = good;
    put32(b, 40, 4000);
    expect_rejected(p, b, "runs past the header size");
    b = good;
    b[44] = 'q';  // "vmx" -> "qmx"
    expect_rejected(p, b, "unknown isa 'qmx'");
    b = good;
    b[44] = '\x1b';
    expect_rejected(p, b, "isa is not printable ASCII");

    b = good;
    b.push_back(0);
    expect_rejected(p, b, "truncated last record");
    b = good;
    b.resize(b.size() - 1);
    expect_rejected(p, b, "truncated last record");
    b = good;
    b.resize(b.size() - sizeof(Event));
    expect_rejected(p, b, "does not match the file size");
    b = good;
    put64(b, 24, ~0ull);
    expect_rejected(p, b, "does not match the file size");
    b = good;
    b[header_bytes + 18] = 0;  // the first record's type
    expect_rejected(p, b, "record 0 has unknown event type 0");
    b = good;
    b[header_bytes + 40 + 18] = 200;
    expect_rejected(p, b, "record 1 has unknown event type 200");

    EXPECT_THROW(read_trace(temp_path("missing.ebt")), std::runtime_error);
    EXPECT_THROW(read_trace(dir().string()), std::runtime_error);
}

TEST_F(TraceFileTest, NonZeroPaddingIsRejected) {
    // Fields end at 40 + (4 + 3) + 4 + 4 + 4 + 4 = 63: one byte of padding.
    TraceHeader h;
    h.isa = "vmx";
    {
        TraceWriter w(temp_path("pad.ebt"), h);
        w.finish();
    }
    auto b = slurp(temp_path("pad.ebt"));
    ASSERT_EQ(b.size(), 64u);
    EXPECT_NO_THROW(read_trace_bytes(b));
    b[63] = 1;
    expect_rejected(temp_path("pad.ebt"), b, "non-zero padding");
}

TEST_F(TraceFileTest, EveryTruncationThrows) {
    const std::vector<uint8_t> good = slurp(write_sample(temp_path("good.ebt")));
    ASSERT_GT(good.size(), 100u);
    std::string p = temp_path("cut.ebt");
    for (size_t n = 0; n < good.size(); ++n) {
        std::vector<uint8_t> b(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
        spit(p, b);
        EXPECT_THROW(read_trace(p), std::runtime_error) << "cut at " << n;
        EXPECT_THROW(read_trace_bytes(b), std::runtime_error) << "cut at " << n;
    }
}

TEST_F(TraceFileTest, CorruptBytesNeverCrash) {
    const std::vector<uint8_t> good = slurp(write_sample(temp_path("good.ebt")));
    std::mt19937_64 rng(7);
    size_t accepted = 0;
    for (int i = 0; i < 3000; ++i) {
        auto b = good;
        int flips = 1 + int(rng() % 4);
        for (int f = 0; f < flips; ++f) b[rng() % b.size()] = uint8_t(rng());
        try {
            TraceFile t = read_trace_bytes(b);
            EXPECT_EQ(t.events.size(), t.header.record_count);
            ++accepted;  // e.g. a flipped timestamp: still a valid trace
        } catch (const std::runtime_error&) {
        }
    }
    EXPECT_GT(accepted, 0u);
}

TEST_F(TraceFileTest, TracesAreOwnerOnly) {
    auto path = temp_path("t.trace");
    TraceWriter w(path, {});
    w.finish();
    // With -a a trace holds every VM's exits: 0600 whatever the umask.
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

// A null device of the test's own (root only): written in place, not replaced.
TEST_F(TraceFileTest, ATraceOntoACharacterDeviceIsWrittenNotReplaced) {
    auto node = temp_path("null");
    if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) < 0)
        GTEST_SKIP() << "mknod needs root (and a filesystem without nodev): " << std::strerror(errno);
    TraceWriter w(node, {});
    w.finish();
    EXPECT_TRUE(fs::is_character_file(node));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir()), fs::directory_iterator{}), 1);
}
