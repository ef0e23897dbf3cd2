// SPDX-License-Identifier: GPL-2.0
// mmio-bench: the cost of one register read and one register write of the
// first NVMe controller, as the guest sees it. Maps BAR0 through sysfs
// (resource0) and times N reads of VS and N writes of INTMC with 0 (which
// changes nothing: no interrupt is masked or unmasked).
//   mmio-bench [N]
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  DIR* d = opendir("/sys/bus/pci/devices");
  if (!d) return perror("/sys/bus/pci/devices"), 1;
  char path[512] = "";
  for (struct dirent* e; (e = readdir(d));) {
    char cls[64] = "";
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
    FILE* f = fopen(path, "r");
    if (!f) continue;
    if (!fgets(cls, sizeof cls, f)) cls[0] = 0;
    fclose(f);
    if (strncmp(cls, "0x010802", 8) == 0) {
      snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/resource0", e->d_name);
      break;
    }
    path[0] = 0;
  }
  closedir(d);
  if (!path[0]) return fprintf(stderr, "no NVMe controller\n"), 1;
  int fd = open(path, O_RDWR | O_SYNC);
  if (fd < 0) return perror(path), 1;
  volatile uint32_t* bar = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (bar == MAP_FAILED) return perror("mmap"), 1;
  uint32_t sink = 0;
  double t0 = now_ns();
  for (int i = 0; i < n; i++) sink += bar[0x08 / 4];  // VS
  double t1 = now_ns();
  for (int i = 0; i < n; i++) bar[0x10 / 4] = 0;  // INTMC: clear no mask bit
  (void)bar[0x08 / 4];                           // the writes are posted: one read flushes them
  double t2 = now_ns();
  printf("MMIO-RESULT reads=%d read_ns=%.0f write_ns=%.0f vs=%08x\n", n, (t1 - t0) / n, (t2 - t1) / n,
         sink / (uint32_t)n);
  return 0;
}
