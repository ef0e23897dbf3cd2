// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/driver/NvmeDriver.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "vp/core/Calendar.hpp"
#include "vp/core/Payload.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/core/CpuList.hpp"
#include "vp/host/hw/InterruptController.hpp"

namespace vp::host {

using namespace vp::nvme;

namespace {
constexpr uint32_t kPage = 4096;
}

void NvmeDriver::declare_params(const ParamScope& r) {
  r.integer("queue_depth", 1024, "entries of each I/O submission and completion queue").range(2, 65536);
  r.integer("admin_queue_depth", 32, "entries of the admin submission and completion queues")
      .range(2, 4096);
  r.time("poll_interval", "1us",
         "interval at which the driver polls CSTS.RDY during bring-up (after a thousand polls it doubles at each "
         "poll up to 100 ms; the driver gives up after CAP.TO)");
  r.integer("irq_coalescing_threshold", 1,
            "completions per interrupt the driver asks for (Set Features 08h, as nvme-cli set-feature -f 8 "
            "would); 1 = no coalescing")
      .range(1, 256);
  r.time("irq_coalescing_time", "0ns",
         "longest a completion may wait for its interrupt when coalescing (rounded up to 100 us units, at most "
         "25.5 ms)");
  r.choice("dual_sq", "off", {"off", "on"},
           "FlashShare's two SQs per I/O queue on one CQ: SQ q (QPRIO medium, throughput) and SQ N+q (QPRIO "
           "high) for requests with a non-zero workload attribute, with vendor-specific arbitration (CC.AMS = "
           "111b); a controller without it in CAP.AMS gets a warning and one SQ per queue");
  r.choice("completion", "interrupt", {"interrupt", "poll", "hybrid", "select_isr", "dedcore", "xler"},
           "how I/O completions reach the host (FlashShare OSDI'18 sec. 3.4): interrupt (MSI-X, ISR, context "
           "switch back), poll (CQs without interrupts; the submitting core spins until the entry lands), hybrid "
           "(sleep a fraction of the mean completion time, then poll), select_isr (requests with a non-zero "
           "workload attribute poll a per-core poll queue, the others take interrupts), dedcore (a dedicated "
           "core, host.core.poll_core, polls every CQ and wakes the submitting jobs), xler (select_isr plus FlashShare's "
           "I/O-stack accelerator, accel.enabled: requests with a non-zero workload attribute go to it, above "
           "blk-mq, and complete by its interrupt; each core gets a third queue pair, in the accelerator's BAR)");
  r.choice("poll_queues", "off", {"off", "on"},
           "a poll queue pair per core (CQ created without interrupts) besides the interrupt-driven one, for "
           "fio jobs with hipri in interrupt mode (Linux's nvme.poll_queues); select_isr always has them");
  r.string("irq_affinity", "queue",
           "cores taking the I/O queues' interrupts: queue (the vector of core k's queue interrupts core k, as "
           "Linux's managed affinity) or a CPU list (\"0\", \"0,2\", \"1-3\") over which the vectors are spread "
           "round robin in queue order, as writing /proc/irq/N/smp_affinity_list; MSI and INTx go to the first "
           "listed core; the admin vector stays on core 0");
  r.rule([](const ScopedConfig& c) {
    if (c.get_string("irq_affinity") != "queue" && !parse_cpu_list(c.get_string("irq_affinity"), 1023))
      c.fail("irq_affinity", "is neither 'queue' nor a CPU list like 0,2,1-3");
  });
  r.rule([](const ScopedConfig& c) {
    if (c.get_int("irq_coalescing_threshold") > 1 && c.get_time("irq_coalescing_time") == 0)
      c.fail({"irq_coalescing_time", "irq_coalescing_threshold"},
             "a coalescing threshold above 1 needs a coalescing time: the last completions of a run would otherwise "
             "never be signalled");
    if (c.get_time("irq_coalescing_time") > 25500 * US)
      c.fail("irq_coalescing_time", "above 25.5 ms, the most the aggregation time field holds");
  });
}

unsigned NvmeDriver::sq_ids(const ScopedConfig& cfg, unsigned cores) {
  unsigned n = cores;
  return 1 + (cfg.get_switch("dual_sq") ? 2 * n : n) + (separate_poll_queues(cfg) ? n : 0) +
         (completion_from(cfg) == Completion::Xler ? n : 0);
}

NvmeDriver::Completion NvmeDriver::completion_from(const ScopedConfig& cfg) {
  return cfg.get_enum<Completion>("completion", {{"interrupt", Completion::Interrupt},
                                                 {"poll", Completion::Poll},
                                                 {"hybrid", Completion::Hybrid},
                                                 {"select_isr", Completion::SelectIsr},
                                                 {"dedcore", Completion::DedCore},
                                                 {"xler", Completion::Xler}});
}

std::vector<unsigned> NvmeDriver::irq_cpus_from(const ScopedConfig& cfg) {
  std::string a = cfg.get_string("irq_affinity");
  if (a == "queue") return {};
  return parse_cpu_list(a, 1023).value_or(std::vector<unsigned>{});  // validated by the rule above
}

unsigned NvmeDriver::irq_core(unsigned k) const {
  if (irq_mode_ != IrqMode::MsiX) return irq_cpus_.empty() ? 0 : irq_cpus_[0];  // one message address / one pin
  return irq_cpus_.empty() ? k : irq_cpus_[k % irq_cpus_.size()];
}

bool NvmeDriver::separate_poll_queues(const ScopedConfig& cfg) {
  Completion m = completion_from(cfg);
  return m == Completion::SelectIsr || m == Completion::Xler ||
         (m == Completion::Interrupt && cfg.get_switch("poll_queues"));
}

NvmeDriver::NvmeDriver(sc_core::sc_module_name name, Services& svc, InterruptRouting& irqs,
                       HostMemoryAllocator& memory, unsigned cores, uint64_t config, uint64_t bar0,
                       const std::string& scope, const std::string& stat_scope)
    : sc_module(name),
      bus("bus"),
      svc_(svc),
      cfg_(svc.cfg, scope),
      cores_(cores),
      config_(config),
      bar0_(bar0),
      irqs_(irqs),
      io_depth_(static_cast<uint32_t>(cfg_.get_int("queue_depth"))),
      admin_depth_(static_cast<uint32_t>(cfg_.get_int("admin_queue_depth"))),
      poll_(cfg_.get_time("poll_interval")),
      dual_wanted_(cfg_.get_switch("dual_sq")),
      mode_(completion_from(cfg_)),
      all_polled_(mode_ == Completion::Poll || mode_ == Completion::Hybrid || mode_ == Completion::DedCore),
      poll_queues_wanted_(separate_poll_queues(cfg_)),
      irq_cpus_(irq_cpus_from(cfg_)),
      io_(cores),
      doorbells_(StatGroup(svc.stats, stat_scope.empty() ? scope : stat_scope).counter("doorbell_writes", "writes", "doorbell writes by the driver")),
      commands_(StatGroup(svc.stats, stat_scope.empty() ? scope : stat_scope).counter("io_submitted", "commands", "I/O commands put in SQs")),
      normal_sq_commands_(StatGroup(svc.stats, stat_scope.empty() ? scope : stat_scope).counter("io_submitted_normal_sq", "commands",
                                            "I/O commands put in the normal SQs (SQ q: all of them without "
                                            "host.nvme.dual_sq, else the throughput class, QPRIO medium)")),
      high_sq_commands_(StatGroup(svc.stats, stat_scope.empty() ? scope : stat_scope).counter("io_submitted_high_sq", "commands",
                                          "I/O commands put in the latency-critical SQs (SQ N+q, QPRIO high; "
                                          "host.nvme.dual_sq only)")),
      flushes_(StatGroup(svc.stats, stat_scope.empty() ? scope : stat_scope).counter("flushes", "commands",
                                 "NVMe Flush commands put in SQs (fsync with a volatile write cache)")),
      memory_(memory) {
  Calendar::get().spawn(std::string(sc_module::name()) + ".bring_up", [this] { bring_up(); });
}

void NvmeDriver::start_of_simulation() {
  auto dmi_at = [this](uint64_t addr) {
    tlm::tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_address(addr);
    gp.set_command(tlm::TLM_READ_COMMAND);
    if (!bus->get_direct_mem_ptr(gp, dmi) || dmi.get_start_address() != addr)
      throw std::logic_error(fmt::format("NvmeDriver: host DRAM must be reachable by DMI at {:#x}", addr));
    return dmi.get_dmi_ptr();
  };
  dram_ = dmi_at(0);
  if (memory_.map().high_bytes()) dram_high_ = dmi_at(HostMemoryMap::kHighBase);
}

uint64_t NvmeDriver::alloc(const char* what, uint64_t bytes) {
  try {
    return memory_.alloc(what, bytes);
  } catch (const HostMemoryError& e) {
    throw ConfigError(fmt::format("host.dram.size = {} is too small for the queues and I/O buffers of this run ({})",
                                  format_size(memory_.map().dram_bytes()), e.what()));
  }
}

void NvmeDriver::reserve_memory(const ScopedConfig& cfg, unsigned cores, HostMemoryAllocator& memory) {
  const uint64_t io = cfg.get_int("queue_depth"), adm = cfg.get_int("admin_queue_depth");
  // I/O SQs: one or two per core, and the poll queues' (a stacked driver's are its own)
  const uint64_t sqs = sq_ids(cfg, cores) - 1 - (completion_from(cfg) == Completion::Xler ? cores : 0);
  const uint64_t cqs = uint64_t(cores) * (separate_poll_queues(cfg) ? 2 : 1);
  memory.alloc("admin SQ", adm * sizeof(Sqe));
  memory.alloc("admin CQ", adm * sizeof(Cqe));
  memory.alloc("identify buffer", IDENTIFY_SIZE);
  memory.alloc_many("I/O CQ", cqs, io * sizeof(Cqe));
  memory.alloc_many("I/O SQ", sqs, io * sizeof(Sqe));
  memory.alloc_many("PRP lists", sqs * io, 2 * kPage);
}

void NvmeDriver::fail(const std::string& what) {
  sim_abort("NVMe driver: " + what);
  Calendar::get().halt();  // the run is stopping
}

// ---------------------------------------------------------------- MMIO

void NvmeDriver::transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, unsigned len, bool wait_for_it) {
  prepare(gp_, cmd, addr, p, len);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  bus->b_transport(gp_, d);
  if (!gp_.is_response_ok()) sim_abort(fmt::format("NVMe driver: bus error at address {:#x}", addr));
  if (wait_for_it) Calendar::get().wait_for(d.value());  // a non-posted read stalls the CPU; posted writes do not
}

