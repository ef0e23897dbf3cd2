// SPDX-License-Identifier: BSD-3-Clause
// The waveform opens in GTKWave with its signals drawn: GTKWave runs under
// Xvfb, a screenshot is taken, and the wave area must hold the green of
// drawn traces with the save file and be empty without it. ImageMagick is
// called by its versioned names: a plain `convert` may be something else.
#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// Green pixels in the wave pane (right of the signal names) of a screenshot.
long green_pixels(const std::string& png) {
  Shell s = shell("convert-im6.q16 " + png + " -crop 700x650+640+150 +repage -depth 8 rgb:- | od -An -v -tu1 -w3");
  long n = 0;
  std::istringstream in(s.out);
  int r, g, b;
  while (in >> r >> g >> b)
    if (g > 150 && r < 100 && b < 100) ++n;
  return n;
}

long screenshot_green(const std::string& dir, const std::string& gtkwave_args, const std::string& name) {
  std::string png = dir + "/" + name + ".png";
  Shell s = shell("xvfb-run -a -s '-screen 0 1400x900x24' sh -c 'gtkwave " + gtkwave_args +
                  " >/dev/null 2>&1 & pid=$!; sleep 8; import-im6.q16 -window root " + png + "; kill $pid'");
  INFO(s.out);
  REQUIRE(slurp(png).size() > 1000);
  return green_pixels(png);
}
}  // namespace

TEST_CASE("GTKWave opens the VCD with the save file's signals drawn", "[platform][trace][gtkwave]") {
  std::string dir = scratch("gtkwave");
  REQUIRE(shell(std::string(VP_SERVER_BIN) + " --preset quick --trace vcd --out " + dir).status == 0);
  long with_view = screenshot_green(dir, "-a " + dir + "/waves.gtkw " + dir + "/waves.vcd", "with");
  long bare = screenshot_green(dir, dir + "/waves.vcd", "bare");
  INFO("green pixels with the save file " << with_view << ", without " << bare);
  CHECK(with_view > 5000);
  CHECK(bare < 100);
}
