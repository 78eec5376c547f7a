/* Linux side of the host build: the tty the firmware talks over, and simulated inputs. */
#ifndef BRIDGE_HAL_POSIX_H
#define BRIDGE_HAL_POSIX_H

#include <stdint.h>

void hal_posix_setup(const char *tty_path);
/* The open tty, or -1 while it is gone (socat restarted): poll() skips negative fds. */
int hal_posix_tty_fd(void);
/* Called when poll() reports a hang-up: close now, reopen from hal_posix_tick(). */
void hal_posix_tty_lost(void);
/* Reopens a lost tty and ends a simulated passage pulse; call before every firmware_poll(). */
void hal_posix_tick(void);

void hal_posix_passage(void);
void hal_posix_set_input(uint8_t bit, int level);
void hal_posix_set_reset_cause(uint8_t cause);

#endif