uint64_t NvmeDriver::mmio_read(uint32_t off, unsigned len) {
  uint64_t v = 0;
  transport(tlm::TLM_READ_COMMAND, bar0_ + off, reinterpret_cast<uint8_t*>(&v), len, true);
  return v;
}

void NvmeDriver::mmio_write(uint32_t off, uint64_t v, unsigned len) {
  transport(tlm::TLM_WRITE_COMMAND, bar0_ + off, reinterpret_cast<uint8_t*>(&v), len, false);
}

uint32_t NvmeDriver::config_read(uint32_t off, unsigned len) {
  uint32_t v = 0;
  transport(tlm::TLM_READ_COMMAND, config_ + off, reinterpret_cast<uint8_t*>(&v), len, true);
  return v;
}

void NvmeDriver::config_write(uint32_t off, uint32_t v, unsigned len) {
  // Configuration writes are non-posted: the CPU waits for the completion.
  transport(tlm::TLM_WRITE_COMMAND, config_ + off, reinterpret_cast<uint8_t*>(&v), len, true);
}

// ---------------------------------------------------------------- PCI

void NvmeDriver::pci_enable() {
  uint32_t id = config_read(0x00, 4);
  if ((id & 0xFFFF) == 0xFFFF) fail("no PCI function answers at the SSD's configuration address");
  uint32_t cls = config_read(0x08, 4) >> 8;
  if (cls != 0x010802) fail(fmt::format("PCI function has class {:06x}, not an NVMe controller (010802)", cls));
  // Size BAR0 (64-bit memory) with decoding off, then place it at its window.
  uint16_t cmd = static_cast<uint16_t>(config_read(0x04, 2));
  config_write(0x04, cmd & ~0x3u, 2);
  uint32_t lo = config_read(0x10, 4);
  if ((lo & 0x7) != 0x4) fail("BAR0 is not a 64-bit memory BAR");
  config_write(0x10, 0xFFFFFFFFu, 4);
  config_write(0x14, 0xFFFFFFFFu, 4);
  uint64_t mask = config_read(0x10, 4) | uint64_t(config_read(0x14, 4)) << 32;
  uint64_t size = ~(mask & ~0xFull) + 1;
  if (size < nvme::DOORBELL_BASE + 8) fail(fmt::format("BAR0 of {} bytes cannot hold the NVMe registers", size));
  config_write(0x10, static_cast<uint32_t>(bar0_) | 0x4, 4);
  config_write(0x14, static_cast<uint32_t>(bar0_ >> 32), 4);
  // Interrupt capabilities, as the PCI core finds them.
  uint32_t msix = 0, msi = 0;
  for (uint32_t p = config_read(0x34, 1) & 0xFC, hops = 0; p && hops < 48; ++hops) {
    uint32_t hdr = config_read(p, 2);
    if ((hdr & 0xFF) == 0x11) msix = p;
    if ((hdr & 0xFF) == 0x05) msi = p;
    p = (hdr >> 8) & 0xFC;
  }
  const uint32_t wanted = cores_ + 1;  // admin plus one per core
  // Memory decoding and bus mastering on; INTx off unless it is what remains.
  uint16_t on = static_cast<uint16_t>(cmd | 0x6u);
  if (msix) {
    uint32_t table = config_read(msix + 4, 4), vectors = (config_read(msix + 2, 2) & 0x7FF) + 1;
    if ((table & 7) != 0) fail("the MSI-X table is not in BAR0");
    if (vectors < wanted) fail(fmt::format("{} MSI-X vectors for {} cores and the admin queue", vectors, cores_));
    msix_table_ = table & ~7u;
    irq_mode_ = IrqMode::MsiX;
    irq_vectors_ = wanted;
    irq_base_ = irqs_.allocate(irq_vectors_, 1, *this, name());
    config_write(0x04, on | 0x400u, 2);
    config_write(msix + 2, 0x8000, 2);  // MSI-X on with the function unmasked
  } else if (msi) {
    // As many messages as needed, up to Multiple Message Capable (powers of two).
    uint32_t ctl = config_read(msi + 2, 2), mmc = (ctl >> 1) & 7, mme = 0;
    while (mme < mmc && (1u << mme) < wanted) ++mme;
    bool is64 = ctl & 0x80;
    irq_mode_ = IrqMode::Msi;
    const uint64_t addr = InterruptController::msi_address(irq_core(0));
    config_write(msi + 4, static_cast<uint32_t>(addr), 4);
    if (is64) config_write(msi + 8, static_cast<uint32_t>(addr >> 32), 4);
    irq_vectors_ = 1u << mme;
    irq_base_ = irqs_.allocate(irq_vectors_, irq_vectors_, *this, name());
    // The function puts its vector in the data's low mme bits.
    config_write(msi + (is64 ? 12 : 8), irq_base_, 2);
    config_write(0x04, on | 0x400u, 2);
    config_write(msi + 2, (ctl & ~0x70u) | mme << 4 | 1, 2);
  } else {
    irq_mode_ = IrqMode::Intx;
    irq_vectors_ = 1;
    irqs_.share_intx(*this, name());
    // The I/O APIC's redirection entry for the pin: which core it interrupts.
    uint32_t core = irq_core(0);
    transport(tlm::TLM_WRITE_COMMAND, InterruptController::intx_route_address(), reinterpret_cast<uint8_t*>(&core),
              4, false);
    config_write(0x04, on & ~0x400u, 2);
  }
}

