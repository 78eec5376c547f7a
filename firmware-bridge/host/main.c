/*
 * bridge-host <tty-path>: the board firmware on Linux, talking over a tty (a socat pty in tests).
 * stdin drives the board: passage | fire 0|1 | door 0|1 | reset | quit (EOF quits too).
 * stdout reports every output change and firmware event, one line each: "<ms> <what> <value>".
 */
#define _DEFAULT_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../src/firmware.h"
#include "../src/hal.h"
#include "hal_posix.h"

#define LINE_MAX_LEN 64u
#define TICK_MS 1
#define RESET_CAUSE_EXTERNAL 3u

static firmware_t fw;

/* Returns 0 to quit. */
static int run_command(const char *line)
{
	int level;

	if (strcmp(line, "passage") == 0)
		hal_posix_passage();
	else if (sscanf(line, "fire %d", &level) == 1)
		hal_posix_set_input(HAL_IN_FIRE, level != 0);
	else if (sscanf(line, "door %d", &level) == 1)
		hal_posix_set_input(HAL_IN_DOOR, level != 0);
	else if (strcmp(line, "reset") == 0) {
		hal_posix_set_reset_cause(RESET_CAUSE_EXTERNAL);
		firmware_init(&fw);
	} else if (strcmp(line, "quit") == 0)
		return 0;
	else if (line[0] != 0)
		printf("%lu error unknown-command\n", (unsigned long)hal_millis());
	return 1;
}

/* Returns 0 on quit or EOF. */
static int read_stdin(void)
{
	static char line[LINE_MAX_LEN];
	static size_t len;
	char chunk[256];
	ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
	ssize_t i;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (chunk[i] == '\n') {
			line[len] = 0;
			len = 0;
			if (!run_command(line))
				return 0;
		} else if (chunk[i] != '\r' && len + 1 < sizeof line) {
			line[len++] = chunk[i];
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct pollfd fds[2];

	if (argc != 2) {
		fprintf(stderr, "usage: %s <tty-path>\n", argv[0]);
		return 2;
	}
	if (access(argv[1], R_OK | W_OK) != 0) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	hal_posix_setup(argv[1]);
	firmware_init(&fw);
	for (;;) {
		fds[0].fd = hal_posix_tty_fd();
		fds[0].events = POLLIN;
		fds[0].revents = 0;
		fds[1].fd = STDIN_FILENO;
		fds[1].events = POLLIN;
		fds[1].revents = 0;
		poll(fds, 2, TICK_MS);
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR) && !read_stdin())
			break;
		if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			hal_posix_tty_lost();
		hal_posix_tick();
		firmware_poll(&fw);
	}
	return 0;
}
