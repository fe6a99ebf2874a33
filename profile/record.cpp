#include "profile/record.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <utility>

// libtracefs 1.6's header passes a literal 0 for an enum in an inline
// function (tracefs_hist_start), which C++ rejects. This overload, declared
// first, takes that int; it is the only call that could match it.
struct tracefs_instance;
struct tracefs_hist;
static int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command);
extern "C" {
#include <tracefs/tracefs.h>
}
static int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command) {
    return tracefs_hist_command(instance, hist, static_cast<enum tracefs_hist_command>(command));
}

#include "sys/error.h"

namespace eb::profile {

namespace fs = std::filesystem;

const std::vector<std::string>& recorded_tracepoints() {
    static const std::vector<std::string> t = {"kvm_exit", "kvm_entry", "kvm_mmio", "kvm_pio",
                                               "kvm_msr", "kvm_userspace_exit", "kvm_emulate_insn"};
    return t;
}

void check_pid_is_kvm(int pid) {
    fs::path fd = fmt::format("/proc/{}/fd", pid);
    std::error_code ec;
    if (!fs::exists(fmt::format("/proc/{}", pid), ec)) throw InputError(fmt::format("no process {}", pid));
    for (const auto& e : fs::directory_iterator(fd, ec)) {
        auto target = fs::read_symlink(e.path(), ec);
        if (!ec && target.string().find("kvm-vm") != std::string::npos) return;
    }
    if (ec) throw HostError(fmt::format("cannot inspect process {}: {}", pid, ec.message()));
    throw InputError(fmt::format("process {} has no KVM VM open", pid));
}

namespace {

std::atomic<int> g_active{0};  // Recorders holding an instance; read by signal handlers

constexpr std::string_view kInstancePrefix = "exitbench-";

// The PID in "exitbench-PID", or 0 for any other name.
int instance_pid(std::string_view name) {
    if (name.substr(0, kInstancePrefix.size()) != kInstancePrefix) return 0;
    auto digits = name.substr(kInstancePrefix.size());
    int pid = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    return ec == std::errc() && end == digits.data() + digits.size() && pid > 0 ? pid : 0;
}

// Alive as seen from our PID namespace. Our own PID counts only once we hold
// an instance: before that, one with our name was left by a dead process.
bool instance_owner_alive(int pid) {
    if (pid == getpid()) return g_active.load() > 0;
    return kill(pid, 0) == 0 || errno == EPERM;
}

// Tracing off and kvm events off before the rmdir, so the host stops paying
// for them even if the rmdir fails.
int destroy_instance(tracefs_instance* inst) {
    tracefs_trace_off(inst);
    tracefs_event_disable(inst, nullptr, nullptr);
    errno = 0;
    int r = tracefs_instance_destroy(inst);
    int e = errno;
    tracefs_instance_free(inst);
    errno = e;
    return r;
}

std::vector<int> threads_of(int pid) {
    std::vector<int> tids;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/task", pid), ec))
        tids.push_back(std::stoi(e.path().filename().string()));
    return tids;
}

// Field handles resolved once per event id, so the hot path reads numbers only.
struct Fields {
    EventType type{};
    tep_format_field *a = nullptr, *b = nullptr, *vcpu = nullptr, *flags = nullptr, *isa = nullptr;
};

// The one tracepoint outside the kvm system: a host page fault taken in
// kernel mode (a software backend's emulator touching guest memory).
const char* system_of(const std::string& tracepoint) {
    return tracepoint == "page_fault_kernel" ? "exceptions" : "kvm";
}

std::string read_tracefs(const std::string& path) {
    std::ifstream f(path);  // tracefs sizes its files 0: read to the end
    std::string s;
    if (f) s.assign(std::istreambuf_iterator<char>(f), {});
    return s;
}

// The formats of the wanted tracepoints only. tracefs_local_events_system
// also loads every event of the systems and /proc/kallsyms, saved_cmdlines
// and printk_formats, which nothing here prints: under ASan that took seconds
// per recording (kallsyms grown by realloc), most of the sanitizer job's time.
tep_handle* load_formats(const char* dir, const std::vector<std::string>& wanted) {
    std::string header = read_tracefs(fmt::format("{}/events/header_page", dir));
    if (header.empty()) return nullptr;
    tep_handle* tep = tep_alloc();
    if (!tep) throw std::bad_alloc();
    tep_parse_header_page(tep, header.data(), header.size(), sizeof(long));
    for (const auto& t : wanted) {
        // A tracepoint this kernel lacks has no format file: it is listed as missing.
        std::string format = read_tracefs(fmt::format("{}/events/{}/{}/format", dir, system_of(t), t));
        if (!format.empty()) tep_parse_event(tep, format.data(), format.size(), system_of(t));
    }
    return tep;
}

uint64_t num(tep_format_field* f, tep_record* r) {
    unsigned long long v = 0;
    if (f) tep_read_number_field(f, r->data, &v);
    return v;
}

} // namespace

struct Recorder::Impl {
    RecordOptions opt;
    tracefs_instance* inst = nullptr;
    tep_handle* tep = nullptr;
    std::map<int, Fields> fields;      // by event id
    std::map<uint32_t, uint32_t> vcpu_of;  // tid -> last vcpu seen on kvm_entry/kvm_exit
    std::unique_ptr<TraceWriter> writer;
    RecordResult result;
    bool started = false;
    std::exception_ptr failure;  // thrown by an event handler, for drain()