// MSI-X entries are per vector; MSI and INTx were set up once in pci_enable.
void NvmeDriver::route_vector(uint32_t v, unsigned cpu) {
  if (irq_mode_ == IrqMode::MsiX) set_msix(v, cpu);
}

void NvmeDriver::set_msix(uint32_t v, unsigned cpu) {
  uint32_t e = msix_table_ + v * MSIX_ENTRY_SIZE;
  mmio_write(e, InterruptController::msi_address(cpu), 8);
  mmio_write(e + 8, irq_base_ + v, 4);
  mmio_write(e + 12, 0, 4);  // unmasked
}

// ---------------------------------------------------------------- admin

Cqe NvmeDriver::admin(Sqe cmd) {
  uint16_t cid = admin_cid_++;
  cmd.cdw0 = (cmd.cdw0 & 0xFFFF) | (uint32_t(cid) << 16);
  SubQueue& sq = admin_.sqs[0];
  std::memcpy(dram_ + sq.addr + uint64_t(sq.tail) * sizeof(Sqe), &cmd, sizeof cmd);
  sq.tail = (sq.tail + 1) % sq.size;
  admin_done_ = false;
  mmio_write(sq_tail_doorbell(0, dstrd_), sq.tail, 4);
  ++doorbells_;
  while (!admin_done_) Calendar::get().wait(admin_ev_);
  return admin_cqe_;
}

