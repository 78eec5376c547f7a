// The check-in decision rules, pure: no I/O, no clock, no Node built-ins, nothing imported but these
// files and src/lib (the lint step refuses the rest), so a browser bundle can carry them unchanged.
export * from './calendar.js';
export * from './checkin.js';
export * from './doubles.js';
export * from './input.js';
export * from './movement.js';
export * from './refusal.js';
export * from './reversal.js';
