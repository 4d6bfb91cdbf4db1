/** Statistics per docs/stats-spec.md: pure functions, no I/O. */
export * from "./special.js";
export * from "./paired.js";
export * from "./intervals.js";
export * from "./multiplicity.js";
export * from "./repeated.js";
export * from "./metrics.js";
export * from "./sequential.js";
export * from "./monitor.js";
export * from "./cost.js";
export * from "./bootstrap.js";
export * from "./agreement.js";