// As nvme_probe and nvme_reset_work do: enable the function and the
// controller, identify it, ask for the queues, find the namespace, create
// the I/O queues.
void NvmeDriver::bring_up() {
  pci_enable();
  enable_controller();
  uint64_t id_buf = alloc("identify buffer", IDENTIFY_SIZE);
  identify_controller(id_buf);
  // Poll queue pairs come after all the others: one more SQ and CQ per core.
  const uint32_t npoll = poll_queues_wanted_ ? cores_ : 0;
  const uint32_t nstacked = mode_ == Completion::Xler ? cores_ : 0;
  if (nstacked && !stacked_) fail("host.nvme.completion = xler, but no accelerator driver is stacked on this one");
  const uint32_t nsq = set_queue_count(npoll, nstacked);
  set_irq_coalescing();
  if (info_.io_queues < cores_) fail(fmt::format("controller granted {} I/O queues for {} cores", info_.io_queues, cores_));
  identify_namespace(id_buf);
  create_io_queues();
  create_poll_queues(nsq, npoll);
  // The stacked driver's pairs come last: SQ and CQ ids after all the others.
  if (nstacked) stacked_->bring_up(*this, static_cast<uint16_t>(nsq + 1), static_cast<uint16_t>(cores_ + npoll + 1));
  if ((all_polled_ || npoll) && !writes_)
    fail("polled completion queues need the host memory's write notification (watch_memory), which this "
         "platform does not give");
  ready_ = true;
  Calendar::get().notify(ready_ev_);
}

void NvmeDriver::check_status(const Cqe& c, const char* what) {
  if (c.status() != 0)
    fail(fmt::format("{} failed with status SCT {} SC {:#04x}", what, status_sct(c.status()), status_sc(c.status())));
}