    ~Impl() {
        if (inst) {
            destroy_instance(inst);
            g_active.fetch_sub(1);
        }
        if (tep) tep_free(tep);
    }

    // An exception must not unwind through libtracefs: it would leave the
    // per-CPU buffers open, and the instance could not be removed (EBUSY).
    // Stop the iteration and rethrow in drain().
    static int on_event(tep_event* ev, tep_record* rec, int cpu, void* ctx) {
        auto* self = static_cast<Impl*>(ctx);
        try {
            self->handle(ev, rec, cpu);
            return 0;
        } catch (...) {
            self->failure = std::current_exception();
            return 1;
        }
    }

    Fields& fields_for(tep_event* ev) {
        auto it = fields.find(ev->id);
        if (it != fields.end()) return it->second;
        Fields f;
        std::string n = ev->name;
        auto fld = [&](const char* name) { return tep_find_field(ev, name); };
        if (n == "kvm_exit") f = {EventType::Exit, fld("exit_reason"), fld("guest_rip"), fld("vcpu_id"), nullptr, fld("isa")};
        else if (n == "kvm_entry") f = {EventType::Entry, fld("rip"), nullptr, fld("vcpu_id")};
        else if (n == "kvm_mmio") f = {EventType::Mmio, fld("gpa"), fld("type"), nullptr, fld("len")};
        else if (n == "kvm_pio") f = {EventType::Pio, fld("port"), fld("rw"), nullptr, fld("size")};
        else if (n == "kvm_msr") f = {EventType::Msr, fld("ecx"), fld("write")};
        else if (n == "kvm_userspace_exit") f = {EventType::UserspaceExit, fld("reason")};
        else if (n == "kvm_emulate_insn") f = {EventType::EmulateInsn, fld("rip"), fld("failed")};
        else if (n == "page_fault_kernel") f = {EventType::HostFault, fld("address"), fld("error_code")};
        else if (n == "kvm_cpuid") f = {EventType::Cpuid, fld("function"), fld("index")};
        else if (n == "kvm_apic_ipi") f = {EventType::ApicIpi, fld("icr_low"), fld("dest_id")};
        else if (n == "kvm_apic_accept_irq") f = {EventType::AcceptIrq, fld("vec"), fld("apicid")};
        return fields.emplace(ev->id, f).first->second;
    }

    void emit(const Event& e) {
        if (opt.sink) opt.sink(e);
        else writer->add(e);
    }

