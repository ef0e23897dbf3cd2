// SPDX-License-Identifier: GPL-2.0
/*
 * chworkload_attr: FlashShare's utility to give an application a workload
 * attribute (0 = throughput / no hint, 1 = latency-critical, any 0..255 is
 * passed to the SSD as is), for the guest kernel patched by
 * sw/kernel/patches/0001-workload-attr-task.patch.
 *
 *   chworkload_attr                     print this process's attribute
 *   chworkload_attr ATTR [--] CMD ARGS  run CMD with ATTR (inherited by its
 *                                       children and threads), like nice
 *   chworkload_attr -p PID              print process PID's attribute
 *   chworkload_attr -p PID ATTR         set it for every thread of PID
 *
 * The running process uses prctl(PR_SET_WORKLOAD_ATTR); another process is
 * reached through /proc/PID/workload_attr. A non-zero attribute, or another
 * process, needs CAP_SYS_NICE. Exit status as nice(1): 125 when this tool
 * fails, 126 when CMD cannot run, 127 when it is not found, else CMD's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* From the patched include/uapi/linux/prctl.h (not in the host's headers). */
#ifndef PR_SET_WORKLOAD_ATTR
#define PR_SET_WORKLOAD_ATTR 0x46565701
#define PR_GET_WORKLOAD_ATTR 0x46565702
#endif

#define EXIT_TOOL 125

static const char *prog = "chworkload_attr";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s                         print this process's workload attribute\n"
		"       %s ATTR [--] CMD [ARGS...] run CMD with workload attribute ATTR\n"
		"       %s -p PID [ATTR]           print or set process PID's attribute\n"
		"ATTR: 0 = throughput (none), 1 = latency-critical; 0..255\n",
		prog, prog, prog);
}

/* Strict decimal in [0, max]; returns -1 otherwise. */
static long parse_num(const char *s, long max)
{
	char *end;
	long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}

static void explain(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err));
	if (err == EINVAL || err == ENOENT)
		fprintf(stderr, "%s: is this kernel built with the FlashVP workload attribute patches?\n", prog);
	else if (err == EPERM || err == EACCES)
		fprintf(stderr, "%s: a non-zero attribute or another process needs CAP_SYS_NICE\n", prog);
}

static int read_pid_attr(long pid, long *attr)
{
	char path[64], buf[16];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/workload_attr", pid);
	f = fopen(path, "r");
	if (!f) {
		int err = errno;

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (err == ENOENT && access(path, F_OK) != 0) {
			fprintf(stderr, "%s: no process %ld\n", prog, pid);
			return -1;
		}
		snprintf(path, sizeof(path), "/proc/%ld/workload_attr", pid);
		explain(path, err);
		return -1;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "%s: %s: nothing to read\n", prog, path);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	*attr = parse_num(buf, 255);
	if (*attr < 0) {
		fprintf(stderr, "%s: %s: unexpected contents '%s'\n", prog, path, buf);
		return -1;
	}
	return 0;
}

static int write_pid_attr(long pid, long attr)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/workload_attr", pid);
	f = fopen(path, "w");
	if (!f) {
		explain(path, errno);
		return -1;
	}
	/* The kernel's verdict comes at the write, which stdio defers to fclose. */
	fprintf(f, "%ld\n", attr);
	if (fclose(f) != 0) {
		explain(path, errno);
		return -1;
	}
	return 0;
}

static int by_pid(int argc, char **argv)
{
	long pid, attr, old;

	if (argc < 3 || argc > 4 || (pid = parse_num(argv[2], 0x7fffffff)) <= 0) {
		usage(stderr);
		return EXIT_TOOL;
	}
	if (read_pid_attr(pid, &old))
		return EXIT_TOOL;
	if (argc == 3) {
		printf("pid %ld: workload attribute %ld\n", pid, old);
		return 0;
	}
	attr = parse_num(argv[3], 255);
	if (attr < 0) {
		fprintf(stderr, "%s: bad attribute '%s' (0..255)\n", prog, argv[3]);
		return EXIT_TOOL;
	}
	if (write_pid_attr(pid, attr))
		return EXIT_TOOL;
	printf("pid %ld: workload attribute %ld -> %ld\n", pid, old, attr);
	return 0;
}

int main(int argc, char **argv)
{
	long attr;
	int cmd;

	if (argc == 1) {
		int cur = prctl(PR_GET_WORKLOAD_ATTR, 0, 0, 0, 0);

		if (cur < 0) {
			explain("PR_GET_WORKLOAD_ATTR", errno);
			return EXIT_TOOL;
		}
		printf("%d\n", cur);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-p"))
		return by_pid(argc, argv);

	attr = parse_num(argv[1], 255);
	if (attr < 0) {
		fprintf(stderr, "%s: bad attribute '%s' (0..255)\n", prog, argv[1]);
		usage(stderr);
		return EXIT_TOOL;
	}
	cmd = 2;
	if (cmd < argc && !strcmp(argv[cmd], "--"))
		cmd++;
	if (cmd >= argc) {
		usage(stderr);
		return EXIT_TOOL;
	}
	if (prctl(PR_SET_WORKLOAD_ATTR, (unsigned long)attr, 0, 0, 0) != 0) {
		explain("PR_SET_WORKLOAD_ATTR", errno);
		return EXIT_TOOL;
	}
	execvp(argv[cmd], argv + cmd);
	fprintf(stderr, "%s: %s: %s\n", prog, argv[cmd], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