// Reads CAP, resets the controller, sets up the admin queues and enables it.
void NvmeDriver::enable_controller() {
  info_.cap = mmio_read(CAP, 8);
  info_.version = static_cast<uint32_t>(mmio_read(VS, 4));
  dstrd_ = static_cast<uint32_t>((info_.cap >> 32) & 0xF);
  uint32_t mqes = static_cast<uint32_t>(info_.cap & 0xFFFF) + 1;
  if (io_depth_ > mqes) fail(fmt::format("{} {} exceeds CAP.MQES+1 = {}", cfg_.key("queue_depth"), io_depth_, mqes));
  // QPRIO means something only under the vendor-specific arbitration; without
  // it, go on with one SQ per queue as the guest patch does.
  dual_ = dual_wanted_ && (info_.cap & CAP_AMS_VENDOR);
  if (dual_wanted_ && !dual_)
    fmt::print(stderr, "{}: warning: host.nvme.dual_sq = on but CAP.AMS has no vendor-specific arbitration "
                       "(bit 18): one SQ per queue\n", name());
  // Disable and wait for the controller to drop RDY.
  mmio_write(CC, 0, 4);
  wait_ready(false);
  // Admin queues.
  admin_.size = admin_depth_;
  admin_.sqs.resize(1);
  admin_.sqs[0].size = admin_depth_;
  admin_.sqs[0].addr = alloc("admin SQ", uint64_t(admin_depth_) * sizeof(Sqe));
  admin_.cq = alloc("admin CQ", uint64_t(admin_depth_) * sizeof(Cqe));
  std::memset(dram_ + admin_.cq, 0, uint64_t(admin_depth_) * sizeof(Cqe));
  mmio_write(AQA, ((admin_depth_ - 1) << 16) | (admin_depth_ - 1), 4);
  mmio_write(ASQ, admin_.sqs[0].addr, 8);
  mmio_write(ACQ, admin_.cq, 8);
  // Vector 0 (admin) goes to core 0.
  route_vector(0, 0);
  // Enable: NVM command set, 4 KiB pages, round robin (vendor specific with
  // dual SQs), 64/16-byte entries.
  mmio_write(CC, CC_EN | (dual_ ? uint32_t(AMS_VENDOR) << 11 : 0u) | (6u << 16) | (4u << 20), 4);
  wait_ready(true);
}

// Polls CSTS.RDY until it reads `ready`, every poll_interval for the first
// thousand polls, then at twice the interval each time up to 100 ms (as
// Linux's msleep(100)), so a slow controller costs few polls; gives up after
// CAP.TO x 500 ms, as Linux does.
void NvmeDriver::wait_ready(bool ready) {
  const Tick limit = now_ps() + ((info_.cap >> 24) & 0xFF) * 500 * MS;
  Tick wait = poll_;
  for (unsigned polls = 0;; ++polls) {
    const Tick sent = now_ps();
    uint32_t csts = static_cast<uint32_t>(mmio_read(CSTS, 4));
    if (ready && (csts & CSTS_CFS)) fail("controller reported fatal status (CSTS.CFS) while enabling");
    if (bool(csts & CSTS_RDY) == ready) return;
    if (now_ps() >= limit)
      fail(fmt::format("controller did not {} CSTS.RDY within CAP.TO = {} ms (one read of CSTS took {})",
                       ready ? "set" : "clear", ((info_.cap >> 24) & 0xFF) * 500, format_time(now_ps() - sent)));
    if (polls >= 1000) wait = std::min<Tick>(std::max<Tick>(2 * wait, 1), 100 * MS);
    Calendar::get().wait_for(std::min(wait, limit - now_ps()));
  }
}

void NvmeDriver::identify_controller(uint64_t id_buf) {
  Sqe c = Sqe::make(ADMIN_IDENTIFY, 0);
  c.prp1 = id_buf;
  c.cdw10 = CNS_CONTROLLER;
  check_status(admin(c), "Identify controller");
  const uint8_t* id = dram_ + id_buf;
  info_.serial.assign(reinterpret_cast<const char*>(id + idctl::SN), 20);
  info_.model.assign(reinterpret_cast<const char*>(id + idctl::MN), 40);
  info_.serial.erase(info_.serial.find_last_not_of(' ') + 1);
  info_.model.erase(info_.model.find_last_not_of(' ') + 1);
  uint8_t mdts = id[idctl::MDTS];
  info_.max_transfer = mdts ? kPage << mdts : 0;
  info_.volatile_write_cache = id[idctl::VWC] & 1;
}

// Number of queues: one pair per core, or 2N SQs and N CQs (0's based),
// `npoll` poll queue pairs and `nstacked` pairs for a stacked driver;
// returns the SQs of this driver's own.
uint32_t NvmeDriver::set_queue_count(uint32_t npoll, uint32_t nstacked) {
  const uint32_t nsq = (dual_ ? 2 * cores_ : cores_) + npoll, ncq = cores_ + npoll;
  Sqe c = Sqe::make(ADMIN_SET_FEATURES, 0);
  c.cdw10 = FEAT_NUM_QUEUES;
  c.cdw11 = (nsq + nstacked - 1) | ((ncq + nstacked - 1) << 16);
  Cqe r = admin(c);
  check_status(r, "Set Features (number of queues)");
  uint32_t got_sq = (r.dw0 & 0xFFFF) + 1, got_cq = (r.dw0 >> 16) + 1;
  // Pairs that fit besides the poll queues (too few are reported below).
  const uint32_t extra = npoll + nstacked;
  uint32_t pairs_sq = got_sq >= extra ? (got_sq - extra) / (dual_ ? 2 : 1) : 0;
  info_.io_queues = std::min(pairs_sq, got_cq >= extra ? got_cq - extra : 0);
  return nsq;
}

