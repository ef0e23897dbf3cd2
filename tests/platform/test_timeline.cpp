// SPDX-License-Identifier: BSD-3-Clause
// timeline.json (--trace perfetto): each I/O's stage slices add up to its
// latency in requests.csv, request lanes never overlap, every resource has
// its track, the counters are there, and tracing changes no result.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {

// ts and dur are microseconds with six decimals: back to picoseconds.
uint64_t ps(const nlohmann::json& us) { return static_cast<uint64_t>(std::llround(us.get<double>() * 1e6)); }

nlohmann::json summary_of(const std::string& dir) {
  auto j = nlohmann::json::parse(slurp(dir + "/summary.json"));
  j.erase("wall_time_s");
  return j;
}

struct Checked {
  size_t requests = 0;
  std::set<std::string> threads, counters, processes;
  std::map<std::string, size_t> slices_on;  // busy slices per thread name
  size_t flows_in = 0;
};

// Reads dir/timeline.json, checks the requests against dir/requests.csv and
// the lanes and resource threads for overlaps; returns what it found.
Checked check_timeline(const std::string& dir) {
  std::ifstream in(dir + "/timeline.json");
  REQUIRE(in);
  nlohmann::json doc = nlohmann::json::parse(in);
  CHECK(doc["displayTimeUnit"] == "ns");
  const auto& ev = doc.at("traceEvents");
  REQUIRE(ev.is_array());

  // requests.csv by (issue, sqid, cid, lba): the same I/O.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>, uint64_t> latency;
  for (const auto& r : csv_rows(dir + "/requests.csv"))
    latency[{u64(r, "issue_ps"), u64(r, "sqid"), u64(r, "cid"), u64(r, "lba")}] = u64(r, "latency_ps");

  Checked c;
  std::map<uint64_t, std::string> pname, tname;
  for (const auto& e : ev)
    if (e["ph"] == "M" && e["name"] == "process_name") pname[e["pid"]] = e["args"]["name"];
    else if (e["ph"] == "M" && e["name"] == "thread_name") tname[e["tid"]] = e["args"]["name"];
  for (const auto& [p, n] : pname) c.processes.insert(n);
  for (const auto& [t, n] : tname) c.threads.insert(n);

  using Span = std::pair<uint64_t, uint64_t>;
  std::map<uint64_t, std::vector<Span>> lanes, resources;  // by tid
  std::map<uint64_t, Span> flow_from;                      // bind_id -> (tid, end)
  std::vector<std::pair<uint64_t, Span>> flow_to;          // (bind_id, (tid, ts))
  const nlohmann::json* parent = nullptr;
  uint64_t at = 0, sum = 0;
  auto end_request = [&] {
    if (!parent) return;
    const auto& a = (*parent)["args"];
    INFO("request " << parent->dump());
    CHECK(sum == a["latency_ps"].get<uint64_t>());
    CHECK(at == a["issue_ps"].get<uint64_t>() + a["latency_ps"].get<uint64_t>());
    parent = nullptr;
  };
  for (const auto& e : ev) {
    if (e["ph"] == "C") {
      c.counters.insert(e["name"].get<std::string>());
      continue;
    }
    if (e["ph"] != "X") continue;
    const std::string cat = e.value("cat", "");
    const uint64_t tid = e["tid"], ts = ps(e["ts"]), dur = ps(e["dur"]);
    if (cat == "stage") {
      REQUIRE(parent);
      INFO("stage " << e.dump() << " of " << parent->dump());
      CHECK(e["tid"] == (*parent)["tid"]);
      CHECK(ts == at);  // back to back, inside the parent
      const uint64_t p = e["args"]["ps"];
      CHECK(dur == p);
      CHECK((*parent)["args"][e["name"].get<std::string>() + "_ps"] == p);
      sum += p;
      at += p;
      continue;
    }
    end_request();
    if (cat == "request") {
      ++c.requests;
      const auto& a = e["args"];
      const uint64_t issue = a["issue_ps"], lat = a["latency_ps"];
      INFO("request " << e.dump());
      CHECK(ts == issue);
      CHECK(dur == lat);
      auto it = latency.find({issue, a["sqid"], a["cid"], a["lba"]});
      REQUIRE(it != latency.end());
      CHECK(it->second == lat);
      lanes[tid].push_back({issue, issue + lat});
      if (e.contains("bind_id")) flow_from[e["bind_id"]] = {tid, issue + lat};
      parent = &e;
      at = issue;
      sum = 0;
    } else if (cat == "completion") {
      CHECK(dur == 0);
      flow_to.push_back({e["bind_id"], {tid, ts}});
    } else {
      resources[tid].push_back({ts, ts + dur});
      ++c.slices_on[tname[tid]];
    }
  }
  end_request();
  CHECK(c.requests == latency.size());

  // One lane's requests, and one resource's busy slices, never overlap.
  for (auto* spans : {&lanes, &resources})
    for (auto& [tid, v] : *spans) {
      std::sort(v.begin(), v.end());
      for (size_t i = 1; i < v.size(); ++i) {
        INFO(tname[tid] << ": [" << v[i - 1].first << ", " << v[i - 1].second << ") then [" << v[i].first << ", "
                        << v[i].second << ")");
        CHECK(v[i].first >= v[i - 1].second);
      }
    }
  // Each flow ends on a host core's marker at the request's completion.
  for (const auto& [id, to] : flow_to) {
    auto it = flow_from.find(id);
    REQUIRE(it != flow_from.end());
    CHECK(to.second == it->second.second);
    CHECK(tname[to.first].rfind("host.core", 0) == 0);
    ++c.flows_in;
  }
  CHECK(c.flows_in == flow_from.size());
  return c;
}

