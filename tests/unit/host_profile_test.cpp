// The host profiler's pure parts: kallsyms parsing and lookup, ring-buffer
// records (synthetic, wrapped around the ring's end), the share -> cost
// conversion with its error, the folded-stack writer, and the table.
#include <cmath>
#include <cstring>
#include <linux/perf_event.h>
#include <sstream>

#include <gtest/gtest.h>

#include "profile/host_profile.h"
#include "profile/host_sampler.h"
#include "profile/perf_ring.h"
#include "profile/symbols.h"
#include "report/flame.h"
#include "report/host_profile_text.h"

namespace eb::profile {
namespace {

TEST(Kallsyms, ModulesAndLookup) {
    std::istringstream in("ffffffff81000000 T _text\n"
                          "ffffffff81001000 t do_thing\n"
                          "ffffffff81002000 D some_data\n"
                          "ffffffffc0a00000 t svm_vcpu_run\t[kvm_amd]\n"
                          "ffffffffc0a00400 t cpuid_interception\t[kvm_amd]\n"
                          "not a line\n");
    auto k = parse_kallsyms(in);
    EXPECT_FALSE(k.hidden);
    EXPECT_EQ(k.table.size(), 4u);  // the data symbol is left out
    ASSERT_NE(k.table.find(0xffffffff81001010), nullptr);
    EXPECT_EQ(k.table.find(0xffffffff81001010)->name, "do_thing");
    // Past the data symbol the previous function still holds (data is not a boundary).
    EXPECT_EQ(k.table.find(0xffffffff81002010)->name, "do_thing");
    EXPECT_EQ(k.table.find(0xffffffffc0a00123)->name, "svm_vcpu_run [kvm_amd]");
    EXPECT_EQ(k.table.find(0xffffffffc0a00400)->name, "cpuid_interception [kvm_amd]");
    EXPECT_EQ(k.table.find(0xffffffff80000000), nullptr);  // before the first symbol
    EXPECT_EQ(k.table.find(0xffffffffc0c00000), nullptr);  // far past the last one
}

TEST(Kallsyms, HiddenAddressesAreSaidSo) {
    std::istringstream in("0000000000000000 T _text\n0000000000000000 t svm_vcpu_run\t[kvm_amd]\n");
    auto k = parse_kallsyms(in);
    EXPECT_TRUE(k.hidden);
    EXPECT_EQ(k.table.size(), 0u);
    Symbolizer s(std::move(k), SymbolTable{}, 0);
    EXPECT_EQ(s.kernel(0xffffffff81000000), "[kernel: names hidden]");
    auto notes = s.notes();
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes[0].find("kptr_restrict"), std::string::npos);
}

TEST(Symbols, SizedSymbolsAndDemangling) {
    SymbolTable t;
    t.add({0x2000, 0x10, demangle("_ZN2eb5suite7Session8on_ucallEv")});
    t.add({0x1000, 0x100, "plain_c"});
    t.sort();
    EXPECT_EQ(t.find(0x1050)->name, "plain_c");
    EXPECT_EQ(t.find(0x1100), nullptr);  // past its size
    EXPECT_EQ(t.find(0x2004)->name, "eb::suite::Session::on_ucall()");
    EXPECT_EQ(demangle("not_mangled"), "not_mangled");
}

TEST(Symbols, OwnElfHasThisTestsFunctions) {
    auto t = read_elf_functions("/proc/self/exe");
    if (t.size() == 0) GTEST_SKIP() << "this test binary is stripped";
    // A function of this (PIE) binary, found through the load bias, demangled.
    auto sym = Symbolizer::for_this_process();
    std::string name = sym.user(reinterpret_cast<uint64_t>(&parse_kallsyms));
    EXPECT_NE(name.find("eb::profile::parse_kallsyms"), std::string::npos) << name;
}

// A sample record as the kernel writes it for kHostSampleType.
std::vector<uint8_t> sample_record(uint16_t misc, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t period,
                                   const std::vector<uint64_t>& chain) {
    std::vector<uint64_t> words{ip, (uint64_t(tid) << 32) | pid, period, chain.size()};
    words.insert(words.end(), chain.begin(), chain.end());
    perf_event_header h{PERF_RECORD_SAMPLE, misc, static_cast<uint16_t>(sizeof h + 8 * words.size())};
    std::vector<uint8_t> out(h.size);
    std::memcpy(out.data(), &h, sizeof h);
    std::memcpy(out.data() + sizeof h, words.data(), 8 * words.size());
    return out;
}

std::vector<uint8_t> lost_record(uint64_t lost) {
    perf_event_header h{PERF_RECORD_LOST, 0, sizeof h + 16};
    std::vector<uint8_t> out(h.size);
    std::memcpy(out.data(), &h, sizeof h);
    uint64_t w[2] = {7, lost};
    std::memcpy(out.data() + sizeof h, w, 16);
    return out;
}

TEST(PerfRing, SampleWithContextsParses) {
    const uint64_t K = static_cast<uint64_t>(PERF_CONTEXT_KERNEL), U = static_cast<uint64_t>(PERF_CONTEXT_USER);
    auto rec = sample_record(PERF_RECORD_MISC_KERNEL, 0xffffffff81000010, 10, 11, 1000000,
                             {K, 0xffffffff81000010, 0xffffffff81000020, U, 0x401000, 0x402000});
    RingCounts c;
    auto s = parse_record(rec, c);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->pid, 10u);
    EXPECT_EQ(s->tid, 11u);
    EXPECT_EQ(s->period, 1000000u);
    EXPECT_EQ(s->mode, CpuMode::Kernel);
    EXPECT_EQ(s->chain, (std::vector<uint64_t>{0xffffffff81000010, 0xffffffff81000020, 0x401000, 0x402000}));
    EXPECT_EQ(s->kernel_frames, 2u);
    EXPECT_EQ(c.samples, 1u);
}