void NvmeDriver::set_irq_coalescing() {
  auto thr = static_cast<uint32_t>(cfg_.get_int("irq_coalescing_threshold"));
  Tick agg = cfg_.get_time("irq_coalescing_time");
  if (thr > 1) {
    Sqe c = Sqe::make(ADMIN_SET_FEATURES, 0);
    c.cdw10 = FEAT_IRQ_COALESCE;
    c.cdw11 = (thr - 1) | static_cast<uint32_t>((agg + 100 * US - 1) / (100 * US)) << 8;
    check_status(admin(c), "Set Features (interrupt coalescing)");
  }
}

void NvmeDriver::identify_namespace(uint64_t id_buf) {
  Sqe c = Sqe::make(ADMIN_IDENTIFY, 0);
  c.prp1 = id_buf;
  c.cdw10 = CNS_ACTIVE_NS_LIST;
  check_status(admin(c), "Identify active namespace list");
  uint32_t nsid;
  std::memcpy(&nsid, dram_ + id_buf, 4);
  if (nsid != 1) fail("namespace 1 is not active");
  c = Sqe::make(ADMIN_IDENTIFY, 0);
  c.prp1 = id_buf;
  c.nsid = 1;
  c.cdw10 = CNS_NAMESPACE;
  check_status(admin(c), "Identify namespace");
  std::memcpy(&info_.ns_lbas, dram_ + id_buf + idns::NSZE, 8);
  uint32_t lbaf;
  std::memcpy(&lbaf, dram_ + id_buf + idns::LBAF0 + 4 * (dram_[id_buf + idns::FLBAS] & 0xF), 4);
  info_.lba_size = 1u << ((lbaf >> 16) & 0xFF);
}

// One I/O queue pair per core, its vector routed to that core; with dual
// SQs the latency-critical SQ N+q joins CQ q.
void NvmeDriver::create_io_queues() {
  for (unsigned k = 0; k < cores_; ++k) {
    QueuePair& q = io_[k];
    q.qid = static_cast<uint16_t>(k + 1);
    q.size = io_depth_;
    q.sqs.resize(dual_ ? 2 : 1);
    setup_sq(q.sqs[0], q.qid, normal_sq_commands_);
    if (dual_) setup_sq(q.sqs[1], static_cast<uint16_t>(cores_ + k + 1), high_sq_commands_);
    q.polled = all_polled_;
    uint32_t v = vector_of(q.qid);
    route_vector(v, irq_core(k));
    create_cq(q, v);
    for (const SubQueue& s : q.sqs) {
      // QPRIO (bits 2:1) counts only under CC.AMS 111b: medium for SQ q, high for SQ N+q.
      uint32_t qprio = !dual_ ? 0 : &s == &q.sqs[0] ? 2 : 1;
      Sqe c = Sqe::make(ADMIN_CREATE_SQ, 0);
      c.prp1 = s.addr;
      c.cdw10 = s.qid | ((io_depth_ - 1) << 16);
      c.cdw11 = 1 | qprio << 1 | (uint32_t(q.qid) << 16);  // physically contiguous, QPRIO, CQ qid
      check_status(admin(c), "Create I/O Submission Queue");
    }
  }
}

// Poll queue pairs: CQ N+1+k without interrupts, its SQ after all the
// others (SQ ids stay congruent to k+1 modulo N, as hw_queue_of needs).
void NvmeDriver::create_poll_queues(uint32_t nsq, uint32_t npoll) {
  pollq_.resize(npoll);
  for (unsigned k = 0; k < npoll; ++k) {
    QueuePair& q = pollq_[k];
    q.qid = static_cast<uint16_t>(cores_ + k + 1);
    q.size = io_depth_;
    q.polled = true;
    q.sqs.resize(1);
    setup_sq(q.sqs[0], static_cast<uint16_t>(nsq - npoll + k + 1), dual_ ? high_sq_commands_ : normal_sq_commands_);
    create_cq(q, 0);
    Sqe c = Sqe::make(ADMIN_CREATE_SQ, 0);
    c.prp1 = q.sqs[0].addr;
    c.cdw10 = q.sqs[0].qid | ((io_depth_ - 1) << 16);
    c.cdw11 = 1 | (dual_ ? 1u : 0u) << 1 | (uint32_t(q.qid) << 16);  // polled I/O is latency-critical: QPRIO high
    check_status(admin(c), "Create I/O Submission Queue (poll queue)");
  }
}

// Interrupts enabled on `vector` unless the queue is polled (IEN=0, the vector unused).
void NvmeDriver::create_cq(QueuePair& q, uint32_t vector) {
  q.cq = alloc("I/O CQ", uint64_t(io_depth_) * sizeof(Cqe));
  std::memset(dram_ + q.cq, 0, uint64_t(io_depth_) * sizeof(Cqe));
  Sqe c = Sqe::make(ADMIN_CREATE_CQ, 0);
  c.prp1 = q.cq;
  c.cdw10 = q.qid | ((io_depth_ - 1) << 16);
  c.cdw11 = q.polled ? 1u : 1u | 2u | (vector << 16);  // physically contiguous, IEN, vector
  Cqe r = admin(c);
  if (r.status() != 0)
    fail(fmt::format("Create I/O Completion Queue failed with status SCT {} SC {:#04x}", status_sct(r.status()),
                     status_sc(r.status())));
}