    void handle(tep_event* ev, tep_record* rec, int cpu) {
        Fields& f = fields_for(ev);
        if (f.type == EventType{}) return;
        uint32_t tid = static_cast<uint32_t>(tep_data_pid(tep, rec));
        if (rec->missed_events) {
            Event lost{};
            lost.ts_ns = rec->ts;
            lost.cpu = static_cast<uint16_t>(cpu);
            lost.type = EventType::Lost;
            lost.a = rec->missed_events > 0 ? static_cast<uint64_t>(rec->missed_events) : 1;
            emit(lost);
        }
        Event e{};
        e.ts_ns = rec->ts;
        e.tid = tid;
        e.cpu = static_cast<uint16_t>(cpu);
        e.type = f.type;
        e.a = num(f.a, rec);
        e.b = num(f.b, rec);
        if (f.flags) e.flags = static_cast<uint8_t>(num(f.flags, rec));
        if (f.type == EventType::Exit && f.isa) e.flags = num(f.isa, rec) == 2 ? 1 : 0;  // KVM_ISA_SVM
        if (f.vcpu) vcpu_of[tid] = static_cast<uint32_t>(num(f.vcpu, rec));
        auto v = vcpu_of.find(tid);
        e.vcpu = v == vcpu_of.end() ? 0 : v->second;
        emit(e);
        ++result.events;
    }

    void drain() {
        int r = tracefs_iterate_raw_events(tep, inst, nullptr, 0, on_event, this);
        if (failure) std::rethrow_exception(std::exchange(failure, nullptr));
        if (r < 0) throw HostError("reading the trace buffer failed");
    }

