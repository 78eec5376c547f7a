/* RP2040 entry point: outputs safe, firmware, then a chip watchdog so a hung loop resets the board. */
#include "hardware/watchdog.h"
#include "pico/stdlib.h"

#include "../../src/firmware.h"
#include "hal_rp2040.h"

/* Far above one loop iteration; a reset brings the relay down and BOOT (reset cause 1) to the host. */
#define CHIP_WATCHDOG_MS 100

static firmware_t fw;

int main(void)
{
	hal_rp2040_init_pins();
	firmware_init(&fw);
	watchdog_enable(CHIP_WATCHDOG_MS, true);
	for (;;) {
		firmware_poll(&fw);
		watchdog_update();
	}
}