TEST(PerfRing, ShortSampleIsMalformedNotACrash) {
    auto rec = sample_record(PERF_RECORD_MISC_USER, 1, 2, 3, 4, {5, 6, 7});
    // Claim more chain entries than the record holds.
    uint64_t nr = 1000;
    std::memcpy(rec.data() + sizeof(perf_event_header) + 24, &nr, 8);
    RingCounts c;
    EXPECT_FALSE(parse_record(rec, c));
    EXPECT_EQ(c.malformed, 1u);
    EXPECT_FALSE(parse_record(std::span<const uint8_t>(rec.data(), 4), c));
    EXPECT_EQ(c.malformed, 2u);
}

TEST(PerfRing, GuestModeSample) {
    auto rec = sample_record(PERF_RECORD_MISC_GUEST_KERNEL, 0x1000, 1, 1, 1, {});
    RingCounts c;
    auto s = parse_record(rec, c);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->mode, CpuMode::GuestKernel);
    EXPECT_TRUE(s->chain.empty());
}

// Records written into a 256-byte ring from a free-running offset, so the
// third one wraps around the end; a LOST record is counted; a half-written
// record at the head is left for later.
TEST(PerfRing, ReadsAcrossTheWrapAndCountsLost) {
    std::vector<uint8_t> ring(256, 0xee);
    uint64_t head = 1000;  // 1000 % 256 = 232: the first record already wraps
    const uint64_t tail0 = head;
    auto put = [&](const std::vector<uint8_t>& r) {
        for (size_t i = 0; i < r.size(); ++i) ring[(head + i) % ring.size()] = r[i];
        head += r.size();
    };
    put(sample_record(PERF_RECORD_MISC_KERNEL, 0xa, 1, 2, 3, {0xa, 0xb}));
    put(lost_record(5));
    put(sample_record(PERF_RECORD_MISC_USER, 0xc, 1, 2, 3, {0xc}));
    RingCounts c;
    std::vector<uint64_t> ips;
    auto tail = read_ring(ring, tail0, head, [&](std::span<const uint8_t> r) {
        if (auto s = parse_record(r, c)) ips.push_back(s->ip);
    });
    EXPECT_EQ(tail, head);
    EXPECT_EQ(ips, (std::vector<uint64_t>{0xa, 0xc}));
    EXPECT_EQ(c.lost, 5u);
    // A header claiming more bytes than written stops the reader before it.
    auto torn = sample_record(PERF_RECORD_MISC_USER, 0xd, 1, 2, 3, {0xd});
    put(std::vector<uint8_t>(torn.begin(), torn.begin() + 8));
    EXPECT_EQ(read_ring(ring, tail, head, [](auto) { FAIL(); }), tail);
}