    uint64_t overruns() {
        uint64_t total = 0;
        for (int c = 0; c < 4096; ++c) {
            char* text = tracefs_instance_file_read(inst, fmt::format("per_cpu/cpu{}/stats", c).c_str(), nullptr);
            if (!text) break;
            const char* p = std::strstr(text, "overrun:");
            if (p) total += std::strtoull(p + 8, nullptr, 10);
            free(text);
        }
        return total;
    }
};

Sweep sweep_stale_instances() {
    if (!tracefs_tracing_dir()) throw HostError("tracefs is not mounted and could not be mounted (need root)");
    std::vector<std::string> names;
    auto collect = [](const char* name, void* ctx) {
        static_cast<std::vector<std::string>*>(ctx)->push_back(name);
        return 0;
    };
    tracefs_instances_walk(collect, &names);
    Sweep s;
    for (const auto& name : names) {
        int pid = instance_pid(name);
        if (!pid || instance_owner_alive(pid)) continue;
        tracefs_instance* inst = tracefs_instance_alloc(nullptr, name.c_str());
        if (!inst) {
            s.failed.push_back(name + ": " + std::strerror(errno));
        } else if (destroy_instance(inst) == 0) {
            s.removed.push_back(name);
        } else if (errno != ENOENT) {  // ENOENT: another exitbench swept it meanwhile
            s.failed.push_back(name + ": " + std::strerror(errno));
        }
    }
    return s;
}

bool instance_active() { return g_active.load() > 0; }

Recorder::Recorder(RecordOptions opt) : impl_(std::make_unique<Impl>()) {
    impl_->opt = std::move(opt);
    auto& im = *impl_;
    const char* dir = tracefs_tracing_dir();
    if (!dir) throw HostError("tracefs is not mounted and could not be mounted (need root)");
    if (access(dir, W_OK) != 0)
        throw HostError(fmt::format("no permission to use {} (run as root, or with CAP_PERFMON and "
                                             "access to tracefs)", dir));
    if (im.opt.require_kvm)
        for (int pid : im.opt.pids) check_pid_is_kvm(pid);
    const auto& wanted = im.opt.tracepoints.empty() ? recorded_tracepoints() : im.opt.tracepoints;
    im.tep = load_formats(dir, wanted);
    if (!im.tep) throw HostError(fmt::format("cannot read {}/events/header_page", dir));
    for (const auto& t : wanted)
        (tep_find_event_by_name(im.tep, system_of(t), t.c_str()) ? im.result.available : im.result.missing).push_back(t);
    if (im.result.available.empty()) throw HostError("this kernel has none of the kvm tracepoints");
    auto swept = sweep_stale_instances();
    for (const auto& n : swept.removed)
        fmt::print(stderr, "exitbench: removed the ftrace instance {}: its process no longer runs\n", n);
    for (const auto& f : swept.failed)
        fmt::print(stderr, "exitbench: warning: cannot remove the stale ftrace instance {}\n", f);
    std::string name = fmt::format("{}{}", kInstancePrefix, getpid());
    // Counted as active before it exists: a second signal that arrives while
    // the directory is being made must wait for its removal, not exit past it.
    g_active.fetch_add(1);
    tracefs_instance* inst = tracefs_instance_create(name.c_str());
    if (!inst) {
        int e = errno;
        g_active.fetch_sub(1);
        throw HostError("cannot create the ftrace instance " + name + ": " + std::strerror(e));
    }
    if (!tracefs_instance_is_new(inst)) {
        // Created by someone else since the sweep: never share it.
        tracefs_instance_free(inst);
        g_active.fetch_sub(1);
        throw HostError("the ftrace instance " + name + " already exists and is not ours (an exitbench "
                                 "in another PID namespace?)");
    }
    im.inst = inst;
}

// Out of line: Impl is complete only here.
Recorder::~Recorder() = default;

void Recorder::start() {
    auto& im = *impl_;
    TraceHeader h;
    h.isa = im.opt.isa;
    h.backend = im.opt.backend;
    h.cpu_model = im.opt.cpu_model;
    h.tracepoints = im.result.available;
    for (int p : im.opt.pids) h.pids.push_back(static_cast<uint32_t>(p));
    if (!im.opt.sink) im.writer = std::make_unique<TraceWriter>(im.opt.out, h);
    auto write = [&](const char* file, const std::string& v) {
        if (tracefs_instance_file_write(im.inst, file, v.c_str()) < 0)
            throw HostError(fmt::format("cannot write {} in the ftrace instance", file));
    };
    write("buffer_size_kb", std::to_string(im.opt.buffer_kb));
    tracefs_instance_file_write(im.inst, "trace_clock", "mono");  // comparable with CLOCK_MONOTONIC
    if (!im.opt.pids.empty()) {
        // Filter in the kernel: every current thread, and threads created later.
        std::string tids;
        for (int p : im.opt.pids)
            for (int t : threads_of(p)) tids += std::to_string(t) + " ";
        write("set_event_pid", tids);
        tracefs_option_enable(im.inst, TRACEFS_OPTION_EVENT_FORK);
    }
    auto& avail = im.result.available;
    for (const auto& [event, filter] : im.opt.filters)
        if (std::find(avail.begin(), avail.end(), event) != avail.end() &&
            tracefs_event_file_write(im.inst, system_of(event), event.c_str(), "filter", filter.c_str()) < 0)
            throw HostError(fmt::format("cannot set the filter '{}' on kvm:{}", filter, event));
    for (const auto& t : im.result.available)
        if (tracefs_event_enable(im.inst, system_of(t), t.c_str()) < 0)
            throw HostError(fmt::format("cannot enable {}:{}", system_of(t), t));
    tracefs_trace_on(im.inst);
    im.started = true;
}

void Recorder::poll() { impl_->drain(); }

RecordResult Recorder::finish() {
    auto& im = *impl_;
    tracefs_trace_off(im.inst);
    im.drain();
    im.result.lost = im.overruns();
    if (im.writer) {
        im.writer->set_lost_events(im.result.lost);
        im.writer->finish();
    }
    return im.result;
}

RecordResult record(const RecordOptions& opt, const std::atomic<bool>& stop, const RecordHooks& hooks) {
    Recorder r(opt);
    r.start();
    if (hooks.on_start) hooks.on_start();
    auto t0 = std::chrono::steady_clock::now();
    while (!stop.load() && !(hooks.done && hooks.done())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        r.poll();
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (opt.duration_s > 0 && el >= opt.duration_s) break;
    }
    return r.finish();
}

} // namespace eb::profile