void NvmeDriver::setup_sq(SubQueue& s, uint16_t qid, Counter& commands) {
  s.qid = qid;
  s.size = io_depth_;
  s.addr = alloc("I/O SQ", uint64_t(io_depth_) * sizeof(Sqe));
  s.by_cid.assign(io_depth_, nullptr);
  for (uint32_t i = io_depth_ - 1; i-- > 0;) s.free_cids.push_back(static_cast<uint16_t>(i));  // SQ holds size-1
  s.commands = &commands;
}

// ---------------------------------------------------------------- I/O

uint64_t NvmeDriver::cid_pages(SubQueue& q, uint16_t cid) {
  if (q.prp_lists.empty()) q.prp_lists.assign(q.size, 0);
  if (q.prp_lists[cid] == 0) q.prp_lists[cid] = alloc("PRP lists", 2 * kPage);
  return q.prp_lists[cid];
}

uint64_t NvmeDriver::build_prps(SubQueue& q, uint16_t cid, const IoRequest& head) {
  // PRP1 covers the first segment up to its first page boundary; every further
  // page of every segment is one entry (blk-mq merges only segments that
  // meet at page boundaries, so each later one starts at page offset 0).
  pages_.clear();
  for (const IoRequest* s = &head; s; s = s->next_in_cmd) {
    uint64_t a = s == &head ? (s->buf_addr / kPage + 1) * kPage : s->buf_addr, end = s->buf_addr + s->bytes;
    for (; a < end; a += kPage) pages_.push_back(a);
  }
  if (pages_.empty()) return 0;
  if (pages_.size() == 1) return pages_[0];
  // A list: 512 entries per page, the last one chaining when more follow.
  uint64_t list = cid_pages(q, cid);
  size_t n = pages_.size();
  if (n > 511 + 512) fail(fmt::format("a command of {} pages needs more than two PRP list pages", n + 1));
  auto* e = reinterpret_cast<uint64_t*>(dram_ + list);
  uint32_t slot = 0;
  for (size_t i = 0; i < n; ++i) {
    if (slot == 511 && n - i > 1) {
      e[slot] = list + kPage;
      e = reinterpret_cast<uint64_t*>(dram_ + list + kPage);
      slot = 0;
    }
    e[slot++] = pages_[i];
  }
  return list;
}

Cqe NvmeDriver::io_raw(unsigned core, const Sqe& cmd) {
  IoRequest r;
  r.raw = &cmd;
  r.clock.start(now_ps());
  submit(r, core);
  while (!r.raw_done) Calendar::get().wait(raw_ev_);
  return r.raw_cqe;
}

void NvmeDriver::write_sqe(SubQueue& q, IoRequest& r, uint16_t cid) {
  Sqe c = Sqe::make(r.flush ? IO_FLUSH : r.trim ? IO_DSM : r.write ? IO_WRITE : IO_READ, cid);
  c.nsid = 1;
  c.cdw2 = r.attr | r.cdw2_hint;  // FlashShare: the workload attribute rides in rsvd2 (FastDrain: bit 8)
  c.cdw3 = r.cdw3;                 // FastDrain: dirty pages of a page-victimization write
  if (r.raw) {
    c = *r.raw;
    c.cdw0 = (c.cdw0 & 0xFFFF) | (uint32_t(cid) << 16);
  } else if (r.trim) {
    // nvme_setup_discard: one range, deallocate. Its 16 bytes sit in the
    // command id's PRP-list page, which a command without data leaves free.
    const uint64_t range = cid_pages(q, cid);
    uint8_t* d = dram_ + range;
    const uint32_t cattr = 0, nlb = r.nlb;
    std::memcpy(d, &cattr, 4);
    std::memcpy(d + 4, &nlb, 4);
    std::memcpy(d + 8, &r.lba, 8);
    c.prp1 = range;
    c.cdw10 = 0;  // NR: one range (0's based)
    c.cdw11 = DSM_AD;
  } else if (!r.flush) {
    uint32_t nlb = 0;
    for (const IoRequest* s = &r; s; s = s->next_in_cmd) nlb += s->nlb;
    c.prp1 = r.buf_addr;
    c.prp2 = build_prps(q, cid, r);
    c.cdw10 = static_cast<uint32_t>(r.lba);
    c.cdw11 = static_cast<uint32_t>(r.lba >> 32);
    c.cdw12 = ((nlb - 1) & 0xFFFF) | (r.fua ? RW_FUA : 0);
  }
  std::memcpy(dram_ + q.addr + uint64_t(q.tail) * sizeof(Sqe), &c, sizeof c);
  q.tail = (q.tail + 1) % q.size;
  q.by_cid[cid] = &r;
  uint64_t serial = svc_.tracker.issue(q.qid, cid);
  for (IoRequest* s = &r; s; s = s->next_in_cmd) {
    s->sqid = q.qid;
    s->cid = cid;
    s->command = serial;
    s->clock.mark(Stage::DriverQueue, now_ps());
  }
  ++commands_;
  ++*q.commands;
  if (r.flush) ++flushes_;
  mmio_write(sq_tail_doorbell(q.qid, dstrd_), q.tail, 4);
  ++doorbells_;
}

