#ifndef BRIDGE_HAL_RP2040_H
#define BRIDGE_HAL_RP2040_H

/* Drives every output low (relay off) and sets up the inputs; the very first thing main() does. */
void hal_rp2040_init_pins(void);

#endif
