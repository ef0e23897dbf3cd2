// SPDX-License-Identifier: BSD-3-Clause
// The waveform opens in GTKWave with its signals drawn: GTKWave runs under
// Xvfb, a screenshot is taken, and the wave area must hold the green of
// drawn traces with the save file and be empty without it. ImageMagick is
// called by its versioned names: a plain `convert` may be something else.
// GTKWave's Tcl interface (-S) then says what it made of the save file: the
// rows in order with their flags, and the signals it found in the VCD.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// Green pixels in the wave pane (right of the signal names) of a
// screenshot, in the rows from y0 to y1.
long green_pixels(const std::string& png, int y0, int y1) {
  Shell s = shell("convert-im6.q16 " + png + " -crop 700x" + std::to_string(y1 - y0) + "+640+" + std::to_string(y0) +
                  " +repage -depth 8 rgb:- | od -An -v -tu1 -w3");
  long n = 0;
  std::istringstream in(s.out);
  int r, g, b;
  while (in >> r >> g >> b)
    if (g > 150 && r < 100 && b < 100) ++n;
  return n;
}

// Green in the top of the wave pane, where the host cores' and the NVMe
// queues' rows are (about 20 rows), and below it, where the closed groups are.
struct Green {
  long top, below;
};

Green screenshot_green(const std::string& dir, const std::string& gtkwave_args, const std::string& name) {
  std::string png = dir + "/" + name + ".png";
  Shell s = shell("xvfb-run -a -s '-screen 0 1400x900x24' sh -c 'gtkwave " + gtkwave_args +
                  " >/dev/null 2>&1 & pid=$!; sleep 8; import-im6.q16 -window root " + png + "; kill $pid'");
  INFO(s.out);
  REQUIRE(slurp(png).size() > 1000);
  return {green_pixels(png, 150, 600), green_pixels(png, 600, 850)};
}

struct Row {
  unsigned long flags;
  std::string name;  // a signal's label, a group's name, "" for an analog trace's extra height
};
struct Seen {
  std::vector<Row> rows;
  unsigned visible = 0;             // rows not hidden in a closed group
  std::vector<std::string> signals;  // the signals found, by their paths in the VCD
};

// GTKWave's account of the save file, by its Tcl interface.
Seen gtkwave_seen(const std::string& dir) {
  const std::string out = dir + "/rows.txt", script = dir + "/rows.tcl";
  std::ofstream(script) << "set f [open \"" << out << "\" w]\n"
                        << "for {set i 0} {$i < [gtkwave::getTotalNumTraces]} {incr i} {\n"
                        << "  puts $f \"row [format %x [gtkwave::getTraceFlagsFromIndex $i]] "
                           "[gtkwave::getTraceNameFromIndex $i]\"\n}\n"
                        << "puts $f \"visible [gtkwave::getVisibleNumTraces]\"\n"
                        << "foreach s [gtkwave::getDisplayedSignals] { puts $f \"signal $s\" }\n"
                        << "close $f\ngtkwave::/File/Quit\n";
  Shell s = shell("timeout 120 xvfb-run -a -s '-screen 0 1400x900x24' gtkwave -a " + dir + "/waves.gtkw " + dir +
                  "/waves.vcd -S " + script);
  INFO(s.out);
  Seen seen;
  std::istringstream in(slurp(out));
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string what, v;
    w >> what >> v;
    std::string rest;
    std::getline(w, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (what == "row") seen.rows.push_back({std::stoul(v, nullptr, 16), rest});
    if (what == "visible") seen.visible = static_cast<unsigned>(std::stoul(v));
    if (what == "signal") seen.signals.push_back(v);
  }
  REQUIRE(!seen.rows.empty());
  return seen;
}

// GTKWave's trace flags (its src/analyzer.h).
constexpr unsigned long kClosed = 1ul << 22, kGroupBegin = 1ul << 23, kGroupEnd = 1ul << 24;
}  // namespace

TEST_CASE("GTKWave opens the VCD with the save file's signals drawn", "[platform][trace][gtkwave]") {
  std::string dir = scratch("gtkwave");
  REQUIRE(shell(std::string(VP_SERVER_BIN) + " --preset quick --trace vcd --out " + dir).status == 0);
  Green with_view = screenshot_green(dir, "-a " + dir + "/waves.gtkw " + dir + "/waves.vcd", "with");
  Green bare = screenshot_green(dir, dir + "/waves.vcd", "bare");
  INFO("green pixels with the save file " << with_view.top << " + " << with_view.below << ", without " << bare.top
                                          << " + " << bare.below);
  // The top rows, the host cores and the queues, are drawn; the groups
  // below them are closed, so nothing is drawn there.
  CHECK(with_view.top > 5000);
  CHECK(with_view.below < 100);
  CHECK(bare.top + bare.below < 100);

  Seen seen = gtkwave_seen(dir);
  const std::vector<Row>& rows = seen.rows;
  // The host cores' group first, then the drive's queues (the admin queue's first).
  REQUIRE(rows.size() > 8);
  CHECK(rows[0].name == "host cores");
  CHECK(rows[0].flags == kGroupBegin + 0x200);
  CHECK(rows[1].name == "host/core0/busy");
  size_t queues = 1;
  while (queues < rows.size() && rows[queues].name != "ssd nvme queues") ++queues;
  REQUIRE(queues < rows.size());
  CHECK(rows[queues - 1].name == "host cores");
  CHECK((rows[queues - 1].flags & kGroupEnd));
  CHECK(rows[queues].flags == kGroupBegin + 0x200);
  CHECK(rows[queues + 1].name == "ssd/nvme/sq0/occupancy");
  CHECK((rows[queues + 1].flags & 0x8000));  // analog, step
  // After the queues' group every group is closed: only their names show.
  size_t end = queues + 1;
  while (end < rows.size() && rows[end].name != "ssd nvme queues") ++end;
  REQUIRE(end < rows.size());
  unsigned closed = 0;
  for (size_t i = end + 1; i < rows.size(); ++i) {
    INFO(rows[i].name);
    if (rows[i].flags & (kGroupBegin | kGroupEnd)) CHECK((rows[i].flags & kClosed));
    if (rows[i].flags & kGroupBegin) ++closed;
  }
  CHECK(closed >= 5);  // pcie, firmware cores, ftl, dram, flash channels, dies...
  CHECK(seen.visible == end + 1 + closed);
  // GTKWave found every signal of the save file in the VCD's nested scopes.
  const std::string gtkw = slurp(dir + "/waves.gtkw");
  std::vector<std::string> listed;
  std::istringstream in(gtkw);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("+{", 0) == 0) listed.push_back(line.substr(line.find(" SystemC.") + 1));  // +{label} path
  CHECK(seen.signals == listed);
  CHECK(std::count(listed.begin(), listed.end(), "SystemC.ssd.nvme.sq1.occupancy[63:0]") == 1);
}