void NvmeDriver::submit(IoRequest& r, unsigned core) {
  if (r.polled && !pollq_.empty()) return place(pollq_[core].sqs[0], r);
  QueuePair& q = io_[core];
  place(q.sqs[dual_ && r.attr != 0 ? 1 : 0], r);
}

const NvmeDriver::QueuePair* NvmeDriver::polled_queue(unsigned core) const {
  if (all_polled_) return &io_[core];
  return pollq_.empty() ? nullptr : &pollq_[core];
}

bool NvmeDriver::poll_ready(unsigned core) const {
  const QueuePair* q = polled_queue(core);
  if (!q) return false;
  land_due();
  Cqe e;
  std::memcpy(&e, dram_ + q->cq + uint64_t(q->cq_head) * sizeof(Cqe), sizeof e);
  return e.phase() == q->phase;
}

unsigned NvmeDriver::polled_in_flight(unsigned core) const {
  const QueuePair* q = polled_queue(core);
  unsigned n = 0;
  if (q)
    for (const SubQueue& s : q->sqs) n += static_cast<unsigned>(s.held.size() + (s.size - 1 - s.free_cids.size()));
  return n;
}

void NvmeDriver::poll(unsigned core, std::vector<IoRequest*>& done) {
  if (all_polled_)
    reap(io_[core], done);
  else if (!pollq_.empty())
    reap(pollq_[core], done);
}

void NvmeDriver::place(SubQueue& s, IoRequest& r) {
  if (s.free_cids.empty() || !s.held.empty()) {
    s.held.push_back(&r);
    return;
  }
  uint16_t cid = s.free_cids.back();
  s.free_cids.pop_back();
  write_sqe(s, r, cid);
}

void NvmeDriver::handle_irq(uint32_t vector, std::vector<IoRequest*>& done) {
  if (vector_of(0) == vector) reap(admin_, done);
  for (QueuePair& q : io_)  // a shared vector must not take a polled CQ's entries
    if (q.qid != 0 && !q.polled && vector_of(q.qid) == vector) reap(q, done);
  // The pin is level-triggered: end of interrupt lets the I/O APIC fire again
  // if the device still holds it.
  if (irq_mode_ == IrqMode::Intx) {
    uint32_t eoi = 0;
    transport(tlm::TLM_WRITE_COMMAND, InterruptController::eoi_address(), reinterpret_cast<uint8_t*>(&eoi), 4, false);
  }
}

void NvmeDriver::reap(QueuePair& q, std::vector<IoRequest*>& done) {
  const bool admin_q = &q == &admin_;
  bool any = false;
  land_due();
  for (;;) {
    Cqe e;
    std::memcpy(&e, dram_ + q.cq + uint64_t(q.cq_head) * sizeof(Cqe), sizeof e);
    if (e.phase() != q.phase) break;
    any = true;
    if (++q.cq_head == q.size) {
      q.cq_head = 0;
      q.phase = !q.phase;
    }
    if (admin_q) {
      admin_cqe_ = e;
      admin_done_ = true;
      Calendar::get().notify(admin_ev_);
      continue;
    }
    // Command ids are unique per SQ only: the completion's SQ id picks the SQ.
    auto sq = std::find_if(q.sqs.begin(), q.sqs.end(), [&](const SubQueue& s) { return s.qid == e.sq_id; });
    IoRequest* r = sq != q.sqs.end() && e.cid < sq->by_cid.size() ? sq->by_cid[e.cid] : nullptr;
    if (!r) {
      sim_abort(fmt::format("NVMe driver: completion for unknown command id {} of SQ {} on CQ {}", e.cid, e.sq_id,
                            q.qid));
      return;
    }
    sq->by_cid[e.cid] = nullptr;
    sq->free_cids.push_back(e.cid);
    r->status = e.status();
    if (r->raw) {
      r->raw_cqe = e;
      r->raw_done = true;
      Calendar::get().notify(raw_ev_);
      continue;
    }
    for (IoRequest* s = r; s; s = s->next_in_cmd) {
      s->status = e.status();
      done.push_back(s);
    }
  }
  if (!any) return;
  mmio_write(cq_head_doorbell(q.qid, dstrd_), q.cq_head, 4);
  ++doorbells_;
  for (SubQueue& s : q.sqs)
    while (!s.held.empty() && !s.free_cids.empty()) {
      IoRequest* r = s.held.front();
      s.held.pop_front();
      uint16_t cid = s.free_cids.back();
      s.free_cids.pop_back();
      write_sqe(s, *r, cid);
    }
}

}  // namespace vp::host