const char* kJobs = R"([global]
direct=1
bs=4k
[mixed]
rw=randrw
iodepth=32
number_ios=1500
cpus_allowed=0
[big]
rw=write
bs=256k
iodepth=4
number_ios=60
cpus_allowed=1
)";

}  // namespace

TEST_CASE("timeline.json: every I/O's stages add up to its requests.csv latency, lanes never overlap, every "
          "resource has a track, and tracing changes no result",
          "[platform][cli][trace][timeline]") {
  const std::string dir = scratch("timeline");
  std::ofstream(dir + "/jobs.fio") << kJobs;
  const std::string args = " --preset quick --set ssd.fw.cores=2 --job " + dir + "/jobs.fio --seed 5 --out ";
  Shell s = shell(std::string(VP_SERVER_BIN) + args + dir + "/traced --trace perfetto,requests");
  INFO(s.out);
  REQUIRE(s.status == 0);
  Checked c = check_timeline(dir + "/traced");
  CHECK(c.requests == 1560);
  CHECK(c.flows_in == c.requests);  // every completion was taken by a host core

  for (int i = 0; i < 2; ++i) {
    CHECK(c.slices_on[fmt::format("host.core{}.busy", i)] > 0);
    CHECK(c.threads.count(fmt::format("ssd.fw.core{}.busy", i)));
    CHECK(c.counters.count(fmt::format("ssd.nvme.sq{}.occupancy", i + 1)));
    CHECK(c.counters.count(fmt::format("ssd.nvme.cq{}.occupancy", i + 1)));
    CHECK(c.processes.count(fmt::format("I/O requests SQ {}", i + 1)));
  }
  CHECK(c.slices_on["ssd.fw.core0.busy"] > 0);
  for (int ch = 0; ch < 4; ++ch) {
    CHECK(c.slices_on[fmt::format("ssd.flash.ch{}.bus", ch)] > 0);
    for (int d = 0; d < 2; ++d) CHECK(c.slices_on[fmt::format("ssd.flash.ch{}.die{}.busy", ch, d)] > 0);
  }
  for (const char* k :
       {"ssd.nvme.doorbell_writes", "ssd.nvme.interrupts_sent", "ssd.ftl.free_blocks", "pcie.down.busy_ns"})
    CHECK(c.counters.count(k));
  CHECK(c.slices_on["pcie.up.busy"] > 0);
  // Only the queues the host created have a counter: the admin queue and a
  // pair per host core (2).
  std::set<std::string> queues;
  for (const auto& k : c.counters)
    if (k.find(".occupancy") != std::string::npos) queues.insert(k);
  CHECK(queues == std::set<std::string>{"ssd.nvme.sq0.occupancy", "ssd.nvme.cq0.occupancy", "ssd.nvme.sq1.occupancy",
                                        "ssd.nvme.cq1.occupancy", "ssd.nvme.sq2.occupancy", "ssd.nvme.cq2.occupancy"});
  CHECK(c.processes.count("host cores"));
  CHECK(c.processes.count("ssd nvme queues"));

  // The same run untraced: the same results, and no timeline.json nor a temporary of it.
  Shell plain = shell(std::string(VP_SERVER_BIN) + args + dir + "/plain");
  REQUIRE(plain.status == 0);
  CHECK(!std::filesystem::exists(dir + "/plain/timeline.json"));
  for (const auto& f : std::filesystem::directory_iterator(dir + "/traced"))
    CHECK(f.path().filename().string().find(".tmp-") == std::string::npos);
  auto a = summary_of(dir + "/traced"), b = summary_of(dir + "/plain");
  CHECK(a["jobs"] == b["jobs"]);
  CHECK(a["drives"] == b["drives"]);
  CHECK(a["host"] == b["host"]);
  CHECK(a["counters"] == b["counters"]);
  CHECK(a["sim_time_s"] == b["sim_time_s"]);
}

TEST_CASE("timeline.json from vp-drive: the queues' requests and the drive's resources", "[platform][drive][trace][timeline]") {
  const std::string dir = scratch("timeline-drive");
  Shell s = shell(std::string(VP_DRIVE_BIN) + " --preset quick --trace perfetto,requests --out " + dir);
  INFO(s.out);
  REQUIRE(s.status == 0);
  Checked c = check_timeline(dir);
  CHECK(c.requests == 2000);
  CHECK(c.flows_in == 0);  // no host cores
  CHECK(c.slices_on["ssd.flash.ch0.die0.busy"] > 0);
  CHECK(c.counters.count("ssd.nvme.sq1.occupancy"));
}