TEST(HostProfileShares, ConversionAndError) {
    auto e = share_of(25, 100, 400.0);
    EXPECT_DOUBLE_EQ(e.value, 100.0);
    EXPECT_NEAR(e.error, std::sqrt(0.25 * 0.75 / 100) * 400.0, 1e-12);  // 17.32
    EXPECT_DOUBLE_EQ(share_of(100, 100, 400.0).error, 0.0);
    EXPECT_DOUBLE_EQ(share_of(0, 0, 400.0).value, 0.0);
}

TEST(HostProfileShares, SelfAndChildrenCountOncePerSample) {
    TestHostProfile p;
    p.test = "cpuid";
    p.add({"entry", "run", "handler"}, 3);
    p.add({"entry", "run"}, 1);
    p.add({"entry", "recurse", "recurse"}, 2);  // recursion counts once in total
    auto shares = function_shares(p);
    ASSERT_EQ(shares[0].name, "entry");
    EXPECT_EQ(shares[0].total, 6u);
    EXPECT_EQ(shares[0].self, 0u);
    uint64_t self_sum = 0;
    for (const auto& s : shares) {
        self_sum += s.self;
        if (s.name == "recurse") {
            EXPECT_EQ(s.total, 2u);
            EXPECT_EQ(s.self, 2u);
        }
        if (s.name == "run") {
            EXPECT_EQ(s.total, 4u);
        }
    }
    EXPECT_EQ(self_sum, p.samples);  // the self column adds up to the whole
}

TEST(HostProfileFolded, FormatAndEscapes) {
    TestHostProfile a, b;
    a.test = "cpuid";
    a.add({"entry_SYSCALL_64", "svm_vcpu_run [kvm_amd]"}, 7);
    a.add({kGuestFrame}, 2);
    b.test = "odd;name";
    b.add({"f;g\nh"}, 1);
    EXPECT_EQ(folded_stacks({a, b}), "cpuid;[guest] 2\n"
                                     "cpuid;entry_SYSCALL_64;svm_vcpu_run [kvm_amd] 7\n"
                                     "odd:name;f:g h 1\n");
}

TEST(HostProfileText, FiguresFromSharesAndOverhead) {
    TestHostProfile p;
    p.test = "cpuid";
    p.frequency_hz = 1000;
    p.threads = 1;
    p.add({"a", "b"}, 75);
    p.add({"a"}, 25);
    p.sampled = {2, 2000, 2000.0 * 1000};  // 1000 cycles per iteration
    p.plain = {2, 2000, 2000.0 * 990};
    auto out = report::render_host_profile({p}, {"a note"}, 1000.0);  // 1 GHz: 1 cycle = 1 ns
    EXPECT_NE(out.find("sampling overhead +1.01%"), std::string::npos) << out;
    // b: 75 of 100 samples of 1000 ns, error sqrt(.75*.25/100)*1000 = 43.3
    EXPECT_NE(out.find("750.0 ±43.3"), std::string::npos) << out;
    EXPECT_NE(out.find("1000.0 ±0.0"), std::string::npos) << out;  // a, with children
    EXPECT_NE(out.find("note: a note"), std::string::npos);
}

TEST(HostProfileFlame, TreeSumsAndPrunes) {
    TestHostProfile p;
    p.test = "cpuid";
    p.add({"a", "b"}, 600);
    p.add({"a", "c"}, 399);
    p.add({"z"}, 1);  // 0.1% of 1000: kept at the default threshold, dropped at 1%
    auto t = report::flame_tree(p);
    EXPECT_EQ(t["name"], "cpuid");
    EXPECT_EQ(t["value"], 1000);
    ASSERT_EQ(t["children"].size(), 2u);
    EXPECT_EQ(t["children"][0]["name"], "a");
    EXPECT_EQ(t["children"][0]["value"], 999);
    EXPECT_EQ(t["children"][0]["children"][0]["name"], "b");  // name order, as flamegraph.pl
    EXPECT_EQ(t["children"][0]["children"][1]["value"], 399);
    EXPECT_EQ(report::flame_tree(p, 0.01)["children"].size(), 1u);
}

TEST(HostSampler, OpenErrorsNameTheCause) {
    auto t = open_error_text(EACCES, "2");
    EXPECT_NE(t.find("perf_event_paranoid is 2"), std::string::npos) << t;
    EXPECT_EQ(t.find('\n'), std::string::npos);
    EXPECT_NE(open_error_text(ENOENT, "2").find("no cpu-clock"), std::string::npos);
    EXPECT_NE(open_error_text(ENODEV, "2").find("no cpu-clock"), std::string::npos);
}

} // namespace
} // namespace eb::profile
